import Foundation
import GRDB

extension SQLiteTransaction {
    func insertSyntheticAssets(count: Int, spreadFrom start: Date) throws {
        let statement = try db.makeStatement(
            sql: """
                INSERT INTO asset (localIdentifier, mediaType, mediaSubtypes, pixelWidth, pixelHeight, creationDate,
                modificationDate, addedDate, isFavorite) VALUES (?, ?, 0, 4032, 3024, ?, ?, ?, ?)
                """)
        // A fixed generator: every run fills the same dates, favourites and videos.
        var state: UInt64 = 0x5EED
        for _ in 0..<count {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let seconds = Double((state >> 33) % (4 * 365 * 24 * 3600))
            let date = start.addingTimeInterval(seconds)
            try statement.execute(arguments: [
                UUID().uuidString, (state >> 20) % 10 == 0 ? 2 : 1, date, date, date, (state >> 13) % 5 == 0,
            ])
        }
        try db.execute(sql: "INSERT INTO changeTransaction (date, author) VALUES (?, 'bench')", arguments: [Date()])
    }
}

extension SQLiteTransaction {
    /// Copies of the visible assets (see `PhotoLibrary.insertCopiesOfAssets`): each row and its
    /// resources copied column by column, with a new identifier and dates, and a digest whose
    /// first 16 digits (what rendered images are keyed by) are its template's. Returns each
    /// copy's identifier with its template's.
    func insertCopiesOfAssets(count: Int, spreadFrom start: Date, years: Int) throws -> [(String, String)] {
        let templates = try Row.fetchAll(
            db, sql: "SELECT id, localIdentifier FROM asset WHERE \(AssetVisibility.defaultCondition) ORDER BY id")
        guard !templates.isEmpty, count > 0 else { return [] }
        func columns(_ table: String, except: Set<String>) throws -> [String] {
            try Row.fetchAll(db, sql: "PRAGMA table_info(\(table))").map { $0["name"] as String }
                .filter { !except.contains($0) }
        }
        let assetColumns = try columns(
            "asset", except: ["id", "localIdentifier", "creationDate", "modificationDate", "addedDate"])
        let resourceColumns = try columns("resource", except: ["id", "assetId", "sha256"])
        let copyAsset = try db.makeStatement(
            sql: """
                INSERT INTO asset (localIdentifier, creationDate, modificationDate, addedDate, \
                \(assetColumns.joined(separator: ", ")))
                SELECT ?, ?, ?, ?, \(assetColumns.joined(separator: ", ")) FROM asset WHERE id = ?
                """)
        let copyResources = try db.makeStatement(
            sql: """
                INSERT INTO resource (assetId, sha256, \(resourceColumns.joined(separator: ", ")))
                SELECT ?, substr(sha256, 1, 16) || ?, \(resourceColumns.joined(separator: ", "))
                FROM resource WHERE assetId = ?
                """)
        var made: [(String, String)] = []
        made.reserveCapacity(count)
        // A fixed generator: every run fills the same dates.
        var state: UInt64 = 0x5EED
        let span = UInt64(max(1, years) * 365 * 24 * 3600)
        for index in 0..<count {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let date = start.addingTimeInterval(Double((state >> 33) % span))
            let template = templates[index % templates.count]
            let identifier = UUID().uuidString
            try copyAsset.execute(arguments: [identifier, date, date, date, template["id"] as Int64])
            let tail = String(format: "%048llx", state ^ UInt64(index))
            try copyResources.execute(arguments: [db.lastInsertedRowID, tail, template["id"] as Int64])
            made.append((identifier, template["localIdentifier"]))
        }
        try db.execute(sql: "INSERT INTO changeTransaction (date, author) VALUES (?, 'bench')", arguments: [Date()])
        return made
    }
}
