import Foundation
import LightboxMetadata

extension ImageFile {
    /// Renders `recipe` on the photo at `path`, at full size, into a JPEG at `outputPath`:
    /// upright (orientation applied and the tag reset to 1), sRGB, with the original's EXIF
    /// (less its embedded thumbnail, which would show the unedited photo), XMP and IPTC.
    /// Returns the rendered size. The original is only read.
    ///
    /// An upright JPEG streams: libvips reads it top to bottom while `vips_jpegsave` pulls the
    /// pipeline strip by strip, so the render holds a band of rows, never the photo (unless the
    /// recipe turns it by quarter turns, flips it top to bottom or straightens it so far that the
    /// slant spans more than 700 rows; a stream libvips cannot follow is made again in memory).
    /// Other photos, and JPEGs that must be turned upright, are decoded once into memory (a
    /// JPEG through libjpeg-turbo) and flow through the same pipeline. `orientation` overrides
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
        // The buffers kept for the next thumbnail (the display image an edit decoded first, say)
        // are of no use to a full-size render and would only add to its peak.
        PixelBuffers.shared.releaseKept()
        ReadBuffers.shared.releaseKept()
        let metadata = try? MetadataReader.read(fileAtPath: path)
        if canStream(metadata, recipe: recipe, orientation: orientation) {
            do {
                return try withEditMemory(metadata, streaming: true, path: path, monitor: monitor) {
                    () throws(ImagingError) in
                    try renderStreaming(path, recipe: recipe, to: outputPath, quality: quality, monitor: monitor)
                }
            } catch {
                // libvips refuses a read behind the rows it keeps ("out of order read"): the
                // render is made again from the photo in memory.
                if error.code == .cancelled || error.code == .tooLarge { throw error }
            }
        }
        return try withEditMemory(metadata, streaming: false, path: path, monitor: monitor) {
            () throws(ImagingError) in
            try renderInMemory(
                path, recipe: recipe, to: outputPath, quality: quality, orientation: orientation, monitor: monitor)
        }
    }

    /// The rows of a streamed render libvips keeps behind the one it reads, as float RGB.
    static let streamedRows = 1_024

    /// Runs a full-size render with its working memory reserved from the process's
    /// ``MemoryBudget``: when it streams, the rows libvips keeps (float RGB); in memory, the
    /// decoded photo it holds (its decode's reservation is counted within this one) and one
    /// copy of it that the recipe's filters and the encoder make (8-bit RGB, a byte a sample).
    /// A photo whose header states no size counts as 24 megapixels.
    static func withEditMemory<T>(
        _ metadata: MediaMetadata?, streaming: Bool, path: String, monitor: RenderMonitor?,
        _ body: () throws(ImagingError) -> T
    ) throws(ImagingError) -> T {
        let width = min(max(1, metadata?.pixelWidth ?? 6_000), 65_536)
        let height = min(max(1, metadata?.pixelHeight ?? 4_000), 65_536)
        let bytes = streaming ? width * streamedRows * 3 * 4 : width * height * 3 * 2
        return try MemoryBudget.shared.withReservation(
            bytes, for: "rendering its edit", isCancelled: { monitor?.isCancelled() == true },
            refused: { ImagingError($0.isCancellation ? .cancelled : .tooLarge, $0.message, path: path) }, body)
    }

    /// The render from the photo decoded whole into memory.
    static func renderInMemory(
        _ path: String, recipe: EditRecipe, to outputPath: String, quality: Int, orientation: Int?,
        monitor: RenderMonitor?
    ) throws(ImagingError) -> (width: Int, height: Int) {
        var options = RenderOptions(
            width: RenderOptions.maximumSide, height: RenderOptions.maximumSide, orientation: orientation)
        options.resizeMode = .none
        let decoded = try Renderer.decode(path: path, options: [options], monitor: monitor)
        var image = decoded.image
        if let profile = decoded.iccProfile { image = try Vips.convertToSRGB(image, profile: profile, path: path) }
        return try write(recipe, on: image, of: path, to: outputPath, quality: quality, monitor: monitor)
    }
}

extension ImageFile {
    /// The most rows a straighten may span across the image's width when streaming: libvips'
    /// sequential JPEG loader keeps about a thousand rows behind the one it reads (a 6000 px wide
    /// photo streams at 8 degrees and fails at 10).
    static let streamableStraightenRows = 700.0

    /// Whether a render can stream the photo from the file, never holding it whole: an upright
    /// JPEG (libvips' loader then reads it top to bottom, keeping the rows the pipeline still
    /// needs), with no filter that reads the image out of order (a quarter turn, a vertical
    /// flip) or far across rows (a straighten whose slant spans more than 700 rows).
    static func canStream(_ metadata: MediaMetadata?, recipe: EditRecipe, orientation: Int?) -> Bool {
        guard let metadata, metadata.format == .jpeg,
            (orientation ?? metadata.exif?.orientation ?? 1) == 1, let width = metadata.pixelWidth
        else { return false }
        return recipe.filters.allSatisfy { filter in
            switch filter {
            case .rotate(let turns): turns % 4 == 0
            case .flip(let vertical): !vertical
            case .straighten(let degrees): Double(width) * sin(abs(degrees) * .pi / 180) <= streamableStraightenRows
            default: true
            }
        }
    }

    /// Applies `recipe` to the upright sRGB `image` of the photo at `path` and writes the render
    /// with the original's metadata (on a copy, so that the pipeline's images stay untouched),
    /// taken from `header` when the photo is open already, else from the file's header;
    /// returns its size.
    static func write(
        _ recipe: EditRecipe, on image: VipsImageRef, of path: String, header: VipsImageRef? = nil,
        to outputPath: String,
        quality: Int, monitor: RenderMonitor?
    ) throws(ImagingError) -> (width: Int, height: Int) {
        let edited: VipsImageRef
        do {
            edited = try RecipePipeline.apply(recipe, to: image, scale: 1)
        } catch {
            throw ImagingError(error.code, error.message, path: path)
        }
        return try write(edited: edited, of: path, header: header, to: outputPath, quality: quality, monitor: monitor)
    }

    /// Writes an edited image of the photo at `path` as a JPEG with the original's metadata;
    /// returns its size.
    static func write(
        edited: VipsImageRef, of path: String, header: VipsImageRef? = nil, to outputPath: String, quality: Int,
        monitor: RenderMonitor?
    ) throws(ImagingError) -> (width: Int, height: Int) {
        let output = try Vips.copy(edited, path: path)
        EditMetadata.carry(from: header ?? (try? Vips.open(path, failOnTruncation: false)), to: output)
        try Vips.save(output, jpegAt: outputPath, quality: quality, monitor: monitor, path: path)
        return (output.width, output.height)
    }

    /// The render streamed: libvips' JPEG loader in sequential mode feeds the recipe's pipeline,
    /// which `vips_jpegsave` pulls strip by strip.
    static func renderStreaming(
        _ path: String, recipe: EditRecipe, to outputPath: String, quality: Int, monitor: RenderMonitor?
    ) throws(ImagingError) -> (width: Int, height: Int) {
        let opened = try Vips.open(path, failOnTruncation: true)
        var image = opened
        if Vips.hasField(image, "icc-profile-data") {
            image = try Vips.embeddedProfileToSRGB(image, path: path)
        }
        return try write(
            recipe, on: image, of: path, header: opened, to: outputPath, quality: quality, monitor: monitor)
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
    /// Upright, sRGB; in memory, or a lazy pipeline over an image in memory (``applying(_:)``);
    /// never modified.
    let image: VipsImageRef

    /// The photo at `path`, upright (by `orientation` when given, else the file's), its long
    /// side at most `maximumSide`.
    public init(fileAt path: String, maximumSide: Int = 2048, orientation: Int? = nil) throws(ImagingError) {
        try Vips.ensureStarted()
        let options = RenderOptions(width: maximumSide, height: maximumSide, orientation: orientation)
        let decoded = try Renderer.decode(path: path, options: [options], monitor: nil)
        var image = try Renderer.shape(decoded, options, path: path)
        image = try RecipePipeline.prepare(image)
        self.image = try Vips.copyToMemory(image, path: path)
        pixelWidth = self.image.width
        pixelHeight = self.image.height
        scale = Double(max(pixelWidth, pixelHeight)) / Double(max(decoded.uprightWidth, decoded.uprightHeight))
    }

    init(image: VipsImageRef, scale: Double) {
        self.image = image
        pixelWidth = image.width
        pixelHeight = image.height
        self.scale = scale
    }

    /// This image made smaller, its long side at most `maximumSide`, for a preview that fits a
    /// view (itself when it is no larger).
    public func resized(maximumSide: Int) throws(ImagingError) -> EditableImage {
        let side = max(pixelWidth, pixelHeight)
        guard maximumSide < side, maximumSide > 0 else { return self }
        let factor = Double(maximumSide) / Double(side)
        let width = max(1, Int((Double(pixelWidth) * factor).rounded()))
        let height = max(1, Int((Double(pixelHeight) * factor).rounded()))
        let resized = try Vips.copyToMemory(
            try Vips.resize(image, width: width, height: height), path: "a display image")
        return EditableImage(image: resized, scale: scale * Double(max(width, height)) / Double(side))
    }

    /// The image as decoded, encoded.
    public func encoded(format: EncodedImageFormat = .jpeg, quality: Int = 85) throws(ImagingError) -> EncodedImage {
        let bytes = try Vips.encode(image, as: format, quality: quality)
        return EncodedImage(bytes: bytes, format: format, pixelWidth: image.width, pixelHeight: image.height)
    }

    /// The image with `recipe` applied, encoded. An `interactive` render (the default: an edit
    /// view redrawing as a slider moves) rotates with bilinear interpolation; otherwise it is
    /// made as the full-size render is.
    public func render(
        _ recipe: EditRecipe, format: EncodedImageFormat = .jpeg, quality: Int = 85, interactive: Bool = true
    ) throws(ImagingError) -> EncodedImage {
        let rendered = try renderedImage(recipe, draft: interactive)
        let bytes = try Vips.encode(rendered, as: format, quality: quality)
        return EncodedImage(bytes: bytes, format: format, pixelWidth: rendered.width, pixelHeight: rendered.height)
    }

    /// Writes this image as a JPEG at `path` carrying the metadata of the photo at `original`
    /// (its EXIF with orientation 1 and without its thumbnail, XMP, IPTC), as a full-size
    /// render is written; returns its size.
    @discardableResult
    public func writeJPEG(to path: String, metadataFrom original: String, quality: Int = 92) throws(ImagingError) -> (
        width: Int, height: Int
    ) {
        try ImageFile.write(
            edited: try RecipePipeline.prepare(image), of: original, to: path, quality: quality, monitor: nil)
    }

    /// This image with `recipe` applied, lazily: nothing is computed until the result is
    /// encoded or written (a Live Photo's frame processor returns such images).
    public func applying(_ recipe: EditRecipe) throws(ImagingError) -> EditableImage {
        EditableImage(image: try renderedImage(recipe), scale: scale)
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
    /// `header` is the photo opened by libvips (its pixels unread); nil when libvips cannot
    /// open it (a RAW), and the render then has no metadata rather than failing the edit.
    static func carry(from header: VipsImageRef?, to image: VipsImageRef) {
        // A streamed render carries what the loader parsed: EXIF fields (exif-ifd0-Make, ...)
        // and the EXIF thumbnail (jpeg-thumbnail-data), which jpegsave would write back.
        for name in ["icc-profile-data", "xmp-data", "iptc-data", "jpeg-thumbnail-data"] {
            Vips.removeField(image, name)
        }
        Vips.removeField(image, "exif-", prefixed: true)
        Vips.setField(image, "orientation", 1)
        guard let header else {
            _ = Vips.takeError()
            return
        }
        Vips.copyBlob("xmp-data", from: header, to: image)
        Vips.copyBlob("iptc-data", from: header, to: image)
        if var exif = Vips.blob(header, "exif-data") {
            withoutThumbnail(&exif)
            // libvips rewrites the tag from `orientation` only in EXIF it parses itself: a
            // HEIF's block kept its 6, and the upright render said to turn it again.
            uprightOrientation(&exif)
            Vips.setBlob(image, "exif-data", exif)
        }
    }

    /// Unlinks IFD1 (the embedded thumbnail) from an `Exif\0\0`-prefixed TIFF block: IFD0's
    /// next-IFD offset becomes 0. Leaves malformed blocks as they are.
    static func withoutThumbnail(_ exif: inout [UInt8]) {
        guard let (ifd0, count, _) = firstDirectory(exif) else { return }
        let next = ifd0 + 2 + count * 12
        guard next + 4 <= exif.count else { return }
        for i in 0..<4 { exif[next + i] = 0 }
    }

    /// Sets IFD0's Orientation (tag 0x0112, a SHORT) to 1, where the block has one. Leaves
    /// malformed blocks as they are.
    static func uprightOrientation(_ exif: inout [UInt8]) {
        guard let (ifd0, count, little) = firstDirectory(exif) else { return }
        for index in 0..<min(count, 1_000) {
            let entry = ifd0 + 2 + index * 12
            guard entry + 12 <= exif.count else { return }
            let tag =
                little ? Int(exif[entry]) | Int(exif[entry + 1]) << 8 : Int(exif[entry]) << 8 | Int(exif[entry + 1])
            guard tag == 0x0112 else { continue }
            // The value sits in the entry's first two value bytes.
            (exif[entry + 8], exif[entry + 9]) = little ? (1, 0) : (0, 1)
            return
        }
    }

    /// IFD0 of a TIFF block (after an optional `Exif\0\0`): its offset in the block, its entry
    /// count, and whether the block is little-endian; nil when it is malformed.
    private static func firstDirectory(_ exif: [UInt8]) -> (offset: Int, count: Int, little: Bool)? {
        let base = exif.starts(with: Array("Exif\0\0".utf8)) ? 6 : 0
        guard exif.count >= base + 8 else { return nil }
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
        guard let ifd0 = read(base + 4, 4), let entries = read(base + ifd0, 2) else { return nil }
        return (base + ifd0, entries, little)
    }
}
