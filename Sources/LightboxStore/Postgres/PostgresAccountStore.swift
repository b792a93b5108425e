import Foundation

/// The accounts of a library whose catalog is on PostgreSQL, in tables beside the catalog
/// (schema step v22): every server of the library signs in the same users, and a session
/// begun through one server is good on the others. The statements are ``SQLAccountStore``'s.
struct PostgresAccountStore: SQLAccountStore {
    let pool: PostgresPool

    var transactions: any SQLTransactions { PostgresPoolTransactions(pool: pool) }

    /// The tables, as SQLite's accounts migrations leave them (v1, v2).
    static let schema = [
        """
        CREATE TABLE "user" (
            id TEXT PRIMARY KEY,
            name TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 64),
            role TEXT NOT NULL CHECK (role IN ('admin', 'member')),
            passwordHash TEXT NOT NULL,
            libraryFolder TEXT NOT NULL UNIQUE,
            creationDate DOUBLE PRECISION NOT NULL
        )
        """,
        "CREATE UNIQUE INDEX user_on_lower_name ON \"user\" (lower(name))",
        """
        CREATE TABLE session (
            id TEXT PRIMARY KEY,
            userId TEXT NOT NULL REFERENCES "user"(id) ON DELETE CASCADE,
            secretHash TEXT NOT NULL UNIQUE,
            creationDate DOUBLE PRECISION NOT NULL,
            lastSeenDate DOUBLE PRECISION NOT NULL,
            expirationDate DOUBLE PRECISION NOT NULL,
            userAgent TEXT NOT NULL,
            address TEXT NOT NULL
        )
        """,
        "CREATE INDEX session_on_userId ON session (userId)",
        """
        CREATE TABLE token (
            id TEXT PRIMARY KEY,
            userId TEXT NOT NULL REFERENCES "user"(id) ON DELETE CASCADE,
            name TEXT NOT NULL,
            secretHash TEXT NOT NULL UNIQUE,
            scope TEXT NOT NULL CHECK (scope IN ('read', 'write')),
            limitedTo TEXT,
            creationDate DOUBLE PRECISION NOT NULL,
            expirationDate DOUBLE PRECISION,
            lastUsedDate DOUBLE PRECISION
        )
        """,
        "CREATE INDEX token_on_userId ON token (userId)",
        """
        CREATE TABLE share (
            id TEXT PRIMARY KEY,
            ownerId TEXT NOT NULL REFERENCES "user"(id) ON DELETE CASCADE,
            albumId TEXT NOT NULL,
            recipientId TEXT REFERENCES "user"(id) ON DELETE CASCADE,
            linkKey TEXT UNIQUE,
            permission TEXT NOT NULL CHECK (permission IN ('view', 'contribute')),
            passwordHash TEXT,
            expirationDate DOUBLE PRECISION,
            creationDate DOUBLE PRECISION NOT NULL,
            CHECK ((recipientId IS NULL) <> (linkKey IS NULL)),
            CHECK (linkKey IS NULL OR permission = 'view'),
            UNIQUE (albumId, ownerId, recipientId)
        )
        """,
        "CREATE INDEX share_on_ownerId ON share (ownerId)",
        "CREATE INDEX share_on_recipientId ON share (recipientId)",
    ]
}

/// A PostgreSQL pool's transactions, as account stores take them: reads of one state, writes
/// in read committed (each account call is a statement or two), on threads of blocking work.
struct PostgresPoolTransactions: SQLTransactions {
    let pool: PostgresPool

    func read<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) throws -> T) async throws -> T {
        try await BlockingWork.run { [pool] in
            try pool.withLink { link in
                try link.transaction(.repeatableRead, readOnly: true) { try body(PostgresTransaction(link: link)) }
            }
        }
    }

    func write<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) throws -> T) async throws -> T {
        try await BlockingWork.run { [pool] in
            try pool.withLink { link in try link.transaction { try body(PostgresTransaction(link: link)) } }
        }
    }
}
