import Foundation
import GRDB

extension SQLiteStore: LibraryStore {
    func read<T>(_ body: (any StoreReader) throws -> T) throws -> T {
        try writer.read { db in try body(CatalogTransaction(db: db, retention: historyRetention)) }
    }

    func read<T: Sendable>(_ body: @escaping @Sendable (any StoreReader) throws -> T) async throws -> T {
        try await writer.read { [historyRetention] db in
            try body(CatalogTransaction(db: db, retention: historyRetention))
        }
    }

    func write<T>(_ body: (any StoreWriter) throws -> T) throws -> T {
        // Counted once the transaction is over, committed or not: a memory of reads taken
        // before it then no longer matches.
        defer { writes.increment() }
        return try writer.write { db in
            let transaction = CatalogTransaction(db: db, retention: historyRetention)
            let result = try body(transaction)
            try transaction.finishWrite()
            return result
        }
    }

    var localWrites: UInt64 { writes.value }

    var sharedAddress: String? { nil }

    func sharedOriginals() throws -> ObjectStorageSettings? { nil }

    func shareOriginals(_ settings: ObjectStorageSettings) throws -> ObjectStorageSettings? { nil }

    func accountStore(libraryFolder: URL) throws -> any AccountStore {
        try SQLiteAccountStore(libraryURL: libraryFolder)
    }

    /// Another process's commit shows only in the file: looked at ten times a second.
    func waitForChanges() async {
        try? await Task.sleep(for: .milliseconds(100))
    }
}

extension SQLiteStore: CatalogFetching {
    var dialect: SQLDialect { .sqlite }

    func fetchSnapshot() throws -> any CatalogSnapshot {
        try snapshots.snapshot(token: try writer.read { try $0.lastChangeTransaction() }, writes: localWrites) {
            let snapshot = try writer.makeSnapshot()
            return (SQLiteSnapshot(snapshot: snapshot), try snapshot.read { try $0.lastChangeTransaction() })
        }
    }
}

/// A SQLite snapshot as fetch results read it.
final class SQLiteSnapshot: CatalogSnapshot {
    let memory = SnapshotMemory()
    let snapshot: DatabaseSnapshot

    init(snapshot: DatabaseSnapshot) {
        self.snapshot = snapshot
    }

    func read<T>(_ body: (any SQLDatabase) throws -> T) throws -> T {
        try snapshot.read { db in try body(db) }
    }
}
