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
