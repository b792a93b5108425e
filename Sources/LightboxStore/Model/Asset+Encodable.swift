import Foundation

/// The JSON form of an asset, shared by `lightbox --json` and the HTTP API: the model's
/// field names and raw values, dates as ISO 8601 with offset.
extension Asset: Encodable {
    private enum CodingKeys: String, CodingKey {
        case localIdentifier, mediaType, mediaSubtypes, pixelWidth, pixelHeight
        case creationDate, modificationDate, addedDate, duration, isFavorite, isHidden
        case playbackStyle, sourceType, resources, location
        case burstIdentifier, burstSelectionTypes, representsBurst, hasAdjustments, adjustmentFormatIdentifier
        case rating, trashedDate, cameraMake, cameraModel, lensModel, orientation
    }

    /// Encodes the model's fields, dates as ISO 8601 with their offset.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(localIdentifier, forKey: .localIdentifier)
        try container.encode(mediaType.rawValue, forKey: .mediaType)
        try container.encode(mediaSubtypes.rawValue, forKey: .mediaSubtypes)
        try container.encode(pixelWidth, forKey: .pixelWidth)
        try container.encode(pixelHeight, forKey: .pixelHeight)
        try container.encode(
            ISO8601.string(from: creationDate, offsetSeconds: creationTimeZoneOffset), forKey: .creationDate)
        try container.encode(ISO8601.localString(from: modificationDate), forKey: .modificationDate)
        try container.encode(ISO8601.localString(from: addedDate), forKey: .addedDate)
        try container.encode(duration, forKey: .duration)
        try container.encode(isFavorite, forKey: .isFavorite)
        try container.encode(isHidden, forKey: .isHidden)
        try container.encode(playbackStyle.rawValue, forKey: .playbackStyle)
        try container.encode(sourceType.rawValue, forKey: .sourceType)
        try container.encodeIfPresent(location, forKey: .location)
        try container.encodeIfPresent(rating, forKey: .rating)
        try container.encodeIfPresent(burstIdentifier, forKey: .burstIdentifier)
        try container.encode(burstSelectionTypes.rawValue, forKey: .burstSelectionTypes)
        try container.encode(representsBurst, forKey: .representsBurst)
        try container.encode(hasAdjustments, forKey: .hasAdjustments)
        try container.encodeIfPresent(adjustmentFormatIdentifier, forKey: .adjustmentFormatIdentifier)
        try container.encode(resources, forKey: .resources)
        try container.encodeIfPresent(trashedDate.map(ISO8601.localString), forKey: .trashedDate)
        try container.encodeIfPresent(cameraMake, forKey: .cameraMake)
        try container.encodeIfPresent(cameraModel, forKey: .cameraModel)
        try container.encodeIfPresent(lensModel, forKey: .lensModel)
        try container.encode(orientation, forKey: .orientation)
    }
}

extension Location: Encodable {
    private enum CodingKeys: String, CodingKey {
        case latitude, longitude, altitude, timestamp
    }

    /// Encodes the coordinates, and the timestamp as ISO 8601 in UTC.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(latitude, forKey: .latitude)
        try container.encode(longitude, forKey: .longitude)
        try container.encodeIfPresent(altitude, forKey: .altitude)
        try container.encodeIfPresent(timestamp.map { ISO8601.string(from: $0, offsetSeconds: 0) }, forKey: .timestamp)
    }
}

extension AssetResource: Encodable {
    private enum CodingKeys: String, CodingKey {
        case type, originalFilename, uniformTypeIdentifier, fileSize, pixelWidth, pixelHeight, sha256
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(type.rawValue, forKey: .type)
        try container.encode(originalFilename, forKey: .originalFilename)
        try container.encode(uniformTypeIdentifier, forKey: .uniformTypeIdentifier)
        try container.encode(fileSize, forKey: .fileSize)
        try container.encode(pixelWidth, forKey: .pixelWidth)
        try container.encode(pixelHeight, forKey: .pixelHeight)
        try container.encode(sha256, forKey: .sha256)
    }
}

extension JSONEncoder {
    /// The encoder for Lightbox's JSON: stable key order, no escaped slashes, dates (where a
    /// type does not write its own) as ISO 8601 in UTC.
    public static var lightbox: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }
}

/// The JSON form of a collection: the model's field names and raw values.
extension AssetCollection: Encodable {
    private enum CodingKeys: String, CodingKey {
        case localIdentifier, assetCollectionType, assetCollectionSubtype, localizedTitle, estimatedAssetCount
        case startDate, endDate, isHidden, faceCount, keyFace, localizedLocationNames
    }

    /// Encodes the model's fields, dates as ISO 8601 in the local offset.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(localIdentifier, forKey: .localIdentifier)
        try container.encode(assetCollectionType.rawValue, forKey: .assetCollectionType)
        try container.encode(assetCollectionSubtype.rawValue, forKey: .assetCollectionSubtype)
        try container.encodeIfPresent(localizedTitle, forKey: .localizedTitle)
        try container.encode(estimatedAssetCount, forKey: .estimatedAssetCount)
        try container.encodeIfPresent(startDate.map(ISO8601.localString), forKey: .startDate)
        try container.encodeIfPresent(endDate.map(ISO8601.localString), forKey: .endDate)
        if !localizedLocationNames.isEmpty {
            try container.encode(localizedLocationNames, forKey: .localizedLocationNames)
        }
        // A person's own fields.
        if let person {
            try container.encode(person.isHidden, forKey: .isHidden)
            try container.encode(person.faceCount, forKey: .faceCount)
            try container.encodeIfPresent(person.keyFace, forKey: .keyFace)
        }
    }
}

/// The JSON form of a collection list: the model's field names and raw values.
extension CollectionList: Encodable {
    private enum CodingKeys: String, CodingKey {
        case localIdentifier, collectionListType, collectionListSubtype, localizedTitle, localizedLocationNames
    }

    /// Encodes the model's fields.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(localIdentifier, forKey: .localIdentifier)
        try container.encode(collectionListType.rawValue, forKey: .collectionListType)
        try container.encode(collectionListSubtype.rawValue, forKey: .collectionListSubtype)
        try container.encodeIfPresent(localizedTitle, forKey: .localizedTitle)
        if !localizedLocationNames.isEmpty {
            try container.encode(localizedLocationNames, forKey: .localizedLocationNames)
        }
    }
}
