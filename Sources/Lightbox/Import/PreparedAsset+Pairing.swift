import Foundation
import GRDB
import LightboxMetadata

extension FileFormat {
    /// The uniform type identifiers of RAW formats, as a SQL list of strings.
    static let rawTypeIdentifiersSQL = allCases.filter { $0.kind == .raw }.map { "'\($0.uniformTypeIdentifier)'" }
        .joined(separator: ", ")
}

extension PhotoLibrary.PreparedAsset {
    /// Joins the asset this file completes, inside the caller's write transaction, and returns
    /// its identifier; nil when there is none and the file makes an asset of its own.
    ///
    /// - A still whose content identifier a lone movie has: the movie's asset becomes the
    ///   Live Photo (it keeps its identifier, albums and favourite), the still its `.photo`,
    ///   the movie its `.pairedVideo`.
    /// - A movie whose content identifier a still without a movie has: it becomes that
    ///   still's `.pairedVideo`.
    /// - A RAW whose capture key a JPEG (or HEIC) has: it becomes its `.alternatePhoto`.
    /// - A JPEG whose capture key a lone RAW has: the JPEG becomes the `.photo`, the RAW the
    ///   `.alternatePhoto`.
    func pair(_ db: Database) throws -> String? {
        if let identifier = metadata.contentIdentifier {
            if kind == .image,
                let partner = try find(
                    db,
                    """
                    SELECT id, localIdentifier FROM asset WHERE contentIdentifier = ? AND mediaType = \(AssetMediaType.video.rawValue)
                    AND NOT EXISTS (SELECT 1 FROM resource WHERE assetId = asset.id AND type = \(AssetResourceType.photo.rawValue))
                    """, identifier)
            {
                try becomeStill(of: partner.id, db)
                return partner.localIdentifier
            }
            if kind == .video,
                let partner = try find(
                    db,
                    """
                    SELECT id, localIdentifier FROM asset WHERE contentIdentifier = ? AND mediaType = \(AssetMediaType.image.rawValue)
                    AND NOT EXISTS (SELECT 1 FROM resource WHERE assetId = asset.id AND type = \(AssetResourceType.pairedVideo.rawValue))
                    """, identifier)
            {
                try insertResource(db, assetID: partner.id, type: .pairedVideo)
                try db.execute(
                    sql: """
                        UPDATE asset SET mediaSubtypes = mediaSubtypes | ?, playbackStyle = ?, duration = ?,
                        modificationDate = ? WHERE id = ?
                        """,
                    arguments: [
                        AssetMediaSubtypes.photoLive.rawValue, AssetPlaybackStyle.livePhoto.rawValue, metadata.duration,
                        Date(),
                        partner.id,
                    ])
                return partner.localIdentifier
            }
        }
        guard let key = captureKey else { return nil }
        let lonePhoto = """
            SELECT asset.id, asset.localIdentifier FROM asset JOIN resource ON resource.assetId = asset.id
            AND resource.type = \(AssetResourceType.photo.rawValue)
            WHERE asset.captureKey = ? AND resource.uniformTypeIdentifier %@ (\(FileFormat.rawTypeIdentifiersSQL))
            AND NOT EXISTS (SELECT 1 FROM resource WHERE assetId = asset.id AND type = \(AssetResourceType.alternatePhoto.rawValue))
            """
        if kind == .raw, let partner = try find(db, lonePhoto.replacingOccurrences(of: "%@", with: "NOT IN"), key) {
            try insertResource(db, assetID: partner.id, type: .alternatePhoto)
            try db.execute(sql: "UPDATE asset SET modificationDate = ? WHERE id = ?", arguments: [Date(), partner.id])
            return partner.localIdentifier
        }
        if kind == .image, let partner = try find(db, lonePhoto.replacingOccurrences(of: "%@", with: "IN"), key) {
            try db.execute(
                sql: "UPDATE resource SET type = ? WHERE assetId = ? AND type = ?",
                arguments: [AssetResourceType.alternatePhoto.rawValue, partner.id, AssetResourceType.photo.rawValue])
            try insertResource(db, assetID: partner.id, type: .photo)
            try db.execute(
                sql: """
                    UPDATE asset SET pixelWidth = ?, pixelHeight = ?, mediaSubtypes = ?, orientationOverride = ?,
                    rating = COALESCE(?, rating), modificationDate = ? WHERE id = ?
                    """,
                arguments: [
                    pixelWidth, pixelHeight, metadata.mediaSubtypes.rawValue, orientationOverride, rating, Date(),
                    partner.id,
                ])
            return partner.localIdentifier
        }
        return nil
    }

    private func find(_ db: Database, _ sql: String, _ key: String) throws -> (id: Int64, localIdentifier: String)? {
        guard let row = try Row.fetchOne(db, sql: sql + " LIMIT 1", arguments: [key]) else { return nil }
        return (row[0], row[1])
    }

    /// Turns a lone movie's asset into the Live Photo this still leads.
    private func becomeStill(of assetID: Int64, _ db: Database) throws {
        let location = metadata.location
        try db.execute(
            sql: """
                UPDATE asset SET mediaType = ?, mediaSubtypes = ?, playbackStyle = ?, pixelWidth = ?, pixelHeight = ?,
                creationDate = ?, creationTimeZoneOffset = ?, latitude = COALESCE(?, latitude),
                longitude = COALESCE(?, longitude), altitude = COALESCE(?, altitude),
                locationTimestamp = COALESCE(?, locationTimestamp), burstIdentifier = ?, isSelfPortrait = ?,
                captureKey = ?, orientationOverride = ?, rating = COALESCE(?, rating), modificationDate = ? WHERE id = ?
                """,
            arguments: [
                AssetMediaType.image.rawValue, metadata.mediaSubtypes.union(.photoLive).rawValue,
                AssetPlaybackStyle.livePhoto.rawValue, pixelWidth, pixelHeight, metadata.creationDate,
                metadata.creationTimeZoneOffset, location?.latitude, location?.longitude,
                location?.altitude, location?.timestamp, metadata.burstIdentifier, metadata.isSelfPortrait, captureKey,
                orientationOverride, rating, Date(), assetID,
            ])
        try db.execute(
            sql: "UPDATE resource SET type = ? WHERE assetId = ? AND type = ?",
            arguments: [AssetResourceType.pairedVideo.rawValue, assetID, AssetResourceType.video.rawValue])
        try insertResource(db, assetID: assetID, type: .photo)
        if let burst = metadata.burstIdentifier { try Self.electRepresentative(ofBurst: burst, db) }
    }
}

extension PhotoLibrary {
    /// The asset a file already imported from this path (same size and modification time)
    /// became, if the library still holds it: a resumed import skips it without hashing.
    func journaled(_ path: String) throws -> (String, Int64)? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            let size = (attributes[.size] as? NSNumber)?.int64Value,
            let modified = attributes[.modificationDate] as? Date
        else { return nil }
        return try store.writer.read { db -> (String, Int64)? in
            guard
                let identifier = try String.fetchOne(
                    db,
                    sql: """
                        SELECT asset.localIdentifier FROM importedFile
                        JOIN resource ON resource.sha256 = importedFile.sha256 AND resource.type IN (\(AssetResourceType.originals))
                        JOIN asset ON asset.id = resource.assetId
                        WHERE importedFile.path = ? AND importedFile.size = ? AND importedFile.modificationDate = ?
                        """,
                    arguments: [path, size, modified.timeIntervalSince1970])
            else { return nil }
            return (identifier, size)
        }
    }

    /// Records that the file at `source.path` is in the library (inside the caller's transaction).
    static func journal(_ source: ImportSource, _ db: Database) throws {
        try db.execute(
            sql: "INSERT OR REPLACE INTO importedFile (path, size, modificationDate, sha256) VALUES (?, ?, ?, ?)",
            arguments: [source.path, source.size, source.modificationDate.timeIntervalSince1970, source.sha256])
    }

    /// Records a file outside an import's own transaction (a duplicate).
    func journal(_ source: ImportSource) throws {
        try store.writer.write { db in try Self.journal(source, db) }
    }
}
