import Foundation

/// Hands out snapshots to fetch results: one per state of the catalog, shared by every fetch
/// made while nothing commits, so that many live results cost one snapshot (a SQLite
/// `DatabaseSnapshot`, a PostgreSQL connection), not one each. A snapshot ends when the last
/// result holding it goes, or, when the cache keeps it, once a newer state replaces it.
///
/// A state is the last change transaction, and this process's count of writes: a write that
/// records no change (cameras read after import) is seen by the fetches made after it.
final class SnapshotCache<Snapshot: CatalogSnapshot & AnyObject>: @unchecked Sendable {
    // @unchecked: the fields below are read and written only while holding `lock`.
    private let lock = NSLock()
    /// Whether the newest snapshot outlives its results, for the next fetch of the same state.
    private let keepsNewest: Bool
    private var token: Int64 = .min
    private var writes: UInt64 = 0
    private var kept: Snapshot?
    private weak var newest: Snapshot?

    /// A cache that keeps the newest snapshot (`keepsNewest`: SQLite's, where a snapshot is a
    /// connection of its own to open) or lets it end with the last result holding it
    /// (PostgreSQL's, where it is an open transaction: one left open would keep every row
    /// version deleted since from the vacuum, and every page from the visibility map, on every
    /// server, for as long as its process made no other fetch).
    init(keepsNewest: Bool = true) {
        self.keepsNewest = keepsNewest
    }

    /// A snapshot of the state whose last change transaction is `token` (read just before by the
    /// caller) after `writes` local writes: the current one when it is of that state, else the
    /// one `make` takes, with the last change transaction it sees.
    func snapshot(token: Int64, writes: UInt64, make: () throws -> (Snapshot, token: Int64)) throws -> Snapshot {
        if let current = lock.withLock({ self.token == token && self.writes == writes ? newest : nil }) {
            return current
        }
        let (snapshot, seen) = try make()
        lock.withLock {
            // Kept while it is the newest: the one it replaces lives on in the results holding it.
            if newest == nil || (self.token <= seen && self.writes <= writes) {
                (self.token, self.writes, newest) = (seen, writes, snapshot)
                if keepsNewest { kept = snapshot }
            }
        }
        return snapshot
    }
}
