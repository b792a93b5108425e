import Foundation
import GRDB
import LightboxMetadata

extension FileFormat {
    /// The uniform type identifiers of RAW formats, as a SQL list of strings.
    static let rawTypeIdentifiersSQL = allCases.filter { $0.kind == .raw }.map { "'\($0.uniformTypeIdentifier)'" }
        .joined(separator: ", ")
}

extension NewAsset {
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
    func pair(_ db: any SQLDatabase) throws -> String? {
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
                if needsPlayableCopy {
                    try db.enqueueJob(.playableMovie, subject: partner.localIdentifier)
                }
                try db.execute(
                    """
                    UPDATE asset SET mediaSubtypes = mediaSubtypes | ?, playbackStyle = ?, modificationDate = ?
                    WHERE id = ?
                    """,
                    [AssetMediaSubtypes.photoLive.rawValue, AssetPlaybackStyle.livePhoto.rawValue, Date(), partner.id])
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
            try db.execute("UPDATE asset SET modificationDate = ? WHERE id = ?", [Date(), partner.id])
            return partner.localIdentifier
        }
        if kind == .image, let partner = try find(db, lonePhoto.replacingOccurrences(of: "%@", with: "IN"), key) {
            try db.execute(
                "UPDATE resource SET type = ? WHERE assetId = ? AND type = ?",
                [AssetResourceType.alternatePhoto.rawValue, partner.id, AssetResourceType.photo.rawValue])
            try insertResource(db, assetID: partner.id, type: .photo)
            try db.execute(
                """
                UPDATE asset SET pixelWidth = ?, pixelHeight = ?, mediaSubtypes = ?, orientationOverride = ?,
                rating = COALESCE(?, rating), modificationDate = ?, cameraMake = COALESCE(cameraMake, ?),
                cameraModel = COALESCE(cameraModel, ?), lensModel = COALESCE(lensModel, ?), fileOrientation = ?
                WHERE id = ?
                """,
                [
                    pixelWidth, pixelHeight, metadata.mediaSubtypes.rawValue, orientationOverride, rating, Date(),
                    metadata.cameraMake, metadata.cameraModel, metadata.lensModel, metadata.fileOrientation,
                    partner.id,
                ])
            return partner.localIdentifier
        }
        return nil
    }

    /// The first asset `sql` finds for `key`; only one its album shows when the asset pairs
    /// within one (``pairsWithin``), so a contribution never completes what its share hides.
    private func find(_ db: any SQLDatabase, _ sql: String, _ key: String) throws -> (
        id: Int64, localIdentifier: String
    )? {
        var query = sql
        var values: [any SQLBindable] = [key]
        if let album = pairsWithin {
            query += """

                AND asset.isHidden = 0 AND \(AssetVisibility.notTrashed) AND asset.id IN (SELECT collectionAsset.assetId FROM collectionAsset
                JOIN assetCollection ON assetCollection.id = collectionAsset.collectionId
                WHERE assetCollection.localIdentifier = ?)
                """
            values.append(album)
        }
        guard let row = try db.rows(query + " LIMIT 1", values).first else { return nil }
        return (try row.integer("id"), try row.text("localIdentifier"))
    }

    /// Turns a lone movie's asset into the Live Photo this still leads: a photo, so of no
    /// duration (PhotoKit's `duration` is a movie's alone; the Live Photo's movie keeps its own).
    private func becomeStill(of assetID: Int64, _ db: any SQLDatabase) throws {
        let location = metadata.location
        try db.execute(
            """
            UPDATE asset SET mediaType = ?, mediaSubtypes = ?, playbackStyle = ?, pixelWidth = ?, pixelHeight = ?,
            creationDate = ?, creationTimeZoneOffset = ?, latitude = COALESCE(?, latitude),
            longitude = COALESCE(?, longitude), altitude = COALESCE(?, altitude),
            locationTimestamp = COALESCE(?, locationTimestamp), burstIdentifier = ?, isSelfPortrait = ?,
            captureKey = ?, orientationOverride = ?, rating = COALESCE(?, rating), modificationDate = ?, duration = 0,
            cameraMake = COALESCE(?, cameraMake), cameraModel = COALESCE(?, cameraModel),
            lensModel = COALESCE(?, lensModel), fileOrientation = ? WHERE id = ?
            """,
            [
                AssetMediaType.image.rawValue, metadata.mediaSubtypes.union(.photoLive).rawValue,
                AssetPlaybackStyle.livePhoto.rawValue, pixelWidth, pixelHeight, metadata.creationDate,
                metadata.creationTimeZoneOffset, location?.latitude, location?.longitude,
                location?.altitude, location?.timestamp, metadata.burstIdentifier, metadata.isSelfPortrait, captureKey,
                orientationOverride, rating, Date(), metadata.cameraMake, metadata.cameraModel, metadata.lensModel,
                metadata.fileOrientation, assetID,
            ])
        try db.execute(
            "UPDATE resource SET type = ? WHERE assetId = ? AND type = ?",
            [AssetResourceType.pairedVideo.rawValue, assetID, AssetResourceType.video.rawValue])
        try insertResource(db, assetID: assetID, type: .photo)
        try db.enqueueJobAgain(.faces, subject: "")
        try db.enqueueAnalyses()
        if let burst = metadata.burstIdentifier { try db.electRepresentative(ofBurst: burst) }
    }

    /// Inserts a new asset with its resource (inside the caller's transaction).
    func insert(_ db: any SQLDatabase, localIdentifier: String) throws {
        let now = Date()
        let location = metadata.location
        var subtypes = metadata.mediaSubtypes
        var style = metadata.playbackStyle
        if pairedMovie != nil {
            subtypes.insert(.photoLive)
            style = .livePhoto
        }
        let values: [(String, any SQLBindable)] = [
            ("localIdentifier", localIdentifier), ("mediaType", metadata.mediaType.rawValue),
            ("mediaSubtypes", subtypes.rawValue), ("pixelWidth", pixelWidth), ("pixelHeight", pixelHeight),
            ("creationDate", metadata.creationDate), ("creationTimeZoneOffset", metadata.creationTimeZoneOffset),
            ("modificationDate", now), ("addedDate", now),
            ("duration", metadata.duration),
            ("isFavorite", false), ("isHidden", false), ("playbackStyle", style.rawValue),
            ("sourceType", AssetSourceType.typeUserLibrary.rawValue), ("latitude", location?.latitude),
            ("longitude", location?.longitude), ("altitude", location?.altitude),
            ("locationTimestamp", location?.timestamp), ("burstIdentifier", metadata.burstIdentifier),
            ("burstSelectionTypes", 0), ("representsBurst", false), ("hasAdjustments", false),
            ("isSelfPortrait", metadata.isSelfPortrait), ("contentIdentifier", metadata.contentIdentifier),
            ("captureKey", captureKey), ("orientationOverride", orientationOverride), ("rating", rating),
            ("cameraMake", metadata.cameraMake), ("cameraModel", metadata.cameraModel),
            ("lensModel", metadata.lensModel), ("fileOrientation", metadata.fileOrientation),
        ]
        guard
            let assetID = try db.integer(
                "INSERT INTO asset (\(values.map(\.0).joined(separator: ", "))) VALUES ("
                    + Array(repeating: "?", count: values.count).joined(separator: ", ") + ") RETURNING id",
                values.map(\.1))
        else { throw LibraryError(.storageFailed, "the new asset got no id") }
        try insertResource(db, assetID: assetID, type: resourceType)
        if let movie = pairedMovie { try db.insertResource(movie, assetID: assetID, type: .pairedVideo) }
        // A movie browsers cannot play gets its copy made by a worker, ahead of the first ask.
        if needsPlayableCopy { try db.enqueueJob(.playableMovie, subject: localIdentifier) }
        // A photo's faces are found by the analysis job, one for the library.
        if metadata.mediaType == .image, try db.facesEnabled() { try db.enqueueJobAgain(.faces, subject: "") }
        // And its text read, and its things found, by their jobs.
        if metadata.mediaType == .image { try db.enqueueAnalyses() }
        // Its place is named by the places job, one for the library.
        if location != nil, try db.placesEnabled() { try db.enqueueJobAgain(.places, subject: "") }
        if let burst = metadata.burstIdentifier { try db.electRepresentative(ofBurst: burst) }
    }

    func insertResource(_ db: any SQLDatabase, assetID: Int64, type: AssetResourceType) throws {
        try db.insertResource(file, assetID: assetID, type: type)
    }
}

extension SQLDatabase {
    /// Inserts a resource row for a stored file.
    func insertResource(_ file: StoredFile, assetID: Int64, type: AssetResourceType) throws {
        try execute(
            """
            INSERT INTO resource (assetId, type, originalFilename, uniformTypeIdentifier, fileSize, pixelWidth,
                pixelHeight, sha256, storedPath)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                assetID, type.rawValue, file.originalFilename, file.uniformTypeIdentifier, file.size,
                file.pixelWidth, file.pixelHeight, file.sha256, file.storedPath,
            ])
    }

    /// Makes one frame of a burst its representative: the user's pick, else the camera's,
    /// else the first frame taken (ties: the first imported). Runs after each frame joins.
    func electRepresentative(ofBurst burst: String) throws {
        try execute(
            """
            UPDATE asset SET representsBurst = CASE WHEN id = (
                SELECT id FROM asset WHERE burstIdentifier = ?
                ORDER BY (burstSelectionTypes & \(AssetBurstSelectionType.userPick.rawValue)) != 0 DESC,
                (burstSelectionTypes & \(AssetBurstSelectionType.autoPick.rawValue)) != 0 DESC, creationDate, id
                LIMIT 1) THEN 1 ELSE 0 END
            WHERE burstIdentifier = ?
            """, [burst, burst])
    }
}

extension SQLDatabase {
    func assetIdentifier(withOriginalHash sha256: String) throws -> String? {
        try text(
            """
            SELECT asset.localIdentifier FROM resource JOIN asset ON asset.id = resource.assetId
            WHERE resource.sha256 = ? AND resource.type IN (\(AssetResourceType.originals))
            """, [sha256])
    }

    func journaledAsset(path: String, size: Int64, modificationDate: Date) throws -> String? {
        try text(
            """
            SELECT asset.localIdentifier FROM importedFile
            JOIN resource ON resource.sha256 = importedFile.sha256 AND resource.type IN (\(AssetResourceType.originals))
            JOIN asset ON asset.id = resource.assetId
            WHERE importedFile.path = ? AND importedFile.size = ? AND importedFile.modificationDate = ?
            """, [path, size, modificationDate.timeIntervalSince1970])
    }

    func journal(_ source: JournaledFile) throws {
        try execute(
            """
            INSERT INTO importedFile (path, size, modificationDate, sha256) VALUES (?, ?, ?, ?)
            ON CONFLICT (path) DO UPDATE SET size = excluded.size, modificationDate = excluded.modificationDate,
                sha256 = excluded.sha256
            """, [source.path, source.size, source.modificationDate.timeIntervalSince1970, source.sha256])
    }

    /// Inserts a new asset; throws ``DuplicateOriginal`` when another asset holds its bytes.
    func insert(_ asset: NewAsset, localIdentifier: String) throws {
        do {
            try asset.insert(self, localIdentifier: localIdentifier)
        } catch  where SQLErrors.isUniqueViolation(error) {
            throw DuplicateOriginal()
        }
    }
}

extension AssetResourceType {
    /// The types whose bytes are a file as it came in, as SQL: photo, video, RAW alternate,
    /// paired movie.
    static let originals = [photo, video, alternatePhoto, pairedVideo].map { String($0.rawValue) }.joined(
        separator: ", ")
}
