/// Where a file embeds a JPEG image: a byte range of the file.
public struct EmbeddedJPEG: Sendable, Hashable {
    public var offset: Int
    public var length: Int

    public init(offset: Int, length: Int) {
        self.offset = offset
        self.length = length
    }
}

/// Everything Lightbox reads from one file's headers, before any mapping to the model.
///
/// ```swift
/// let metadata = try MetadataReader.read(fileAtPath: "IMG_0001.HEIC")
/// metadata.format                          // .heic
/// metadata.exif?.apple?.contentIdentifier  // the Live Photo pairing key
/// ```
public struct MediaMetadata: Sendable, Hashable {
    /// The container, recognised from the bytes (RAW formats refined by their tags).
    public var format: FileFormat
    /// Width and height of the main image or video track as stored, before any orientation.
    public var pixelWidth: Int?
    public var pixelHeight: Int?
    /// EXIF, when the file has it (for CR3, gathered from its CMT boxes).
    public var exif: ExifMetadata?
    /// XMP, when the file has it (extended XMP joined in).
    public var xmp: XMPMetadata?
    /// Movie metadata, for QuickTime and MPEG-4 files.
    public var quickTime: QuickTimeMetadata?
    /// The ICC profile's description ("Display P3"), when the file embeds a profile.
    public var iccProfileDescription: String?
    /// Whether the file embeds an ICC profile.
    public var hasICCProfile = false
    /// How many images a JPEG's MPF index lists (MPO stereo pairs, gain maps), when it has one.
    public var mpfImageCount: Int?
    /// Whether the image is animated (GIF, WebP or PNG with several frames).
    public var isAnimated = false
    /// HEIF: the primary item's rotation in quarter turns counterclockwise (`irot`).
    public var heifRotation: Int?
    /// HEIF: the size of the primary image's first thumbnail item as displayed (its `ispe`
    /// turned by its `irot`), when the file has one. iPhones store 320x240 or 240x320.
    public var heifThumbnailWidth: Int?
    public var heifThumbnailHeight: Int?
    /// JPEG images a RAW file embeds (its previews, `JpgFromRaw`, thumbnails), where the file
    /// says they are; the bytes there are not checked.
    public var embeddedJPEGs: [EmbeddedJPEG] = []

    /// ``heifThumbnailWidth`` and ``heifThumbnailHeight`` together.
    public var heifThumbnailSize: (width: Int, height: Int)? {
        guard let width = heifThumbnailWidth, let height = heifThumbnailHeight else { return nil }
        return (width, height)
    }

    public init(format: FileFormat) {
        self.format = format
    }
}
