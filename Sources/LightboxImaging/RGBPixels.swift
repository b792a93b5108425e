/// An image's pixels as an analysis model reads them: 8-bit sRGB, three bands interleaved,
/// rows from the top.
public struct RGBPixels: Sendable, Hashable {
    public var bytes: [UInt8]
    public var width: Int
    public var height: Int
}

extension ImageFile {
    /// The largest side ``rgbPixels(ofEncoded:maximumSide:)`` answers or reads.
    public static let largestRGBSide = 4096

    /// The pixels of an encoded image held in memory (a stored preview, upright already) as
    /// 8-bit sRGB: grey, CMYK and 16-bit images converted, alpha flattened onto white, and
    /// resized to fit `maximumSide` (at most ``largestRGBSide``) when larger. The header's size
    /// is checked before any pixel is decoded: an image over ``largestRGBSide`` on a side, whose
    /// decode a preview never needs, is refused with ``ImagingError/Code-swift.struct/tooLarge``.
    ///
    /// The corresponding libvips operations are `vips_image_new_from_buffer`, `vips_flatten`,
    /// `vips_colourspace` and `vips_thumbnail_image`.
    public static func rgbPixels(ofEncoded bytes: [UInt8], maximumSide: Int) throws(ImagingError) -> RGBPixels {
        try Vips.ensureStarted()
        guard let size = Vips.size(ofEncoded: bytes) else {
            throw ImagingError(.unreadable, "not an encoded image (\(Vips.takeError()))")
        }
        guard size.width > 0, size.height > 0, size.width <= largestRGBSide, size.height <= largestRGBSide else {
            throw ImagingError(
                .tooLarge,
                "an image of \(size.width)x\(size.height) is not a preview (at most \(largestRGBSide) a side)")
        }
        let side = max(1, min(maximumSide, largestRGBSide))
        // Reserved first: the decoded image at up to 16 bits and four bands, and a converted copy.
        let memory = size.width * size.height * 8 * 2
        return try DecodeMemory.shared.withReservation(memory, monitor: nil, path: "an encoded image") {
            () throws(ImagingError) -> RGBPixels in
            var image = try Vips.decodeEncoded(bytes)
            if !Vips.isSRGB(image) { image = try Vips.toSRGB(image) }
            if image.bands == 2 || image.bands == 4 { image = try Vips.flattenedOnWhite(image) }
            if !Vips.isUChar(image) { image = try Vips.toUChar(image) }
            if max(image.width, image.height) > side {
                let scale = Double(side) / Double(max(image.width, image.height))
                image = try Vips.resize(
                    image, width: max(1, Int((Double(image.width) * scale).rounded())),
                    height: max(1, Int((Double(image.height) * scale).rounded())))
            }
            guard image.bands == 3 else {
                throw ImagingError(.unreadable, "an image of \(image.bands) bands has no RGB pixels")
            }
            let pixels = try Vips.pixels(image)
            guard pixels.count == image.width * image.height * 3 else {
                throw ImagingError(
                    .corrupt, "the image's pixels are \(pixels.count) bytes, not \(image.width)x\(image.height)x3")
            }
            return RGBPixels(bytes: pixels, width: image.width, height: image.height)
        }
    }
}
