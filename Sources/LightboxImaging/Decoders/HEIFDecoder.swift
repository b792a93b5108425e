import CHEIF
import Glibc
import LightboxMetadata

/// HEIF and AVIF images through the `CHEIF` target: a phone's grid of HEVC tiles decoded tile
/// by tile with FFmpeg (`cheif_tiles.c`), anything else by libheif, opened on the first HEIF.
/// Either picks the embedded thumbnail when it covers the box the render needs, else the
/// primary image shrunk as far as the outputs allow. What neither takes (16-bit, alpha, over
/// ``maximumFileSize``) goes to ``VipsDecoder``.
enum HEIFDecoder {
    /// Whether a HEIF of `width` x `height` is shown in `box` from its embedded thumbnail
    /// (decoded by libheif at 6 bytes a pixel, a small fraction of the whole image): libvips
    /// 8.14's rule, so that a file gives the pixels it gave through libvips. The thumbnail must
    /// be smaller than the image and larger than the box across or down.
    static func usesThumbnail(
        width: Int, height: Int, thumbnail: (width: Int, height: Int), box: (width: Int, height: Int)
    ) -> Bool {
        thumbnail.width < width && thumbnail.height < height
            && (thumbnail.width > box.width || thumbnail.height > box.height)
    }

    /// What a HEIF render decodes for `options`: its embedded thumbnail when that covers the
    /// box every output needs, else its primary image when that is 8-bit RGB, shrunk as far as
    /// the outputs allow; nil for libvips' loader (16-bit, alpha).
    static func chooser(for options: [RenderOptions]) -> Chooser {
        let turned = validOrientation(options.first?.orientation).map { (5...8).contains($0) } ?? false
        return { primary, thumbnail, primaryIsRGB8 in
            let box = Renderer.decodeBox(
                uprightWidth: turned ? primary.height : primary.width,
                uprightHeight: turned ? primary.width : primary.height, options: options)
            if let thumbnail,
                usesThumbnail(
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
                    ).loadShrink(among: shrinkFactors, gap: shrinkGap)
                }.min() ?? 1
            return primaryIsRGB8 ? .primary(shrink: shrink) : nil
        }
    }

    /// Picks the image of a HEIF to decode from the primary image's size, its 8-bit RGB
    /// thumbnail's (both as displayed) and whether the primary is 8-bit RGB; nil for none.
    typealias Chooser = (
        _ primary: (width: Int, height: Int), _ thumbnail: (width: Int, height: Int)?, _ primaryIsRGB8: Bool
    ) -> Choice?

    /// How many times smaller a HEIF's primary image may be made RGB (`cheif_decode`).
    static let shrinkFactors = [1, 2, 4, 8]

    /// How much larger than the output a shrunk HEIF must stay. The shrink averages blocks; a
    /// 1280x854 HEIC averaged down to 640x427 and resized to 512 px was 2.7 levels from libvips'
    /// resize of the whole image, softer, where 4032x3024 averaged to 2016x1512 for 1024 px
    /// was within 1.
    static let shrinkGap = 1.5

    /// HEIF's brands, which libheif decodes.
    static let formats: Set<FileFormat> = [.heic, .heif, .avif]

    enum Choice: Equatable {
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
    static func decode(
        _ bytes: [UInt8], path: String, orientation override: Int?, monitor: RenderMonitor?, choose: Chooser
    ) throws(ImagingError) -> DecodedImage? {
        try refuseMalformed(ByteSource(bytes: bytes), path: path)
        return try decode(
            bytes, layouts: OwnCode.heifTiles.isOn ? HEIFCodedImage.readPrimaryAndThumbnail(bytes) : nil, tried: nil,
            path: path, orientation: override, monitor: monitor, choose: choose)
    }

    /// Refuses, before libheif reads it here or through libvips, a HEIF whose structure it
    /// would misread (``MetadataReader/checkStructure(_:)``), or whose images derive from
    /// themselves: libheif recursed without end on a grid listing itself as a tile.
    private static func refuseMalformed(_ source: ByteSource, path: String) throws(ImagingError) {
        do throws(MetadataError) {
            try MetadataReader.checkStructure(source)
        } catch {
            throw ImagingError(.corrupt, error.message, path: path)
        }
        if HEIFDerivations.haveLoop(source) {
            throw ImagingError(.corrupt, "its images derive from themselves (a loop of item references)", path: path)
        }
    }

    /// ``decode(_:path:orientation:monitor:choose:)`` with the file's `layouts` already
    /// read (nil when either image is not in the simple form). `tried` is the image whose tiles
    /// were already decoded without libheif and refused: they are not decoded again.
    private static func decode(
        _ bytes: [UInt8], layouts: (primary: HEIFCodedImage, thumbnail: HEIFCodedImage?)?,
        tried: HEIFCodedImage.Image?, path: String, orientation override: Int?, monitor: RenderMonitor?,
        choose: Chooser
    ) throws(ImagingError) -> DecodedImage? {
        var tried = tried
        if tried == nil, let layouts,
            let chosen = choose(layouts.primary.displayedSize, layouts.thumbnail?.displayedSize, true),
            let layout = chosen == .thumbnail ? layouts.thumbnail : layouts.primary
        {
            if let decoded = try decodeTiles(
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
        let result: Result<DecodedImage?, ImagingError> = bytes.withUnsafeBytes { raw in
            guard let file = cheif_open(raw.baseAddress, raw.count, &failure, &message, message.count) else {
                return .failure(imagingError(failure, message, path: path))
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
            return Result { () throws(ImagingError) -> DecodedImage? in
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
    /// ``decode(_:path:orientation:monitor:choose:)`` with the boxes already read. Nil
    /// when that is nil, or the file is larger than ``maximumFileSize``: libvips then
    /// reads it.
    static func decodeFile(
        path: String, orientation override: Int?, monitor: RenderMonitor?, choose: Chooser
    ) throws(ImagingError) -> DecodedImage? {
        let source = try? ByteSource(fileAtPath: path)
        if let source { try refuseMalformed(source, path: path) }
        let layouts = OwnCode.heifTiles.isOn ? source.flatMap { HEIFCodedImage.readPrimaryAndThumbnail($0) } : nil
        var tried: HEIFCodedImage.Image?
        if let source, let layouts, let thumbnail = layouts.thumbnail,
            choose(layouts.primary.displayedSize, thumbnail.displayedSize, true) == .thumbnail
        {
            if let gathered = try? thumbnail.gathered(from: source),
                let decoded = try decodeTiles(
                    gathered.bytes, chosen: .thumbnail, layout: gathered.layout,
                    primary: layouts.primary.displayedSize, thumbnail: thumbnail.displayedSize, path: path,
                    orientation: override, monitor: monitor)
            {
                return decoded
            }
            tried = .thumbnail
        }
        guard let bytes = try readWhole(path) else { return nil }
        defer { ReadBuffers.shared.giveBack(bytes) }
        return try decode(
            bytes, layouts: layouts, tried: tried, path: path, orientation: override, monitor: monitor, choose: choose)
    }

    /// The image `chosen` of a HEIF whose images are both in the simple form, decoded tile by
    /// tile from `bytes` (the file, or the bytes `layout` was gathered into) with no libheif
    /// (`cheif_open_layouts`). Nil when the layout is refused (10-bit, not 4:2:0) or FFmpeg
    /// refuses a tile: libheif then opens the file.
    private static func decodeTiles(
        _ bytes: [UInt8], chosen: Choice, layout: HEIFCodedImage, primary: (width: Int, height: Int),
        thumbnail: (width: Int, height: Int)?, path: String, orientation override: Int?, monitor: RenderMonitor?
    ) throws(ImagingError) -> DecodedImage? {
        let result: Result<DecodedImage?, ImagingError> = bytes.withUnsafeBytes { raw in
            guard let file = cheif_open_layouts(raw.baseAddress, raw.count) else { return .success(nil) }
            defer { cheif_close(file) }
            guard offer(layout, thumbnail: chosen == .thumbnail, to: file) else { return .success(nil) }
            return Result { () throws(ImagingError) -> DecodedImage? in
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
        _ chosen: Choice, of file: OpaquePointer, primary: (width: Int, height: Int),
        thumbnail: (width: Int, height: Int)?, tiled: HEIFCodedImage?, profile: [UInt8]?, path: String,
        orientation override: Int?, monitor: RenderMonitor?
    ) throws(ImagingError) -> DecodedImage? {
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
            () throws(ImagingError) -> DecodedImage? in
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
                if failure == CHEIF_DAMAGED { throw imagingError(failure, message, path: path) }
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
            return DecodedImage(
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

    private static func imagingError(_ failure: cheif_failure, _ message: [CChar], path: String) -> ImagingError {
        let reason = JPEGDecoder.text(message)
        return failure == CHEIF_DAMAGED
            ? ImagingError(.corrupt, "the HEIF file is damaged or cut short: \(reason)", path: path)
            : ImagingError(.unreadable, "not a HEIF image Lightbox can read: \(reason)", path: path)
    }

    /// A HEIF's whole file, in an array the caller gives back to ``ReadBuffers``; nil when it is
    /// larger than ``maximumFileSize`` (libvips then reads it).
    private static func readWhole(_ path: String) throws(ImagingError) -> [UInt8]? {
        let (descriptor, size) = try FileBytes.openRegular(path)
        defer { close(descriptor) }
        guard size <= maximumFileSize else { return nil }
        return try FileBytes.read(descriptor, offset: 0, length: size, path: path, kept: true)
    }

    /// HEIFs larger than this go to libvips' loader, which reads them from the file, rather than
    /// to libheif from memory (a 12 MP iPhone HEIC is 1 to 3 MB).
    static let maximumFileSize = 64 << 20
}
