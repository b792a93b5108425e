/// Pixel comparisons, used by tests as an oracle and by tools that check renders.
public enum ImageComparison {
    /// A reference thumbnail made the long way: the whole file decoded, rotated upright with
    /// `vips_autorot`, then resized to exactly `width`x`height` (stretched, or with
    /// `contentMode` `.aspectFill` filled and cropped around the centre). Independent of the
    /// shrink-on-load path ``ImageFile/thumbnail(ofFileAt:options:)`` takes.
    public static func referenceThumbnail(
        ofFileAt path: String, width: Int, height: Int, contentMode: ContentMode = .aspectFit,
        rotatedHalfTurn: Bool = false
    ) throws(ImagingError) -> EncodedImage {
        // Random access: the oracle may rotate and crop in any order.
        let opened = try Vips.open(path, failOnTruncation: true, randomAccess: true)
        var image = try Vips.autorotate(opened)
        if rotatedHalfTurn { image = try Vips.rotated(image, degrees: 180, path: path) }
        // Colour converted as Lightbox converts: only what is not plain sRGB already.
        let resized = try Vips.thumbnailOfImage(
            image, width: width, height: height, fill: contentMode == .aspectFill,
            convertingToSRGB: opened.needsSRGBConversion, path: path)
        let bytes = try Vips.encode(resized, as: .jpeg, quality: 95)
        return EncodedImage(bytes: bytes, format: .jpeg, pixelWidth: resized.width, pixelHeight: resized.height)
    }

    /// A reference crop made the long way: the whole file decoded, rotated upright with
    /// `vips_autorot`, the region cut with `vips_extract_area` (the rectangle in unit
    /// coordinates of the upright image) and resized to exactly `width`x`height`. With
    /// `convertingToSRGB`, the colours go through `vips_icc_transform` to sRGB from the file's
    /// embedded profile first; without, the pixels are taken as they are stored.
    public static func referenceCrop(
        ofFileAt path: String, rect: NormalizedRect, width: Int, height: Int, convertingToSRGB: Bool
    ) throws(ImagingError) -> EncodedImage {
        let opened = try Vips.open(path, failOnTruncation: true, randomAccess: true)
        var image = try Vips.autorotate(opened)
        if convertingToSRGB { image = try Vips.embeddedProfileToSRGB(image, path: path) }
        let left = Int((rect.x * Double(image.width)).rounded(.down))
        let top = Int((rect.y * Double(image.height)).rounded(.down))
        let cropWidth = min(image.width - left, Int((rect.width * Double(image.width)).rounded()))
        let cropHeight = min(image.height - top, Int((rect.height * Double(image.height)).rounded()))
        image = try Vips.extract(image, left: left, top: top, width: cropWidth, height: cropHeight)
        image = try Vips.resizeWithLibvips(image, width: width, height: height)
        let bytes = try Vips.encode(image, as: .jpeg, quality: 100)
        return EncodedImage(bytes: bytes, format: .jpeg, pixelWidth: image.width, pixelHeight: image.height)
    }

    /// Whether libvips alone, through `vips_thumbnail` and its own loaders, decodes the file
    /// into a `size` pixel thumbnail, failing on truncation as Lightbox does: the oracle for
    /// which files are readable. Nil when it does, else libvips' error.
    public static func libvipsThumbnailError(ofFileAt path: String, size: Int) -> String? {
        do {
            let header = try Vips.open(path, failOnTruncation: false)
            let image = try Vips.thumbnail(
                path, header: header, width: size, height: size, fill: false, upscale: false, orientation: nil,
                convertingToSRGB: header.needsSRGBConversion)
            _ = try Vips.copyToMemory(image, path: path)
            return nil
        } catch {
            return error.message
        }
    }

    /// The size of a file's image after `vips_autorot` turned it upright: the oracle for the
    /// displayed size Lightbox records.
    public static func autorotatedSize(ofFileAt path: String) throws(ImagingError) -> (width: Int, height: Int) {
        let image = try Vips.autorotate(try Vips.open(path, failOnTruncation: false))
        return (image.width, image.height)
    }

    /// The mean absolute difference per channel value (0...255) between two encoded images of
    /// the same size.
    ///
    /// The corresponding libvips operations are `vips_subtract`, `vips_abs` and `vips_avg`.
    public static func meanAbsoluteDifference(_ a: EncodedImage, _ b: EncodedImage) throws(ImagingError) -> Double {
        try Vips.ensureStarted()
        return try meanAbsoluteDifference(try Vips.decodeEncoded(a.bytes), try Vips.decodeEncoded(b.bytes))
    }

    private static func meanAbsoluteDifference(_ a: VipsImageRef, _ b: VipsImageRef) throws(ImagingError) -> Double {
        guard a.width == b.width, a.height == b.height, a.bands == b.bands else {
            throw ImagingError(
                .corrupt, "sizes differ: \(a.width)x\(a.height)x\(a.bands) vs \(b.width)x\(b.height)x\(b.bands)")
        }
        return try Vips.meanAbsoluteDifference(a, b)
    }

    /// The mean absolute difference per channel value between two image files of the same size
    /// that libvips reads (`.v`, PNG, JPEG, ...): the pixels as stored, no orientation applied.
    public static func meanAbsoluteDifference(ofFileAt first: String, _ second: String) throws(ImagingError) -> Double {
        try Vips.ensureStarted()
        return try meanAbsoluteDifference(try Vips.openForComparison(first), try Vips.openForComparison(second))
    }

    /// An image file's 8-bit pixels, interleaved, with its size and bands.
    public static func pixels(ofFileAt path: String) throws(ImagingError) -> (
        pixels: [UInt8], width: Int, height: Int, bands: Int
    ) {
        try Vips.ensureStarted()
        let image = try Vips.openForComparison(path)
        return (try Vips.pixels(image), image.width, image.height, image.bands)
    }
}
