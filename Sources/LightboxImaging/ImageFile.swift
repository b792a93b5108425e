/// Reads and renders image files through libvips. Every function blocks while libvips
/// works: call them from a thread that may block, never from an event loop.
public enum ImageFile {
    /// How many threads the process's renders use together at most (default: one per active
    /// processor). Each render runs on its caller's thread; a HEIF grid's tiles are also
    /// decoded by helper threads on the processors no render holds, up to this many threads in
    /// all: the last photo of a batch, or one photo opened alone, is decoded on every core.
    public static var processorLimit: Int {
        get { Processors.shared.limit }
        set { Processors.shared.limit = newValue }
    }

    /// The most pixels a file's image may have for Lightbox to decode it (200 million by
    /// default), checked from its header before any pixel is decoded: past it, a render fails
    /// with ``ImagingError/Code-swift.struct/tooLarge``. What a HEIF render decodes (its
    /// thumbnail or its primary image) is what is checked.
    public static var maximumPixels: Int {
        get { PixelBudget.shared.maximumPixels }
        set { PixelBudget.shared.maximumPixels = newValue }
    }

    /// Reads a file's header: size, orientation, EXIF. Decodes no pixels.
    ///
    /// The corresponding libvips operation is `vips_image_new_from_file`.
    public static func properties(ofFileAt path: String) throws(ImagingError) -> ImageProperties {
        properties(
            of: try Vips.isolatingFailure { () throws(ImagingError) in try Vips.open(path, failOnTruncation: false) })
    }

    private static func properties(of header: VipsImageRef) -> ImageProperties {
        ImageProperties(
            storedWidth: header.width, storedHeight: header.height, orientation: header.orientation,
            loader: header.loader)
    }

    /// The width and height of an encoded image held in memory (a cached thumbnail), read
    /// from its header without touching the disk or decoding pixels.
    ///
    /// The corresponding libvips operation is `vips_image_new_from_buffer`.
    public static func size(ofEncoded bytes: [UInt8]) throws(ImagingError) -> (width: Int, height: Int) {
        try Vips.ensureStarted()
        guard let size = Vips.size(ofEncoded: bytes) else {
            throw ImagingError(.unreadable, "not an encoded image (\(Vips.takeError()))")
        }
        return size
    }

    /// Makes a thumbnail, a crop or the full image: shrink-on-load, orientation applied,
    /// converted to sRGB, encoded. Fails with ``ImagingError/Code-swift.struct/corrupt`` when the
    /// file is truncated or damaged, so it doubles as a check that the whole file decodes.
    ///
    /// The corresponding libvips operations are `vips_thumbnail` (or libjpeg-turbo's scaled
    /// decode for a camera JPEG), `vips_extract_area`, `vips_thumbnail_image` and `vips_icc_transform`.
    public static func thumbnail(
        ofFileAt path: String, options: RenderOptions, monitor: RenderMonitor? = nil
    ) throws(ImagingError) -> EncodedImage {
        try Renderer.render(path: path, options: [options], monitor: monitor).images[0]
    }

    /// An image rendered from an encoded image in memory (a cached thumbnail, upright already):
    /// the same options as for a file; a JPEG goes through the same fast decoder.
    public static func thumbnail(
        ofEncoded bytes: [UInt8], options: RenderOptions, monitor: RenderMonitor? = nil
    ) throws(ImagingError) -> EncodedImage {
        try Renderer.render(encoded: bytes, options: [options], monitor: monitor).images[0]
    }

    /// A quick, lower-quality image from the thumbnail the file embeds (a HEIF's thumbnail
    /// item, a JPEG's EXIF thumbnail, a RAW's smallest preview), fast-resized toward the
    /// options' size, in milliseconds and without decoding the main image. Nil when the file
    /// embeds none.
    public static func embeddedThumbnail(ofFileAt path: String, options: RenderOptions) throws(ImagingError)
        -> EncodedImage?
    {
        try Renderer.renderEmbeddedThumbnail(path: path, options: options)
    }

    /// Several images from one decode, and the header's properties. The file is decoded once,
    /// at the smallest scale that serves every output. An import makes its preview and its
    /// grid thumbnail this way.
    ///
    /// `contents`, when given, are the file's bytes already in memory (an import reads a photo
    /// once), and `fileOrientation` its EXIF orientation as Lightbox's metadata reader found it:
    /// a JPEG is then decoded without reading the file or its EXIF again.
    public static func thumbnails(
        ofFileAt path: String, contents: [UInt8]? = nil, fileOrientation: Int? = nil, options: [RenderOptions],
        monitor: RenderMonitor? = nil
    ) throws(ImagingError) -> (properties: ImageProperties, images: [EncodedImage]) {
        guard !options.isEmpty else { return (try properties(ofFileAt: path), []) }
        return try Renderer.render(
            path: path, contents: contents, fileOrientation: fileOrientation, options: options, monitor: monitor)
    }
}
