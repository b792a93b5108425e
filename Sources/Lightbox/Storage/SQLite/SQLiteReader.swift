import Foundation
import GRDB

extension SQLiteStore: LibraryStore {
    func read<T>(_ body: (any StoreReader) throws -> T) throws -> T {
        try writer.read { db in try body(SQLiteReader(db: db)) }
    }

    func read<T: Sendable>(_ body: @escaping @Sendable (any StoreReader) throws -> T) async throws -> T {
        try await writer.read { db in try body(SQLiteReader(db: db)) }
    }

    func setTrashRetention(seconds: Int) throws {
        try writer.write { db in
            try db.execute(
                sql: "INSERT OR REPLACE INTO libraryState (key, value) VALUES ('trashRetentionSeconds', ?)",
                arguments: [seconds])
        }
    }
}

/// The catalog's reads on one GRDB connection, inside the transaction GRDB opened for them.
struct SQLiteReader: StoreReader {
    let db: Database

    func assetCount() throws -> Int {
        try AssetRecord.filter(Column("trashedDate") == nil).fetchCount(db)
    }

    func assets(limit: Int?, after: String?) throws -> [Asset] {
        var condition = AssetVisibility.defaultCondition
        var arguments = StatementArguments()
        if let after {
            guard
                let anchor = try AssetRecord.filter(AssetRecord.Columns.localIdentifier == after).fetchOne(db),
                let anchorID = anchor.id
            else {
                throw LibraryError(.assetNotFound, "no asset has the identifier \(after)")
            }
            condition += " AND (asset.creationDate, asset.id) < (?, ?)"
            arguments += [anchor.creationDate, anchorID]
        }
        condition += " ORDER BY asset.creationDate DESC, asset.id DESC"
        if let limit {
            condition += " LIMIT ?"
            arguments += [max(0, limit)]
        }
        return try AssetInfo.load(db, where: condition, arguments: arguments).map(\.model)
    }

    func asset(withLocalIdentifier localIdentifier: String) throws -> Asset? {
        try AssetInfo.load(db, where: "localIdentifier = ?", arguments: [localIdentifier]).first?.model
    }

    func storedPath(of resource: AssetResource) throws -> String? {
        try String.fetchOne(
            db,
            sql: """
                SELECT resource.storedPath FROM resource JOIN asset ON asset.id = resource.assetId
                WHERE asset.localIdentifier = ? AND resource.type = ?
                """,
            arguments: [resource.assetLocalIdentifier, resource.type.rawValue])
    }

    func timesAndPlaces() throws -> [AssetTimeAndPlace] {
        // In the order of the partial index: one pass, no sort.
        try Row.fetchAll(
            db,
            sql: """
                SELECT localIdentifier, creationDate, creationTimeZoneOffset, latitude, longitude FROM asset
                WHERE \(AssetVisibility.defaultCondition) ORDER BY creationDate, id
                """
        ).map { row in
            AssetTimeAndPlace(
                localIdentifier: row["localIdentifier"], creationDate: row["creationDate"],
                timeZoneOffset: row["creationTimeZoneOffset"], latitude: row["latitude"], longitude: row["longitude"])
        }
    }

    func lastChangeTransaction() throws -> Int64 {
        try SQLiteStore.lastChangeTransaction(db)
    }

    func historyFloor() throws -> Int64 {
        try SQLiteStore.historyFloor(db)
    }

    func changes(after token: Int64, limit: Int?) throws -> [PersistentChange] {
        var changes: [Int64: PersistentChange] = [:]
        var order: [Int64] = []
        let transactions = try Row.fetchCursor(
            db, sql: "SELECT id, date, author FROM changeTransaction WHERE id > ? ORDER BY id LIMIT ?",
            arguments: [token, limit.map { max(0, $0) } ?? -1])
        while let row = try transactions.next() {
            let id: Int64 = row["id"]
            changes[id] = PersistentChange(
                changeToken: PersistentChangeToken(rawValue: id), date: row["date"], author: row["author"],
                details: [:])
            order.append(id)
        }
        guard let last = order.last else { return [] }
        let records = try Row.fetchCursor(
            db,
            sql: """
                SELECT transactionId, objectType, localIdentifier, kind FROM changeRecord
                WHERE transactionId > ? AND transactionId <= ?
                """,
            arguments: [token, last])
        while let row = try records.next() {
            let id: Int64 = row["transactionId"]
            guard let type = PersistentObjectType(rawValue: row["objectType"]),
                let kind = ObjectChangeRecord.Kind(rawValue: row["kind"])
            else { continue }
            var details = changes[id]?.details[type] ?? PersistentObjectChangeDetails(objectType: type)
            let localIdentifier: String = row["localIdentifier"]
            switch kind {
            case .inserted: details.insertedLocalIdentifiers.insert(localIdentifier)
            case .updated: details.updatedLocalIdentifiers.insert(localIdentifier)
            case .deleted: details.deletedLocalIdentifiers.insert(localIdentifier)
            case .trashed: details.trashedLocalIdentifiers.insert(localIdentifier)
            case .restored: details.restoredLocalIdentifiers.insert(localIdentifier)
            }
            changes[id]?.details[type] = details
        }
        return order.compactMap { changes[$0] }
    }

    func trashRetention() throws -> TimeInterval? {
        try Double.fetchOne(db, sql: "SELECT value FROM libraryState WHERE key = 'trashRetentionSeconds'")
    }

    func trashedAssetIdentifiers(deletedBefore date: Date) throws -> [String] {
        try String.fetchAll(
            db,
            sql: """
                SELECT localIdentifier FROM asset WHERE trashedDate IS NOT NULL AND trashedDate < ?
                ORDER BY trashedDate DESC, id DESC
                """,
            arguments: [date])
    }

    func hasPendingRemovals() throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM pendingRemoval)") ?? false
    }
}
