import Foundation
import GRDB

/// Hands out database snapshots to fetch results: one per state of the library, shared by
/// every fetch made while no transaction commits, so that many live results cost one
/// connection, not one each. A snapshot closes when the last result holding it goes.
///
/// A state is the last change transaction, and this process's count of writes: a write that
/// records no change (cameras read after import) is seen by the fetches made after it.
final class SnapshotCache: @unchecked Sendable {
    // @unchecked: `current` is read and written only while holding `lock`.
    private let lock = NSLock()
    private var current: (token: Int64, writes: UInt64, snapshot: SQLiteSnapshot)?

    func snapshot(of pool: DatabasePool, localWrites writes: UInt64) throws -> SQLiteSnapshot {
        let token = try pool.read(SQLiteStore.lastChangeTransaction)
        lock.lock()
        if let current, current.token == token, current.writes == writes {
            lock.unlock()
            return current.snapshot
        }
        lock.unlock()
        let snapshot = SQLiteSnapshot(snapshot: try pool.makeSnapshot())
        let snapshotToken = try snapshot.snapshot.read(SQLiteStore.lastChangeTransaction)
        lock.lock()
        current = (snapshotToken, writes, snapshot)
        lock.unlock()
        return snapshot
    }
}

/// A SQLite snapshot as fetch results read it.
struct SQLiteSnapshot: CatalogSnapshot {
    let snapshot: DatabaseSnapshot

    func read<T>(_ body: (any SQLDatabase) throws -> T) throws -> T {
        try snapshot.read { db in try body(db) }
    }
}
