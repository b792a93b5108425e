import Glibc
import LightboxMetadata

/// The render pipeline behind ``ImageFile``: decode once, upright, at the smallest scale every
/// output allows; then, for each output, crop, resize as its mode says, convert to sRGB and
/// encode.
///
/// The file's first bytes pick the decoder (Decoders/): a baseline or progressive YCbCr JPEG
/// (nearly every camera's) and a RAW's JPEG preview go to ``JPEGDecoder``, shrunk in the DCT
/// domain; a HEIF or AVIF to ``HEIFDecoder``; a movie's first frame to ``VideoDecoder``;
/// anything else, and what those leave, to ``VipsDecoder``.
enum Renderer {
    static func render(
        path: String, contents: [UInt8]? = nil, fileOrientation: Int? = nil, options: [RenderOptions],
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
        encoded bytes: [UInt8], options: [RenderOptions], monitor: RenderMonitor?
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
        encoded bytes: [UInt8], label: String, options: [RenderOptions], monitor: RenderMonitor?
    ) throws(ImagingError) -> (properties: ImageProperties, images: [EncodedImage]) {
        let decoded: DecodedImage
        if let header = try JPEGDecoder.header(bytes, path: label) {
            decoded = try JPEGDecoder.decodeUpright(
                bytes, header: header, fileOrientation: 1, path: label, options: options, monitor: monitor)
        } else {
            let image = try Vips.decodeEncoded(bytes)
            let properties = ImageProperties(
                storedWidth: image.width, storedHeight: image.height, orientation: 1, loader: image.loader)
            decoded = DecodedImage(
                image: image, properties: properties, uprightWidth: image.width, uprightHeight: image.height,
                iccProfile: nil)
        }
        return try render(decoded, path: label, options: options, monitor: monitor)
    }

    private static func render(
        _ decoded: DecodedImage, path: String, options: [RenderOptions], monitor: RenderMonitor?
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
    static func renderEmbeddedThumbnail(path: String, options: RenderOptions) throws(ImagingError) -> EncodedImage? {
        PixelBuffers.prepareProcess()
        return try Processors.shared.holding { () throws(ImagingError) in
            try embeddedThumbnail(path: path, options: options)
        }
    }

    private static func embeddedThumbnail(path: String, options: RenderOptions) throws(ImagingError) -> EncodedImage? {
        guard let metadata = try? MetadataReader.read(fileAtPath: path) else { return nil }
        let decoded: DecodedImage
        switch metadata.format {
        case .heic, .heif, .avif:
            guard metadata.heifThumbnailSize != nil else { return nil }
            let choose: HEIFDecoder.Chooser = { primary, thumbnail, _ in
                guard let thumbnail, thumbnail.width < primary.width, thumbnail.height < primary.height else {
                    return nil
                }
                return .thumbnail
            }
            guard let thumbnail = try HEIFDecoder.decodeFile(path: path, orientation: nil, monitor: nil, choose: choose)
            else {
                return nil
            }
            decoded = thumbnail
        default:
            let smallest = metadata.embeddedJPEGs.sorted { $0.length < $1.length }
            guard let embedded = smallest.first, embedded.length <= 16 << 20,
                let bytes = try? FileBytes.read(path, offset: embedded.offset, length: embedded.length),
                let header = try? JPEGDecoder.header(bytes, path: path)
            else { return nil }
            let orientation = metadata.exif?.orientation ?? JPEGDecoder.exifOrientation(bytes)
            decoded = try JPEGDecoder.decodeUpright(
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
        path: String, contents: [UInt8]? = nil, fileOrientation: Int? = nil, options: [RenderOptions],
        monitor: RenderMonitor?
    ) throws(ImagingError) -> DecodedImage {
        try Processors.shared.holding { () throws(ImagingError) -> DecodedImage in
            try decodeFile(
                path: path, contents: contents, fileOrientation: fileOrientation, options: options, monitor: monitor)
        }
    }

    private static func decodeFile(
        path: String, contents: [UInt8]?, fileOrientation: Int?, options: [RenderOptions], monitor: RenderMonitor?
    ) throws(ImagingError) -> DecodedImage {
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
            return try JPEGDecoder.decodeUpright(
                bytes, header: header, fileOrientation: fileOrientation ?? JPEGDecoder.exifOrientation(bytes),
                path: path,
                options: options, monitor: monitor)
        }
        // TIFF-based RAW files sniff as TIFF; their tags tell them apart.
        if opened.format == .tiff || opened.format?.kind == .raw,
            let metadata = try? MetadataReader.read(fileAtPath: path),
            metadata.format.kind == .raw
        {
            let raw = try JPEGDecoder.rawPreview(path, metadata)
            return try JPEGDecoder.decodeUpright(
                raw.bytes, header: raw.header, fileOrientation: raw.orientation, path: path, options: options,
                monitor: monitor)
        }
        if opened.format?.kind == .video { return try VideoDecoder.decodeUpright(path: path, options: options) }
        if let format = opened.format, HEIFDecoder.formats.contains(format) {
            let override = validOrientation(options.first?.orientation)
            let choose = HEIFDecoder.chooser(for: options)
            let decoded: DecodedImage?
            if let contents {
                decoded = try HEIFDecoder.decode(
                    contents, path: path, orientation: override, monitor: monitor, choose: choose)
            } else {
                decoded = try HEIFDecoder.decodeFile(
                    path: path, orientation: override, monitor: monitor, choose: choose)
            }
            if let decoded { return decoded }
        }
        // libvips reads the file itself: its bytes need not stay beside the decode.
        if contents == nil, let bytes = opened.bytes { ReadBuffers.shared.giveBack(bytes) }
        opened.bytes = nil
        return try Vips.isolatingFailure { () throws(ImagingError) in
            try VipsDecoder.decode(path: path, options: options, monitor: monitor)
        }
    }

    /// The box a decode must fill for every output: the whole upright image at the largest
    /// scale any output needs.
    static func decodeBox(uprightWidth: Int, uprightHeight: Int, options: [RenderOptions])
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

    /// The format its first bytes say, and the whole file when it is a JPEG, in an array the
    /// caller gives back to ``ReadBuffers`` (which keeps the smaller ones). A HEIF is read
    /// afterwards, only as far as the image the render picks needs (`decodeFile`); anything
    /// else is read by libvips or FFmpeg itself (a 500 MB TIFF is not read into memory to look
    /// at its first bytes).
    private static func sniff(_ path: String) throws(ImagingError) -> (format: FileFormat?, bytes: [UInt8]?) {
        let (descriptor, size) = try FileBytes.openRegular(path)
        defer { close(descriptor) }
        // Said plainly, not as libvips' "not a known file format".
        guard size > 0 else { throw ImagingError(.unreadable, "the file is empty", path: path) }
        let head = try FileBytes.read(descriptor, offset: 0, length: min(size, FileFormat.sniffLength), path: path)
        let format = FileFormat(sniffing: head)
        guard format == .jpeg, size <= JPEGDecoder.maximumFileSize else { return (format, nil) }
        return (format, try FileBytes.read(descriptor, offset: 0, length: size, path: path, kept: true))
    }

    // MARK: - Shaping

    /// One output from the decoded image: crop, resize by mode, fill's trim, sRGB.
    static func shape(_ decoded: DecodedImage, _ option: RenderOptions, path: String) throws(ImagingError)
        -> VipsImageRef
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
