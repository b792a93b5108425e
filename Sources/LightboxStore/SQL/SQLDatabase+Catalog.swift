import Foundation

// The catalog's statements both stores share: history, Recently Deleted's dates, removals,
// checks and the camera backlog. Each runs inside the transaction its store opened.
extension SQLDatabase {
    // MARK: Assets

    /// Assets in the library, hidden ones and burst frames included; not those in Recently
    /// Deleted.
    func assetCount() throws -> Int {
        Int(try integer("SELECT COUNT(*) FROM asset WHERE trashedDate IS NULL") ?? 0)
    }

    /// Visible assets newest first by the clock where each was taken (the timeline's order),
    /// `limit` of them after the asset `after` (keyset paging).
    func assets(limit: Int?, after: String?) throws -> [Asset] {
        var condition = AssetVisibility.defaultCondition
        var arguments: [any SQLBindable] = []
        if let after {
            guard
                let anchor = try rows("SELECT id, localCreationDate FROM asset WHERE localIdentifier = ?", [after])
                    .first
            else {
                throw LibraryError(.assetNotFound, "no asset has the identifier \(after)")
            }
            condition += " AND (asset.localCreationDate, asset.id) < (?, ?)"
            arguments += [anchor["localCreationDate"], anchor["id"]]
        }
        condition += " ORDER BY asset.localCreationDate DESC, asset.id DESC"
        if let limit {
            condition += " LIMIT ?"
            arguments.append(max(0, limit))
        }
        return try AssetInfo.load(self, where: condition, arguments).map(\.model)
    }

    /// The asset with this identifier, in Recently Deleted or not, or nil.
    func asset(withLocalIdentifier localIdentifier: String) throws -> Asset? {
        try AssetInfo.load(self, where: "localIdentifier = ?", [localIdentifier]).first?.model
    }

    /// Where a resource's file is, relative to the originals' storage.
    func storedPath(of resource: AssetResource) throws -> String? {
        try text(
            """
            SELECT resource.storedPath FROM resource JOIN asset ON asset.id = resource.assetId
            WHERE asset.localIdentifier = ? AND resource.type = ?
            """, [resource.assetLocalIdentifier, resource.type.rawValue])
    }

    /// Each visible asset's identifier, time and place, oldest first: what moments group.
    func timesAndPlaces() throws -> [AssetTimeAndPlace] {
        // In the order of the partial index: one pass, no sort.
        try rows(
            """
            SELECT asset.localIdentifier, asset.creationDate, asset.creationTimeZoneOffset, asset.latitude,
                asset.longitude, COALESCE(place.city, place.name, place.region, place.country) AS placeTitle
            FROM asset
            LEFT JOIN assetPlace ON assetPlace.assetId = asset.id LEFT JOIN place ON place.id = assetPlace.placeId
            WHERE \(AssetVisibility.defaultCondition) ORDER BY asset.creationDate, asset.id
            """
        ).map { row in
            AssetTimeAndPlace(
                localIdentifier: try row.text("localIdentifier"), creationDate: try row.date("creationDate"),
                timeZoneOffset: Int(try row.integer("creationTimeZoneOffset")), latitude: row["latitude"].real,
                longitude: row["longitude"].real, placeTitle: row["placeTitle"].text)
        }
    }

    // MARK: History

    /// The id of the last committed change transaction (0 for a library never written).
    func lastChangeTransaction() throws -> Int64 {
        try integer("SELECT MAX(id) FROM changeTransaction") ?? 0
    }

    /// The last pruned change token: history is complete after it.
    func historyFloor() throws -> Int64 {
        try integer("SELECT value FROM libraryState WHERE key = 'historyFloor'") ?? 0
    }

    /// Records that the current write transaction changed the library, and which objects,
    /// then prunes what `retention` no longer keeps. Every write calls it once, last. Answers
    /// the transaction's change token. On PostgreSQL the token is also announced on
    /// ``PostgresStore/changeChannel`` (and the catalog's schema), to every process listening, once the transaction commits.
    @discardableResult
    func recordChangeTransaction(author: String, changes: [ObjectChangeRecord], retention: HistoryRetention) throws
        -> PersistentChangeToken
    {
        guard
            let transaction = try integer(
                "INSERT INTO changeTransaction (date, author) VALUES (?, ?) RETURNING id", [Date(), author])
        else { throw LibraryError(.storageFailed, "the change transaction got no id") }
        // In runs of a hundred rows: one statement each, not one per object.
        for start in stride(from: 0, to: changes.count, by: 100) {
            let run = changes[start..<min(changes.count, start + 100)]
            var arguments: [any SQLBindable] = []
            for change in run {
                arguments += [transaction, change.objectType.rawValue, change.localIdentifier, change.kind.rawValue]
            }
            try execute(
                "INSERT INTO changeRecord (transactionId, objectType, localIdentifier, kind) VALUES "
                    + Array(repeating: "(?, ?, ?, ?)", count: run.count).joined(separator: ", "), arguments)
        }
        try pruneHistory(newest: transaction, retention: retention)
        if dialect == .postgres {
            try execute(
                "SELECT pg_notify(? || ':' || current_schema(), ?)", [PostgresStore.changeChannel, String(transaction)])
        }
        return PersistentChangeToken(rawValue: transaction)
    }

    /// Drops the transactions the retention no longer keeps, and raises the history floor.
    func pruneHistory(newest: Int64, retention: HistoryRetention) throws {
        var floor = newest - Int64(retention.maximumTransactions)
        let cutoff = Date().addingTimeInterval(-retention.maximumAge)
        if let aged = try integer("SELECT MAX(id) FROM changeTransaction WHERE date < ?", [cutoff]) {
            floor = max(floor, aged)
        }
        floor = min(floor, newest - 1)
        guard floor > (try historyFloor()) else { return }
        try execute("DELETE FROM changeTransaction WHERE id <= ?", [floor])
        try execute("UPDATE libraryState SET value = ? WHERE key = 'historyFloor'", [floor])
    }

    /// The transactions after `token`, oldest first, at most `limit` of them (nil: all), each
    /// with the objects it changed.
    func changes(after token: Int64, limit: Int?) throws -> [PersistentChange] {
        var changes: [Int64: PersistentChange] = [:]
        var order: [Int64] = []
        var sql = "SELECT id, date, author FROM changeTransaction WHERE id > ? ORDER BY id"
        var arguments: [any SQLBindable] = [token]
        if let limit {
            sql += " LIMIT ?"
            arguments.append(max(0, limit))
        }
        for row in try rows(sql, arguments) {
            let id = try row.integer("id")
            changes[id] = PersistentChange(
                changeToken: PersistentChangeToken(rawValue: id), date: try row.date("date"),
                author: row["author"].text, details: [:])
            order.append(id)
        }
        guard let last = order.last else { return [] }
        let records = try rows(
            """
            SELECT transactionId, objectType, localIdentifier, kind FROM changeRecord
            WHERE transactionId > ? AND transactionId <= ?
            """, [token, last])
        for row in records {
            let id = try row.integer("transactionId")
            guard let type = PersistentObjectType(rawValue: try row.text("objectType")),
                let kind = ObjectChangeRecord.Kind(rawValue: Int(try row.integer("kind")))
            else { continue }
            var details = changes[id]?.details[type] ?? PersistentObjectChangeDetails(objectType: type)
            let localIdentifier = try row.text("localIdentifier")
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

    // MARK: Recently Deleted and removals

    func trashRetention() throws -> TimeInterval? {
        try value("SELECT value FROM libraryState WHERE key = 'trashRetentionSeconds'")?.real
    }

    func setTrashRetention(seconds: Int) throws {
        try execute(
            """
            INSERT INTO libraryState (key, value) VALUES ('trashRetentionSeconds', ?)
            ON CONFLICT (key) DO UPDATE SET value = excluded.value
            """, [seconds])
    }

    func trashedAssetIdentifiers(deletedBefore date: Date) throws -> [String] {
        try texts(
            """
            SELECT localIdentifier FROM asset WHERE trashedDate IS NOT NULL AND trashedDate < ?
            ORDER BY trashedDate DESC, id DESC
            """, [date])
    }

    func hasPendingRemovals() throws -> Bool {
        try integer("SELECT COUNT(*) FROM (SELECT 1 FROM pendingRemoval LIMIT 1) AS found") ?? 0 > 0
    }

    func pendingRemovals() throws -> [String] {
        try texts("SELECT storedPath FROM pendingRemoval")
    }

    func clearPendingRemovals() throws {
        try execute("DELETE FROM pendingRemoval")
    }

    func isReferenced(storedPath: String) throws -> Bool {
        let count = try integer(
            """
            SELECT (SELECT COUNT(*) FROM (SELECT 1 FROM resource WHERE storedPath = ? LIMIT 1) AS used)
                + (SELECT COUNT(*) FROM (SELECT 1 FROM pendingRemoval WHERE storedPath = ? LIMIT 1) AS pending)
            """, [storedPath, storedPath])
        // Unknown is referenced: nothing is removed on a doubt.
        return count.map { $0 > 0 } ?? true
    }

    func resourceCount(storedPath: String) throws -> Int {
        Int(try integer("SELECT COUNT(*) FROM resource WHERE storedPath = ?", [storedPath]) ?? 0)
    }

    // MARK: Checking

    func storedResources() throws -> [StoredResource] {
        try rows(
            """
            SELECT asset.localIdentifier, resource.type, resource.storedPath, resource.sha256, resource.fileSize
            FROM resource JOIN asset ON asset.id = resource.assetId ORDER BY resource.storedPath
            """
        ).map { row in
            StoredResource(
                assetLocalIdentifier: try row.text("localIdentifier"),
                type: AssetResourceType(rawValue: Int(try row.integer("type"))) ?? .photo,
                storedPath: try row.text("storedPath"), sha256: try row.text("sha256"),
                fileSize: try row.integer("fileSize"))
        }
    }

    func allAssetIdentifiers() throws -> [String] {
        try texts("SELECT localIdentifier FROM asset")
    }

    func hasAssets() throws -> Bool {
        try integer("SELECT COUNT(*) FROM (SELECT 1 FROM asset LIMIT 1) AS found") ?? 0 > 0
    }

    // MARK: Cameras read after import

    func captureDetailsBacklog(limit: Int) throws -> [CaptureDetailsBacklogItem] {
        try rows(
            """
            SELECT asset.id, resource.storedPath, resource.originalFilename FROM asset
            LEFT JOIN resource ON resource.id = (
                SELECT id FROM resource WHERE assetId = asset.id AND type IN (1, 2) ORDER BY type LIMIT 1)
            WHERE asset.id > (SELECT value FROM libraryState WHERE key = 'captureDetailsAfter')
            AND asset.id <= (SELECT value FROM libraryState WHERE key = 'captureDetailsThrough')
            ORDER BY asset.id LIMIT ?
            """, [limit]
        ).map { row in
            CaptureDetailsBacklogItem(
                rowID: try row.integer("id"), storedPath: row["storedPath"].text,
                originalFilename: row["originalFilename"].text)
        }
    }

    func captureDetailsBacklogCount() throws -> Int {
        Int(
            try integer(
                """
                SELECT COUNT(*) FROM asset
                WHERE id > (SELECT value FROM libraryState WHERE key = 'captureDetailsAfter')
                AND id <= (SELECT value FROM libraryState WHERE key = 'captureDetailsThrough')
                """) ?? 0)
    }

    func fillCaptureDetails(_ filled: [CaptureDetailsBacklogItem.Filled], through rowID: Int64) throws {
        for item in filled where item.make != nil || item.model != nil || item.lens != nil {
            try execute(
                """
                UPDATE asset SET cameraMake = ?, cameraModel = ?, lensModel = ?
                WHERE id = ? AND cameraMake IS NULL AND cameraModel IS NULL AND lensModel IS NULL
                """, [item.make, item.model, item.lens, item.rowID])
        }
        for item in filled where item.orientation != nil {
            try execute(
                "UPDATE asset SET fileOrientation = ? WHERE id = ? AND fileOrientation IS NULL",
                [item.orientation, item.rowID])
        }
        // Another process filling at once moves it as far: the furthest wins.
        try execute(
            """
            UPDATE libraryState SET value = CASE WHEN value > ? THEN value ELSE ? END
            WHERE key = 'captureDetailsAfter'
            """, [rowID, rowID])
        try execute(
            """
            DELETE FROM libraryState WHERE key IN ('captureDetailsAfter', 'captureDetailsThrough')
            AND (SELECT value FROM libraryState WHERE key = 'captureDetailsAfter')
                >= (SELECT value FROM libraryState WHERE key = 'captureDetailsThrough')
            """)
    }
}
