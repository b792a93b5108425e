import Foundation
import LightboxMetadata

/// The smart albums the library keeps (PhotoKit's `smartAlbum*` subtypes): each is a rule
/// over assets, evaluated whenever it is fetched, so it is current after every transaction
/// without the caller computing anything.
enum SmartAlbums {
    struct Rule: Sendable {
        var subtype: AssetCollectionSubtype
        var title: String
        /// A SQL condition over `asset`; Lightbox's own text, never user input, read alike by
        /// SQLite and PostgreSQL (whose catalog has SQLite's `datetime` for Recently Added).
        var condition: String
        /// Whether hidden assets belong (only "Hidden" itself).
        var includesHidden = false
        /// Whether the album holds deleted assets instead of those in the library (only
        /// "Recently Deleted", which holds every deleted asset, hidden ones and burst frames).
        var isTrash = false

        /// Its visibility condition over `asset`.
        var visibility: String {
            isTrash
                ? AssetVisibility.trashed
                : includesHidden ? AssetVisibility.burstRepresentatives : AssetVisibility.defaultCondition
        }
    }

    private static func subtypeBit(_ bits: AssetMediaSubtypes) -> String {
        "(asset.mediaSubtypes & \(bits.rawValue)) != 0"
    }

    /// Every smart album the library keeps. Long exposures are Live Photos shown as a still
    /// (the Long Exposure effect sets that playback style): a Live Photo effect is an edit,
    /// so only editing (issue #6) fills the album.
    static let rules: [Rule] = [
        Rule(subtype: .smartAlbumUserLibrary, title: "Library", condition: "TRUE"),
        Rule(subtype: .smartAlbumFavorites, title: "Favorites", condition: "asset.isFavorite = 1"),
        Rule(
            subtype: .smartAlbumRecentlyAdded, title: "Recently Added",
            condition: "asset.addedDate >= datetime('now', '-30 days')"),
        Rule(
            subtype: .smartAlbumVideos, title: "Videos", condition: "asset.mediaType = \(AssetMediaType.video.rawValue)"
        ),
        Rule(subtype: .smartAlbumBursts, title: "Bursts", condition: "asset.burstIdentifier IS NOT NULL"),
        Rule(subtype: .smartAlbumPanoramas, title: "Panoramas", condition: subtypeBit(.photoPanorama)),
        Rule(subtype: .smartAlbumLivePhotos, title: "Live Photos", condition: subtypeBit(.photoLive)),
        Rule(subtype: .smartAlbumScreenshots, title: "Screenshots", condition: subtypeBit(.photoScreenshot)),
        Rule(subtype: .smartAlbumSelfPortraits, title: "Selfies", condition: "asset.isSelfPortrait = 1"),
        Rule(
            subtype: .smartAlbumLongExposures, title: "Long Exposure",
            condition: subtypeBit(.photoLive) + " AND asset.playbackStyle = \(AssetPlaybackStyle.image.rawValue)"),
        Rule(subtype: .smartAlbumDepthEffect, title: "Portrait", condition: subtypeBit(.photoDepthEffect)),
        Rule(subtype: .smartAlbumAnimated, title: "Animated", condition: subtypeBit(.photoAnimation)),
        Rule(subtype: .smartAlbumSlomoVideos, title: "Slo-mo", condition: subtypeBit(.videoHighFrameRate)),
        Rule(subtype: .smartAlbumTimelapses, title: "Time-lapse", condition: subtypeBit(.videoTimelapse)),
        Rule(
            subtype: .smartAlbumScreenRecordings, title: "Screen Recordings",
            condition: subtypeBit(.videoScreenRecording)),
        Rule(
            subtype: .smartAlbumRAW, title: "RAW",
            condition: """
                EXISTS (SELECT 1 FROM resource WHERE resource.assetId = asset.id AND resource.uniformTypeIdentifier IN \
                (\(FileFormat.rawTypeIdentifiersSQL)))
                """),
        Rule(subtype: .smartAlbumAllHidden, title: "Hidden", condition: "asset.isHidden = 1", includesHidden: true),
        Rule(subtype: .smartAlbumRecentlyDeleted, title: "Recently Deleted", condition: "TRUE", isTrash: true),
    ]

    static func rule(for subtype: AssetCollectionSubtype) -> Rule? {
        rules.first { $0.subtype == subtype }
    }

    /// SQL giving an aggregate (COUNT(*), MIN(asset.creationDate), ...) over the assets of the
    /// collection in the current row of `assetCollection`, whatever its kind.
    static func aggregate(_ expression: String) -> String {
        let cases = rules.map { rule in
            "WHEN \(rule.subtype.rawValue) THEN (SELECT \(expression) FROM asset WHERE \(rule.visibility) AND \(rule.condition))"
        }
        return
            "(CASE WHEN assetCollection.type = \(AssetCollectionType.smartAlbum.rawValue) THEN (CASE assetCollection.subtype "
            + cases.joined(separator: " ") + " ELSE NULL END) ELSE " + membership(expression) + " END)"
    }

    /// The count and first and last creation dates of the smart albums with these subtypes,
    /// from one pass over the assets: listing the smart albums made three passes each (17
    /// albums, 51 passes, 13 s over 100,000 assets), and held the snapshot every other read of
    /// the library waits for.
    static func aggregates(_ db: any SQLDatabase, subtypes: Set<Int>) throws -> [Int: (
        count: Int, start: Date?, end: Date?
    )] {
        let wanted = rules.filter { subtypes.contains($0.subtype.rawValue) }
        guard !wanted.isEmpty else { return [:] }
        let columns = wanted.map { rule in
            let condition = "(\(rule.visibility)) AND (\(rule.condition))"
            return """
                SUM(CASE WHEN \(condition) THEN 1 ELSE 0 END), \
                MIN(CASE WHEN \(condition) THEN asset.creationDate END), \
                MAX(CASE WHEN \(condition) THEN asset.creationDate END)
                """
        }
        guard let row = try db.rows("SELECT " + columns.joined(separator: ", ") + " FROM asset").first else {
            return [:]
        }
        func date(_ index: Int) throws -> Date? {
            let value = row.values[index]
            guard value != .null else { return nil }
            guard let date = value.date else {
                throw LibraryError(.storageFailed, "the library's creationDate column holds \(value), not a date")
            }
            return date
        }
        var found: [Int: (count: Int, start: Date?, end: Date?)] = [:]
        for (index, rule) in wanted.enumerated() {
            found[rule.subtype.rawValue] = (
                Int(row.values[index * 3].integer ?? 0), try date(index * 3 + 1), try date(index * 3 + 2)
            )
        }
        return found
    }

    private static func membership(_ expression: String) -> String {
        """
        (SELECT \(expression) FROM collectionAsset JOIN asset ON asset.id = collectionAsset.assetId \
        WHERE collectionAsset.collectionId = assetCollection.id)
        """
    }
}
