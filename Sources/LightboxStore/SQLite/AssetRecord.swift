import Foundation
import GRDB

/// A row of the `asset` table.
struct AssetRecord: Codable, Hashable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "asset"

    var id: Int64?
    var localIdentifier: String
    var mediaType: Int
    var mediaSubtypes: Int
    var pixelWidth: Int
    var pixelHeight: Int
    var creationDate: Date
    var creationTimeZoneOffset: Int
    var modificationDate: Date
    var addedDate: Date
    var duration: Double
    var isFavorite: Bool
    var isHidden: Bool
    var playbackStyle: Int
    var sourceType: Int
    var latitude: Double?
    var longitude: Double?
    var altitude: Double?
    var locationTimestamp: Date?
    var burstIdentifier: String?
    var burstSelectionTypes: Int
    var representsBurst: Bool
    var hasAdjustments: Bool
    var adjustmentFormatIdentifier: String?
    /// Taken with a front camera (schema step v10).
    var isSelfPortrait = false
    /// The orientation a sidecar corrects the photo to (schema step v13); nil: the file's.
    var orientationOverride: Int?
    /// Stars, 1...5, or -1 for rejected (schema step v14); nil: unrated.
    var rating: Int?
    /// When the asset went to Recently Deleted (schema step v15); nil: in the library.
    var trashedDate: Date?
    /// The camera and lens the original names (schema step v17).
    var cameraMake: String?
    var cameraModel: String?
    var lensModel: String?
    /// The original photo's own orientation (schema step v20); nil for a movie, or not read yet.
    var fileOrientation: Int?

    enum Columns {
        static let id = Column(CodingKeys.id)
        static let localIdentifier = Column(CodingKeys.localIdentifier)
        static let creationDate = Column(CodingKeys.creationDate)
    }

    /// The location columns as a model value; nil unless both coordinates are set.
    var location: Location? {
        guard let latitude, let longitude else { return nil }
        return Location(latitude: latitude, longitude: longitude, altitude: altitude, timestamp: locationTimestamp)
    }

    mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}

/// A row of the `resource` table: one file behind an asset.
struct ResourceRecord: Codable, Hashable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "resource"

    var id: Int64?
    var assetId: Int64
    var type: Int
    var originalFilename: String
    var uniformTypeIdentifier: String
    var fileSize: Int64
    var pixelWidth: Int
    var pixelHeight: Int
    var sha256: String
    /// The content-addressed file under `originals/`, relative to it.
    var storedPath: String

    enum Columns {
        static let type = Column(CodingKeys.type)
    }

    mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}

/// An asset row with its resource rows, as fetched together.
struct AssetInfo {
    var asset: AssetRecord
    var resources: [ResourceRecord]

    var model: Asset {
        var model = Asset(
            localIdentifier: asset.localIdentifier,
            mediaType: AssetMediaType(rawValue: asset.mediaType) ?? .unknown,
            mediaSubtypes: AssetMediaSubtypes(rawValue: asset.mediaSubtypes),
            pixelWidth: asset.pixelWidth, pixelHeight: asset.pixelHeight,
            creationDate: asset.creationDate, creationTimeZoneOffset: asset.creationTimeZoneOffset,
            modificationDate: asset.modificationDate, addedDate: asset.addedDate,
            location: asset.location, duration: asset.duration, isFavorite: asset.isFavorite,
            isHidden: asset.isHidden, playbackStyle: AssetPlaybackStyle(rawValue: asset.playbackStyle) ?? .unsupported,
            sourceType: AssetSourceType(rawValue: asset.sourceType), burstIdentifier: asset.burstIdentifier,
            burstSelectionTypes: AssetBurstSelectionType(rawValue: asset.burstSelectionTypes),
            representsBurst: asset.representsBurst, hasAdjustments: asset.hasAdjustments,
            adjustmentFormatIdentifier: asset.adjustmentFormatIdentifier,
            resources: resources.compactMap { record in
                guard let type = AssetResourceType(rawValue: record.type) else { return nil }
                return AssetResource(
                    assetLocalIdentifier: asset.localIdentifier, type: type,
                    originalFilename: record.originalFilename, uniformTypeIdentifier: record.uniformTypeIdentifier,
                    fileSize: record.fileSize, pixelWidth: record.pixelWidth, pixelHeight: record.pixelHeight,
                    sha256: record.sha256)
            })
        model.orientationOverride = asset.orientationOverride
        model.rating = asset.rating
        model.trashedDate = asset.trashedDate
        model.cameraMake = asset.cameraMake
        model.cameraModel = asset.cameraModel
        model.lensModel = asset.lensModel
        model.fileOrientation = asset.fileOrientation
        return model
    }
}

extension AssetInfo {
    /// The columns of `asset` that ``load(_:where:arguments:)`` reads, in the order it reads them.
    private static let assetColumns = """
        id, localIdentifier, mediaType, mediaSubtypes, pixelWidth, pixelHeight, creationDate, creationTimeZoneOffset,
        modificationDate, addedDate, duration, isFavorite, isHidden, playbackStyle, sourceType, latitude, longitude,
        altitude, locationTimestamp, burstIdentifier, burstSelectionTypes, representsBurst, hasAdjustments,
        adjustmentFormatIdentifier, isSelfPortrait, orientationOverride, rating, trashedDate, cameraMake, cameraModel,
        lensModel, fileOrientation
        """

    /// The assets that `condition` (SQL over `asset`, with its `ORDER BY` and `LIMIT` when it
    /// needs them) selects, each with its resources, in the order of the query.
    ///
    /// The hot path of every asset read: fetch results load batches of 100 through it. It
    /// runs two queries and reads columns by position, with dates parsed by ``StoredDate``;
    /// GRDB's Codable decoding, its column lookups by name and its calendar-based dates took
    /// about 30 microseconds an asset.
    static func load(_ db: Database, where condition: String, arguments: StatementArguments = []) throws -> [AssetInfo]
    {
        var infos: [AssetInfo] = []
        var positions: [Int64: Int] = [:]
        // Cached statements: compiling one (and GRDB's authorizer walking it) cost more than the
        // query on a server's hot path, an asset looked up for every image request.
        let assets = try Row.fetchCursor(
            try db.cachedStatement(sql: "SELECT \(assetColumns) FROM asset WHERE \(condition)"), arguments: arguments)
        while let row = try assets.next() {
            let record = try AssetRecord(
                id: row[0], localIdentifier: row[1], mediaType: row[2], mediaSubtypes: row[3], pixelWidth: row[4],
                pixelHeight: row[5], creationDate: StoredDate.decode(row, 6, "creationDate"),
                creationTimeZoneOffset: row[7], modificationDate: StoredDate.decode(row, 8, "modificationDate"),
                addedDate: StoredDate.decode(row, 9, "addedDate"), duration: row[10], isFavorite: row[11],
                isHidden: row[12], playbackStyle: row[13], sourceType: row[14], latitude: row[15], longitude: row[16],
                altitude: row[17], locationTimestamp: StoredDate.decodeIfPresent(row, 18, "locationTimestamp"),
                burstIdentifier: row[19], burstSelectionTypes: row[20], representsBurst: row[21],
                hasAdjustments: row[22], adjustmentFormatIdentifier: row[23], isSelfPortrait: row[24],
                orientationOverride: row[25], rating: row[26],
                trashedDate: StoredDate.decodeIfPresent(row, 27, "trashedDate"), cameraMake: row[28],
                cameraModel: row[29], lensModel: row[30], fileOrientation: row[31])
            positions[row[0]] = infos.count
            infos.append(AssetInfo(asset: record, resources: []))
        }
        guard !infos.isEmpty else { return [] }
        let marks = Array(repeating: "?", count: positions.count).joined(separator: ",")
        let resources = try Row.fetchCursor(
            try db.cachedStatement(
                sql: """
                    SELECT id, assetId, type, originalFilename, uniformTypeIdentifier, fileSize, pixelWidth, pixelHeight,
                    sha256, storedPath FROM resource WHERE assetId IN (\(marks)) ORDER BY assetId, type
                    """),
            arguments: StatementArguments(Array(positions.keys)))
        while let row = try resources.next() {
            let resource = ResourceRecord(
                id: row[0], assetId: row[1], type: row[2], originalFilename: row[3], uniformTypeIdentifier: row[4],
                fileSize: row[5], pixelWidth: row[6], pixelHeight: row[7], sha256: row[8], storedPath: row[9])
            if let position = positions[resource.assetId] { infos[position].resources.append(resource) }
        }
        return infos
    }

    /// ``load(_:where:arguments:)`` on either database: SQLite's through its fast path, another's
    /// (PostgreSQL) through ``SQLDatabase``'s rows, read by position alike.
    static func load(_ db: any SQLDatabase, where condition: String, _ arguments: [any SQLBindable]) throws
        -> [AssetInfo]
    {
        if let database = db as? Database {
            return try load(
                database, where: condition, arguments: StatementArguments(arguments.map { $0.sqlValue.databaseValue }))
        }
        var infos: [AssetInfo] = []
        var positions: [Int64: Int] = [:]
        for row in try db.rows("SELECT \(assetColumns) FROM asset WHERE \(condition)", arguments) {
            let v = row.values
            func int(_ index: Int) throws -> Int {
                guard let value = v[index].integer else { throw Self.notA("an integer", index, v[index]) }
                return Int(value)
            }
            func date(_ index: Int) throws -> Date {
                guard let value = v[index].date else { throw Self.notA("a date", index, v[index]) }
                return value
            }
            let id = Int64(try int(0))
            guard let localIdentifier = v[1].text else { throw Self.notA("text", 1, v[1]) }
            let record = AssetRecord(
                id: id, localIdentifier: localIdentifier, mediaType: try int(2), mediaSubtypes: try int(3),
                pixelWidth: try int(4), pixelHeight: try int(5), creationDate: try date(6),
                creationTimeZoneOffset: try int(7), modificationDate: try date(8), addedDate: try date(9),
                duration: v[10].real ?? 0, isFavorite: try int(11) != 0, isHidden: try int(12) != 0,
                playbackStyle: try int(13), sourceType: try int(14), latitude: v[15].real, longitude: v[16].real,
                altitude: v[17].real, locationTimestamp: v[18].date, burstIdentifier: v[19].text,
                burstSelectionTypes: try int(20), representsBurst: try int(21) != 0, hasAdjustments: try int(22) != 0,
                adjustmentFormatIdentifier: v[23].text, isSelfPortrait: try int(24) != 0,
                orientationOverride: v[25].integer.map(Int.init), rating: v[26].integer.map(Int.init),
                trashedDate: v[27].date, cameraMake: v[28].text, cameraModel: v[29].text, lensModel: v[30].text,
                fileOrientation: v[31].integer.map(Int.init))
            positions[id] = infos.count
            infos.append(AssetInfo(asset: record, resources: []))
        }
        guard !infos.isEmpty else { return [] }
        let marks = Array(repeating: "?", count: positions.count).joined(separator: ",")
        for row in try db.rows(
            """
            SELECT id, assetId, type, originalFilename, uniformTypeIdentifier, fileSize, pixelWidth, pixelHeight,
            sha256, storedPath FROM resource WHERE assetId IN (\(marks)) ORDER BY assetId, type
            """, Array(positions.keys))
        {
            let resource = ResourceRecord(
                id: try row.integer("id"), assetId: try row.integer("assetId"), type: Int(try row.integer("type")),
                originalFilename: try row.text("originalFilename"),
                uniformTypeIdentifier: try row.text("uniformTypeIdentifier"), fileSize: try row.integer("fileSize"),
                pixelWidth: Int(try row.integer("pixelWidth")), pixelHeight: Int(try row.integer("pixelHeight")),
                sha256: try row.text("sha256"), storedPath: try row.text("storedPath"))
            if let position = positions[resource.assetId] { infos[position].resources.append(resource) }
        }
        return infos
    }

    private static func notA(_ kind: String, _ index: Int, _ value: SQLValue) -> LibraryError {
        LibraryError(.storageFailed, "the library's asset column \(index + 1) holds \(value), not \(kind)")
    }

    /// The assets with these row ids, by row id.
    static func load(_ db: any SQLDatabase, ids: [Int64]) throws -> [Int64: Asset] {
        guard !ids.isEmpty else { return [:] }
        let marks = Array(repeating: "?", count: ids.count).joined(separator: ",")
        var byID: [Int64: Asset] = [:]
        for info in try load(db, where: "id IN (\(marks))", ids) {
            if let id = info.asset.id { byID[id] = info.model }
        }
        return byID
    }
}
