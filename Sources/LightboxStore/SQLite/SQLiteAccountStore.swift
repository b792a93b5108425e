import Foundation
import GRDB

/// The server's accounts in a SQLite file of their own (`accounts.sqlite` in the server's
/// library folder): a sign-in or a token check never waits behind an import's write. The
/// statements are ``SQLAccountStore``'s, shared with PostgreSQL's accounts.
public struct SQLiteAccountStore: SQLAccountStore {
    /// The file's name inside the library folder.
    public static let filename = "accounts.sqlite"

    let pool: DatabasePool
    var transactions: any SQLTransactions { SQLitePoolTransactions(pool: pool) }

    /// Opens (creating when missing) and migrates the accounts of the library at `libraryURL`.
    public init(libraryURL: URL) throws {
        let path = libraryURL.standardizedFileURL.path + "/" + Self.filename
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.label = "Lightbox accounts"
        configuration.busyMode = .timeout(10)
        do {
            let lock = try SQLiteStore.lockMigrations(path)
            defer { close(lock) }
            pool = try DatabasePool(path: path, configuration: configuration)
            try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
            let migrator = Self.migrator
            try pool.read { db in
                let unknown = try migrator.appliedIdentifiers(db).subtracting(Set(migrator.migrations))
                if !unknown.isEmpty {
                    throw LibraryError(
                        .newerLibraryVersion,
                        "the accounts were written by a newer version of Lightbox (\(unknown.sorted().joined(separator: ", ")))",
                        path: path)
                }
            }
            try migrator.migrate(pool)
        } catch let error as LibraryError {
            throw error
        } catch {
            throw LibraryError(
                .storageFailed, "cannot open the accounts database: \(error)", path: path, underlying: error)
        }
    }

    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: users, sessions, tokens") { db in
            try db.execute(
                sql: """
                    CREATE TABLE user (
                        id TEXT PRIMARY KEY NOT NULL,
                        name TEXT NOT NULL UNIQUE COLLATE NOCASE CHECK (length(name) BETWEEN 1 AND 64),
                        role TEXT NOT NULL CHECK (role IN ('admin', 'member')),
                        passwordHash TEXT NOT NULL,
                        libraryFolder TEXT NOT NULL UNIQUE,
                        creationDate REAL NOT NULL
                    );
                    CREATE TABLE session (
                        id TEXT PRIMARY KEY NOT NULL,
                        userId TEXT NOT NULL REFERENCES user(id) ON DELETE CASCADE,
                        secretHash TEXT NOT NULL UNIQUE,
                        creationDate REAL NOT NULL,
                        lastSeenDate REAL NOT NULL,
                        expirationDate REAL NOT NULL,
                        userAgent TEXT NOT NULL,
                        address TEXT NOT NULL
                    );
                    CREATE INDEX sessionByUser ON session(userId);
                    CREATE TABLE token (
                        id TEXT PRIMARY KEY NOT NULL,
                        userId TEXT NOT NULL REFERENCES user(id) ON DELETE CASCADE,
                        name TEXT NOT NULL,
                        secretHash TEXT NOT NULL UNIQUE,
                        scope TEXT NOT NULL CHECK (scope IN ('read', 'write')),
                        limitedTo TEXT,
                        creationDate REAL NOT NULL,
                        expirationDate REAL,
                        lastUsedDate REAL
                    );
                    CREATE INDEX tokenByUser ON token(userId);
                    """)
        }
        migrator.registerMigration("v2: shared albums and links") { db in
            try db.execute(
                sql: """
                    CREATE TABLE share (
                        id TEXT PRIMARY KEY NOT NULL,
                        ownerId TEXT NOT NULL REFERENCES user(id) ON DELETE CASCADE,
                        albumId TEXT NOT NULL,
                        recipientId TEXT REFERENCES user(id) ON DELETE CASCADE,
                        linkKey TEXT UNIQUE,
                        permission TEXT NOT NULL CHECK (permission IN ('view', 'contribute')),
                        passwordHash TEXT,
                        expirationDate REAL,
                        creationDate REAL NOT NULL,
                        CHECK ((recipientId IS NULL) != (linkKey IS NULL)),
                        CHECK (linkKey IS NULL OR permission = 'view'),
                        UNIQUE (albumId, ownerId, recipientId)
                    );
                    CREATE INDEX shareByOwner ON share(ownerId);
                    CREATE INDEX shareByRecipient ON share(recipientId);
                    """)
        }
        return migrator
    }
}

/// A GRDB pool's transactions, as account stores take them.
struct SQLitePoolTransactions: SQLTransactions {
    let pool: DatabasePool

    func read<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) throws -> T) async throws -> T {
        try await pool.read { db in try body(db) }
    }

    func write<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) throws -> T) async throws -> T {
        try await pool.write { db in try body(db) }
    }
}
