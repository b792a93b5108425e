/// An encoded image format Lightbox writes.
public enum EncodedImageFormat: String, Sendable, Hashable, Codable, CaseIterable {
    case jpeg
    case webp

    /// The MIME type for HTTP.
    public var mimeType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .webp: "image/webp"
        }
    }

    /// The file name extension, without the dot.
    public var filenameExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .webp: "webp"
        }
    }
}

/// How an image is fitted into a target size (PhotoKit's `PHImageContentMode`).
public enum ContentMode: String, Sendable, Hashable, Codable, CaseIterable {
    /// The whole image, scaled to fit inside the target size.
    case aspectFit = "fit"
    /// The target size filled, the image cropped around its centre.
    case aspectFill = "fill"
}

/// What thumbnail to make.
public struct ThumbnailOptions: Sendable, Hashable {
    /// Target width in pixels.
    public var width: Int
    /// Target height in pixels.
    public var height: Int
    /// Fit inside, or fill and crop.
    public var contentMode: ContentMode
    /// Output format.
    public var format: EncodedImageFormat
    /// Encoder quality, 1...100.
    public var quality: Int
    /// Whether an image smaller than the target is enlarged. Off by default: a thumbnail
    /// never invents pixels.
    public var allowsUpscaling: Bool
    /// The EXIF orientation (1...8) to show the image in instead of the file's own: an XMP
    /// sidecar's correction. Nil: the file's.
    public var orientation: Int?

    /// A thumbnail of `width`x`height` pixels; fit, JPEG at quality 82, never enlarged, by default.
    public init(
        width: Int, height: Int, contentMode: ContentMode = .aspectFit, format: EncodedImageFormat = .jpeg,
        quality: Int = 82, allowsUpscaling: Bool = false, orientation: Int? = nil
    ) {
        self.width = width
        self.height = height
        self.contentMode = contentMode
        self.format = format
        self.quality = quality
        self.allowsUpscaling = allowsUpscaling
        self.orientation = orientation
    }
}

/// An encoded image in memory.
public struct EncodedImage: Sendable, Hashable {
    /// The encoded bytes.
    public var bytes: [UInt8]
    /// Their format.
    public var format: EncodedImageFormat
    /// Width in pixels.
    public var pixelWidth: Int
    /// Height in pixels.
    public var pixelHeight: Int

    /// Wraps encoded bytes and what is known of them.
    public init(bytes: [UInt8], format: EncodedImageFormat, pixelWidth: Int, pixelHeight: Int) {
        self.bytes = bytes
        self.format = format
        self.pixelWidth = pixelWidth
        self.pixelHeight = pixelHeight
    }
}
