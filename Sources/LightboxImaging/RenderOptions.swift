import Foundation

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

/// How closely an image is resized to its target size (PhotoKit's `PHImageRequestOptionsResizeMode`).
public enum ResizeMode: String, Sendable, Hashable, Codable, CaseIterable {
    /// No resampling: the image at the scale its decoder reaches most cheaply (a JPEG's DCT
    /// scaling, 1/2, 1/4 or 1/8), at least as large as the target, cropped but never resized.
    case none
    /// Quick: the decoder's scale, then a box shrink by a whole factor while the image stays
    /// at least as large as the target. May be up to twice the target.
    case fast
    /// Exactly the target size (for fill) or the largest size that fits it (for fit).
    case exact
}

/// A rectangle in unit coordinates of the upright image: origin at its top left corner, 1 is
/// its whole width or height (PhotoKit's `normalizedCropRect`).
public struct NormalizedRect: Sendable, Hashable, Codable {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// The whole image.
    public static let full = NormalizedRect(x: 0, y: 0, width: 1, height: 1)

    /// Whether the rectangle lies inside the unit square with a positive area.
    public var isValid: Bool {
        [x, y, width, height].allSatisfy(\.isFinite) && x >= 0 && y >= 0 && width > 0 && height > 0
            && x + width <= 1.000001 && y + height <= 1.000001
    }

    /// Parses "X,Y,W,H" (the CLI's and HTTP's form). Nil when malformed or outside the unit square.
    public init?(parsing text: String) {
        let parts = text.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 4, let x = parts[0], let y = parts[1], let width = parts[2], let height = parts[3] else {
            return nil
        }
        self.init(x: x, y: y, width: width, height: height)
        guard isValid else { return nil }
    }

    /// "X,Y,W,H", the form ``init(parsing:)`` reads.
    public var text: String { "\(x),\(y),\(width),\(height)" }
}

/// What image to render from a file: a thumbnail, a crop, or the full image.
public struct RenderOptions: Sendable, Hashable {
    /// The side that asks for the image at its full size: with it as width and height, an image
    /// is never scaled down (PhotoKit's `PHImageManagerMaximumSize`).
    public static let maximumSide = Int(Int32.max)

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
    /// How closely the result matches the target size. Exact by default.
    public var resizeMode: ResizeMode
    /// The part of the upright image to show, nil for all of it. Applied before fitting or
    /// filling: the crop is what is fitted into, or fills, the target.
    public var normalizedCropRect: NormalizedRect?

    /// A thumbnail of `width`x`height` pixels; fit, JPEG at quality 82, never enlarged, by default.
    public init(
        width: Int, height: Int, contentMode: ContentMode = .aspectFit, format: EncodedImageFormat = .jpeg,
        quality: Int = 82, allowsUpscaling: Bool = false, orientation: Int? = nil, resizeMode: ResizeMode = .exact,
        normalizedCropRect: NormalizedRect? = nil
    ) {
        self.width = width
        self.height = height
        self.contentMode = contentMode
        self.format = format
        self.quality = quality
        self.allowsUpscaling = allowsUpscaling
        self.orientation = orientation
        self.resizeMode = resizeMode
        self.normalizedCropRect = normalizedCropRect
    }

    /// True when the whole image is asked for at its own size.
    public var isMaximumSize: Bool { width >= Self.maximumSide && height >= Self.maximumSide }
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
