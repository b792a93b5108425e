import Foundation
import GRDB

/// The store-side steps of `lightbox migrate`: a SQLite catalog (and the accounts beside it)
/// copied into a PostgreSQL one in one transaction, while the SQLite writer is held so that
/// nothing commits meanwhile.
package enum CatalogMigration {
    /// The setting a finished copy leaves in the target: the source it came from, so that a
    /// migration run again after a crash knows the copy is done.
    package static let markerKey = "migratedFrom"

    /// The source named in a finished copy into the catalog at `address` (its schema made when
    /// missing); nil when none was made.
    package static func finishedCopy(into address: PostgresAddress, environment: [String: String]) throws -> String? {
        let target = try PostgresStore(address: address, environment: environment)
        return try target.pool.withLink { link in
            try link.value("SELECT value FROM librarySetting WHERE key = ?", [.text(markerKey)])?.text
        }
    }

    /// Copies the catalog of `source`, a library's SQLite file, (and the accounts, when there
    /// are any) into the catalog at `address` in one transaction, with the originals' place and
    /// the marker naming `origin`, holding SQLite's write lock so that no other process commits
    /// meanwhile. Refuses a target that holds a library already.
    package static func copy(
        _ source: any LibraryStore, accounts: SQLiteAccountStore?, into address: PostgresAddress,
        environment: [String: String], originals: ObjectStorageSettings?, origin: String,
        copied: (String, Int) -> Void
    ) throws {
        guard let sqlite = source as? SQLiteStore else {
            throw LibraryError(.invalidRequest, "this library's catalog is on PostgreSQL already", path: origin)
        }
        let target = try PostgresStore(address: address, environment: environment)
        try sqlite.writer.write { source in
            try copy(source, accounts: accounts, into: target, originals: originals, origin: origin, copied: copied)
        }
    }

    private static func copy(
        _ source: any SQLDatabase, accounts: SQLiteAccountStore?, into target: PostgresStore,
        originals: ObjectStorageSettings?, origin: String, copied: (String, Int) -> Void
    ) throws {
        try target.pool.withLink { link in
            try link.transaction {
                let db = PostgresTransaction(link: link)
                let assets = try db.integer("SELECT COUNT(*) FROM asset") ?? 0
                let transactions = try db.integer("SELECT COUNT(*) FROM changeTransaction") ?? 0
                guard assets == 0, transactions == 0 else {
                    throw LibraryError(
                        .storageFailed,
                        "the catalog at \(target.address) holds a library already (\(assets) assets): migrate into an empty database"
                    )
                }
                try CatalogCopy.copy(CatalogCopy.tables, from: source, to: db, copied: copied)
                try CatalogCopy.advanceSequences(in: db)
                if let accounts {
                    _ = try accounts.read { accountsDB in
                        try CatalogCopy.copy(CatalogCopy.accountTables, from: accountsDB, to: db, copied: copied)
                    }
                }
                if let originals {
                    let json = String(decoding: try JSONEncoder().encode(originals), as: UTF8.self)
                    try db.execute(
                        "INSERT INTO librarySetting (key, value) VALUES ('originals', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                        [json])
                }
                try db.execute("INSERT INTO librarySetting (key, value) VALUES (?, ?)", [markerKey, origin])
            }
        }
    }
}

extension SQLiteAccountStore {
    /// The library folders of the users who have one of their own (`users/ID`).
    package func memberLibraryFolders() throws -> [String] {
        try read { try $0.texts("SELECT libraryFolder FROM \"user\" WHERE libraryFolder <> ''") }
    }

    /// Reads the accounts in one transaction, blocking the caller (`lightbox migrate`).
    func read<T>(_ body: (any SQLDatabase) throws -> T) throws -> T {
        try pool.read { db in try body(db) }
    }
}
