/// Writes TIFF structures (an EXIF block, a maker note's IFD) from IFDs whose values are raw
/// bytes in the stream's byte order.
///
/// Values longer than four bytes go after their IFD, word-aligned; pointer tags (to the
/// EXIF, GPS and interoperability IFDs, and to IFD1's thumbnail) are computed by the writer.
struct TIFFWriter {
    /// One entry: its value's bytes are already in the stream's byte order.
    struct Entry {
        var tag: UInt16
        var type: UInt16
        var count: Int
        var value: [UInt8]
    }

    /// An IFD, its entries sorted by tag when written, and what hangs off it.
    struct IFD {
        var entries: [Entry] = []
        /// Sub-IFDs by pointer tag (0x8769 EXIF, 0x8825 GPS, 0xA005 interoperability).
        var children: [UInt16: IFD] = [:]
        /// IFD1's JPEG thumbnail (pointed to by 0x0201, with its length in 0x0202).
        var thumbnail: [UInt8]?

        mutating func set(_ entry: Entry) {
            entries.removeAll { $0.tag == entry.tag }
            entries.append(entry)
        }
    }

    let bigEndian: Bool

    func u16(_ value: UInt16) -> [UInt8] {
        bigEndian ? [UInt8(value >> 8), UInt8(value & 0xFF)] : [UInt8(value & 0xFF), UInt8(value >> 8)]
    }

    func u32(_ value: UInt32) -> [UInt8] {
        let big = [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
        return bigEndian ? big : big.reversed()
    }

    /// A complete TIFF stream: header, IFD0 (with its children) and IFD1 when given.
    func stream(ifd0: IFD, ifd1: IFD?) throws(MetadataError) -> [UInt8] {
        var out: [UInt8] = bigEndian ? [0x4D, 0x4D, 0x00, 0x2A] : [0x49, 0x49, 0x2A, 0x00]
        out += u32(8)
        let next = try write(ifd0, into: &out, base: 0, hasNext: ifd1 != nil)
        if let ifd1, let next {
            let start = out.count
            patch(&out, at: next, with: UInt32(start))
            _ = try write(ifd1, into: &out, base: 0, hasNext: false)
        }
        guard out.count <= 0xFFFF - 8 else {
            throw MetadataError(
                .malformed, "the EXIF block would be \(out.count) bytes, more than a JPEG segment holds")
        }
        return out
    }

    /// Writes `ifd` at the end of `out` (offsets relative to `base`); returns where its
    /// next-IFD offset lies when `hasNext`, for the caller to fill.
    @discardableResult
    func write(_ ifd: IFD, into out: inout [UInt8], base: Int, hasNext: Bool) throws(MetadataError) -> Int? {
        var entries = ifd.entries.filter { ![0x8769, 0x8825, 0xA005, 0x0201, 0x0202].contains($0.tag) }
        for tag in ifd.children.keys { entries.append(Entry(tag: tag, type: 4, count: 1, value: u32(0))) }
        if let thumbnail = ifd.thumbnail {
            entries.append(Entry(tag: 0x0201, type: 4, count: 1, value: u32(0)))
            entries.append(Entry(tag: 0x0202, type: 4, count: 1, value: u32(UInt32(thumbnail.count))))
        }
        entries.sort { $0.tag < $1.tag }
        let start = out.count
        out += u16(UInt16(entries.count))
        var slots: [(tag: UInt16, at: Int)] = []
        var pending: [(at: Int, value: [UInt8])] = []
        for entry in entries {
            out += u16(entry.tag) + u16(entry.type) + u32(UInt32(entry.count))
            slots.append((entry.tag, out.count))
            if entry.value.count <= 4 {
                out += entry.value + Array(repeating: 0, count: 4 - entry.value.count)
            } else {
                pending.append((out.count, entry.value))
                out += u32(0)
            }
        }
        let nextAt = out.count
        out += u32(0)
        for (at, value) in pending {
            if out.count % 2 == 1 { out.append(0) }
            patch(&out, at: at, with: UInt32(out.count - base))
            out += value
        }
        for (tag, child) in ifd.children.sorted(by: { $0.key < $1.key }) {
            if out.count % 2 == 1 { out.append(0) }
            let slot = slots.first { $0.tag == tag }!.at
            patch(&out, at: slot, with: UInt32(out.count - base))
            try write(child, into: &out, base: base, hasNext: false)
        }
        if let thumbnail = ifd.thumbnail {
            let slot = slots.first { $0.tag == 0x0201 }!.at
            patch(&out, at: slot, with: UInt32(out.count - base))
            out += thumbnail
        }
        _ = start
        return hasNext ? nextAt : nil
    }

    func patch(_ out: inout [UInt8], at offset: Int, with value: UInt32) {
        out.replaceSubrange(offset..<offset + 4, with: u32(value))
    }
}

extension TIFFReader {
    /// An IFD's entries with their raw value bytes (pointer tags and the maker note left to
    /// the caller), for rewriting.
    func writableEntries(of ifd: IFD, skipping: Set<UInt16>) -> [TIFFWriter.Entry] {
        ifd.entries.compactMap { entry in
            guard !skipping.contains(entry.tag), let value = data(entry, limit: 1 << 16) else { return nil }
            return TIFFWriter.Entry(tag: entry.tag, type: entry.type, count: entry.count, value: value)
        }
    }
}
