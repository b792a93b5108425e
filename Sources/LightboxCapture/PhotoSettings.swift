import Foundation
import Synchronization

/// A width and height in pixels.
public struct PhotoDimensions: Sendable, Hashable, Codable, CustomStringConvertible {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    public var description: String { "\(width)x\(height)" }

    /// This size scaled down (never up) to fit in `box`, keeping its aspect, sides even.
    public func fitting(_ box: PhotoDimensions) -> PhotoDimensions {
        guard width > 0, height > 0, box.width > 0, box.height > 0 else { return self }
        let scale = Swift.min(1, Double(box.width) / Double(width), Double(box.height) / Double(height))
        return PhotoDimensions(
            width: Swift.max(2, Int((Double(width) * scale).rounded()) & ~1),
            height: Swift.max(2, Int((Double(height) * scale).rounded()) & ~1))
    }

    /// The largest square side: the size fitting in a `side` by `side` box.
    public func fitting(side: Int) -> PhotoDimensions { fitting(PhotoDimensions(width: side, height: side)) }
}

/// The file format of a captured photo.
public enum PhotoFormat: String, Sendable, Hashable, Codable, CaseIterable {
    /// HEVC in HEIF, as iPhones take photos.
    case heic
    case jpeg

    public var filenameExtension: String { self == .heic ? "HEIC" : "JPG" }
}

/// When the flash fires.
public enum FlashMode: String, Sendable, Hashable, Codable {
    case off, on, auto
}

/// What one photo capture asks for (AVFoundation's `AVCapturePhotoSettings`). Every settings
/// value has its own ``uniqueID``; a photo output refuses one it has seen, so make new settings
/// (``init(format:)``, ``init(from:)``) for every capture.
public struct PhotoSettings: Sendable, Hashable {
    private static let counter = Atomic<Int64>(0)

    /// Unique in the process; a capture refuses settings whose ID an earlier capture used.
    public let uniqueID: Int64
    public var format: PhotoFormat
    /// The largest photo wanted; nil for the session's full frame.
    public var maxPhotoDimensions: PhotoDimensions?
    public var flashMode: FlashMode
    /// A preview image delivered with the photo, fitting in this square side; nil for none.
    public var previewPhotoSide: Int?
    /// A thumbnail embedded in the file, fitting in this square side; nil for none.
    public var embeddedThumbnailSide: Int?
    /// Where a Live Photo's movie goes; nil for a still photo.
    public var livePhotoMovieFileURL: URL?
    /// Exposure biases in EV for a bracket (one photo per bias, from one frame each); empty for
    /// one photo.
    public var exposureBiases: [Double]
    /// The burst the photo belongs to (set by ``PhotoOutput/captureBurst(count:settings:delegate:)``).
    public var burstIdentifier: String?

    /// New settings with a fresh unique ID: HEIC at full size, no flash, a 160-pixel thumbnail.
    public init(format: PhotoFormat = .heic) {
        uniqueID = Self.counter.add(1, ordering: .relaxed).newValue
        self.format = format
        flashMode = .off
        embeddedThumbnailSide = 160
        exposureBiases = []
    }

    /// A copy of `settings` with a fresh unique ID, for the next capture.
    public init(from settings: PhotoSettings) {
        uniqueID = Self.counter.add(1, ordering: .relaxed).newValue
        format = settings.format
        maxPhotoDimensions = settings.maxPhotoDimensions
        flashMode = settings.flashMode
        previewPhotoSide = settings.previewPhotoSide
        embeddedThumbnailSide = settings.embeddedThumbnailSide
        livePhotoMovieFileURL = settings.livePhotoMovieFileURL
        exposureBiases = settings.exposureBiases
        burstIdentifier = settings.burstIdentifier
    }
}

/// What a capture will deliver, once the output resolved its settings against the device
/// (AVFoundation's `AVCaptureResolvedPhotoSettings`).
public struct ResolvedPhotoSettings: Sendable, Hashable, Codable {
    public let uniqueID: Int64
    public let format: PhotoFormat
    public let photoDimensions: PhotoDimensions
    /// Zero when no preview was asked for.
    public let previewDimensions: PhotoDimensions
    public let embeddedThumbnailDimensions: PhotoDimensions
    /// Whether the flash fires: false on a device without one, whatever was asked.
    public let isFlashEnabled: Bool
    public let isLivePhoto: Bool
    public let livePhotoMovieDimensions: PhotoDimensions
    /// Photos the capture delivers: one, or one per bracketed exposure.
    public let expectedPhotoCount: Int
    /// The identifier the still and the movie share (Live Photos), written into both.
    public let contentIdentifier: String?
    public let burstIdentifier: String?
}
