import Foundation

/// One state of a PostgreSQL catalog that fetch results read, as a SQLite `DatabaseSnapshot`
/// is: a connection of its own in a repeatable-read, read-only transaction, so every read sees
/// the catalog as it was when the snapshot was taken, whatever commits since. Reads take turns
/// on the connection. The transaction ends when the last holder lets the snapshot go, and the
/// connection serves the next snapshot (``PostgresPool/takeSpare()``).
final class PostgresSnapshot: CatalogSnapshot, @unchecked Sendable {
    let memory = SnapshotMemory()
    // @unchecked: `link` is used only while holding `lock`.
    private let link: PostgresLink
    private let lock = NSLock()
    /// The last change transaction the snapshot sees.
    let token: Int64
    /// Where the connection goes when the snapshot ends, out of its transaction.
    private let release: @Sendable (PostgresLink) -> Void

    /// Takes the snapshot on `link`, which it keeps for its life and then hands to `release`
    /// (by default, closes).
    init(link: PostgresLink, release: @escaping @Sendable (PostgresLink) -> Void = { _ in }) throws {
        self.link = link
        self.release = release
        try link.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        // The first statement fixes the state the transaction sees.
        token = try PostgresTransaction(link: link).lastChangeTransaction()
    }

    deinit {
        if (try? link.execute("ROLLBACK")) != nil { release(link) }
    }

    /// Runs `body` on the snapshot's state.
    func read<T>(_ body: (any SQLDatabase) throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(PostgresTransaction(link: link))
    }
}
