/// Every image no other decoder takes, through libvips' loaders (`vips_thumbnail`, which
/// shrinks on load where the format allows: WebP, PDF): PNG, WebP, GIF, TIFF, 16-bit or alpha
/// HEIFs, CMYK JPEGs. Every other loader of libvips is blocked
/// (`cvips_allow_only_photo_loaders`): ImageMagick's, OpenSlide's, PDF, SVG and the rest parse
/// what Lightbox never imports.
enum VipsDecoder {
    /// The file at `path` opened by libvips (its header checked against the pixel budget),
    /// shrunk on load to the box every output needs, upright, in memory.
    static func decode(
        path: String, options: [RenderOptions], monitor: RenderMonitor?
    ) throws(ImagingError) -> DecodedImage {
        let header = try Vips.open(path, failOnTruncation: false)
        try PixelBudget.shared.check(width: header.width, height: header.height, path: path)
        let properties = ImageProperties(
            storedWidth: header.width, storedHeight: header.height, orientation: header.orientation,
            loader: header.loader)
        let override = validOrientation(options.first?.orientation)
        let swaps = (5...8).contains(override ?? header.orientation)
        let (uprightWidth, uprightHeight) = swaps ? (header.height, header.width) : (header.width, header.height)
        let (boxWidth, boxHeight, scale) = Renderer.decodeBox(
            uprightWidth: uprightWidth, uprightHeight: uprightHeight, options: options)
        let memory = decodeMemory(header)
        // An 8-bit RGB image's profile is converted after resizing by a kept transform, as a
        // JPEG's is: `vips_icc_transform` makes a Little CMS transform for every image, 14% of
        // a 256 px HEIC render's samples.
        let profile = header.rgbICCProfile
        let image = try DecodeMemory.shared.withReservation(memory, monitor: monitor, path: path) {
            () throws(ImagingError) in
            let lazy = try Vips.thumbnail(
                path, header: header, width: boxWidth, height: boxHeight, fill: false, upscale: scale > 1,
                orientation: override, convertingToSRGB: profile == nil && header.needsSRGBConversion)
            // Decoding into memory pulls every pixel through the loader: damage surfaces here.
            return try Vips.copyToMemory(lazy, path: path, monitor: monitor)
        }
        return DecodedImage(
            image: image, properties: properties, uprightWidth: uprightWidth, uprightHeight: uprightHeight,
            iccProfile: profile)
    }

    /// The bytes a decode holds at once, reserved before it starts. The HEIFs that reach
    /// libvips (16-bit, alpha, over 64 MB) are decoded whole by libheif, then converted to RGB:
    /// about 6 bytes a pixel. An interlaced PNG and a GIF are decoded whole by their loaders,
    /// then copied: half as much again as their pixels (an interlaced 16-bit 14000x14000 PNG
    /// took 1.8 GB, its pixels 1.2). The other loaders stream or shrink on load.
    static func decodeMemory(_ header: VipsImageRef) -> Int {
        switch header.loader {
        case "heifload": header.width * header.height * 6
        case "gifload": header.wholeBytes + header.wholeBytes / 2
        case "pngload" where header.isInterlaced: header.wholeBytes + header.wholeBytes / 2
        default: 0
        }
    }
}
