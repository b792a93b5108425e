import Foundation

/// Which store serves a library's catalog: the one place that names them, so that the library
/// opens a catalog by where it is and never knows which database it talks to.
package enum CatalogStores {
    /// Opens (making when missing, and bringing up to date) the catalog at `database`, a
    /// PostgreSQL address, or with nil the SQLite file at `filePath`.
    package static func open(
        database: String?, filePath: String, historyRetention: HistoryRetention,
        environment: [String: String]
    ) throws -> any LibraryStore {
        if let database {
            return try PostgresStore(
                address: try PostgresAddress(database), historyRetention: historyRetention, environment: environment)
        }
        return try SQLiteStore(path: filePath, historyRetention: historyRetention)
    }

    /// The name a SQLite catalog's lock file adds to the catalog's: what a process making the
    /// library may have written first.
    package static let fileLockSuffix = SQLiteStore.migrationLockSuffix
}
