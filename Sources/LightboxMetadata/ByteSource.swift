import Foundation

/// Random access to a file's bytes, read only where a parser asks.
///
/// Parsers never trust a length or an offset they read: they ask for the bytes, and a
/// request outside the source, or larger than ``maximumRead``, is an error.
public final class ByteSource: @unchecked Sendable {
    // @unchecked: `handle` and `pages` are used only while holding `lock`.
    /// The size of the source in bytes.
    public let count: Int
    /// The file the bytes come from, for error messages; nil for bytes in memory.
    public let path: String?
    /// The most bytes one read may ask for (a metadata block larger than this is hostile).
    public static let maximumRead = 64 << 20

    private let memory: [UInt8]?
    private let handle: FileHandle?
    private let lock = NSLock()
    private var pages: [Int: [UInt8]] = [:]
    private var pageUse: [Int] = []
    private static let pageSize = 16 << 10
    private static let keptPages = 64

    /// Bytes in memory.
    public init(bytes: [UInt8]) {
        memory = bytes
        handle = nil
        count = bytes.count
        path = nil
    }

    /// A file, read in 16 KB pages as parsers ask (64 pages kept).
    /// Only a regular file is read (``RegularFile``).
    public init(fileAtPath path: String) throws(MetadataError) {
        let opened: (descriptor: Int32, size: Int)
        do {
            opened = try RegularFile.open(path)
        } catch {
            throw MetadataError(.unreadable, error.reason)
        }
        count = opened.size
        self.handle = FileHandle(fileDescriptor: opened.descriptor, closeOnDealloc: true)
        self.path = path
        memory = nil
    }

    deinit {
        try? handle?.close()
    }

    /// The `length` bytes at `offset`; throws when they lie outside the source.
    public func bytes(at offset: Int, count length: Int) throws(MetadataError) -> [UInt8] {
        guard offset >= 0, length >= 0, length <= Self.maximumRead, offset <= count, length <= count - offset else {
            throw MetadataError(
                .truncated, "the file ends before the \(length) bytes at offset \(offset) it declares (size \(count))")
        }
        if let memory { return Array(memory[offset..<offset + length]) }
        var result: [UInt8] = []
        result.reserveCapacity(length)
        var position = offset
        while position < offset + length {
            let page = position / Self.pageSize
            let pageBytes = try self.page(page)
            let start = position - page * Self.pageSize
            let end = Swift.min(pageBytes.count, start + (offset + length - position))
            guard start < end else {
                throw MetadataError(.truncated, "the file ended while reading at offset \(position)")
            }
            result += pageBytes[start..<end]
            position += end - start
        }
        return result
    }

    /// The bytes at `offset`, at most `length` of them (fewer at the end of the source).
    public func bytes(at offset: Int, upTo length: Int) throws(MetadataError) -> [UInt8] {
        guard offset >= 0, offset <= count else {
            throw MetadataError(.truncated, "offset \(offset) lies beyond the end of the file (size \(count))")
        }
        return try bytes(at: offset, count: Swift.min(length, count - offset))
    }

    private func page(_ index: Int) throws(MetadataError) -> [UInt8] {
        lock.lock()
        defer { lock.unlock() }
        if let cached = pages[index] { return cached }
        guard let handle else { return [] }
        let read: [UInt8]
        do {
            try handle.seek(toOffset: UInt64(index * Self.pageSize))
            read = [UInt8](try handle.read(upToCount: Self.pageSize) ?? Data())
        } catch {
            throw MetadataError(.unreadable, "cannot read the file: \(error.localizedDescription)")
        }
        pages[index] = read
        pageUse.append(index)
        if pageUse.count > Self.keptPages { pages[pageUse.removeFirst()] = nil }
        return read
    }
}

/// Big- and little-endian integers from byte arrays, bounds-checked.
extension Array where Element == UInt8 {
    func u16(at offset: Int, bigEndian: Bool = true) -> UInt16? {
        guard offset >= 0, offset + 2 <= count else { return nil }
        let a = UInt16(self[offset])
        let b = UInt16(self[offset + 1])
        return bigEndian ? a << 8 | b : b << 8 | a
    }

    func u32(at offset: Int, bigEndian: Bool = true) -> UInt32? {
        guard offset >= 0, offset + 4 <= count else { return nil }
        var value: UInt32 = 0
        for index in 0..<4 {
            let byte = UInt32(self[offset + (bigEndian ? index : 3 - index)])
            value = value << 8 | byte
        }
        return value
    }

    func u64(at offset: Int, bigEndian: Bool = true) -> UInt64? {
        guard let high = u32(at: offset + (bigEndian ? 0 : 4), bigEndian: bigEndian),
            let low = u32(at: offset + (bigEndian ? 4 : 0), bigEndian: bigEndian)
        else { return nil }
        return UInt64(high) << 32 | UInt64(low)
    }

    /// Four bytes as a box or chunk type ("ftyp", "EXIF"), each byte one Latin-1 character
    /// (QuickTime's "©xyz" starts with the byte 0xA9).
    func fourCC(at offset: Int) -> String? {
        guard offset >= 0, offset + 4 <= count else { return nil }
        return String(String.UnicodeScalarView(self[offset..<offset + 4].map { Unicode.Scalar($0) }))
    }
}
