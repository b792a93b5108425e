@testable import Lightbox
@testable import LightboxStore

extension PhotoLibrary {
    /// Runs raw statements on the library's catalog in one write transaction of its own store,
    /// SQLite or PostgreSQL: the suites make states no public call makes (flags varied at
    /// random, rows without files) and read what no public call shows (the change log), on
    /// either store alike. The library's own code cannot: the SQL layer is the store's alone.
    func withCatalog<T>(_ body: (any SQLDatabase) throws -> T) throws -> T {
        try store.writeSQL(body)
    }
}
