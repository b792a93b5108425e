import Foundation
import GRDB
import LightboxTestSupport
import Synchronization
import Testing

@testable import Lightbox
@testable import LightboxStore

/// The catalog's schema on PostgreSQL (scripts/services starts the server).
@Suite("The PostgreSQL schema", .enabled(if: Services.postgresEnabled))
struct PostgresSchemaTests {
    static func asset(
        _ db: any SQLDatabase, _ index: Int, hidden: Bool = false, burst: String? = nil, date: Date = Date()
    ) throws -> Int64 {
        try #require(
            try db.integer(
                """
                INSERT INTO asset (localIdentifier, mediaType, pixelWidth, pixelHeight, creationDate, modificationDate,
                    addedDate, isHidden, burstIdentifier, representsBurst, sourceType)
                VALUES (?, ?, 100, 100, ?, ?, ?, ?, ?, 0, 1) RETURNING id
                """,
                [
                    "asset-\(index)", index % 3 == 0 ? 2 : 1, date, date, date, hidden, burst,
                ]))
    }

    @Test("The steps apply once; the tally's triggers keep counts a brute-force count agrees with")
    func tally() throws {
        let (address, link) = try PostgresLinkTests.database()
        try PostgresSchema.migrate(link)
        try PostgresSchema.migrate(try PostgresLink.connect(to: address))
        #expect(try link.value("SELECT count(*) FROM schemaStep") == .integer(Int64(PostgresSchema.steps.count)))
        let db = PostgresTransaction(link: link)
        var ids: [Int64] = []
        for index in 0..<40 {
            ids.append(try Self.asset(db, index, hidden: index % 7 == 0, burst: index % 5 == 0 ? "burst" : nil))
        }
        // Many rows in one statement (the triggers count a statement's rows by group), one
        // statement touching no row, and updates that move no count.
        try db.execute(
            """
            INSERT INTO asset (localIdentifier, mediaType, pixelWidth, pixelHeight, creationDate, modificationDate,
                addedDate, isHidden, burstIdentifier, representsBurst, sourceType)
            SELECT 'bulk-' || n, 1 + n % 3, 100, 100, '2024-01-01', '2024-01-01', '2024-01-01', n % 2,
                CASE WHEN n % 4 = 0 THEN 'bulk' END, 0, 1 + n % 2
            FROM generate_series(1, 500) AS n
            """)
        try db.execute("UPDATE asset SET isFavorite = 1 - isFavorite")
        try db.execute("DELETE FROM asset WHERE localIdentifier = 'none'")
        try db.execute("UPDATE asset SET trashedDate = ? WHERE id % 4 = 0", [Date()])
        try db.execute("UPDATE asset SET isHidden = 1 - isHidden WHERE id % 6 = 0")
        try db.execute("UPDATE asset SET representsBurst = 1 WHERE id = ?", [ids[5]])
        try db.execute("DELETE FROM asset WHERE id % 9 = 0")
        let tally = try db.rows(
            """
            SELECT isHidden, isBurstFrame, isTrashed, mediaType, sourceType, count FROM assetTally WHERE count > 0
            ORDER BY 1, 2, 3, 4, 5
            """
        ).map(\.values)
        let brute = try db.rows(
            """
            SELECT isHidden,
                CASE WHEN burstIdentifier IS NOT NULL AND representsBurst = 0 THEN 1 ELSE 0 END AS isBurstFrame,
                CASE WHEN trashedDate IS NOT NULL THEN 1 ELSE 0 END AS isTrashed, mediaType, sourceType, count(*)
            FROM asset GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5
            """
        ).map(\.values)
        #expect(tally == brute)
        #expect(tally.count > 8, "the changes reach several groups")
        #expect(try db.integer("SELECT SUM(count) FROM assetTally") == db.integer("SELECT count(*) FROM asset"))
    }

    @Test("Servers starting at once migrate once; a catalog with an unknown step is refused")
    func concurrentAndNewer() throws {
        let (address, _) = try PostgresLinkTests.database()
        let failures = Mutex<[String]>([])
        let threads = (0..<4).map { _ in
            Thread {
                do { try PostgresSchema.migrate(try PostgresLink.connect(to: address)) } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }
        for thread in threads { thread.start() }
        let link = try PostgresLink.connect(to: address)
        var waited = 0
        while try link.value("SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'advisory'") != .integer(0)
            || (try? link.value("SELECT count(*) FROM schemaStep")) != .integer(Int64(PostgresSchema.steps.count))
        {
            Thread.sleep(forTimeInterval: 0.1)
            waited += 1
            if waited > 600 { break }
        }
        Thread.sleep(forTimeInterval: 0.5)
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
        #expect(try link.value("SELECT count(*) FROM schemaStep") == .integer(Int64(PostgresSchema.steps.count)))

        try link.execute("INSERT INTO schemaStep (name, appliedDate) VALUES ('v99: from the future', 'x')")
        let newer = try #require(throws: LibraryError.self) { try PostgresSchema.migrate(link) }
        #expect(newer.code == .newerLibraryVersion && newer.message.contains("v99"))
    }

    @Test("Two connections inserting the same original at once: one commits, the other is refused")
    func uniqueOriginal() throws {
        let (address, first) = try PostgresLinkTests.database()
        try PostgresSchema.migrate(first)
        let second = try PostgresLink.connect(to: address)
        let sha = String(repeating: "ab", count: 32)
        @Sendable func resource(_ db: any SQLDatabase, _ asset: Int64) throws {
            try db.execute(
                """
                INSERT INTO resource (assetId, type, originalFilename, uniformTypeIdentifier, fileSize, sha256, storedPath)
                VALUES (?, 1, 'IMG_0001.JPG', 'public.jpeg', 10, ?, 'ab/x.jpg')
                """, [asset, sha])
        }
        let refused = Mutex<(any Error)?>(nil)
        try first.transaction {
            let db = PostgresTransaction(link: first)
            try resource(db, try Self.asset(db, 1))
            // The second waits on the first's uncommitted row, then fails when it commits.
            let other = Thread {
                do {
                    try second.transaction {
                        let db = PostgresTransaction(link: second)
                        try resource(db, try Self.asset(db, 2))
                    }
                } catch { refused.withLock { $0 = error } }
            }
            other.start()
            Thread.sleep(forTimeInterval: 0.5)
        }
        var waited = 0
        while refused.withLock({ $0 }) == nil && waited < 100 {
            Thread.sleep(forTimeInterval: 0.1)
            waited += 1
        }
        let error = try #require(refused.withLock { $0 } as? PostgresLink.Failure)
        #expect(error.isUniqueViolation)
        #expect(try first.value("SELECT count(*) FROM asset") == .integer(1))
    }

    /// `transcript` run in a write transaction of a new SQLite library's catalog, and of a new
    /// PostgreSQL catalog: both answers.
    static func onBothStores(_ transcript: (any SQLDatabase) throws -> [String]) throws -> (
        sqlite: [String], postgres: [String]
    ) {
        let folder = try TemporaryDirectory()
        let store = try SQLiteStore(path: folder.path("library.sqlite"))
        let sqlite = try store.writer.write { db in try transcript(db) }
        let (_, link) = try PostgresLinkTests.database()
        try PostgresSchema.migrate(link)
        let postgres = try link.transaction { try transcript(PostgresTransaction(link: link)) }
        return (sqlite, postgres)
    }

    @Test("The shared catalog statements give the same answers on a SQLite library and on PostgreSQL")
    func sharedStatements() throws {
        func transcript(_ db: any SQLDatabase) throws -> [String] {
            var lines: [String] = []
            var ids: [Int64] = []
            for index in 0..<5 { ids.append(try Self.asset(db, index)) }
            let retention = HistoryRetention(maximumTransactions: 3)
            for id in ids {
                let token = try db.recordChangeTransaction(
                    author: "test",
                    changes: [
                        ObjectChangeRecord(.asset, "asset-\(id - 1)", .inserted),
                        ObjectChangeRecord(.assetCollection, "album", .updated),
                    ], retention: retention)
                lines.append("token \(token.rawValue)")
            }
            lines.append("floor \(try db.historyFloor()) last \(try db.lastChangeTransaction())")
            for change in try db.changes(after: 0, limit: nil) {
                lines.append(
                    "\(change.changeToken.rawValue) \(change.author ?? "") \(change.details.keys.map(\.rawValue).sorted())"
                )
            }
            lines.append("limited \(try db.changes(after: 0, limit: 1).map(\.changeToken.rawValue))")
            try db.setTrashRetention(seconds: 86_400)
            lines.append("retention \(try db.trashRetention() ?? -1)")
            try db.execute("UPDATE asset SET trashedDate = ? WHERE id IN (?, ?)", [Date(), ids[1], ids[3]])
            lines.append("trashed \(try db.trashedAssetIdentifiers(deletedBefore: Date().addingTimeInterval(1)))")
            lines.append("pending \(try db.hasPendingRemovals())")
            try db.execute("INSERT INTO pendingRemoval (storedPath) VALUES ('ab/x.jpg')")
            lines.append(
                "pending \(try db.hasPendingRemovals()) \(try db.pendingRemovals()) \(try db.isReferenced(storedPath: "ab/x.jpg")) \(try db.isReferenced(storedPath: "cd/y.jpg"))"
            )
            try db.clearPendingRemovals()
            lines.append("cleared \(try db.hasPendingRemovals()) \(try db.resourceCount(storedPath: "ab/x.jpg"))")
            try db.execute(
                "INSERT INTO libraryState (key, value) VALUES ('captureDetailsAfter', 0), ('captureDetailsThrough', ?)",
                [ids[4]])
            lines.append(
                "backlog \(try db.captureDetailsBacklogCount()) \(try db.captureDetailsBacklog(limit: 2).map(\.rowID))")
            try db.fillCaptureDetails(
                [
                    CaptureDetailsBacklogItem.Filled(
                        rowID: ids[0], make: "Apple", model: "iPhone 15", lens: nil, orientation: 6)
                ],
                through: ids[2])
            lines.append("backlog \(try db.captureDetailsBacklogCount())")
            try db.fillCaptureDetails([], through: ids[1])
            lines.append("backlog \(try db.captureDetailsBacklogCount()) (a lower mark does not move it back)")
            try db.fillCaptureDetails([], through: ids[4])
            lines.append(
                "backlog \(try db.captureDetailsBacklogCount()) \(try db.integer("SELECT COUNT(*) FROM libraryState") ?? -1)"
            )
            lines.append(
                "\(try db.rows("SELECT cameraMake, cameraModel, fileOrientation FROM asset WHERE id = ?", [ids[0]]).map(\.values))"
            )
            return lines
        }
        let (sqlite, postgres) = try Self.onBothStores(transcript)
        #expect(sqlite == postgres)
        #expect(sqlite.contains("floor 2 last 5"), "\(sqlite)")
    }

    @Test("Change blocks applied on SQLite and on PostgreSQL leave the same albums, folders, trash and history")
    func changeBlocks() throws {
        typealias Operation = ChangeOperation
        let blocks: [[Operation]] = [
            [.createCollection("album-a", title: "Été"), .createCollection("album-b", title: "B")],
            [
                .addAssets(collection: "album-a", assets: ["asset-0", "asset-1", "asset-2", "asset-3"]),
                .insertAssets(collection: "album-b", assets: ["asset-4", "asset-2"], at: [0, 1]),
            ],
            [.moveAssets(collection: "album-a", from: [0], to: 3), .renameCollection("album-b", title: "Bee")],
            [.createList("folder", title: "Trips"), .addChildren(list: "folder", children: ["album-b"])],
            [.deleteAssets(["asset-2", "asset-3"])],
            [.restoreAssets(["asset-2"])],
            [.purgeAssets(["asset-3", "asset-4"])],
            [.moveTopLevel(from: [0], to: 1), .removeAssetsAt(collection: "album-a", indexes: [0])],
            [.deleteCollections(["album-b"])],
        ]
        func transcript(_ db: any SQLDatabase) throws -> [String] {
            for index in 0..<6 { _ = try Self.asset(db, index) }
            var lines: [String] = []
            for block in blocks {
                var applier = ChangeApplier(db: db, retention: HistoryRetention())
                let result = try applier.apply(block)
                lines.append("token \(result.changeToken?.rawValue ?? -1) deleted \(result.deletedAssets)")
            }
            for (table, order) in [
                ("assetCollection", "localIdentifier"), ("collectionAsset", "collectionId, position"),
                ("collectionList", "localIdentifier"), ("collectionListChild", "listId, position"),
                ("topLevelPosition", "position"), ("trashedMembership", "collectionId, position"),
            ] {
                let columns =
                    table == "assetCollection" || table == "collectionList"
                    ? "localIdentifier, type, subtype, title" : "*"
                // Smart albums and smart folders (People) have identifiers of their own in each
                // library: compared by kind.
                let mine =
                    switch table {
                    case "assetCollection": " WHERE type <> \(AssetCollectionType.smartAlbum.rawValue)"
                    case "collectionList": " WHERE type <> \(CollectionListType.smartFolder.rawValue)"
                    default: ""
                    }
                lines += try db.rows("SELECT \(columns) FROM \(table)\(mine) ORDER BY \(order)").map {
                    "\(table) \($0.values)"
                }
            }
            lines += try db.rows(
                "SELECT subtype, title FROM assetCollection WHERE type = \(AssetCollectionType.smartAlbum.rawValue) ORDER BY subtype"
            ).map { "smart album \($0.values)" }
            lines += try db.rows(
                "SELECT subtype, title FROM collectionList WHERE type = \(CollectionListType.smartFolder.rawValue)"
            ).map { "smart folder \($0.values)" }
            lines += try db.rows(
                "SELECT localIdentifier, CASE WHEN trashedDate IS NULL THEN 0 ELSE 1 END AS trashed FROM asset ORDER BY id"
            ).map { "asset \($0.values)" }
            lines += try db.changes(after: 0, limit: nil).map { change in
                "change \(change.changeToken.rawValue) "
                    + change.details.values.sorted { $0.objectType.rawValue < $1.objectType.rawValue }.map {
                        "\($0.objectType.rawValue) +\($0.insertedLocalIdentifiers.sorted()) ~\($0.updatedLocalIdentifiers.sorted()) -\($0.deletedLocalIdentifiers.sorted()) t\($0.trashedLocalIdentifiers.sorted()) r\($0.restoredLocalIdentifiers.sorted())"
                    }.joined(separator: " ")
            }
            return lines
        }
        let (sqlite, postgres) = try Self.onBothStores(transcript)
        #expect(sqlite == postgres)
        #expect(sqlite.contains { $0.hasPrefix("collectionList ") }, "\(sqlite)")
        #expect(
            sqlite.contains("asset [LightboxStore.SQLValue.text(\"asset-2\"), LightboxStore.SQLValue.integer(0)]"),
            "\(sqlite)")
        #expect(sqlite.filter { $0.hasPrefix("smart album") }.count == SmartAlbums.rules.count)
        #expect(sqlite.filter { $0.hasPrefix("smart folder") }.count == 1, "People")
    }

    @Test("Snapshots: a fetch's state stays while others commit; one snapshot per state; closed when let go")
    func snapshots() throws {
        let (address, link) = try PostgresLinkTests.database()
        try PostgresSchema.migrate(link)
        let writer = PostgresTransaction(link: link)
        func commit(_ index: Int) throws {
            try link.transaction {
                _ = try Self.asset(writer, index)
                _ = try writer.recordChangeTransaction(
                    author: "test", changes: [ObjectChangeRecord(.asset, "asset-\(index)", .inserted)],
                    retention: HistoryRetention())
            }
        }
        func connections() throws -> Int64 {
            try writer.integer("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()") ?? -1
        }
        try commit(0)
        let cache = SnapshotCache<PostgresSnapshot>(keepsNewest: false)
        func snapshot() throws -> PostgresSnapshot {
            try cache.snapshot(token: try writer.lastChangeTransaction(), writes: 0) {
                let snapshot = try PostgresSnapshot(link: PostgresLink.connect(to: address))
                return (snapshot, snapshot.token)
            }
        }
        let before = try connections()
        var first: PostgresSnapshot? = try snapshot()
        #expect(try snapshot() === first, "the same state: the same snapshot")
        #expect(try connections() == before + 1)
        try commit(1)
        #expect(try first!.read { try $0.integer("SELECT count(*) FROM asset") } == 1, "its state, not the new one")
        #expect(try first!.read { try $0.lastChangeTransaction() } == 1)
        var second: PostgresSnapshot! = try snapshot()
        #expect(second !== first)
        #expect(try second.read { try $0.integer("SELECT count(*) FROM asset") } == 2)
        #expect(try connections() == before + 2)
        first = nil
        var waited = 0
        while try connections() > before + 1 && waited < 100 {
            Thread.sleep(forTimeInterval: 0.05)
            waited += 1
        }
        #expect(try connections() == before + 1, "the old snapshot's connection is closed")
        #expect(try second.read { try $0.lastChangeTransaction() } == 2)
        // The newest snapshot too ends with its last holder: no transaction stays open to keep
        // row versions from the vacuum. The next fetch of the same state takes a new one.
        second = nil
        waited = 0
        while try connections() > before && waited < 100 {
            Thread.sleep(forTimeInterval: 0.05)
            waited += 1
        }
        #expect(try connections() == before, "no snapshot outlives its holders")
        #expect(try snapshot().read { try $0.lastChangeTransaction() } == 2)
    }

    @Test("Assets read back alike from both stores: pages after an anchor, one by identifier, times and places")
    func assetReads() throws {
        let (sqlite, postgres) = try Self.onBothStores { db in
            let start = Date(timeIntervalSince1970: 1_700_000_000.25)
            for index in 0..<12 {
                let id = try Self.asset(
                    db, index, hidden: index == 4, burst: index == 7 ? "b" : nil,
                    date: start.addingTimeInterval(Double(index % 5) * 3600))
                try db.execute(
                    """
                    INSERT INTO resource (assetId, type, originalFilename, uniformTypeIdentifier, fileSize, sha256, storedPath)
                    VALUES (?, 1, ?, 'public.jpeg', ?, ?, ?)
                    """,
                    [
                        id, "IMG_\(index).JPG", index * 1000,
                        String(repeating: String(format: "%02x", index), count: 32), "x/\(index)",
                    ])
            }
            try db.execute("UPDATE asset SET latitude = 48.85, longitude = 2.35, rating = 4 WHERE id % 3 = 0")
            var lines = ["count \(try db.assetCount())"]
            let first = try db.assets(limit: 5, after: nil)
            let next = try db.assets(limit: 5, after: first.last?.localIdentifier)
            for asset in first + next {
                lines.append(
                    "\(asset.localIdentifier) \(asset.creationDate.timeIntervalSince1970) \(asset.mediaType) \(asset.isHidden) \(asset.location.map { "\($0.latitude)" } ?? "-") \(asset.rating ?? 0) \(asset.resources.map(\.originalFilename))"
                )
            }
            lines.append(
                "\(try db.asset(withLocalIdentifier: "asset-3").map { "\($0.resources.first?.fileSize ?? -1)" } ?? "none")"
            )
            lines.append("\(try db.asset(withLocalIdentifier: "nobody") == nil)")
            lines += try db.timesAndPlaces().map { "\($0.localIdentifier) \($0.latitude ?? 0)" }
            #expect(throws: LibraryError.self) { try db.assets(limit: 1, after: "nobody") }
            return lines
        }
        #expect(sqlite == postgres)
        #expect(sqlite.count > 20, "\(sqlite)")
    }
}
