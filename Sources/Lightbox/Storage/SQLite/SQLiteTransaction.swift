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

/// The catalog's operations on one GRDB connection, inside the transaction GRDB opened for
/// them: a read transaction (where only the reads are called) or the write transaction.
struct SQLiteTransaction: StoreWriter {
    let db: Database
    let store: SQLiteStore

    // MARK: Reads

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

    func pendingRemovals() throws -> [String] {
        try String.fetchAll(db, sql: "SELECT storedPath FROM pendingRemoval")
    }

    func isReferenced(storedPath: String) throws -> Bool {
        try Bool.fetchOne(
            db,
            sql: """
                SELECT EXISTS (SELECT 1 FROM resource WHERE storedPath = ?1)
                    OR EXISTS (SELECT 1 FROM pendingRemoval WHERE storedPath = ?1)
                """, arguments: [storedPath]) ?? true
    }

    func resourceCount(storedPath: String) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM resource WHERE storedPath = ?", arguments: [storedPath]) ?? 0
    }

    func integrityProblems() throws -> [String] {
        let integrity = try String.fetchAll(db, sql: "PRAGMA integrity_check").filter { $0 != "ok" }
        let foreignKeys = try Row.fetchAll(db, sql: "PRAGMA foreign_key_check").map { row in
            "row \(row[1] as Int64? ?? 0) of \(row[0] as String? ?? "?") refers to a missing \(row[2] as String? ?? "?")"
        }
        return integrity + foreignKeys
    }

    func storedResources() throws -> [StoredResource] {
        try Row.fetchAll(
            db,
            sql: """
                SELECT asset.localIdentifier, resource.type, resource.storedPath, resource.sha256, resource.fileSize
                FROM resource JOIN asset ON asset.id = resource.assetId ORDER BY resource.storedPath
                """
        ).map { row in
            StoredResource(
                assetLocalIdentifier: row[0], type: AssetResourceType(rawValue: row[1]) ?? .photo, storedPath: row[2],
                sha256: row[3], fileSize: row[4])
        }
    }

    func allAssetIdentifiers() throws -> [String] {
        try String.fetchAll(db, sql: "SELECT localIdentifier FROM asset")
    }

    func captureDetailsBacklog(limit: Int) throws -> [CaptureDetailsBacklogItem] {
        try Row.fetchAll(
            db,
            sql: """
                SELECT asset.id, resource.storedPath, resource.originalFilename FROM asset
                LEFT JOIN resource ON resource.id = (
                    SELECT id FROM resource WHERE assetId = asset.id AND type IN (1, 2) ORDER BY type LIMIT 1)
                WHERE asset.id > (SELECT value FROM libraryState WHERE key = 'captureDetailsAfter')
                AND asset.id <= (SELECT value FROM libraryState WHERE key = 'captureDetailsThrough')
                ORDER BY asset.id LIMIT ?
                """, arguments: [limit]
        ).map { row in CaptureDetailsBacklogItem(rowID: row[0], storedPath: row[1], originalFilename: row[2]) }
    }

    func captureDetailsBacklogCount() throws -> Int {
        try Int.fetchOne(
            db,
            sql: """
                SELECT COUNT(*) FROM asset
                WHERE id > (SELECT value FROM libraryState WHERE key = 'captureDetailsAfter')
                AND id <= (SELECT value FROM libraryState WHERE key = 'captureDetailsThrough')
                """) ?? 0
    }

    // MARK: Writes

    func fillCaptureDetails(_ filled: [CaptureDetailsBacklogItem.Filled], through rowID: Int64) throws {
        let update = try db.cachedStatement(
            sql: """
                UPDATE asset SET cameraMake = ?, cameraModel = ?, lensModel = ?
                WHERE id = ? AND cameraMake IS NULL AND cameraModel IS NULL AND lensModel IS NULL
                """)
        for item in filled where item.make != nil || item.model != nil || item.lens != nil {
            try update.execute(arguments: [item.make, item.model, item.lens, item.rowID])
        }
        let orient = try db.cachedStatement(
            sql: "UPDATE asset SET fileOrientation = ? WHERE id = ? AND fileOrientation IS NULL")
        for item in filled where item.orientation != nil {
            try orient.execute(arguments: [item.orientation, item.rowID])
        }
        // Another process filling at once moves it as far: the furthest wins.
        try db.execute(
            sql: "UPDATE libraryState SET value = MAX(value, ?) WHERE key = 'captureDetailsAfter'", arguments: [rowID])
        try db.execute(
            sql: """
                DELETE FROM libraryState WHERE key IN ('captureDetailsAfter', 'captureDetailsThrough')
                AND (SELECT value FROM libraryState WHERE key = 'captureDetailsAfter')
                    >= (SELECT value FROM libraryState WHERE key = 'captureDetailsThrough')
                """)
    }

    func setTrashRetention(seconds: Int) throws {
        try db.execute(
            sql: "INSERT OR REPLACE INTO libraryState (key, value) VALUES ('trashRetentionSeconds', ?)",
            arguments: [seconds])
    }

    func clearPendingRemovals() throws {
        try db.execute(sql: "DELETE FROM pendingRemoval")
    }

    func apply(_ operations: [ChangeRequests.Operation], prepared: PreparedChanges) throws -> AppliedChanges {
        var applier = ChangeApplier(db: db, store: store, prepared: prepared)
        return try applier.apply(operations)
    }
}
