/// A bounds-checked reader of TIFF structures (the container EXIF uses).
///
/// Every offset is checked against the data, and IFD chains are followed at most once per
/// offset, so hostile bytes give a ``MetadataError`` or missing values, never a crash or a loop.
struct TIFFReader {
    enum ByteOrder { case little, big }

    /// One IFD entry, its value not yet interpreted.
    struct Entry {
        var tag: UInt16
        var type: UInt16
        var count: UInt32
        /// Where the value lives: inside the entry when it fits in four bytes, else at an offset.
        var valueOffset: Int
    }

    let data: [UInt8]
    let order: ByteOrder

    /// Reads the header of a TIFF stream; returns the reader and the offset of IFD0.
    init(_ data: [UInt8]) throws(MetadataError) {
        guard data.count >= 8 else { throw MetadataError(.truncated, "TIFF header is shorter than 8 bytes") }
        self.data = data
        switch (data[0], data[1]) {
        case (0x49, 0x49): order = .little
        case (0x4D, 0x4D): order = .big
        default: throw MetadataError(.malformed, "TIFF header has no byte order mark")
        }
    }

    var firstIFDOffset: Int? {
        guard u16(at: 2) == 42, let offset = u32(at: 4) else { return nil }
        return Int(offset)
    }

    func u16(at offset: Int) -> UInt16? {
        guard offset >= 0, offset + 2 <= data.count else { return nil }
        let a = UInt16(data[offset]), b = UInt16(data[offset + 1])
        return order == .little ? a | b << 8 : a << 8 | b
    }

    func u32(at offset: Int) -> UInt32? {
        guard offset >= 0, offset + 4 <= data.count else { return nil }
        let bytes = (0..<4).map { UInt32(data[offset + $0]) }
        return order == .little
            ? bytes[0] | bytes[1] << 8 | bytes[2] << 16 | bytes[3] << 24
            : bytes[0] << 24 | bytes[1] << 16 | bytes[2] << 8 | bytes[3]
    }

    /// The entries of the IFD at `offset`, and the offset of the next IFD (nil at the end).
    func entries(ofIFDAt offset: Int) -> (entries: [Entry], next: Int?) {
        guard let count = u16(at: offset) else { return ([], nil) }
        var result: [Entry] = []
        result.reserveCapacity(Int(count))
        for index in 0..<Int(count) {
            let base = offset + 2 + index * 12
            guard let tag = u16(at: base), let type = u16(at: base + 2), let n = u32(at: base + 4) else { break }
            let size = Self.byteSize(ofType: type).map { $0 * Int(n) } ?? 0
            let valueOffset: Int
            if size <= 4 {
                valueOffset = base + 8
            } else if let pointer = u32(at: base + 8) {
                valueOffset = Int(pointer)
            } else {
                break
            }
            result.append(Entry(tag: tag, type: type, count: n, valueOffset: valueOffset))
        }
        let nextOffset = u32(at: offset + 2 + Int(count) * 12).flatMap { $0 == 0 ? nil : Int($0) }
        return (result, nextOffset)
    }

    static func byteSize(ofType type: UInt16) -> Int? {
        switch type {
        case 1, 2, 6, 7: 1  // BYTE, ASCII, SBYTE, UNDEFINED
        case 3, 8: 2  // SHORT, SSHORT
        case 4, 9, 11, 13: 4  // LONG, SLONG, FLOAT, IFD
        case 5, 10, 12: 8  // RATIONAL, SRATIONAL, DOUBLE
        default: nil
        }
    }

    /// An unsigned integer value (BYTE, SHORT or LONG).
    func integer(_ entry: Entry) -> UInt32? {
        guard entry.count >= 1 else { return nil }
        switch entry.type {
        case 1, 7: return entry.valueOffset < data.count ? UInt32(data[entry.valueOffset]) : nil
        case 3: return u16(at: entry.valueOffset).map(UInt32.init)
        case 4, 13: return u32(at: entry.valueOffset)
        default: return nil
        }
    }

    /// An ASCII value, without its terminating NULs and surrounding spaces.
    func string(_ entry: Entry) -> String? {
        guard entry.type == 2 || entry.type == 7 else { return nil }
        let start = entry.valueOffset
        let end = start + Int(entry.count)
        guard start >= 0, end <= data.count, start <= end else { return nil }
        let bytes = data[start..<end].prefix { $0 != 0 }
        let text = String(decoding: bytes, as: UTF8.self)
        let trimmed = String(text.trimmingWhitespace())
        return trimmed.isEmpty ? nil : trimmed
    }
}

