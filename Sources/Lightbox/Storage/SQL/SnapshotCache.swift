import Foundation

/// Hands out snapshots to fetch results: one per state of the catalog, shared by every fetch
/// made while nothing commits, so that many live results cost one snapshot (a SQLite
/// `DatabaseSnapshot`, a PostgreSQL connection), not one each. A snapshot ends when the last
/// result holding it goes.
///
/// A state is the last change transaction, and this process's count of writes: a write that
/// records no change (cameras read after import) is seen by the fetches made after it.
final class SnapshotCache<Snapshot: CatalogSnapshot>: @unchecked Sendable {
    // @unchecked: `current` is read and written only while holding `lock`.
    private let lock = NSLock()
    private var current: (token: Int64, writes: UInt64, snapshot: Snapshot)?

    /// A snapshot of the state whose last change transaction is `token` (read just before by the
    /// caller) after `writes` local writes: the current one when it is of that state, else the
    /// one `make` takes, with the last change transaction it sees.
    func snapshot(token: Int64, writes: UInt64, make: () throws -> (Snapshot, token: Int64)) throws -> Snapshot {
        if let current = lock.withLock({ current }), current.token == token, current.writes == writes {
            return current.snapshot
        }
        let (snapshot, seen) = try make()
        lock.withLock {
            // Kept while it is the newest: the one it replaces lives on in the results holding it.
            if current.map({ $0.token <= seen && $0.writes <= writes }) ?? true { current = (seen, writes, snapshot) }
        }
        return snapshot
    }
}
