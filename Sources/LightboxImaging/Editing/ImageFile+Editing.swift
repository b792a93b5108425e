import CVips
import Foundation

extension ImageFile {
    /// Renders `recipe` on the photo at `path`, at full size, into a JPEG at `outputPath`:
    /// upright (orientation applied and the tag reset to 1), sRGB, with the original's EXIF
    /// (less its embedded thumbnail, which would show the unedited photo), XMP and IPTC.
    /// Returns the rendered size. The original is only read.
    ///
    /// The photo is decoded once into memory (a camera JPEG through libjpeg-turbo); every
    /// filter then streams through libvips and the JPEG is written strip by strip, so the
    /// render holds one decoded image and a few rows of each stage. `orientation` overrides
    /// the file's own (an XMP sidecar's correction).
    ///
    /// The corresponding libvips operations are in ``EditFilter``'s documentation;
    /// `vips_jpegsave` writes the file.
    @discardableResult
    public static func renderEdit(
        ofFileAt path: String, recipe: EditRecipe, toJPEGAt outputPath: String, quality: Int = 92,
        orientation: Int? = nil, monitor: RenderMonitor? = nil
    ) throws(ImagingError) -> (width: Int, height: Int) {
        try Vips.ensureStarted()
        try recipe.validate()
        var options = ThumbnailOptions(
            width: ThumbnailOptions.maximumSide, height: ThumbnailOptions.maximumSide, orientation: orientation)
        options.resizeMode = .none
        let decoded = try Renderer.decode(path: path, options: [options], monitor: monitor)
        var image = decoded.image
        if let profile = decoded.iccProfile { image = try Vips.convertToSRGB(image, profile: profile, path: path) }
        let edited: VipsImageRef
        do {
            edited = try RecipePipeline.apply(recipe, to: image, scale: 1)
        } catch {
            throw ImagingError(error.code, error.message, path: path)
        }
        // A copy to carry the original's metadata, so the pipeline's images stay untouched.
        var tagged: UnsafeMutablePointer<VipsImage>?
        guard cvips_copy(edited.pointer, &tagged) == 0, let tagged else {
            throw ImagingError(.corrupt, "cannot prepare the render (\(Vips.takeError()))", path: path)
        }
        let output = VipsImageRef(tagged)
        EditMetadata.carry(from: path, to: output)
        try Vips.save(output, jpegAt: outputPath, quality: quality, monitor: monitor, path: path)
        return (output.width, output.height)
    }
}

/// A photo decoded for interactive editing: a display-size image held in memory, which any
/// recipe renders from in milliseconds (the sliders of an edit view). Lengths in a recipe are
/// in full-size pixels and are scaled to this image, so a preview looks like the full render.
public final class EditableImage: @unchecked Sendable {
    /// The displayed image's size.
    public let pixelWidth: Int
    public let pixelHeight: Int
    /// This image's size over the full-size image's (1 when the photo is no larger).
    public let scale: Double
    /// Upright, sRGB, in memory; never modified.
    let image: VipsImageRef

    /// The photo at `path`, upright (by `orientation` when given, else the file's), its long
    /// side at most `maximumSide`.
    public init(fileAt path: String, maximumSide: Int = 2048, orientation: Int? = nil) throws(ImagingError) {
        try Vips.ensureStarted()
        let options = ThumbnailOptions(width: maximumSide, height: maximumSide, orientation: orientation)
        let decoded = try Renderer.decode(path: path, options: [options], monitor: nil)
        var image = try Renderer.shape(decoded, options, path: path)
        image = try RecipePipeline.prepare(image)
        self.image = try Vips.copyToMemory(image, path: path)
        pixelWidth = self.image.width
        pixelHeight = self.image.height
        scale = Double(max(pixelWidth, pixelHeight)) / Double(max(decoded.uprightWidth, decoded.uprightHeight))
    }

    /// The image as decoded, encoded.
    public func encoded(format: EncodedImageFormat = .jpeg, quality: Int = 85) throws(ImagingError) -> EncodedImage {
        let bytes = try Vips.encode(image, as: format, quality: quality)
        return EncodedImage(bytes: bytes, format: format, pixelWidth: image.width, pixelHeight: image.height)
    }

    /// The image with `recipe` applied, encoded. An `interactive` render (the default: an edit
    /// view redrawing as a slider moves) rotates with bilinear interpolation and skips the
    /// JPEG encoder's second pass; otherwise it is made as the full-size render is.
    public func render(
        _ recipe: EditRecipe, format: EncodedImageFormat = .jpeg, quality: Int = 85, interactive: Bool = true
    ) throws(ImagingError) -> EncodedImage {
        let rendered = try renderedImage(recipe, draft: interactive)
        let bytes = try Vips.encode(rendered, as: format, quality: quality, optimized: !interactive)
        return EncodedImage(bytes: bytes, format: format, pixelWidth: rendered.width, pixelHeight: rendered.height)
    }

    /// The lazy pipeline of `recipe` over this image.
    func renderedImage(_ recipe: EditRecipe, draft: Bool = false) throws(ImagingError) -> VipsImageRef {
        try recipe.validate()
        return try RecipePipeline.apply(recipe, to: image, scale: scale, draft: draft)
    }
}

/// The original's metadata on a render: EXIF without its thumbnail, orientation 1, XMP, IPTC;
/// no ICC profile (the render is sRGB).
enum EditMetadata {
    static func carry(from path: String, to image: VipsImageRef) {
        for name in ["icc-profile-data", "exif-data", "xmp-data", "iptc-data"] { cvips_remove(image.pointer, name) }
        vips_image_set_int(image.pointer, "orientation", 1)
        // The header alone: libvips reads no pixels to open a file lazily. A file it cannot
        // open (a RAW) gives its render no metadata rather than failing the edit.
        guard let header = try? Vips.open(path, failOnTruncation: false) else {
            _ = Vips.takeError()
            return
        }
        cvips_copy_blob(header.pointer, image.pointer, "xmp-data")
        cvips_copy_blob(header.pointer, image.pointer, "iptc-data")
        var data: UnsafeRawPointer?
        var length = 0
        if vips_image_get_typeof(header.pointer, "exif-data") != 0,
            vips_image_get_blob(header.pointer, "exif-data", &data, &length) == 0, let data, length > 0
        {
            var exif = Array(UnsafeRawBufferPointer(start: data, count: length))
            withoutThumbnail(&exif)
            exif.withUnsafeBytes { cvips_set_blob(image.pointer, "exif-data", $0.baseAddress, $0.count) }
        }
    }

    /// Unlinks IFD1 (the embedded thumbnail) from an `Exif\0\0`-prefixed TIFF block: IFD0's
    /// next-IFD offset becomes 0. Leaves malformed blocks as they are.
    static func withoutThumbnail(_ exif: inout [UInt8]) {
        let base = exif.starts(with: Array("Exif\0\0".utf8)) ? 6 : 0
        guard exif.count >= base + 8 else { return }
        let little = exif[base] == 0x49
        func read(_ offset: Int, _ count: Int) -> Int? {
            guard offset >= 0, offset + count <= exif.count else { return nil }
            var value = 0
            for i in 0..<count {
                let byte = Int(exif[offset + (little ? count - 1 - i : i)])
                value = value << 8 | byte
            }
            return value
        }
        guard let ifd0 = read(base + 4, 4), let entries = read(base + ifd0, 2) else { return }
        let next = base + ifd0 + 2 + entries * 12
        guard next + 4 <= exif.count else { return }
        for i in 0..<4 { exif[next + i] = 0 }
    }
}

extension Vips {
    /// Writes `image` as a JPEG file, computing the pipeline strip by strip on every core.
    static func save(
        _ image: VipsImageRef, jpegAt outputPath: String, quality: Int, monitor: RenderMonitor?, path: String
    ) throws(ImagingError) {
        var killed = false
        let status: Int32
        if let monitor {
            let box = RenderMonitorBox(monitor)
            let watch = UnsafeMutablePointer<cvips_monitor>.allocate(capacity: 1)
            defer { watch.deallocate() }
            status = box.withContext { context in
                watch.initialize(to: cvips_monitor(function: RenderMonitor.callback, context: context, killed: 0))
                let handler = cvips_watch(image.pointer, watch)
                defer { cvips_unwatch(image.pointer, handler) }
                return cvips_jpegsave_file(image.pointer, outputPath, Int32(quality))
            }
            killed = watch.pointee.killed != 0
        } else {
            status = cvips_jpegsave_file(image.pointer, outputPath, Int32(quality))
        }
        guard status == 0 else {
            let reason = takeError()
            unlink(outputPath)
            if killed { throw ImagingError(.cancelled, "the render was cancelled", path: path) }
            throw ImagingError(.encodingFailed, "cannot write the rendered JPEG (\(reason))", path: outputPath)
        }
    }

    /// Writes an image losslessly in libvips' own format (tests compare such files).
    static func writeLossless(_ image: VipsImageRef, to path: String) throws(ImagingError) {
        guard cvips_write_file(image.pointer, path) == 0 else {
            throw ImagingError(.encodingFailed, "cannot write (\(takeError()))", path: path)
        }
    }

    /// The pixels of an 8-bit image, interleaved (tests compare them).
    static func pixels(_ image: VipsImageRef) throws(ImagingError) -> [UInt8] {
        var length = 0
        guard let memory = cvips_pixels(image.pointer, &length) else {
            throw ImagingError(.corrupt, "cannot read the pixels (\(takeError()))")
        }
        defer { cvips_free(memory) }
        return Array(UnsafeRawBufferPointer(start: memory, count: length))
    }
}
