import LightboxImaging
import LightboxStore

/// A size in pixels (PhotoKit's `targetSize`, which is in pixels too).
public struct PixelSize: Sendable, Hashable, Codable {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// The full image, at its own size (PhotoKit's `PHImageManagerMaximumSize`).
    public static let maximum = PixelSize(width: RenderOptions.maximumSide, height: RenderOptions.maximumSide)

    public var isMaximum: Bool { self == .maximum }
}

/// How an image request is served (PhotoKit's `PHImageRequestOptions`).
public struct ImageRequestOptions: Sendable, Hashable {
    /// Which results a request delivers.
    public enum DeliveryMode: String, Sendable, Hashable, CaseIterable, Codable {
        /// A fast degraded image first when the final one is not ready, then the final one.
        case opportunistic
        /// Only the final image, however long it takes.
        case highQualityFormat
        /// One image, as fast as possible: from the cached thumbnails when they are large
        /// enough to resize, else rendered from the original with fast resizing.
        case fastFormat
    }

    /// Which version of the asset's image (``AssetVersion``).
    public typealias Version = AssetVersion

    public var deliveryMode: DeliveryMode = .opportunistic
    /// Fast by default, as in PhotoKit: the result may be somewhat larger than the target.
    public var resizeMode: ResizeMode = .fast
    /// The part of the upright image to show; applied in every resize mode.
    public var normalizedCropRect: NormalizedRect?
    public var version: Version = .current
    /// The encoding of the results.
    public var format: EncodedImageFormat = .jpeg
    /// Encoder quality, 1...100.
    public var quality: Int = 82
    /// Whether an image smaller than the target is enlarged (never, by default).
    public var allowsUpscaling = false

    public init(
        deliveryMode: DeliveryMode = .opportunistic, resizeMode: ResizeMode = .fast,
        normalizedCropRect: NormalizedRect? = nil, version: Version = .current, format: EncodedImageFormat = .jpeg,
        quality: Int = 82, allowsUpscaling: Bool = false
    ) {
        self.deliveryMode = deliveryMode
        self.resizeMode = resizeMode
        self.normalizedCropRect = normalizedCropRect
        self.version = version
        self.format = format
        self.quality = quality
        self.allowsUpscaling = allowsUpscaling
    }
}

/// Identifies an image request, for ``ImageManager/cancelImageRequest(_:)``.
public struct ImageRequestID: Sendable, Hashable, CustomStringConvertible {
    public let rawValue: Int
    public var description: String { "\(rawValue)" }
}

/// Where a result came from: the cache it was found in, or the work that made it.
public enum ImageResultSource: String, Sendable, Hashable {
    /// The image manager's memory cache.
    case memoryCache
    /// The library's `derivatives/` folder, at the size asked for.
    case diskCache
    /// Resized from a thumbnail the library keeps (the import's preview or grid).
    case thumbnail
    /// Resized from the thumbnail the file embeds (a HEIF's, a JPEG's EXIF thumbnail, a RAW's
    /// smallest preview), when the library keeps none.
    case embeddedThumbnail
    /// Rendered from the asset's file.
    case rendered
}

/// What comes with each result (PhotoKit's info dictionary).
public struct ImageResultInfo: Sendable {
    public var requestID: ImageRequestID
    /// True for the quick, lower-quality result an opportunistic request delivers first.
    public var isDegraded: Bool
    /// True on the last result of a cancelled request, which carries no image.
    public var isCancelled: Bool
    /// Why the request failed; the result then carries no image.
    public var error: LibraryError?
    /// Where the image came from; nil without an image.
    public var source: ImageResultSource?
}

/// One result of an image request.
public struct ImageResult: Sendable {
    /// The image, encoded as the options asked; nil for a failed or cancelled request.
    public var image: EncodedImage?
    public var info: ImageResultInfo
}

/// A photo's bytes as stored, for ``ImageManager/requestImageDataAndOrientation(for:options:)``.
public struct ImageData: Sendable {
    public var bytes: [UInt8]
    /// The Uniform Type Identifier of the bytes, e.g. "public.heic".
    public var uniformTypeIdentifier: String
    /// The EXIF orientation (1...8) to show the bytes in.
    public var orientation: Int
}
