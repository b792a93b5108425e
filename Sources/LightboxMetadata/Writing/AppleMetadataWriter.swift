/// Writes the identifiers that make iOS (and exiftool) see a Live Photo or a burst: the Apple
/// maker note's content identifier (tag 0x0011) and burst UUID (0x000B) in a JPEG, and the
/// `com.apple.quicktime.content.identifier` key in a QuickTime movie.
///
/// Writers return new bytes; they never touch a file. Everything else the file holds is kept:
/// the JPEG's other segments and EXIF tags byte for byte (its EXIF block is re-laid out), the
/// movie's other boxes (its chunk offsets moved when the metadata grows in front of them).
public enum AppleMetadataWriter {
    /// The JPEG `bytes` with its Apple maker note holding these identifiers (nil leaves a tag
    /// as it is). A maker note of another maker is replaced; one of Apple's keeps its other tags.
    public static func jpeg(
        _ bytes: [UInt8], contentIdentifier: String?, burstUUID: String? = nil
    ) throws(MetadataError) -> [UInt8] {
        guard bytes.starts(with: [0xFF, 0xD8]) else {
            throw MetadataError(.malformed, "not a JPEG: no start-of-image marker")
        }
        let source = ByteSource(bytes: bytes)
        // Find the EXIF APP1 segment, and where a new one would go (after SOI and APP0).
        var offset = 2
        var exifSegment: Range<Int>?
        var insertAt = 2
        while offset + 4 <= bytes.count, bytes[offset] == 0xFF {
            let code = bytes[offset + 1]
            if code == 0xDA || code == 0xD9 { break }
            let length = Int(bytes.u16(at: offset + 2)!)
            let end = offset + 2 + length
            guard length >= 2, end <= bytes.count else {
                throw MetadataError(.truncated, "a JPEG segment at offset \(offset) runs past the end")
            }
            if code == 0xE0 && exifSegment == nil { insertAt = end }
            if code == 0xE1, Array(bytes[(offset + 4)..<Swift.min(end, offset + 10)]) == JPEGContainer.exifSignature,
                exifSegment == nil
            {
                exifSegment = offset..<end
            }
            offset = end
        }

        var writer = TIFFWriter(bigEndian: true)
        var ifd0 = TIFFWriter.IFD()
        var ifd1: TIFFWriter.IFD?
        var exifIFD = TIFFWriter.IFD()
        var appleEntries: [TIFFWriter.Entry] = []
        if let segment = exifSegment {
            let reader = try TIFFReader(source: source, base: segment.lowerBound + 10)
            writer = TIFFWriter(bigEndian: reader.bigEndian)
            var walk = IFDWalk()
            guard let first = reader.firstIFDOffset, let zero = walk.visit(reader, at: first) else {
                throw MetadataError(.malformed, "the JPEG's EXIF block has no IFD0")
            }
            ifd0.entries = reader.writableEntries(of: zero, skipping: [0x8769, 0x8825])
            if let pointer = zero[0x8769].flatMap(reader.integer), let exif = walk.visit(reader, at: pointer) {
                exifIFD.entries = reader.writableEntries(of: exif, skipping: [0x927C, 0xA005])
                if let interop = exif[0xA005].flatMap(reader.integer), let ifd = walk.visit(reader, at: interop) {
                    exifIFD.children[0xA005] = TIFFWriter.IFD(entries: reader.writableEntries(of: ifd, skipping: []))
                }
                if let note = exif[0x927C] { appleEntries = existingAppleEntries(note, reader) }
            }
            if let pointer = zero[0x8825].flatMap(reader.integer), let gps = walk.visit(reader, at: pointer) {
                ifd0.children[0x8825] = TIFFWriter.IFD(entries: reader.writableEntries(of: gps, skipping: []))
            }
            if let one = walk.visit(reader, at: zero.next) {
                var thumbnailIFD = TIFFWriter.IFD(entries: reader.writableEntries(of: one, skipping: [0x0201, 0x0202]))
                if let start = one[0x0201].flatMap(reader.integer), let length = one[0x0202].flatMap(reader.integer),
                    let thumbnail = try? source.bytes(at: reader.base + start, count: length)
                {
                    thumbnailIFD.thumbnail = thumbnail
                }
                ifd1 = thumbnailIFD
            }
        }

        exifIFD.set(try makerNote(appleEntries, contentIdentifier: contentIdentifier, burstUUID: burstUUID))
        ifd0.children[0x8769] = exifIFD

        let stream = try writer.stream(ifd0: ifd0, ifd1: ifd1)
        let payload = JPEGContainer.exifSignature + stream
        let segment: [UInt8] =
            [0xFF, 0xE1, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
        if let old = exifSegment {
            return Array(bytes[..<old.lowerBound]) + segment + Array(bytes[old.upperBound...])
        }
        return Array(bytes[..<insertAt]) + segment + Array(bytes[insertAt...])
    }

    /// The EXIF MakerNote entry of an Apple maker note with `entries` and these identifiers set:
    /// big-endian, after its 14-byte header, offsets from its own start.
    static func makerNote(
        _ entries: [TIFFWriter.Entry], contentIdentifier: String?, burstUUID: String?
    ) throws(MetadataError) -> TIFFWriter.Entry {
        func ascii(_ tag: UInt16, _ text: String) -> TIFFWriter.Entry {
            let value = Array(text.utf8) + [0]
            return TIFFWriter.Entry(tag: tag, type: 2, count: value.count, value: value)
        }
        var note = TIFFWriter.IFD(entries: entries)
        if let contentIdentifier { note.set(ascii(0x0011, contentIdentifier)) }
        if let burstUUID { note.set(ascii(0x000B, burstUUID)) }
        var noteBytes = AppleMakerNote.signature + [0x00, 0x01, 0x4D, 0x4D]
        try TIFFWriter(bigEndian: true).write(note, into: &noteBytes, base: 0, hasNext: false)
        return TIFFWriter.Entry(tag: 0x927C, type: 7, count: noteBytes.count, value: noteBytes)
    }

    /// The entries of an Apple maker note, to keep when rewriting it; none for other makers'.
    private static func existingAppleEntries(_ entry: TIFFReader.Entry, _ exif: TIFFReader) -> [TIFFWriter.Entry] {
        let start = exif.base + entry.valueOffset
        guard let header = try? exif.source.bytes(at: start, count: 14), header.starts(with: AppleMakerNote.signature)
        else {
            return []
        }
        let reader = TIFFReader(source: exif.source, base: start, bigEndian: header[12] != 0x49)
        guard reader.bigEndian, let ifd = reader.ifd(at: 14) else { return [] }
        return reader.writableEntries(of: ifd, skipping: [])
    }
}
