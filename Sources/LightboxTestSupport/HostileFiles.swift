import Foundation

/// Hostile shapes built into real files, for the tests of what a file may make Lightbox do.
public enum HostileFiles {
    /// A PNG chunk: its length, type, data and CRC.
    public static func pngChunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        return bigEndian32(UInt32(data.count)) + body + bigEndian32(crc32(body))
    }

    /// The PNG's bytes with `chunk` placed right after its header chunk (IHDR).
    public static func png(_ png: [UInt8], inserting chunk: [UInt8]) -> [UInt8] {
        let afterHeader = 8 + 25  // the signature, then IHDR's 13 bytes in a chunk
        return Array(png.prefix(afterHeader)) + chunk + Array(png.dropFirst(afterHeader))
    }

    /// An uncompressed XMP `iTXt` chunk holding `packet`.
    public static func xmpChunk(_ packet: [UInt8]) -> [UInt8] {
        pngChunk("iTXt", Array("XML:com.adobe.xmp".utf8) + [0, 0, 0, 0, 0] + packet)
    }

    /// An XMP packet whose one description declares a namespace of a `uriLength`-byte URI and
    /// then carries `attributes` attributes in it, beside a real rating of 3.
    public static func swollenXMP(uriLength: Int, attributes: Int) -> [UInt8] {
        var packet = Array(
            """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
            <rdf:Description xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmp:Rating="3"/>
            <rdf:Description xmlns:h="
            """.utf8)
        packet += [UInt8](repeating: UInt8(ascii: "u"), count: uriLength)
        packet += Array("\"".utf8)
        for index in 0..<attributes { packet += Array(" h:a\(index)=\"1\"".utf8) }
        packet += Array("/></rdf:RDF></x:xmpmeta>".utf8)
        return packet
    }

    /// A HEIF whose one item is XMP (`mime`, `application/rdf+xml`), stored once after the
    /// boxes and named by `extents` extents of its item location, each the whole packet.
    public static func heifWithXMPItem(packet: [UInt8], extents: Int) -> [UInt8] {
        func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
            bigEndian32(UInt32(8 + payload.count)) + Array(type.utf8) + payload
        }
        func be16(_ value: Int) -> [UInt8] { [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
        let ftyp = box("ftyp", Array("heic".utf8) + [0, 0, 0, 0] + Array("mif1heic".utf8))
        // Version 2: item 1, no protection, of type mime, no name, its content type.
        let infe = box(
            "infe",
            [2, 0, 0, 0] + be16(1) + be16(0) + Array("mime".utf8) + [0] + Array("application/rdf+xml".utf8) + [0])
        let iinf = box("iinf", [0, 0, 0, 0] + be16(1) + infe)
        // Version 0, 4-byte offsets and lengths, no base offset: filled in once the size is known.
        func iloc(offset: Int) -> [UInt8] {
            var payload: [UInt8] = [0, 0, 0, 0, 0x44, 0x00] + be16(1) + be16(1) + be16(0) + be16(extents)
            for _ in 0..<extents { payload += bigEndian32(UInt32(offset)) + bigEndian32(UInt32(packet.count)) }
            return box("iloc", payload)
        }
        let metaSize = 8 + 4 + iinf.count + iloc(offset: 0).count
        let offset = ftyp.count + metaSize + 8
        let meta = box("meta", [0, 0, 0, 0] + iinf + iloc(offset: offset))
        return ftyp + meta + box("mdat", packet)
    }

    /// The movie's bytes with its first track claiming `count` samples of `size` bytes each:
    /// its `stsz` says so (its table left in place), its `stsc` puts them all in one chunk and
    /// its `stts` gives them all one duration. FFmpeg indexed a real 3 MB movie so changed in
    /// 1.9 GB.
    public static func movie(_ movie: [UInt8], claimingSamples count: UInt32, ofSize size: UInt32) -> [UInt8] {
        var bytes = movie
        func patch(_ box: String, at offset: Int, _ value: [UInt8]) {
            guard let at = bytes.firstRange(of: Array(box.utf8))?.lowerBound else { return }
            bytes.replaceSubrange((at + offset)..<(at + offset + value.count), with: value)
        }
        patch("stsz", at: 8, bigEndian32(size) + bigEndian32(count))
        patch("stsc", at: 16, bigEndian32(count))  // the first entry's samples a chunk
        patch("stts", at: 12, bigEndian32(count))  // the first entry's sample count
        return bytes
    }

    /// The movie's bytes with its first track's header (`tkhd`, version 0) stating a frame of
    /// `width` by `height`; its pictures are left as they are.
    public static func movie(_ movie: [UInt8], statingWidth width: Int, height: Int) -> [UInt8] {
        var bytes = movie
        guard let at = bytes.firstRange(of: Array("tkhd".utf8))?.lowerBound else { return bytes }
        // After the type: version and flags (4), times and IDs (20), reserved (8), layer,
        // group, volume, reserved (8), the matrix (36), then width and height in 16.16.
        let sizeAt = at + 4 + 4 + 20 + 8 + 8 + 36
        let stated = bigEndian32(UInt32(width) << 16) + bigEndian32(UInt32(height) << 16)
        bytes.replaceSubrange(sizeAt..<sizeAt + 8, with: stated)
        return bytes
    }

    /// The movie's bytes with its first track repeated until it has `tracks` (its `moov` at
    /// the top level, before its media data).
    public static func movie(_ movie: [UInt8], withTracks tracks: Int) -> [UInt8] {
        func size(at offset: Int) -> Int { movie[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) } }
        guard let moov = movie.firstRange(of: Array("moov".utf8))?.lowerBound.advanced(by: -4),
            let trak = movie.firstRange(of: Array("trak".utf8))?.lowerBound.advanced(by: -4)
        else { return movie }
        let track = Array(movie[trak..<trak + size(at: trak)])
        let copies = Array([[UInt8]](repeating: track, count: max(0, tracks - 1)).joined())
        var bytes = movie
        bytes.insert(contentsOf: copies, at: trak + track.count)
        bytes.replaceSubrange(moov..<moov + 4, with: bigEndian32(UInt32(size(at: moov) + copies.count)))
        return bytes
    }

    /// The CRC-32 of PNG chunks and ZIP files.
    public static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = (crc >> 1) ^ (0xEDB8_8320 & (0 &- (crc & 1))) }
        }
        return ~crc
    }

    /// `value`'s four bytes, most significant first.
    public static func bigEndian32(_ value: UInt32) -> [UInt8] {
        (0..<4).map { UInt8((value >> (24 - 8 * $0)) & 0xFF) }
    }
}
