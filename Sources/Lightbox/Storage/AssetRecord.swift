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

    enum Columns {
        static let id = Column(CodingKeys.id)
        static let localIdentifier = Column(CodingKeys.localIdentifier)
        static let creationDate = Column(CodingKeys.creationDate)
    }

    static let resources = hasMany(ResourceRecord.self)

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
struct AssetInfo: Decodable, FetchableRecord {
    var asset: AssetRecord
    var resources: [ResourceRecord]

    static func request() -> QueryInterfaceRequest<AssetInfo> {
        AssetRecord.including(all: AssetRecord.resources.order(ResourceRecord.Columns.type))
            .asRequest(of: AssetInfo.self)
    }

    var model: Asset {
        Asset(
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
    }
}
