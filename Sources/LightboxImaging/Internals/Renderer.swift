import CHEIF
import CVips
import Glibc
import LightboxMetadata

/// The render pipeline behind ``ImageFile``: decode once, upright, at the smallest scale every
/// output allows; then, for each output, crop, resize as its mode says, convert to sRGB and
/// encode.
///
/// A baseline or progressive YCbCr JPEG (nearly every camera's) is decoded from memory by
/// ``JPEGDecoder``, shrunk in the DCT domain; an 8-bit HEIF by libheif (`CHEIF`), from its
/// embedded thumbnail when that covers the box; anything else is opened by libvips' loaders
/// through `vips_thumbnail`, which shrinks on load where the format allows (WebP, PDF).
enum Renderer {
    /// An upright image in memory, at some scale of the full image, and the full image's size.
    struct Decoded {
        let image: VipsImageRef
        let properties: ImageProperties
        /// The upright size of the full image.
        let uprightWidth: Int
        let uprightHeight: Int
        /// An ICC profile still to convert from (JPEG path); nil once the pixels are sRGB.
        let iccProfile: [UInt8]?
    }

    static func render(
        path: String, contents: [UInt8]? = nil, fileOrientation: Int? = nil, options: [ThumbnailOptions],
        monitor: RenderMonitor?
    ) throws(ImagingError) -> (properties: ImageProperties, images: [EncodedImage]) {
        PixelBuffers.prepareProcess()
        let (bounded, deadline) = RenderMonitor.bounded(monitor)
        do {
            return try Processors.shared.holding { () throws(ImagingError) in
                let decoded = try decodeFile(
                    path: path, contents: contents, fileOrientation: fileOrientation, options: options, monitor: bounded
                )
                return try render(decoded, path: path, options: options, monitor: bounded)
            }
        } catch {
            throw RenderMonitor.explain(error, given: monitor, deadline: deadline, path: path)
        }
    }

    /// Renders from an encoded image in memory (a cached JPEG or WebP thumbnail): upright
    /// already, its orientation tag ignored unless the options give one.
    static func render(
        encoded bytes: [UInt8], options: [ThumbnailOptions], monitor: RenderMonitor?
    ) throws(ImagingError) -> (properties: ImageProperties, images: [EncodedImage]) {
        PixelBuffers.prepareProcess()
        let label = "an encoded image of \(bytes.count) bytes"
        let (bounded, deadline) = RenderMonitor.bounded(monitor)
        do {
            return try Processors.shared.holding { () throws(ImagingError) in
                try render(encoded: bytes, label: label, options: options, monitor: bounded)
            }
        } catch {
            throw RenderMonitor.explain(error, given: monitor, deadline: deadline, path: label)
        }
    }

    private static func render(
        encoded bytes: [UInt8], label: String, options: [ThumbnailOptions], monitor: RenderMonitor?
    ) throws(ImagingError) -> (properties: ImageProperties, images: [EncodedImage]) {
        let decoded: Decoded
        if let header = try JPEGDecoder.header(bytes, path: label) {
            decoded = try decodeJPEG(
                bytes, header: header, fileOrientation: 1, path: label, options: options, monitor: monitor)
        } else {
            let image = try Vips.decodeEncoded(bytes)
            let properties = ImageProperties(
                storedWidth: image.width, storedHeight: image.height, orientation: 1, loader: image.loader)
            decoded = Decoded(
                image: image, properties: properties, uprightWidth: image.width, uprightHeight: image.height,
                iccProfile: nil)
        }
        return try render(decoded, path: label, options: options, monitor: monitor)
    }

    private static func render(
        _ decoded: Decoded, path: String, options: [ThumbnailOptions], monitor: RenderMonitor?
    ) throws(ImagingError) -> (properties: ImageProperties, images: [EncodedImage]) {
        var images: [EncodedImage] = []
        for option in options {
            if monitor?.isCancelled() == true { throw ImagingError(.cancelled, "the render was cancelled", path: path) }
            let shaped = try shape(decoded, option, path: path)
            let bytes: [UInt8]
            do {
                bytes = try Vips.encode(shaped, as: option.format, quality: option.quality)
            } catch {
                throw ImagingError(error.code, error.message, path: path)
            }
            images.append(
                EncodedImage(bytes: bytes, format: option.format, pixelWidth: shaped.width, pixelHeight: shaped.height))
        }
        monitor?.progress?(1)
        return (decoded.properties, images)
    }

    /// A quick image from the thumbnail a file embeds, without decoding the file's main
    /// image: a HEIF's thumbnail item, a JPEG's EXIF thumbnail, a RAW's smallest preview.
    /// Nil when the file embeds none.
    static func renderEmbeddedThumbnail(path: String, options: ThumbnailOptions) throws(ImagingError) -> EncodedImage? {
        PixelBuffers.prepareProcess()
        return try Processors.shared.holding { () throws(ImagingError) in
            try embeddedThumbnail(path: path, options: options)
        }
    }

    private static func embeddedThumbnail(path: String, options: ThumbnailOptions) throws(ImagingError) -> EncodedImage?
    {
        guard let metadata = try? MetadataReader.read(fileAtPath: path) else { return nil }
        let decoded: Decoded
        switch metadata.format {
        case .heic, .heif, .avif:
            guard metadata.heifThumbnailSize != nil else { return nil }
            let choose: HEIFChooser = { primary, thumbnail, _ in
                guard let thumbnail, thumbnail.width < primary.width, thumbnail.height < primary.height else {
                    return nil
                }
                return .thumbnail
            }
            guard let thumbnail = try decodeHEIFFile(path: path, orientation: nil, monitor: nil, choose: choose) else {
                return nil
            }
            decoded = thumbnail
        default:
            let smallest = metadata.embeddedJPEGs.sorted { $0.length < $1.length }
            guard let embedded = smallest.first, embedded.length <= 16 << 20,
                let bytes = try? read(path, offset: embedded.offset, length: embedded.length),
                let header = try? JPEGDecoder.header(bytes, path: path)
            else { return nil }
            let orientation = metadata.exif?.orientation ?? JPEGDecoder.exifOrientation(bytes)
            decoded = try decodeJPEG(
                bytes, header: header, fileOrientation: orientation, path: path, options: [options], monitor: nil)
        }
        var quick = options
        quick.resizeMode = .fast
        return try render(decoded, path: path, options: [quick], monitor: nil).images.first
    }

    // MARK: - Decoding

    /// `contents` are the file's bytes when the caller holds them, and `fileOrientation` its
    /// EXIF orientation when the caller has read it: neither is then read again. Holds a
    /// processor (``Processors``) while it decodes, as every render does from start to end.
    static func decode(
        path: String, contents: [UInt8]? = nil, fileOrientation: Int? = nil, options: [ThumbnailOptions],
        monitor: RenderMonitor?
    ) throws(ImagingError) -> Decoded {
        try Processors.shared.holding { () throws(ImagingError) -> Decoded in
            try decodeFile(
                path: path, contents: contents, fileOrientation: fileOrientation, options: options, monitor: monitor)
        }
    }

    private static func decodeFile(
        path: String, contents: [UInt8]?, fileOrientation: Int?, options: [ThumbnailOptions], monitor: RenderMonitor?
    ) throws(ImagingError) -> Decoded {
        var opened: (format: FileFormat?, bytes: [UInt8]?)
        if let contents {
            // Said plainly, not as libvips' "not a known file format".
            if contents.isEmpty { throw ImagingError(.unreadable, "the file is empty", path: path) }
            opened = (FileFormat(sniffing: Array(contents.prefix(FileFormat.sniffLength))), contents)
        } else {
            opened = try sniff(path)
        }
        defer {
            // The array read for the decode goes back for the next file once the decode is done
            // with it (the decoded pixels are elsewhere).
            if contents == nil, let bytes = opened.bytes {
                opened.bytes = nil
                ReadBuffers.shared.giveBack(bytes)
            }
        }
        if opened.format == .jpeg, let bytes = opened.bytes, let header = try JPEGDecoder.header(bytes, path: path) {
            return try decodeJPEG(
                bytes, header: header, fileOrientation: fileOrientation ?? JPEGDecoder.exifOrientation(bytes),
                path: path,
                options: options, monitor: monitor)
        }
        // TIFF-based RAW files sniff as TIFF; their tags tell them apart.
        if opened.format == .tiff || opened.format?.kind == .raw,
            let metadata = try? MetadataReader.read(fileAtPath: path),
            metadata.format.kind == .raw
        {
            let raw = try rawPreview(path, metadata)
            return try decodeJPEG(
                raw.bytes, header: raw.header, fileOrientation: raw.orientation, path: path, options: options,
                monitor: monitor)
        }
        if opened.format?.kind == .video { return try decodePosterFrame(path: path, options: options) }
        if let format = opened.format, heifFormats.contains(format) {
            let override = validOrientation(options.first?.orientation)
            let choose = heifChoice(options: options)
            let decoded: Decoded?
            if let contents {
                decoded = try decodeHEIF(contents, path: path, orientation: override, monitor: monitor, choose: choose)
            } else {
                decoded = try decodeHEIFFile(path: path, orientation: override, monitor: monitor, choose: choose)
            }
            if let decoded { return decoded }
        }
        // libvips reads the file itself: its bytes need not stay beside the decode.
        if contents == nil, let bytes = opened.bytes { ReadBuffers.shared.giveBack(bytes) }
        opened.bytes = nil
        return try Vips.isolatingFailure { () throws(ImagingError) in
            try decodeWithLibvips(path: path, options: options, monitor: monitor)
        }
    }

    private static func decodeJPEG(
        _ bytes: [UInt8], header: JPEGDecoder.Header, fileOrientation: Int, path: String, options: [ThumbnailOptions],
        monitor: RenderMonitor?
    ) throws(ImagingError) -> Decoded {
        try PixelBudget.shared.check(width: header.width, height: header.height, path: path)
        let properties = ImageProperties(
            storedWidth: header.width, storedHeight: header.height, orientation: fileOrientation, loader: "jpegload")
        let orientation = validOrientation(options.first?.orientation) ?? fileOrientation
        let swaps = (5...8).contains(orientation)
        let (uprightWidth, uprightHeight) = swaps ? (header.height, header.width) : (header.width, header.height)
        let shrink =
            options.map {
                RenderGeometry(uprightWidth: uprightWidth, uprightHeight: uprightHeight, options: $0)
                    .loadShrink(among: JPEGDecoder.shrinkFactors)
            }.min() ?? 1
        let memory = header.decodeMemory(shrink: shrink, turned: orientation != 1)
        let (image, icc) = try DecodeMemory.shared.withReservation(memory, monitor: monitor, path: path) {
            () throws(ImagingError) in
            let (stored, icc, _) = try JPEGDecoder.decode(bytes, shrink: shrink, path: path, monitor: monitor)
            return (try Vips.upright(stored, orientation: orientation, path: path), icc)
        }
        return Decoded(
            image: image, properties: properties, uprightWidth: uprightWidth, uprightHeight: uprightHeight,
            iccProfile: icc)
    }

    private static func decodeWithLibvips(
        path: String, options: [ThumbnailOptions], monitor: RenderMonitor?
    ) throws(ImagingError) -> Decoded {
        let header = try Vips.open(path, failOnTruncation: false)
        try PixelBudget.shared.check(width: header.width, height: header.height, path: path)
        let properties = ImageProperties(
            storedWidth: header.width, storedHeight: header.height, orientation: header.orientation,
            loader: header.loader)
        let override = validOrientation(options.first?.orientation)
        let swaps = (5...8).contains(override ?? header.orientation)
        let (uprightWidth, uprightHeight) = swaps ? (header.height, header.width) : (header.width, header.height)
        let (boxWidth, boxHeight, scale) = decodeBox(
            uprightWidth: uprightWidth, uprightHeight: uprightHeight, options: options)
        // The HEIFs that reach libvips (16-bit, alpha, over 64 MB) are decoded whole by libheif,
        // then converted to RGB: about 6 bytes a pixel at once. The other loaders stream or
        // shrink on load.
        let memory = header.loader == "heifload" ? header.width * header.height * 6 : 0
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
        return Decoded(
            image: image, properties: properties, uprightWidth: uprightWidth, uprightHeight: uprightHeight,
            iccProfile: profile)
    }

    /// Whether a HEIF of `width` x `height` is shown in `box` from its embedded thumbnail
    /// (decoded by libheif at 6 bytes a pixel, a small fraction of the whole image): libvips
    /// 8.14's rule, so that a file gives the pixels it gave through libvips. The thumbnail must be smaller than the image and larger than the box across or
    /// down.
    static func heifUsesThumbnail(
        width: Int, height: Int, thumbnail: (width: Int, height: Int), box: (width: Int, height: Int)
    ) -> Bool {
        thumbnail.width < width && thumbnail.height < height
            && (thumbnail.width > box.width || thumbnail.height > box.height)
    }

    /// The box a decode must fill for every output: the whole upright image at the largest
    /// scale any output needs.
    static func decodeBox(uprightWidth: Int, uprightHeight: Int, options: [ThumbnailOptions])
        -> (width: Int, height: Int, scale: Double)
    {
        let scale =
            options.map {
                RenderGeometry(uprightWidth: uprightWidth, uprightHeight: uprightHeight, options: $0).scale
            }.max() ?? 1
        return (
            max(1, Int((Double(uprightWidth) * scale).rounded(.up))),
            max(1, Int((Double(uprightHeight) * scale).rounded(.up))),
            scale
        )
    }

    /// What a HEIF render decodes for `options`: its embedded thumbnail when that covers the
    /// box every output needs, else its primary image when that is 8-bit RGB, shrunk as far as
    /// the outputs allow; nil for libvips' loader (16-bit, alpha).
    private static func heifChoice(options: [ThumbnailOptions]) -> HEIFChooser {
        let turned = validOrientation(options.first?.orientation).map { (5...8).contains($0) } ?? false
        return { primary, thumbnail, primaryIsRGB8 in
            let box = decodeBox(
                uprightWidth: turned ? primary.height : primary.width,
                uprightHeight: turned ? primary.width : primary.height, options: options)
            if let thumbnail,
                heifUsesThumbnail(
                    width: primary.width, height: primary.height, thumbnail: thumbnail,
                    box: turned ? (box.height, box.width) : (box.width, box.height))
            {
                return .thumbnail
            }
            let shrink =
                options.map {
                    RenderGeometry(
                        uprightWidth: turned ? primary.height : primary.width,
                        uprightHeight: turned ? primary.width : primary.height, options: $0
                    ).loadShrink(among: heifShrinkFactors, gap: heifShrinkGap)
                }.min() ?? 1
            return primaryIsRGB8 ? .primary(shrink: shrink) : nil
        }
    }

    /// Picks the image of a HEIF to decode from the primary image's size, its 8-bit RGB
    /// thumbnail's (both as displayed) and whether the primary is 8-bit RGB; nil for none.
    typealias HEIFChooser = (
        _ primary: (width: Int, height: Int), _ thumbnail: (width: Int, height: Int)?, _ primaryIsRGB8: Bool
    ) -> HEIFImage?

    /// How many times smaller a HEIF's primary image may be made RGB (`cheif_decode`).
    static let heifShrinkFactors = [1, 2, 4, 8]
    /// How much larger than the output a shrunk HEIF must stay. The shrink averages blocks; a
    /// 1280x854 HEIC averaged down to 640x427 and resized to 512 px was 2.7 levels from libvips'
    /// resize of the whole image, softer, where 4032x3024 averaged to 2016x1512 for 1024 px
    /// was within 1.
    static let heifShrinkGap = 1.5

    /// HEIF's brands, which libheif decodes.
    static let heifFormats: Set<FileFormat> = [.heic, .heif, .avif]

    enum HEIFImage: Equatable {
        /// The primary image, at 1/`shrink` of its size when that is more than 1.
        case primary(shrink: Int)
        case thumbnail
    }

    /// A HEIF decoded by `CHEIF`: the image `choose` picks. Nil when libheif is missing or
    /// `choose` picks none: libvips' loader then has the file. Throws when libheif finds the
    /// file damaged, cut short or not one it reads: libvips would read it through the same
    /// libheif, and its error buffer is the process's, where two files failing at once mix their
    /// messages.
    ///
    /// A phone's HEIC (both images in the simple form `HEIFCodedImage` reads) is decoded tile by
    /// tile without libheif, which is loaded only for the other files and for a tile FFmpeg
    /// refuses.
    static func decodeHEIF(
        _ bytes: [UInt8], path: String, orientation override: Int?, monitor: RenderMonitor?, choose: HEIFChooser
    ) throws(ImagingError) -> Decoded? {
        try refuseMalformedHEIF(ByteSource(bytes: bytes), path: path)
        return try decodeHEIF(
            bytes, layouts: OwnCode.heifTiles.isOn ? HEIFCodedImage.readPrimaryAndThumbnail(bytes) : nil, tried: nil,
            path: path,
            orientation: override, monitor: monitor, choose: choose)
    }

    /// Refuses, before libheif reads it here or through libvips, a HEIF whose structure it
    /// would misread (``MetadataReader/checkStructure(_:)``), or whose images derive from
    /// themselves: libheif recursed without end on a grid listing itself as a tile.
    private static func refuseMalformedHEIF(_ source: ByteSource, path: String) throws(ImagingError) {
        do throws(MetadataError) {
            try MetadataReader.checkStructure(source)
        } catch {
            throw ImagingError(.corrupt, error.message, path: path)
        }
        if HEIFDerivations.haveLoop(source) {
            throw ImagingError(.corrupt, "its images derive from themselves (a loop of item references)", path: path)
        }
    }

    /// ``decodeHEIF(_:path:orientation:monitor:choose:)`` with the file's `layouts` already
    /// read (nil when either image is not in the simple form). `tried` is the image whose tiles
    /// were already decoded without libheif and refused: they are not decoded again.
    private static func decodeHEIF(
        _ bytes: [UInt8], layouts: (primary: HEIFCodedImage, thumbnail: HEIFCodedImage?)?,
        tried: HEIFCodedImage.Image?, path: String, orientation override: Int?, monitor: RenderMonitor?,
        choose: HEIFChooser
    ) throws(ImagingError) -> Decoded? {
        var tried = tried
        if tried == nil, let layouts,
            let chosen = choose(layouts.primary.displayedSize, layouts.thumbnail?.displayedSize, true),
            let layout = chosen == .thumbnail ? layouts.thumbnail : layouts.primary
        {
            if let decoded = try decodeHEIFTiles(
                bytes, chosen: chosen, layout: layout, primary: layouts.primary.displayedSize,
                thumbnail: layouts.thumbnail?.displayedSize, path: path, orientation: override, monitor: monitor)
            {
                return decoded
            }
            tried = chosen == .thumbnail ? .thumbnail : .primary
        }
        var message = [CChar](repeating: 0, count: 256)
        guard cheif_load(&message, message.count) == 1 else { return nil }
        var failure = CHEIF_UNSUPPORTED
        let result: Result<Decoded?, ImagingError> = bytes.withUnsafeBytes { raw in
            guard let file = cheif_open(raw.baseAddress, raw.count, &failure, &message, message.count) else {
                return .failure(heifError(failure, message, path: path))
            }
            defer { cheif_close(file) }
            var width: Int32 = 0
            var height: Int32 = 0
            var thumbnailWidth: Int32 = 0
            var thumbnailHeight: Int32 = 0
            cheif_primary_size(file, &width, &height)
            let thumbnail =
                cheif_thumbnail_size(file, &thumbnailWidth, &thumbnailHeight) == 1
                ? (width: Int(thumbnailWidth), height: Int(thumbnailHeight)) : nil
            guard let chosen = choose((Int(width), Int(height)), thumbnail, cheif_primary_is_rgb8(file) == 1) else {
                return .success(nil)
            }
            let image: HEIFCodedImage.Image = chosen == .thumbnail ? .thumbnail : .primary
            // Tiles FFmpeg refused, or a layout refused, without libheif are not offered again.
            let layout = image == tried || !OwnCode.heifTiles.isOn ? nil : HEIFCodedImage.read(bytes, image: image)
            let tiled = layout.flatMap { offer($0, thumbnail: chosen == .thumbnail, to: file) ? $0 : nil }
            return Result { () throws(ImagingError) -> Decoded? in
                try decodeChosen(
                    chosen, of: file, primary: (Int(width), Int(height)), thumbnail: thumbnail, tiled: tiled,
                    profile: nil,
                    path: path, orientation: override, monitor: monitor)
            }
        }
        return try result.get()
    }

    /// A HEIF decoded from the file at `path`, read only as far as the image `choose` picks
    /// needs. Its boxes are read first, through a `ByteSource` (16 KB pages); an embedded
    /// thumbnail in the simple form is then gathered from the file (its configuration, picture
    /// and profile: a small part of the file, with the boxes) and decoded without
    /// libheif. Anything else reads the whole file once, for
    /// ``decodeHEIF(_:path:orientation:monitor:choose:)`` with the boxes already read. Nil
    /// when that is nil, or the file is larger than ``maximumHEIFFileSize``: libvips then
    /// reads it.
    private static func decodeHEIFFile(
        path: String, orientation override: Int?, monitor: RenderMonitor?, choose: HEIFChooser
    ) throws(ImagingError) -> Decoded? {
        let source = try? ByteSource(fileAtPath: path)
        if let source { try refuseMalformedHEIF(source, path: path) }
        let layouts = OwnCode.heifTiles.isOn ? source.flatMap { HEIFCodedImage.readPrimaryAndThumbnail($0) } : nil
        var tried: HEIFCodedImage.Image?
        if let source, let layouts, let thumbnail = layouts.thumbnail,
            choose(layouts.primary.displayedSize, thumbnail.displayedSize, true) == .thumbnail
        {
            if let gathered = try? thumbnail.gathered(from: source),
                let decoded = try decodeHEIFTiles(
                    gathered.bytes, chosen: .thumbnail, layout: gathered.layout,
                    primary: layouts.primary.displayedSize, thumbnail: thumbnail.displayedSize, path: path,
                    orientation: override, monitor: monitor)
            {
                return decoded
            }
            tried = .thumbnail
        }
        guard let bytes = try readWholeHEIF(path) else { return nil }
        defer { ReadBuffers.shared.giveBack(bytes) }
        return try decodeHEIF(
            bytes, layouts: layouts, tried: tried, path: path, orientation: override, monitor: monitor, choose: choose)
    }

    /// The image `chosen` of a HEIF whose images are both in the simple form, decoded tile by
    /// tile from `bytes` (the file, or the bytes `layout` was gathered into) with no libheif
    /// (`cheif_open_layouts`). Nil when the layout is refused (10-bit, not 4:2:0) or FFmpeg
    /// refuses a tile: libheif then opens the file.
    private static func decodeHEIFTiles(
        _ bytes: [UInt8], chosen: HEIFImage, layout: HEIFCodedImage, primary: (width: Int, height: Int),
        thumbnail: (width: Int, height: Int)?, path: String, orientation override: Int?, monitor: RenderMonitor?
    ) throws(ImagingError) -> Decoded? {
        let result: Result<Decoded?, ImagingError> = bytes.withUnsafeBytes { raw in
            guard let file = cheif_open_layouts(raw.baseAddress, raw.count) else { return .success(nil) }
            defer { cheif_close(file) }
            guard offer(layout, thumbnail: chosen == .thumbnail, to: file) else { return .success(nil) }
            return Result { () throws(ImagingError) -> Decoded? in
                try decodeChosen(
                    chosen, of: file, primary: primary, thumbnail: thumbnail, tiled: layout,
                    profile: layout.profile.map { Array(bytes[$0]) }, path: path, orientation: override,
                    monitor: monitor)
            }
        }
        return try result.get()
    }

    /// The image `chosen` of an open `file` decoded, `tiled` by FFmpeg when its layout was
    /// taken, in the memory it reserves. Nil when `cheif_decode` leaves the file to libvips (or,
    /// for a file opened without libheif, to libheif). `profile` is the caller's reading of the
    /// ICC profile, else `cheif_decode`'s.
    private static func decodeChosen(
        _ chosen: HEIFImage, of file: OpaquePointer, primary: (width: Int, height: Int),
        thumbnail: (width: Int, height: Int)?, tiled: HEIFCodedImage?, profile: [UInt8]?, path: String,
        orientation override: Int?, monitor: RenderMonitor?
    ) throws(ImagingError) -> Decoded? {
        var decodedSize = primary
        var shrink = 1
        switch chosen {
        case .thumbnail:
            guard let thumbnail else { return nil }
            decodedSize = thumbnail
        case .primary(let factor):
            shrink = max(1, factor)
        }
        try PixelBudget.shared.check(width: decodedSize.width, height: decodedSize.height, path: path)
        let output = ((decodedSize.width + shrink - 1) / shrink) * ((decodedSize.height + shrink - 1) / shrink) * 3
        // Tile by tile (FFmpeg), a decode holds one picture's YCbCr and the decoder's state
        // beside its output, which a fixed part and 5 bytes a picture's pixel cover, as
        // measured. libheif holds a grid image in planar RGB (3 bytes a pixel) beside the tiles
        // it is decoding on its threads, one a processor; `CHEIF` interleaves and shrinks it
        // into a block of its own. Two such decodes side by side peaked at twice one's memory
        // for little time saved: 4.5 bytes a pixel keeps them one at a time.
        let pictureMemory = tiled.map { 750_000 + 5 * $0.pictureWidth * $0.pictureHeight }
        let memory = output + (pictureMemory ?? decodedSize.width * decodedSize.height * 9 / 2)
        let box = monitor.map(RenderMonitorBox.init)
        // Helpers decode tiles beside this thread on free processors, each with a decoder of
        // its own.
        let helpers = pictureMemory.map { DecodeHelpers(memory: $0) }
        var message = [CChar](repeating: 0, count: 256)
        var failure = CHEIF_UNSUPPORTED
        return try DecodeMemory.shared.withReservation(memory, monitor: monitor, path: path) {
            () throws(ImagingError) -> Decoded? in
            // libheif 1.15 reports no progress and cannot stop a decode: there the decode,
            // most of a HEIF's render, is one step, and a cancelled render stops before it
            // or right after. Tile by tile, the monitor is asked before each tile.
            monitor?.progress?(0)
            if monitor?.isCancelled() == true { throw ImagingError(.cancelled, "the render was cancelled", path: path) }
            var decoded = cheif_decoded()
            let thumbnailFlag: Int32 = chosen == .thumbnail ? 1 : 0
            func decode(_ lent: UnsafePointer<cheif_helpers>?) -> Int32 {
                if let box {
                    box.withContext { context in
                        cheif_decode(
                            file, thumbnailFlag, Int32(shrink), PixelBuffers.allocateForC, RenderMonitor.callback,
                            context, lent, &decoded, &failure, &message, message.count)
                    }
                } else {
                    cheif_decode(
                        file, thumbnailFlag, Int32(shrink), PixelBuffers.allocateForC, nil, nil, lent, &decoded,
                        &failure, &message, message.count)
                }
            }
            let status = helpers.map { $0.withHelpers(decode) } ?? decode(nil)
            if status != 1, failure == CHEIF_STOPPED {
                throw ImagingError(.cancelled, "the render was cancelled", path: path)
            }
            guard status == 1, let pixels = decoded.pixels else {
                if failure == CHEIF_DAMAGED { throw heifError(failure, message, path: path) }
                return nil
            }
            defer { free(decoded.icc) }
            // Plain pixels in a block of Lightbox's: libvips never sees them.
            var upright = VipsImageRef(
                pixels: pixels, width: Int(decoded.width), height: Int(decoded.height), bands: 3)
            if monitor?.isCancelled() == true { throw ImagingError(.cancelled, "the render was cancelled", path: path) }
            // Tile by tile, the decode reported its own progress up to 1.
            if tiled == nil { monitor?.progress?(0.9) }
            // An iPhone's photo and its thumbnail carry the Display P3 profile.
            let profile =
                profile ?? decoded.icc.map { [UInt8](UnsafeBufferPointer(start: $0, count: decoded.icc_length)) }
            if let override { upright = try Vips.upright(upright, orientation: override, path: path) }
            let turned = override.map { (5...8).contains($0) } ?? false
            let properties = ImageProperties(
                storedWidth: primary.width, storedHeight: primary.height, orientation: 1, loader: "heifload")
            return Decoded(
                image: upright, properties: properties, uprightWidth: turned ? primary.height : primary.width,
                uprightHeight: turned ? primary.width : primary.height, iccProfile: profile)
        }
    }

    /// Offers `layout`, the layout of the primary image or the `thumbnail`, to `CHEIF`: true
    /// when `CHEIF` takes it and will decode the image tile by tile through FFmpeg, false when
    /// libheif will.
    static func offer(_ layout: HEIFCodedImage, thumbnail: Bool, to file: OpaquePointer) -> Bool {
        var firstExtent = [0]
        var extents: [cheif_extent] = []
        for picture in layout.pictures {
            extents += picture.map { cheif_extent(offset: $0.lowerBound, length: $0.count) }
            firstExtent.append(extents.count)
        }
        return firstExtent.withUnsafeBufferPointer { first in
            extents.withUnsafeBufferPointer { extents in
                var offered = cheif_layout(
                    item: UInt32(exactly: layout.item) ?? 0, config_offset: layout.configuration.lowerBound,
                    config_length: layout.configuration.count, columns: Int32(layout.columns), rows: Int32(layout.rows),
                    first_extent: first.baseAddress, extents: extents.baseAddress, width: Int32(layout.width),
                    height: Int32(layout.height), tile_width: Int32(clamping: layout.pictureWidth),
                    tile_height: Int32(clamping: layout.pictureHeight), rotation: Int32(layout.quarterTurns),
                    has_nclx: layout.colourMatrix == nil ? 0 : 1, matrix: Int32(clamping: layout.colourMatrix ?? 2),
                    full_range: layout.fullRange == true ? 1 : 0)
                return cheif_offer_layout(file, thumbnail ? 1 : 0, &offered) == 1
            }
        }
    }

    private static func heifError(_ failure: cheif_failure, _ message: [CChar], path: String) -> ImagingError {
        let reason = JPEGDecoder.text(message)
        return failure == CHEIF_DAMAGED
            ? ImagingError(.corrupt, "the HEIF file is damaged or cut short: \(reason)", path: path)
            : ImagingError(.unreadable, "not a HEIF image Lightbox can read: \(reason)", path: path)
    }

    /// The format its first bytes say, and the whole file when it is a JPEG, in an array the
    /// caller gives back to ``ReadBuffers`` (which keeps the smaller ones). A HEIF is read
    /// afterwards, only as far as the image the render picks needs (`decodeHEIFFile`); anything
    /// else is read by libvips or FFmpeg itself (a 500 MB TIFF is not read into memory to look
    /// at its first bytes).
    private static func sniff(_ path: String) throws(ImagingError) -> (format: FileFormat?, bytes: [UInt8]?) {
        let (descriptor, size) = try openRegularFile(path)
        defer { close(descriptor) }
        // Said plainly, not as libvips' "not a known file format".
        guard size > 0 else { throw ImagingError(.unreadable, "the file is empty", path: path) }
        let head = try readFully(descriptor, offset: 0, length: min(size, FileFormat.sniffLength), path: path)
        let format = FileFormat(sniffing: head)
        guard format == .jpeg, size <= maximumJPEGFileSize else { return (format, nil) }
        return (format, try readFully(descriptor, offset: 0, length: size, path: path, kept: true))
    }

    /// A HEIF's whole file, in an array the caller gives back to ``ReadBuffers``; nil when it is
    /// larger than ``maximumHEIFFileSize`` (libvips then reads it).
    private static func readWholeHEIF(_ path: String) throws(ImagingError) -> [UInt8]? {
        let (descriptor, size) = try openRegularFile(path)
        defer { close(descriptor) }
        guard size <= maximumHEIFFileSize else { return nil }
        return try readFully(descriptor, offset: 0, length: size, path: path, kept: true)
    }

    /// A descriptor for the regular file at `path`, which the caller closes, and its size.
    private static func openRegularFile(_ path: String) throws(ImagingError) -> (descriptor: Int32, size: Int) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw ImagingError(.unreadable, "cannot open the file (\(String(cString: strerror(errno))))", path: path)
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            close(descriptor)
            throw ImagingError(.unreadable, "not a regular file", path: path)
        }
        return (descriptor, Int(status.st_size))
    }

    /// A movie's first frame, upright as its track's matrix turns it.
    private static func decodePosterFrame(path: String, options: [ThumbnailOptions]) throws(ImagingError) -> Decoded {
        let (stored, orientation) = try VideoDecoder.posterFrame(path: path)
        let properties = ImageProperties(
            storedWidth: stored.width, storedHeight: stored.height, orientation: orientation, loader: "ffmpeg")
        let image = try Vips.upright(
            stored, orientation: validOrientation(options.first?.orientation) ?? orientation, path: path)
        return Decoded(
            image: image, properties: properties, uprightWidth: image.width, uprightHeight: image.height,
            iccProfile: nil)
    }

    /// A RAW file's largest embedded JPEG preview, turned by the RAW's own orientation (the
    /// preview is stored as the sensor saw it): what a RAW shows until Lightbox develops RAW
    /// data itself. Throws when it has no usable preview.
    private static func rawPreview(_ path: String, _ metadata: MediaMetadata) throws(ImagingError)
        -> (bytes: [UInt8], header: JPEGDecoder.Header, orientation: Int)
    {
        let candidates = metadata.embeddedJPEGs.sorted { $0.length > $1.length }
        for candidate in candidates where candidate.length <= maximumJPEGFileSize {
            guard let bytes = try? read(path, offset: candidate.offset, length: candidate.length),
                JPEGDecoder.isJPEG(bytes), let header = try? JPEGDecoder.header(bytes, path: path)
            else { continue }
            return (bytes, header, metadata.exif?.orientation ?? JPEGDecoder.exifOrientation(bytes))
        }
        throw ImagingError(
            .unreadable,
            "a \(metadata.format.rawValue.uppercased()) file without a JPEG preview Lightbox can show "
                + "(\(candidates.count) embedded image\(candidates.count == 1 ? "" : "s") found, none readable)",
            path: path)
    }

    /// `length` bytes of a file from `offset`.
    private static func read(_ path: String, offset: Int, length: Int) throws(ImagingError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw ImagingError(.unreadable, "cannot open the file (\(String(cString: strerror(errno))))", path: path)
        }
        defer { close(descriptor) }
        return try readFully(descriptor, offset: offset, length: length, path: path)
    }

    /// `length` bytes from `offset`, in a fresh array, or in one from ``ReadBuffers`` (`kept`)
    /// that the caller gives back.
    private static func readFully(_ descriptor: Int32, offset: Int, length: Int, path: String, kept: Bool = false)
        throws(ImagingError) -> [UInt8]
    {
        /// Fills `buffer` from the file; how many bytes it read.
        func fill(_ buffer: UnsafeMutableBufferPointer<UInt8>) -> Int {
            guard let base = buffer.baseAddress else { return 0 }
            var done = 0
            while done < buffer.count {
                let got = pread(descriptor, base + done, buffer.count - done, off_t(offset + done))
                if got < 0 && errno == EINTR { continue }
                guard got > 0 else { break }
                done += got
            }
            return done
        }
        let bytes = kept ? ReadBuffers.shared.read(count: length, fill) : ReadBuffers.fresh(count: length, fill)
        guard bytes.count == length else {
            if kept { ReadBuffers.shared.giveBack(bytes) }
            throw ImagingError(.unreadable, "cannot read the file", path: path)
        }
        return bytes
    }

    /// JPEGs larger than this are streamed by libvips rather than held in memory.
    static let maximumJPEGFileSize = 256 << 20
    /// HEIFs larger than this go to libvips' loader, which reads them from the file, rather than
    /// to libheif from memory (a 12 MP iPhone HEIC is 1 to 3 MB).
    static let maximumHEIFFileSize = 64 << 20

    private static func validOrientation(_ value: Int?) -> Int? {
        value.flatMap { (1...8).contains($0) ? $0 : nil }
    }

    // MARK: - Shaping

    /// One output from the decoded image: crop, resize by mode, fill's trim, sRGB.
    static func shape(_ decoded: Decoded, _ option: ThumbnailOptions, path: String) throws(ImagingError) -> VipsImageRef
    {
        let geometry = RenderGeometry(
            uprightWidth: decoded.uprightWidth, uprightHeight: decoded.uprightHeight, options: option)
        var image = decoded.image
        let region = geometry.cropRegion(decodedWidth: image.width, decodedHeight: image.height)
        if (region.left, region.top, region.width, region.height) != (0, 0, image.width, image.height) {
            image = try Vips.extract(
                image, left: region.left, top: region.top, width: region.width, height: region.height)
        }
        let fill = option.contentMode == .aspectFill
        switch option.resizeMode {
        case .exact:
            if (image.width, image.height) != (geometry.scaledWidth, geometry.scaledHeight) {
                image = try Vips.resize(image, width: geometry.scaledWidth, height: geometry.scaledHeight)
            }
            if fill { image = try centre(image, width: geometry.outputWidth, height: geometry.outputHeight) }
        case .fast:
            let factor = min(image.width / geometry.scaledWidth, image.height / geometry.scaledHeight)
            if factor >= 2 { image = try Vips.shrink(image, by: factor) }
            if fill {
                // The box's aspect ratio, at whatever size the shrink left.
                let aspect = Double(geometry.outputWidth) / Double(geometry.outputHeight)
                let width = min(image.width, max(1, Int((Double(image.height) * aspect).rounded())))
                let height = min(image.height, max(1, Int((Double(width) / aspect).rounded())))
                image = try centre(image, width: width, height: height)
            }
        case .none:
            break
        }
        if let profile = decoded.iccProfile {
            image = try Vips.convertToSRGB(image, profile: profile, path: path)
        }
        return image
    }

    private static func centre(_ image: VipsImageRef, width: Int, height: Int) throws(ImagingError) -> VipsImageRef {
        let width = min(width, image.width)
        let height = min(height, image.height)
        guard (width, height) != (image.width, image.height) else { return image }
        return try Vips.extract(
            image, left: (image.width - width) / 2, top: (image.height - height) / 2, width: width, height: height)
    }
}
