/// JPEG: the segments before the image data. APP1 holds EXIF and XMP (and extended XMP in
/// parts), APP2 an ICC profile (in parts) and the MPF index, SOFn the size.
enum JPEGContainer {
    static let xmpSignature = Array("http://ns.adobe.com/xap/1.0/\0".utf8)
    static let extendedXMPSignature = Array("http://ns.adobe.com/xmp/extension/\0".utf8)
    static let iccSignature = Array("ICC_PROFILE\0".utf8)
    static let exifSignature: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0x00, 0x00]
    static let mpfSignature = Array("MPF\0".utf8)
    /// The most segments read before giving up on finding the image data.
    static let maximumSegments = 4_096

    /// Reads the JPEG that starts at `start` (0, or where a RAF file embeds its preview).
    static func read(_ source: ByteSource, at start: Int = 0, into metadata: inout MediaMetadata) throws(MetadataError)
    {
        var offset = start + 2
        var extended: [String: (length: Int, parts: [Int: [UInt8]])] = [:]
        var standardXMP: [UInt8]?
        var iccParts: [Int: [UInt8]] = [:]
        for _ in 0..<maximumSegments {
            var marker = try source.bytes(at: offset, count: 2)
            // Fill bytes (0xFF) may precede a marker.
            while marker[0] == 0xFF && marker[1] == 0xFF {
                offset += 1
                marker = try source.bytes(at: offset, count: 2)
            }
            if marker[0] != 0xFF {
                // Junk between segments (a length that was off): look for the next marker, as
                // decoders do, within 64 KB.
                let window = try source.bytes(at: offset, upTo: 1 << 16)
                guard
                    let next = window.indices.first(where: {
                        window[$0] == 0xFF && $0 + 1 < window.count && window[$0 + 1] != 0 && window[$0 + 1] != 0xFF
                    })
                else {
                    throw MetadataError(.malformed, "no JPEG marker at offset \(offset) nor in the 64 KB after it")
                }
                offset += next
                marker = try source.bytes(at: offset, count: 2)
            }
            let code = marker[1]
            if code == 0xD9 || code == 0xDA { break }  // end of image, start of scan
            if (0xD0...0xD7).contains(code) || code == 0x01 {
                offset += 2
                continue
            }
            let lengthBytes = try source.bytes(at: offset + 2, count: 2)
            let length = Int(lengthBytes.u16(at: 0)!)
            guard length >= 2 else {
                throw MetadataError(.malformed, "a JPEG segment at offset \(offset) has length \(length)")
            }
            let payloadOffset = offset + 4
            let payloadLength = length - 2
            switch code {
            case 0xE1:
                let head = try source.bytes(at: payloadOffset, upTo: extendedXMPSignature.count)
                if head.starts(with: exifSignature) {
                    if metadata.exif == nil,
                        let reader = try? TIFFReader(source: source, base: payloadOffset + exifSignature.count)
                    {
                        metadata.exif = try? ExifMetadata(reader: reader)
                        // IFD1's thumbnail: a quick image while the photo decodes.
                        if let first = reader.firstIFDOffset, let next = reader.ifd(at: first)?.next,
                            let ifd1 = reader.ifd(at: next), let start = ifd1[0x0201].flatMap(reader.integer),
                            let count = ifd1[0x0202].flatMap(reader.integer), start > 0, count > 2,
                            start + count <= payloadLength - exifSignature.count
                        {
                            metadata.embeddedJPEGs.append(EmbeddedJPEG(offset: reader.base + start, length: count))
                        }
                    }
                } else if head.starts(with: xmpSignature) {
                    standardXMP = try source.bytes(
                        at: payloadOffset + xmpSignature.count, count: payloadLength - xmpSignature.count)
                } else if head.starts(with: extendedXMPSignature) {
                    // GUID (32), full length (4), this part's offset (4), then the part.
                    let body = try source.bytes(at: payloadOffset, count: payloadLength)
                    let start = extendedXMPSignature.count
                    if body.count > start + 40, let full = body.u32(at: start + 32),
                        let partOffset = body.u32(at: start + 36),
                        full <= XMPMetadata.maximumPacketSize
                    {
                        let guid = String(decoding: body[start..<start + 32], as: UTF8.self)
                        extended[guid, default: (Int(full), [:])].parts[Int(partOffset)] = Array(body[(start + 40)...])
                    }
                }
            case 0xE2:
                let head = try source.bytes(at: payloadOffset, upTo: iccSignature.count + 2)
                if head.starts(with: iccSignature), head.count == iccSignature.count + 2 {
                    metadata.hasICCProfile = true
                    let sequence = Int(head[iccSignature.count])
                    iccParts[sequence] = try source.bytes(
                        at: payloadOffset + iccSignature.count + 2, count: payloadLength - iccSignature.count - 2)
                } else if head.starts(with: mpfSignature) {
                    metadata.mpfImageCount = mpfImageCount(source, payloadOffset + mpfSignature.count)
                }
            case 0xC0...0xCF where code != 0xC4 && code != 0xC8 && code != 0xCC && metadata.pixelWidth == nil:
                let frame = try source.bytes(at: payloadOffset, count: 5)
                metadata.pixelHeight = Int(frame.u16(at: 1)!)
                metadata.pixelWidth = Int(frame.u16(at: 3)!)
            default: break
            }
            offset = payloadOffset + payloadLength
        }
        if let standardXMP {
            // The standard packet names its extension by GUID (xmpNote:HasExtendedXMP).
            let note = XMPMetadata(packet: standardXMP).properties["http://ns.adobe.com/xmp/note/ HasExtendedXMP"]
            let part = note.flatMap { extended[$0] }
            metadata.xmp = try XMPMetadata.reading(packetOf: standardXMP.count + (part?.length ?? 0)) {
                var packet = standardXMP
                if let part {
                    var joined = [UInt8](repeating: 0x20, count: part.length)
                    for (start, bytes) in part.parts where start + bytes.count <= part.length {
                        joined.replaceSubrange(start..<start + bytes.count, with: bytes)
                    }
                    packet += joined
                }
                return packet
            }
        }
        if !iccParts.isEmpty {
            let profile = iccParts.keys.sorted().flatMap { iccParts[$0]! }
            metadata.iccProfileDescription = ICCProfile.description(of: profile)
        }
    }

    /// The number of images an MPF index lists (tag 0xB001 of its IFD).
    private static func mpfImageCount(_ source: ByteSource, _ base: Int) -> Int? {
        guard let reader = try? TIFFReader(source: source, base: base), let first = reader.firstIFDOffset else {
            return nil
        }
        var walk = IFDWalk()
        guard let ifd = walk.visit(reader, at: first) else { return nil }
        return ifd[0xB001].flatMap(reader.integer)
    }
}

/// The description tag of an ICC profile ("Display P3", "sRGB IEC61966-2.1").
enum ICCProfile {
    static func description(of profile: [UInt8]) -> String? {
        guard profile.count >= 132, let count = profile.u32(at: 128), count <= 256 else { return nil }
        for index in 0..<Int(count) {
            let at = 132 + index * 12
            guard let signature = profile.fourCC(at: at), let offset = profile.u32(at: at + 4).map(Int.init),
                let size = profile.u32(at: at + 8).map(Int.init), signature == "desc", offset >= 0, size >= 12,
                offset + size <= profile.count
            else { continue }
            let tag = Array(profile[offset..<offset + size])
            switch tag.fourCC(at: 0) {
            case "desc":  // ICC v2: ASCII count then text
                guard let length = tag.u32(at: 8).map(Int.init), length > 0, 12 + length <= tag.count else {
                    return nil
                }
                return String(decoding: tag[12..<12 + length].prefix { $0 != 0 }, as: UTF8.self)
            case "mluc":  // ICC v4: records of UTF-16BE strings; the first one
                guard let records = tag.u32(at: 8), records > 0, let length = tag.u32(at: 20).map(Int.init),
                    let start = tag.u32(at: 24).map(Int.init), start + length <= tag.count
                else { return nil }
                let units = stride(from: start, to: start + length - 1, by: 2).compactMap { tag.u16(at: $0) }
                return String(decoding: units.prefix { $0 != 0 }, as: UTF16.self)
            default: return nil
            }
        }
        return nil
    }
}
