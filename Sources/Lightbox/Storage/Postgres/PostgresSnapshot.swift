import Foundation

/// One state of a PostgreSQL catalog that fetch results read, as a SQLite `DatabaseSnapshot`
/// is: a connection of its own in a repeatable-read, read-only transaction, so every read sees
/// the catalog as it was when the snapshot was taken, whatever commits since. Reads take turns
/// on the connection. The transaction ends when the last holder lets the snapshot go, and the
/// connection serves the next snapshot (``PostgresPool/takeSpare()``).
final class PostgresSnapshot: CatalogSnapshot, @unchecked Sendable {
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

/// Hands out snapshots to fetch results: one per state of the catalog, shared by every fetch
/// made while nothing commits, so that many live results cost one connection, not one each
/// (``SnapshotCache`` does the same on SQLite). A state is the last change transaction, and
/// this process's count of writes: a write that records no change (cameras read after import)
/// is seen by the fetches made after it.
final class PostgresSnapshotCache: @unchecked Sendable {
    // @unchecked: `current` is read and written only while holding `lock`.
    private let lock = NSLock()
    private var current: (writes: UInt64, snapshot: PostgresSnapshot)?

    /// A snapshot of the state whose last change transaction is `token` (read just before by
    /// the caller) after `writes` local writes, the current one when it is of that state.
    func snapshot(token: Int64, writes: UInt64 = 0, make: () throws -> PostgresSnapshot) throws -> PostgresSnapshot {
        lock.lock()
        if let current, current.snapshot.token == token, current.writes == writes {
            lock.unlock()
            return current.snapshot
        }
        lock.unlock()
        let snapshot = try make()
        lock.lock()
        // Kept while it is the newest: the one it replaces lives on in the results holding it.
        if current.map({ $0.snapshot.token <= snapshot.token && $0.writes <= writes }) ?? true {
            current = (writes, snapshot)
        }
        lock.unlock()
        return snapshot
    }
}
