import Foundation
import GRDB

extension SQLiteStore: LibraryStore {
    func read<T>(_ body: (any StoreReader) throws -> T) throws -> T {
        try writer.read { db in try body(SQLiteTransaction(db: db, store: self)) }
    }

    func read<T: Sendable>(_ body: @escaping @Sendable (any StoreReader) throws -> T) async throws -> T {
        try await writer.read { db in try body(SQLiteTransaction(db: db, store: self)) }
    }

    func write<T>(_ body: (any StoreWriter) throws -> T) throws -> T {
        // Counted once the transaction is over, committed or not: a memory of reads taken
        // before it then no longer matches.
        defer { writes.increment() }
        return try writer.write { db in try body(SQLiteTransaction(db: db, store: self)) }
    }

    var localWrites: UInt64 { writes.value }
}

extension SQLiteStore: CatalogFetching {
    var dialect: SQLDialect { .sqlite }

    func fetchSnapshot() throws -> any CatalogSnapshot {
        try snapshots.snapshot(of: writer, localWrites: localWrites)
    }
}

/// The catalog's operations on one GRDB connection, inside the transaction GRDB opened for
/// them: a read transaction (where only the reads are called) or the write transaction.
struct SQLiteTransaction: StoreWriter {
    let db: Database
    let store: SQLiteStore

    // MARK: Reads

    func assetCount() throws -> Int {
        try db.assetCount()
    }

    func assets(limit: Int?, after: String?) throws -> [Asset] {
        try db.assets(limit: limit, after: after)
    }

    func asset(withLocalIdentifier localIdentifier: String) throws -> Asset? {
        try db.asset(withLocalIdentifier: localIdentifier)
    }

    func storedPath(of resource: AssetResource) throws -> String? {
        try db.storedPath(of: resource)
    }

    func timesAndPlaces() throws -> [AssetTimeAndPlace] {
        try db.timesAndPlaces()
    }

    func lastChangeTransaction() throws -> Int64 {
        try db.lastChangeTransaction()
    }

    func historyFloor() throws -> Int64 {
        try db.historyFloor()
    }

    func changes(after token: Int64, limit: Int?) throws -> [PersistentChange] {
        try db.changes(after: token, limit: limit)
    }

    func trashRetention() throws -> TimeInterval? {
        try db.trashRetention()
    }

    func trashedAssetIdentifiers(deletedBefore date: Date) throws -> [String] {
        try db.trashedAssetIdentifiers(deletedBefore: date)
    }

    func hasPendingRemovals() throws -> Bool {
        try db.hasPendingRemovals()
    }

    func pendingRemovals() throws -> [String] {
        try db.pendingRemovals()
    }

    func isReferenced(storedPath: String) throws -> Bool {
        try db.isReferenced(storedPath: storedPath)
    }

    func resourceCount(storedPath: String) throws -> Int {
        try db.resourceCount(storedPath: storedPath)
    }

    func integrityProblems() throws -> [String] {
        let integrity = try String.fetchAll(db, sql: "PRAGMA integrity_check").filter { $0 != "ok" }
        let foreignKeys = try Row.fetchAll(db, sql: "PRAGMA foreign_key_check").map { row in
            "row \(row[1] as Int64? ?? 0) of \(row[0] as String? ?? "?") refers to a missing \(row[2] as String? ?? "?")"
        }
        return integrity + foreignKeys
    }

    func storedResources() throws -> [StoredResource] {
        try db.storedResources()
    }

    func allAssetIdentifiers() throws -> [String] {
        try db.allAssetIdentifiers()
    }

    func captureDetailsBacklog(limit: Int) throws -> [CaptureDetailsBacklogItem] {
        try db.captureDetailsBacklog(limit: limit)
    }

    func captureDetailsBacklogCount() throws -> Int {
        try db.captureDetailsBacklogCount()
    }

    // MARK: Writes

    func fillCaptureDetails(_ filled: [CaptureDetailsBacklogItem.Filled], through rowID: Int64) throws {
        try db.fillCaptureDetails(filled, through: rowID)
    }

    func setTrashRetention(seconds: Int) throws {
        try db.setTrashRetention(seconds: seconds)
    }

    func clearPendingRemovals() throws {
        try db.clearPendingRemovals()
    }

    func apply(_ operations: [ChangeRequests.Operation], prepared: PreparedChanges) throws -> AppliedChanges {
        var applier = ChangeApplier(db: db, retention: store.historyRetention, prepared: prepared)
        return try applier.apply(operations)
    }
}
