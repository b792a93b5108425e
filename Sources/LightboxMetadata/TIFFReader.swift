/// A bounds-checked reader of TIFF structures: EXIF blocks, TIFF-based RAW files, maker notes.
///
/// Offsets in a TIFF stream are relative to its header (`base` in the source). Every read is
/// checked against the source and bounded in size, and callers follow IFD chains through
/// ``IFDWalk``, which visits an offset at most once, so hostile bytes give a
/// ``MetadataError`` or missing values, never a crash or a loop.
struct TIFFReader {
    /// One IFD entry, its value not yet interpreted.
    struct Entry {
        var tag: UInt16
        var type: UInt16
        var count: Int
        /// Where the value lives, relative to the header: inside the entry when it fits in
        /// four bytes, else at the offset the entry holds.
        var valueOffset: Int
    }

    /// The entries of one IFD and the offset of the next one.
    struct IFD {
        var entries: [Entry]
        var next: Int?

        subscript(tag: UInt16) -> Entry? { entries.first { $0.tag == tag } }
    }

    let source: ByteSource
    let base: Int
    let bigEndian: Bool

    /// The most entries an IFD may declare (real ones hold a few hundred at most).
    static let maximumEntries = 1_000

    /// Reads the TIFF header at `base`: "II*\0", "MM\0*", and the RAW variants of Olympus
    /// ("IIRO", "MMOR") and Panasonic ("IIU\0").
    init(source: ByteSource, base: Int = 0) throws(MetadataError) {
        let header = try source.bytes(at: base, count: 8)
        switch (header[0], header[1]) {
        case (0x49, 0x49): bigEndian = false
        case (0x4D, 0x4D): bigEndian = true
        default: throw MetadataError(.malformed, "the TIFF header has no byte order mark")
        }
        self.source = source
        self.base = base
        let magic = header.u16(at: 2, bigEndian: bigEndian) ?? 0
        guard magic == 42 || magic == 0x4F52 || magic == 0x5352 || magic == 0x55 else {
            throw MetadataError(.malformed, "the TIFF header's magic number is \(magic), not 42")
        }
    }

    /// A reader of IFDs without a header of their own (maker notes), offsets relative to `base`.
    init(source: ByteSource, base: Int, bigEndian: Bool) {
        self.source = source
        self.base = base
        self.bigEndian = bigEndian
    }

    /// The offset of IFD0, from the header.
    var firstIFDOffset: Int? {
        guard let header = try? source.bytes(at: base, count: 8), let offset = header.u32(at: 4, bigEndian: bigEndian)
        else { return nil }
        return Int(offset)
    }

    /// The IFD at `offset` (relative to the header), or nil when it lies outside the source.
    func ifd(at offset: Int) -> IFD? {
        guard offset >= 0, let countBytes = try? source.bytes(at: base + offset, count: 2),
            let declared = countBytes.u16(at: 0, bigEndian: bigEndian), declared > 0,
            Int(declared) <= Self.maximumEntries
        else { return nil }
        let count = Int(declared)
        guard let block = try? source.bytes(at: base + offset + 2, upTo: count * 12 + 4) else { return nil }
        var entries: [Entry] = []
        entries.reserveCapacity(count)
        for index in 0..<count {
            let at = index * 12
            guard let tag = block.u16(at: at, bigEndian: bigEndian),
                let type = block.u16(at: at + 2, bigEndian: bigEndian),
                let n = block.u32(at: at + 4, bigEndian: bigEndian)
            else { break }
            let size = (Self.byteSize(ofType: type) ?? 1) * Int(n)
            let valueOffset: Int
            if size <= 4 {
                valueOffset = offset + 2 + at + 8
            } else if let pointer = block.u32(at: at + 8, bigEndian: bigEndian) {
                valueOffset = Int(pointer)
            } else {
                break
            }
            entries.append(Entry(tag: tag, type: type, count: Int(n), valueOffset: valueOffset))
        }
        let next = block.u32(at: count * 12, bigEndian: bigEndian).flatMap { $0 == 0 ? nil : Int($0) }
        return IFD(entries: entries, next: next)
    }

    static func byteSize(ofType type: UInt16) -> Int? {
        switch type {
        case 1, 2, 6, 7: 1  // BYTE, ASCII, SBYTE, UNDEFINED
        case 3, 8: 2  // SHORT, SSHORT
        case 4, 9, 11, 13: 4  // LONG, SLONG, FLOAT, IFD
        case 5, 10, 12, 16, 17, 18: 8  // RATIONAL, SRATIONAL, DOUBLE, LONG8, SLONG8, IFD8
        default: nil
        }
    }

    /// The raw bytes of a value (at most `limit` of them).
    func data(_ entry: Entry, limit: Int = ByteSource.maximumRead) -> [UInt8]? {
        let size = (Self.byteSize(ofType: entry.type) ?? 1) * entry.count
        guard size <= limit else { return nil }
        return try? source.bytes(at: base + entry.valueOffset, count: size)
    }

    /// Integer values (BYTE, SHORT, LONG and their signed forms), at most `limit` of them.
    func integers(_ entry: Entry, limit: Int = 64) -> [Int] {
        let n = Swift.min(entry.count, limit)
        guard n > 0, let size = Self.byteSize(ofType: entry.type),
            let bytes = try? source.bytes(at: base + entry.valueOffset, count: n * size)
        else { return [] }
        return (0..<n).compactMap { index -> Int? in
            let at = index * size
            switch entry.type {
            case 1, 7: return Int(bytes[at])
            case 6: return Int(Int8(bitPattern: bytes[at]))
            case 3: return bytes.u16(at: at, bigEndian: bigEndian).map(Int.init)
            case 8: return bytes.u16(at: at, bigEndian: bigEndian).map { Int(Int16(bitPattern: $0)) }
            case 4, 13: return bytes.u32(at: at, bigEndian: bigEndian).map(Int.init)
            case 9: return bytes.u32(at: at, bigEndian: bigEndian).map { Int(Int32(bitPattern: $0)) }
            default: return nil
            }
        }
    }

    /// The first integer value.
    func integer(_ entry: Entry) -> Int? { integers(entry, limit: 1).first }

    /// Numeric values as doubles (rationals, integers, floats), at most `limit` of them.
    /// A rational with a zero denominator is nil's place: it is left out.
    func numbers(_ entry: Entry, limit: Int = 16) -> [Double] {
        let n = Swift.min(entry.count, limit)
        switch entry.type {
        case 5, 10:
            guard n > 0, let bytes = try? source.bytes(at: base + entry.valueOffset, count: n * 8) else { return [] }
            return (0..<n).compactMap { index -> Double? in
                guard let numerator = bytes.u32(at: index * 8, bigEndian: bigEndian),
                    let denominator = bytes.u32(at: index * 8 + 4, bigEndian: bigEndian), denominator != 0
                else { return nil }
                if entry.type == 10 {
                    let d = Int32(bitPattern: denominator)
                    return d == 0 ? nil : Double(Int32(bitPattern: numerator)) / Double(d)
                }
                return Double(numerator) / Double(denominator)
            }
        case 11:
            guard n > 0, let bytes = try? source.bytes(at: base + entry.valueOffset, count: n * 4) else { return [] }
            return (0..<n).compactMap {
                bytes.u32(at: $0 * 4, bigEndian: bigEndian).map { Double(Float(bitPattern: $0)) }
            }
        case 12:
            guard n > 0, let bytes = try? source.bytes(at: base + entry.valueOffset, count: n * 8) else { return [] }
            return (0..<n).compactMap { bytes.u64(at: $0 * 8, bigEndian: bigEndian).map { Double(bitPattern: $0) } }
        default:
            return integers(entry, limit: limit).map(Double.init)
        }
    }

    /// The first numeric value.
    func number(_ entry: Entry) -> Double? { numbers(entry, limit: 1).first }

    /// An ASCII (or UNDEFINED) value, without its terminating NULs and surrounding spaces;
    /// nil when empty. At most 64 KB. Bytes that are not UTF-8 read as "?", and numbers
    /// stored where text belongs read as their decimal values, as exiftool shows them.
    func string(_ entry: Entry) -> String? {
        guard entry.type == 2 || entry.type == 7 || entry.type == 1 else {
            let values = integers(entry, limit: 16)
            return values.isEmpty ? nil : values.map(String.init).joined(separator: " ")
        }
        guard let bytes = data(entry, limit: 1 << 16) else { return nil }
        let trimmed = Self.text(bytes.prefix { $0 != 0 }).trimmingWhitespace()
        return trimmed.isEmpty ? nil : String(trimmed)
    }

    /// UTF-8 text, each byte of an invalid sequence read as "?".
    static func text(_ bytes: some Collection<UInt8>) -> String {
        if let valid = String(validating: bytes, as: UTF8.self) { return valid }
        return String(decoding: bytes.map { $0 < 0x80 ? $0 : 0x3F }, as: UTF8.self)
    }
}

/// Follows IFD chains and sub-IFD pointers, visiting each offset at most once and at most
/// ``maximumIFDs`` in all, so a loop in hostile bytes ends.
struct IFDWalk {
    static let maximumIFDs = 64
    private var visited: Set<Int> = []

    /// The IFD at `offset`, unless it was visited already or too many were.
    mutating func visit(_ reader: TIFFReader, at offset: Int?) -> TIFFReader.IFD? {
        guard let offset, visited.count < Self.maximumIFDs, visited.insert(reader.base + offset).inserted else {
            return nil
        }
        return reader.ifd(at: offset)
    }
}
