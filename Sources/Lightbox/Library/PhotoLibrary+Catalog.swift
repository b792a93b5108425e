import Foundation

extension PhotoLibrary {
    /// Runs raw statements on the library's catalog in one write transaction of its own store,
    /// SQLite or PostgreSQL: for the test suites, which make states no public call makes (flags
    /// varied at random, rows without files) and read what no public call shows (the change
    /// log), on either store alike.
    func withCatalog<T>(_ body: (any SQLDatabase) throws -> T) throws -> T {
        try store.write { writer in
            guard let transaction = writer as? CatalogTransaction else {
                throw LibraryError(.storageFailed, "the store's writer is not a catalog transaction")
            }
            return try body(transaction.db)
        }
    }
}

extension PhotoLibrary {
    /// The accounts (users, sessions, tokens, shares) of the server serving this library: with
    /// its catalog on PostgreSQL, tables beside it that every server of the library shares;
    /// else `accounts.sqlite` in its folder.
    public func accountStore() throws -> any AccountStore {
        if let postgres = store as? PostgresStore { return PostgresAccountStore(pool: postgres.pool) }
        return try SQLiteAccountStore(libraryURL: url)
    }
}

extension PhotoLibrary {
    /// The library of one of this library's server's members, in `folder` inside this one's
    /// (`users/ID`), made on first use. On PostgreSQL it is a schema of its own in the same
    /// database, its originals under the same bucket's prefix, so that every server of the
    /// library opens the same one from a folder of its own.
    public func memberLibrary(
        folder: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> PhotoLibrary {
        let memberURL = try UserAccount.libraryURL(folder: folder, inside: url)
        guard memberURL != url else {
            throw LibraryError(.invalidRequest, "a member's library needs a folder of its own")
        }
        guard let postgres = store as? PostgresStore else { return try PhotoLibrary(url: memberURL) }
        let schema = Self.memberSchema(folder: folder)
        var originals = try postgres.sharedOriginals()
        if let shared = originals { originals?.url = shared.url + "/" + folder }
        return try PhotoLibrary(
            url: memberURL, originals: originals, database: postgres.address.schema(schema).description,
            environment: environment)
    }
}
