import Foundation
import GRDB

/// The store-side steps of `lightbox migrate`: a SQLite catalog (and the accounts beside it)
/// copied into a PostgreSQL one in one transaction, while the SQLite writer is held so that
/// nothing commits meanwhile.
enum CatalogMigration {
    /// The setting a finished copy leaves in the target: the source it came from, so that a
    /// migration run again after a crash knows the copy is done.
    static let markerKey = "migratedFrom"

    /// Runs `body` holding SQLite's write lock (no other process commits until it returns),
    /// with the catalog to read.
    static func holdingWrites<T>(_ source: SQLiteStore, _ body: (any SQLDatabase) throws -> T) throws -> T {
        try source.writer.write { db in try body(db) }
    }

    /// The source named in a finished copy into `target`; nil when none was made.
    static func finishedCopy(in target: PostgresStore) throws -> String? {
        try target.pool.withLink { link in
            try link.value("SELECT value FROM librarySetting WHERE key = ?", [.text(markerKey)])?.text
        }
    }

    /// Copies the catalog `source` reads (and the accounts, when there are any) into `target` in
    /// one transaction, with the originals' place and the marker naming `origin`. Refuses a
    /// target that holds a library already.
    static func copy(
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
    func memberLibraryFolders() throws -> [String] {
        try read { try $0.texts("SELECT libraryFolder FROM \"user\" WHERE libraryFolder <> ''") }
    }

    /// Reads the accounts in one transaction, blocking the caller (`lightbox migrate`).
    func read<T>(_ body: (any SQLDatabase) throws -> T) throws -> T {
        try pool.read { db in try body(db) }
    }
}
