import Foundation

/// The kind of media an asset holds (PhotoKit's `PHAssetMediaType`). Raw values are the framework's.
public enum AssetMediaType: Int, Sendable, Hashable, Codable, CaseIterable {
    case unknown = 0
    case image = 1
    case video = 2
    case audio = 3
}

/// Kinds of photo and video an asset is (PhotoKit's `PHAssetMediaSubtype`), as a bit set.
public struct AssetMediaSubtypes: OptionSet, Sendable, Hashable, Codable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// A panorama.
    public static let photoPanorama = AssetMediaSubtypes(rawValue: 1 << 0)
    /// A high-dynamic-range photo.
    public static let photoHDR = AssetMediaSubtypes(rawValue: 1 << 1)
    /// A screenshot.
    public static let photoScreenshot = AssetMediaSubtypes(rawValue: 1 << 2)
    /// A Live Photo: a still and its paired movie.
    public static let photoLive = AssetMediaSubtypes(rawValue: 1 << 3)
    /// A photo with depth data (portrait mode).
    public static let photoDepthEffect = AssetMediaSubtypes(rawValue: 1 << 4)
    /// An animated image (GIF, animated WebP/HEIF).
    public static let photoAnimation = AssetMediaSubtypes(rawValue: 1 << 6)
    /// A streamed video.
    public static let videoStreamed = AssetMediaSubtypes(rawValue: 1 << 16)
    /// A slow-motion (high frame rate) video.
    public static let videoHighFrameRate = AssetMediaSubtypes(rawValue: 1 << 17)
    /// A time-lapse video.
    public static let videoTimelapse = AssetMediaSubtypes(rawValue: 1 << 18)
    /// A screen recording.
    public static let videoScreenRecording = AssetMediaSubtypes(rawValue: 1 << 19)

    /// The names of the subtypes set, as the framework spells them ("photoHDR").
    public var names: [String] {
        let all: [(AssetMediaSubtypes, String)] = [
            (.photoPanorama, "photoPanorama"), (.photoHDR, "photoHDR"), (.photoScreenshot, "photoScreenshot"),
            (.photoLive, "photoLive"), (.photoDepthEffect, "photoDepthEffect"), (.photoAnimation, "photoAnimation"),
            (.videoStreamed, "videoStreamed"), (.videoHighFrameRate, "videoHighFrameRate"),
            (.videoTimelapse, "videoTimelapse"), (.videoScreenRecording, "videoScreenRecording"),
        ]
        return all.filter { contains($0.0) }.map(\.1)
    }
}

/// How an asset is meant to be played back (PhotoKit's `PHAsset.PlaybackStyle`).
public enum AssetPlaybackStyle: Int, Sendable, Hashable, Codable, CaseIterable {
    case unsupported = 0
    case image = 1
    case imageAnimated = 2
    case livePhoto = 3
    case video = 4
    case videoLooping = 5
}

/// Where an asset came from (PhotoKit's `PHAssetSourceType`), as a bit set.
public struct AssetSourceType: OptionSet, Sendable, Hashable, Codable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Assets in the user's own library (everything Lightbox imports).
    public static let typeUserLibrary = AssetSourceType(rawValue: 1 << 0)
    /// Assets from a shared album.
    public static let typeCloudShared = AssetSourceType(rawValue: 1 << 1)
    /// Assets synced from a computer.
    public static let typeiTunesSynced = AssetSourceType(rawValue: 1 << 2)
}

/// The role of a file behind an asset (PhotoKit's `PHAssetResourceType`). Raw values are the framework's.
public enum AssetResourceType: Int, Sendable, Hashable, Codable, CaseIterable {
    case photo = 1
    case video = 2
    case audio = 3
    case alternatePhoto = 4
    case fullSizePhoto = 5
    case fullSizeVideo = 6
    case adjustmentData = 7
    case adjustmentBasePhoto = 8
    case pairedVideo = 9
    case fullSizePairedVideo = 10
    case adjustmentBasePairedVideo = 11
    case adjustmentBaseVideo = 12
}

/// How a burst photo was chosen (PhotoKit's `PHAssetBurstSelectionType`), as a bit set.
public struct AssetBurstSelectionType: OptionSet, Sendable, Hashable, Codable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// The library picked this frame as the burst's best.
    public static let autoPick = AssetBurstSelectionType(rawValue: 1 << 0)
    /// The user picked this frame.
    public static let userPick = AssetBurstSelectionType(rawValue: 1 << 1)
}

/// Where an asset was taken (PhotoKit's `CLLocation`, reduced to what photos record).
public struct Location: Sendable, Hashable {
    /// Degrees north of the equator, -90...90.
    public var latitude: Double
    /// Degrees east of Greenwich, -180...180.
    public var longitude: Double
    /// Metres above sea level, when known.
    public var altitude: Double?
    /// When the position was fixed (GPS time), when known.
    public var timestamp: Date?

    /// A location from coordinates.
    public init(latitude: Double, longitude: Double, altitude: Double? = nil, timestamp: Date? = nil) {
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
        self.timestamp = timestamp
    }
}

/// Which version of an asset's image (``ImageRequestOptions/Version``).
public enum AssetVersion: String, Sendable, Hashable, CaseIterable, Codable {
    /// With edits, and turned as the library shows it (a sidecar's orientation).
    case current
    /// Without edits, turned as the library shows it.
    case unadjusted
    /// The photo file as the camera wrote it: no edits, its own orientation.
    case original
}
