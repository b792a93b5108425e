import CVips

/// Reads and renders image files through libvips. Every function blocks while libvips
/// works: call them from a thread that may block, never from an event loop.
public enum ImageFile {
    /// Reads a file's header: size, orientation, EXIF. Decodes no pixels.
    ///
    /// The corresponding libvips operation is `vips_image_new_from_file`.
    public static func properties(ofFileAt path: String) throws(ImagingError) -> ImageProperties {
        properties(of: try Vips.open(path, failOnTruncation: false))
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
        let size: (Int, Int)? = bytes.withUnsafeBytes { raw in
            // libvips does not copy the buffer: read the header while the bytes are alive.
            guard let image = cvips_image_new_from_buffer(raw.baseAddress, raw.count) else { return nil }
            let reference = VipsImageRef(image)
            return (reference.width, reference.height)
        }
        guard let size else { throw ImagingError(.unreadable, "not an encoded image (\(Vips.takeError()))") }
        return size
    }

    /// Makes a thumbnail: shrink-on-load, orientation applied, converted to sRGB, encoded.
    /// Fails with ``ImagingError/Code-swift.struct/corrupt`` when the file is truncated or damaged,
    /// so it doubles as a check that the whole file decodes.
    ///
    /// The corresponding libvips operation is `vips_thumbnail`.
    public static func thumbnail(ofFileAt path: String, options: ThumbnailOptions) throws(ImagingError) -> EncodedImage {
        let image = try Vips.thumbnail(
            path, width: max(1, options.width), height: max(1, options.height),
            fill: options.contentMode == .aspectFill, upscale: options.allowsUpscaling, orientation: options.orientation)
        let bytes: [UInt8]
        do {
            bytes = try Vips.encode(image, as: options.format, quality: options.quality)
        } catch {
            // Encoding pulls the pixels through the loader, so damage surfaces here too.
            throw ImagingError(.corrupt, "cannot decode the image (\(error.message))", path: path)
        }
        return EncodedImage(bytes: bytes, format: options.format, pixelWidth: image.width, pixelHeight: image.height)
    }

    /// Several thumbnails from one decode, and the header's properties: the first thumbnail
    /// from the file, like ``thumbnail(ofFileAt:options:)``, held in memory, and the others
    /// from it. The first must be the largest. An import makes its preview and its grid
    /// thumbnail this way, opening the file's header once for both.
    ///
    /// The corresponding libvips operations are `vips_thumbnail`, `vips_image_copy_memory`
    /// and `vips_thumbnail_image`.
    public static func thumbnails(
        ofFileAt path: String, options: [ThumbnailOptions]
    ) throws(ImagingError) -> (properties: ImageProperties, images: [EncodedImage]) {
        let header = try Vips.open(path, failOnTruncation: false)
        guard let first = options.first else { return (properties(of: header), []) }
        let lazy = try Vips.thumbnail(
            path, header: header, width: max(1, first.width), height: max(1, first.height),
            fill: first.contentMode == .aspectFill, upscale: first.allowsUpscaling, orientation: first.orientation)
        // Decoding into memory pulls every pixel through the loader: damage surfaces here.
        let base = try Vips.copyToMemory(lazy, path: path)
        var images: [EncodedImage] = []
        for (index, option) in options.enumerated() {
            let image = index == 0 ? base : try Vips.resize(base, to: option)
            let bytes = try Vips.encode(image, as: option.format, quality: option.quality)
            images.append(EncodedImage(bytes: bytes, format: option.format, pixelWidth: image.width, pixelHeight: image.height))
        }
        return (properties(of: header), images)
    }
}
