import CJPEG
import LightboxMetadata

/// Camera JPEGs decoded from memory by the `CJPEG` target (libjpeg-turbo, and at 1/8 scale
/// Lightbox's own decoder), handed to libvips as pixels. Files it does not take (CMYK, 12-bit)
/// go to libvips' own loader.
enum JPEGDecoder {
    /// libjpeg-turbo's DCT scaling factors that its SIMD code covers: 1/1, 1/2, 1/4, 1/8.
    static let shrinkFactors = [1, 2, 4, 8]
    /// The most output pixels one decode may make (about 600 MB of RGB).
    static let maximumPixels = 200_000_000
    /// The most memory libjpeg's own buffers may take: a progressive file keeps all its coefficients.
    static let maximumMemory = 1 << 30
    /// More scans than any encoder writes; a file with more is built to waste time.
    static let maximumScans = 1_000

    /// A JPEG's stored size, when the bytes start like one and this decoder takes it.
    struct Header {
        let width: Int
        let height: Int
        let components: Int
        let progressive: Bool
        /// What libjpeg holds for all the coefficients of a progressive file.
        let coefficientBytes: Int

        /// The most memory a decode at 1/`shrink` holds: its pixels, twice when they are
        /// turned upright, and a progressive file's coefficients (Lightbox's own 1/8 decoder
        /// keeps far fewer).
        func decodeMemory(shrink: Int, turned: Bool) -> Int {
            let scale = max(1, shrink)
            let pixels = ((width + scale - 1) / scale) * ((height + scale - 1) / scale) * (components == 1 ? 1 : 3)
            return pixels * (turned ? 2 : 1) + (progressive && scale < 8 ? coefficientBytes : 0)
        }
    }

    /// A C string in a buffer `CJPEG` wrote.
    static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func isJPEG(_ bytes: [UInt8]) -> Bool {
        bytes.count > 3 && bytes[0] == 0xFF && bytes[1] == 0xD8 && bytes[2] == 0xFF
    }

    /// The header, or nil when libvips should read the file instead (not a JPEG, or one this
    /// decoder leaves to libvips). Throws when the header itself is damaged.
    static func header(_ bytes: [UInt8], path: String) throws(ImagingError) -> Header? {
        guard isJPEG(bytes) else { return nil }
        var header = cjpeg_header()
        var message = [CChar](repeating: 0, count: 256)
        let status = bytes.withUnsafeBufferPointer { buffer in
            cjpeg_read_header(buffer.baseAddress, buffer.count, &header, &message, message.count)
        }
        guard status == CJPEG_OK else {
            throw ImagingError(.corrupt, "cannot read the JPEG header (\(text(message)))", path: path)
        }
        guard header.supported != 0, header.width > 0, header.height > 0 else { return nil }
        return Header(
            width: Int(header.width), height: Int(header.height), components: Int(header.components),
            progressive: header.progressive != 0, coefficientBytes: header.coefficient_bytes)
    }

    /// The EXIF orientation of JPEG bytes, from Lightbox's own EXIF reader (the one import
    /// records); 1 when there is none.
    static func exifOrientation(_ bytes: [UInt8]) -> Int {
        (try? MetadataReader.read(ByteSource(bytes: bytes)))?.exif?.orientation ?? 1
    }

    /// Decodes at 1/`shrink` of the stored size into a libvips image in memory (stored
    /// orientation), with the file's ICC profile, if any, returned beside it. At 1/8 a baseline
    /// or progressive file goes through Lightbox's own decoder (`cjpeg_fast.c`) unless
    /// `libjpegOnly` is set; `ownDecoder` says which decoded it (tests compare the two).
    static func decode(
        _ bytes: [UInt8], shrink: Int, path: String, monitor: RenderMonitor?, libjpegOnly: Bool = false
    ) throws(ImagingError) -> (image: VipsImageRef, iccProfile: [UInt8]?, ownDecoder: Bool) {
        var image = cjpeg_image()
        var message = [CChar](repeating: 0, count: 256)
        let box = monitor.map(RenderMonitorBox.init)
        let scale = Int32(8 / max(1, min(8, shrink)))
        let flags = libjpegOnly || !OwnCode.jpegEighth.isOn ? Int32(CJPEG_LIBJPEG_ONLY) : 0
        let status = bytes.withUnsafeBufferPointer { buffer in
            if let box {
                box.withContext { context in
                    cjpeg_decode(
                        buffer.baseAddress, buffer.count, scale, maximumPixels, maximumMemory, Int32(maximumScans),
                        flags, PixelBuffers.allocateForC, RenderMonitor.callback, context, &image, &message,
                        message.count)
                }
            } else {
                cjpeg_decode(
                    buffer.baseAddress, buffer.count, scale, maximumPixels, maximumMemory, Int32(maximumScans),
                    flags, PixelBuffers.allocateForC, nil, nil, &image, &message, message.count)
            }
        }
        let reason = text(message)
        switch status {
        case CJPEG_OK: break
        case CJPEG_CANCELLED: throw ImagingError(.cancelled, "the render was cancelled", path: path)
        case CJPEG_TOO_LARGE: throw ImagingError(.tooLarge, "the image is too large to decode (\(reason))", path: path)
        case CJPEG_TRUNCATED: throw ImagingError(.corrupt, "cannot decode the image (\(reason))", path: path)
        default: throw ImagingError(.corrupt, "cannot decode the image (\(reason))", path: path)
        }
        let icc = image.icc.map { Array(UnsafeBufferPointer(start: $0, count: image.icc_length)) }
        let pixels = image.pixels
        image.pixels = nil
        cjpeg_free(&image)
        guard let pixels else { throw ImagingError(.corrupt, "cannot decode the image (no pixels)", path: path) }
        // Plain pixels: a render that only turns, resizes and encodes them never opens libvips.
        let decoded = VipsImageRef(
            pixels: UnsafeMutableRawPointer(pixels), width: Int(image.width), height: Int(image.height),
            bands: Int(image.bands))
        return (decoded, icc, image.own_decoder != 0)
    }

    /// The JPEG in `bytes` decoded at the smallest DCT scale every output allows, within the
    /// pixel and memory budgets, and turned upright (by the options' orientation, else the
    /// file's).
    static func decodeUpright(
        _ bytes: [UInt8], header: Header, fileOrientation: Int, path: String, options: [RenderOptions],
        monitor: RenderMonitor?
    ) throws(ImagingError) -> DecodedImage {
        try PixelBudget.shared.check(width: header.width, height: header.height, path: path)
        let properties = ImageProperties(
            storedWidth: header.width, storedHeight: header.height, orientation: fileOrientation, loader: "jpegload")
        let orientation = validOrientation(options.first?.orientation) ?? fileOrientation
        let swaps = (5...8).contains(orientation)
        let (uprightWidth, uprightHeight) = swaps ? (header.height, header.width) : (header.width, header.height)
        let shrink =
            options.map {
                RenderGeometry(uprightWidth: uprightWidth, uprightHeight: uprightHeight, options: $0)
                    .loadShrink(among: shrinkFactors)
            }.min() ?? 1
        let memory = header.decodeMemory(shrink: shrink, turned: orientation != 1)
        let (image, icc) = try DecodeMemory.shared.withReservation(memory, monitor: monitor, path: path) {
            () throws(ImagingError) in
            let (stored, icc, _) = try decode(bytes, shrink: shrink, path: path, monitor: monitor)
            return (try Vips.upright(stored, orientation: orientation, path: path), icc)
        }
        return DecodedImage(
            image: image, properties: properties, uprightWidth: uprightWidth, uprightHeight: uprightHeight,
            iccProfile: icc)
    }

    /// A RAW file's largest embedded JPEG preview, turned by the RAW's own orientation (the
    /// preview is stored as the sensor saw it): what a RAW shows until Lightbox develops RAW
    /// data itself. Throws when it has no usable preview.
    static func rawPreview(_ path: String, _ metadata: MediaMetadata) throws(ImagingError)
        -> (bytes: [UInt8], header: Header, orientation: Int)
    {
        let candidates = metadata.embeddedJPEGs.sorted { $0.length > $1.length }
        for candidate in candidates where candidate.length <= maximumFileSize {
            guard let bytes = try? FileBytes.read(path, offset: candidate.offset, length: candidate.length),
                isJPEG(bytes), let header = try? Self.header(bytes, path: path)
            else { continue }
            return (bytes, header, metadata.exif?.orientation ?? exifOrientation(bytes))
        }
        throw ImagingError(
            .unreadable,
            "a \(metadata.format.rawValue.uppercased()) file without a JPEG preview Lightbox can show "
                + "(\(candidates.count) embedded image\(candidates.count == 1 ? "" : "s") found, none readable)",
            path: path)
    }

    /// JPEGs larger than this are streamed by libvips rather than held in memory.
    static let maximumFileSize = 256 << 20
}
