/// TIFF and the TIFF-based RAW formats: EXIF from IFD0, and the size of the largest image
/// among IFD0's chain and its SubIFDs (a RAW file's IFD0 often holds only a preview).
enum TIFFContainer {
    static func read(
        _ source: ByteSource, into metadata: inout MediaMetadata, filenameExtension: String? = nil
    ) throws(MetadataError) {
        let reader = try TIFFReader(source: source)
        var exif = try ExifMetadata(reader: reader)
        if metadata.format == .rw2, let first = reader.firstIFDOffset, let ifd0 = reader.ifd(at: first) {
            readPanasonic(ifd0, reader, &exif, &metadata)
        }
        metadata.exif = exif
        var largest: (width: Int, height: Int)?
        var walk = IFDWalk()
        var pending: [Int] = reader.firstIFDOffset.map { [$0] } ?? []
        var jpegs: [EmbeddedJPEG] = []
        var rawByCompression: FileFormat?
        while let offset = pending.popLast() {
            guard let ifd = walk.visit(reader, at: offset) else { continue }
            if let width = ifd[0x0100].flatMap(reader.integer), let height = ifd[0x0101].flatMap(reader.integer),
                area(width, height) > largest.map({ area($0.width, $0.height) }) ?? 0
            {
                largest = (width, height)
            }
            if rawByCompression == nil {
                rawByCompression = ifd[0x0103].flatMap(reader.integer).flatMap(rawFormat(compression:))
            }
            if let next = ifd.next { pending.append(next) }
            if let subIFDs = ifd[0x014A] { pending += reader.integers(subIFDs, limit: 8) }
            collectEmbeddedJPEGs(ifd, reader, &jpegs)
        }
        if metadata.format == .tiff {
            // As exiftool's FileType: the DNG version tag; else the name's extension; else a
            // RAW compression in any IFD, or Sony's layout of an ARW's IFD0; else a TIFF, whatever
            // camera made it.
            if exif.isDNG {
                metadata.format = .dng
            } else if let raw = filenameExtension.flatMap(FileFormat.tiffBasedRAW(filenameExtension:)) {
                metadata.format = raw
            } else if let raw = rawByCompression {
                metadata.format = raw
            } else if Self.hasSonyARWLayout(reader, make: exif.make) {
                metadata.format = .arw
            }
        }
        if metadata.format.kind == .raw {
            for jpeg in jpegs where !metadata.embeddedJPEGs.contains(jpeg) { metadata.embeddedJPEGs.append(jpeg) }
        }
        if metadata.format.kind == .raw, let width = exif.pixelXDimension, let height = exif.pixelYDimension,
            area(width, height) > largest.map({ area($0.width, $0.height) }) ?? 0
        {
            largest = (width, height)
        }
        if metadata.pixelWidth == nil {
            metadata.pixelWidth = largest?.width
            metadata.pixelHeight = largest?.height
        }
    }

    /// Pixels in a width by height read from a file: 0 for a negative side or a product past
    /// `Int`, which a hostile file would otherwise turn into a trap.
    private static func area(_ width: Int, _ height: Int) -> Int {
        guard width > 0, height > 0 else { return 0 }
        let (product, overflow) = width.multipliedReportingOverflow(by: height)
        return overflow ? 0 : product
    }

    /// The RAW format a TIFF compression value names (exiftool's list, for the formats Lightbox
    /// knows): Nikon's 34713, Sony's 32767, Pentax's 65535.
    private static func rawFormat(compression: Int) -> FileFormat? {
        switch compression {
        case 34713: .nef
        case 32767: .arw
        case 65535: .pef
        default: nil
        }
    }

    /// Whether IFD0 is laid out as a Sony ARW's is (exiftool's test): a Sony make, a reduced
    /// image (SubfileType 1) compressed as JPEG (6), and SubIFDs.
    private static func hasSonyARWLayout(_ reader: TIFFReader, make: String?) -> Bool {
        guard make?.uppercased().hasPrefix("SONY") == true, let first = reader.firstIFDOffset,
            let ifd0 = reader.ifd(at: first)
        else { return false }
        return ifd0[0x00FE].flatMap(reader.integer) == 1 && ifd0[0x0103].flatMap(reader.integer) == 6
            && ifd0[0x014A] != nil
    }

    /// The JPEGs an IFD points to: `JPEGInterchangeFormat` and its length (a NEF's or DNG's
    /// `JpgFromRaw`, IFD1's thumbnail), or a single strip compressed as JPEG in RGB or YCbCr
    /// (a CR2's or DNG's preview in IFD0); never the CFA or linear raw data itself.
    private static func collectEmbeddedJPEGs(_ ifd: TIFFReader.IFD, _ reader: TIFFReader, _ jpegs: inout [EmbeddedJPEG])
    {
        func add(_ offset: Int?, _ length: Int?) {
            guard let offset, let length, offset > 0, length > 2, reader.base + offset + length <= reader.source.count
            else { return }
            let candidate = EmbeddedJPEG(offset: reader.base + offset, length: length)
            if !jpegs.contains(candidate) { jpegs.append(candidate) }
        }
        add(ifd[0x0201].flatMap(reader.integer), ifd[0x0202].flatMap(reader.integer))
        let compression = ifd[0x0103].flatMap(reader.integer)
        let photometric = ifd[0x0106].flatMap(reader.integer)
        if let strips = ifd[0x0111], strips.count == 1, compression == 6 || compression == 7,
            photometric == nil || photometric == 2 || photometric == 6
        {
            add(reader.integer(strips), ifd[0x0117].flatMap(reader.integer))
        }
    }

    /// Panasonic RW2 keeps ISO (0x0017) and the sensor's crop (0x0004 to 0x0007) in IFD0, and
    /// the EXIF IFD inside the JPEG preview it embeds (0x002E, JpgFromRaw).
    private static func readPanasonic(
        _ ifd0: TIFFReader.IFD, _ reader: TIFFReader, _ exif: inout ExifMetadata, _ metadata: inout MediaMetadata
    ) {
        if let preview = ifd0[0x002E], preview.count > 4 {
            if reader.base + preview.valueOffset + preview.count <= reader.source.count {
                metadata.embeddedJPEGs.append(
                    EmbeddedJPEG(offset: reader.base + preview.valueOffset, length: preview.count))
            }
            var embedded = MediaMetadata(format: .jpeg)
            if (try? JPEGContainer.read(reader.source, at: reader.base + preview.valueOffset, into: &embedded)) != nil,
                let inner = embedded.exif
            {
                exif.fill(from: inner)
            }
        }
        if exif.iso == nil { exif.iso = ifd0[0x0017].flatMap(reader.integer) }
        if let top = ifd0[0x0004].flatMap(reader.integer), let left = ifd0[0x0005].flatMap(reader.integer),
            let bottom = ifd0[0x0006].flatMap(reader.integer), let right = ifd0[0x0007].flatMap(reader.integer),
            right > left, bottom > top
        {
            metadata.pixelWidth = right - left
            metadata.pixelHeight = bottom - top
        }
    }
}

/// Fujifilm RAF: a header, then an embedded JPEG whose EXIF describes the shot.
enum RAFContainer {
    static func read(
        _ source: ByteSource, into metadata: inout MediaMetadata, filenameExtension: String? = nil
    ) throws(MetadataError) {
        let header = try source.bytes(at: 0, count: 92)
        guard let offset = header.u32(at: 84).map(Int.init), offset > 0 else {
            throw MetadataError(.malformed, "the RAF header has no preview offset")
        }
        var preview = MediaMetadata(format: .jpeg)
        try JPEGContainer.read(source, at: offset, into: &preview)
        if let length = header.u32(at: 88).map(Int.init), length > 2, offset + length <= source.count {
            metadata.embeddedJPEGs = [EmbeddedJPEG(offset: offset, length: length)]
        }
        metadata.exif = preview.exif
        metadata.xmp = preview.xmp
        metadata.pixelWidth = preview.exif?.pixelXDimension ?? preview.pixelWidth
        metadata.pixelHeight = preview.exif?.pixelYDimension ?? preview.pixelHeight
    }
}

/// PNG: the chunks before the image data: IHDR (size), eXIf, iTXt XMP, acTL (animation).
enum PNGContainer {
    static func read(
        _ source: ByteSource, into metadata: inout MediaMetadata, filenameExtension: String? = nil
    ) throws(MetadataError) {
        var offset = 8
        for _ in 0..<10_000 {
            guard offset + 8 <= source.count else { break }
            let header = try source.bytes(at: offset, count: 8)
            let length = Int(header.u32(at: 0)!)
            let type = header.fourCC(at: 4)!
            let data = offset + 8
            switch type {
            case "IHDR":
                let body = try source.bytes(at: data, count: 8)
                metadata.pixelWidth = Int(body.u32(at: 0)!)
                metadata.pixelHeight = Int(body.u32(at: 4)!)
            case "eXIf":
                if let reader = try? TIFFReader(source: source, base: data) {
                    metadata.exif = try? ExifMetadata(reader: reader)
                }
            case "iTXt":
                let head = Array("XML:com.adobe.xmp\0".utf8)
                let packetLimit = XMPMetadata.maximumPacketSize
                if try source.bytes(at: data, upTo: head.count) == head, length <= head.count + 16 + packetLimit {
                    let body = try source.bytes(at: data, count: length)
                    var cursor = PayloadCursor(body, at: 18)
                    let compressed = try cursor.read(1)
                    _ = try cursor.read(1)
                    _ = cursor.cString()  // language
                    _ = cursor.cString()  // translated keyword
                    let text = Array(body[cursor.position...])
                    // Deflate makes at most 1,032 bytes of one.
                    let size = compressed == 0 ? text.count : min(packetLimit, text.count * 1_032)
                    if let xmp = try XMPMetadata.reading(
                        packetOf: size, { compressed == 0 ? text : try? Inflate.zlib(text, limit: packetLimit) })
                    {
                        metadata.xmp = xmp
                    }
                }
            case "tEXt", "zTXt":
                // ImageMagick and exiv2 keep EXIF as "Raw profile type exif": hex text, zlib
                // compressed in zTXt.
                let keyword = Array("Raw profile type exif\0".utf8)
                let head = try source.bytes(at: data, upTo: keyword.count)
                if head == keyword, metadata.exif == nil, length > keyword.count {
                    let body = try source.bytes(
                        at: data + keyword.count, count: Swift.min(length, 16 << 20) - keyword.count)
                    let text = type == "zTXt" ? try? Inflate.zlib(Array(body.dropFirst())) : body
                    if let text, let block = rawProfile(text) { metadata.exif = try? ExifMetadata(exifBlock: block) }
                }
            case "iCCP": metadata.hasICCProfile = true
            case "acTL": metadata.isAnimated = true
            case "IEND": return
            default: break
            }
            offset = data + length + 4
        }
    }

    /// Throws unless every chunk fits in the file: a chunk's length is the file's word, and a
    /// decoder that believes it allocates that much before reading (libvips' PNG loader did:
    /// 2.1 GB for a 65-byte file whose tEXt chunk said 2 GB).
    static func checkChunks(_ source: ByteSource) throws(MetadataError) {
        var offset = 8
        while offset + 8 <= source.count {
            let header = try source.bytes(at: offset, count: 8)
            let length = Int(header.u32(at: 0)!)
            let type = header.fourCC(at: 4)!
            let remaining = source.count - offset - 12
            guard length <= Int(Int32.max), length <= remaining else {
                throw MetadataError(
                    .malformed,
                    "PNG chunk \(type) at byte \(offset) says it holds \(length) bytes; the file has \(Swift.max(remaining, 0)) "
                        + "after its header")
            }
            if type == "IEND" { return }
            offset += 12 + length
        }
    }

    /// The bytes of a "Raw profile": "\nexif\n    LENGTH\n" then hex digits, in lines.
    static func rawProfile(_ text: [UInt8]) -> [UInt8]? {
        var newlines = 0
        var index = 0
        while index < text.count && newlines < 3 {
            if text[index] == 0x0A { newlines += 1 }
            index += 1
        }
        var bytes: [UInt8] = []
        var high: UInt8?
        for character in text[index...] {
            let nibble: UInt8
            switch character {
            case 0x30...0x39: nibble = character - 0x30
            case 0x61...0x66: nibble = character - 0x61 + 10
            case 0x41...0x46: nibble = character - 0x41 + 10
            default: continue
            }
            if let first = high {
                bytes.append(first << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        return bytes.isEmpty ? nil : bytes
    }
}

/// WebP: RIFF chunks: VP8X (flags, canvas size), VP8 or VP8L (size), EXIF, XMP, ICCP.
enum WebPContainer {
    static func read(
        _ source: ByteSource, into metadata: inout MediaMetadata, filenameExtension: String? = nil
    ) throws(MetadataError) {
        var offset = 12
        for _ in 0..<10_000 {
            guard offset + 8 <= source.count else { break }
            let header = try source.bytes(at: offset, count: 8)
            let type = header.fourCC(at: 0)!
            let length = Int(header.u32(at: 4, bigEndian: false)!)
            let data = offset + 8
            switch type {
            case "VP8X":
                let body = try source.bytes(at: data, count: 10)
                metadata.isAnimated = body[0] & 0x02 != 0
                metadata.hasICCProfile = body[0] & 0x20 != 0
                metadata.pixelWidth = 1 + (Int(body[4]) | Int(body[5]) << 8 | Int(body[6]) << 16)
                metadata.pixelHeight = 1 + (Int(body[7]) | Int(body[8]) << 8 | Int(body[9]) << 16)
            case "VP8 " where metadata.pixelWidth == nil:
                let body = try source.bytes(at: data, count: 10)
                metadata.pixelWidth = Int(body.u16(at: 6, bigEndian: false)! & 0x3FFF)
                metadata.pixelHeight = Int(body.u16(at: 8, bigEndian: false)! & 0x3FFF)
            case "VP8L" where metadata.pixelWidth == nil:
                let body = try source.bytes(at: data, count: 5)
                let bits = UInt32(body[1]) | UInt32(body[2]) << 8 | UInt32(body[3]) << 16 | UInt32(body[4]) << 24
                metadata.pixelWidth = Int(bits & 0x3FFF) + 1
                metadata.pixelHeight = Int((bits >> 14) & 0x3FFF) + 1
            case "EXIF":
                let head = try source.bytes(at: data, upTo: 6)
                let base = head.starts(with: JPEGContainer.exifSignature) ? data + 6 : data
                if let reader = try? TIFFReader(source: source, base: base) {
                    metadata.exif = try? ExifMetadata(reader: reader)
                }
            case "XMP ":
                metadata.xmp = XMPMetadata(
                    packet: try source.bytes(at: data, count: Swift.min(length, ByteSource.maximumRead)))
            default: break
            }
            offset = data + length + (length & 1)
        }
    }
}

/// GIF: the logical screen's size, and whether it loops (the NETSCAPE2.0 extension).
enum GIFContainer {
    static func read(
        _ source: ByteSource, into metadata: inout MediaMetadata, filenameExtension: String? = nil
    ) throws(MetadataError) {
        let head = try source.bytes(at: 0, upTo: 4_096)
        metadata.pixelWidth = head.u16(at: 6, bigEndian: false).map(Int.init)
        metadata.pixelHeight = head.u16(at: 8, bigEndian: false).map(Int.init)
        let marker = Array("NETSCAPE2.0".utf8)
        metadata.isAnimated =
            head.count > marker.count
            && (0...(head.count - marker.count)).contains { head[$0..<$0 + marker.count].elementsEqual(marker) }
    }
}
