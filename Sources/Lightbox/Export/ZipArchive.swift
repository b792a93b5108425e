import Foundation
import LightboxMetadata
import LightboxStore

/// CRC-32 as ZIP and PNG compute it (the reflected polynomial 0xEDB88320), eight bytes a step
/// (slicing-by-8): a download's checksums keep up with the disk.
public struct CRC32: Sendable {
    private var state: UInt32 = 0xFFFF_FFFF

    public init() {}

    /// The checksum of what was given so far.
    public var checksum: UInt32 { ~state }

    private static let tables: [UInt32] = {
        var tables = [UInt32](repeating: 0, count: 8 * 256)
        for byte in 0..<256 {
            var crc = UInt32(byte)
            for _ in 0..<8 { crc = (crc >> 1) ^ (0xEDB8_8320 & (0 &- (crc & 1))) }
            tables[byte] = crc
        }
        for slice in 1..<8 {
            for byte in 0..<256 {
                let previous = tables[(slice - 1) * 256 + byte]
                tables[slice * 256 + byte] = (previous >> 8) ^ tables[Int(previous & 0xFF)]
            }
        }
        return tables
    }()

    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        var crc = state
        Self.tables.withUnsafeBufferPointer { table in
            var index = 0
            let count = bytes.count
            while index + 8 <= count {
                let low = crc ^ bytes.loadUnaligned(fromByteOffset: index, as: UInt32.self).littleEndian
                let high = bytes.loadUnaligned(fromByteOffset: index + 4, as: UInt32.self).littleEndian
                crc =
                    table[7 * 256 + Int(low & 0xFF)] ^ table[6 * 256 + Int((low >> 8) & 0xFF)]
                    ^ table[5 * 256 + Int((low >> 16) & 0xFF)] ^ table[4 * 256 + Int(low >> 24)]
                    ^ table[3 * 256 + Int(high & 0xFF)] ^ table[2 * 256 + Int((high >> 8) & 0xFF)]
                    ^ table[256 + Int((high >> 16) & 0xFF)] ^ table[Int(high >> 24)]
                index += 8
            }
            while index < count {
                crc = (crc >> 8) ^ table[Int((crc ^ UInt32(bytes[index])) & 0xFF)]
                index += 1
            }
        }
        state = crc
    }

    public mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }
}

/// Writes a ZIP archive as a stream, its files stored as they are (photos and movies are
/// compressed already): for each file its header (``header(name:size:crc32:modified:)``), then
/// its bytes, written by the caller, then at the end the central directory (``finish()``).
/// A file's size and CRC-32 go in its header, so no data descriptors: every reader (Windows'
/// Explorer, macOS's Archive Utility, Info-ZIP, Java's streams, libarchive) reads it. ZIP64
/// records are written where a size, an offset or the count passes what the classic fields
/// hold (4 GiB, 65,535 files), so a library's movies of many gigabytes zip too. Names are
/// UTF-8 (flag 11).
public struct ZipArchiveWriter: Sendable {
    /// Where the next header starts: the bytes written so far.
    public private(set) var offset: UInt64 = 0
    /// The entries so far.
    public private(set) var count = 0
    private var central: [UInt8] = []
    /// Past this, a field takes its ZIP64 form; a test lowers it to check those records
    /// without gigabytes.
    let classicLimit: UInt64

    public init() { classicLimit = 0xFFFF_FFFF }

    init(classicLimit: UInt64) { self.classicLimit = classicLimit }

    /// The bytes before a file's contents: its local header. The caller writes the file's
    /// `size` bytes right after.
    public mutating func header(name: String, size: UInt64, crc32: UInt32, modified: DateComponents) -> [UInt8] {
        let nameBytes = Array(Self.entryName(name).utf8)
        let (time, date) = Self.dosTime(modified)
        let largeSize = size >= classicLimit
        let largeOffset = offset >= classicLimit
        let version: UInt16 = largeSize || largeOffset ? 45 : 20
        let flags: UInt16 = 1 << 11

        var local: [UInt8] = []
        local.append32(0x0403_4B50)
        local.append16(version)
        local.append16(flags)
        local.append16(0)  // stored
        local.append16(time)
        local.append16(date)
        local.append32(crc32)
        local.append32(largeSize ? 0xFFFF_FFFF : UInt32(size))
        local.append32(largeSize ? 0xFFFF_FFFF : UInt32(size))
        local.append16(UInt16(nameBytes.count))
        local.append16(largeSize ? 20 : 0)
        local.append(contentsOf: nameBytes)
        if largeSize {
            local.append16(0x0001)
            local.append16(16)
            local.append64(size)
            local.append64(size)
        }

        var extra: [UInt8] = []
        if largeSize {
            extra.append64(size)
            extra.append64(size)
        }
        if largeOffset { extra.append64(offset) }
        central.append32(0x0201_4B50)
        central.append16(3 << 8 | 45)  // made by Unix, ZIP 4.5
        central.append16(version)
        central.append16(flags)
        central.append16(0)
        central.append16(time)
        central.append16(date)
        central.append32(crc32)
        central.append32(largeSize ? 0xFFFF_FFFF : UInt32(size))
        central.append32(largeSize ? 0xFFFF_FFFF : UInt32(size))
        central.append16(UInt16(nameBytes.count))
        central.append16(extra.isEmpty ? 0 : UInt16(extra.count + 4))
        central.append16(0)  // comment
        central.append16(0)  // disk
        central.append16(0)  // internal attributes
        central.append32(0o100644 << 16)  // a regular file, rw-r--r--
        central.append32(largeOffset ? 0xFFFF_FFFF : UInt32(offset))
        central.append(contentsOf: nameBytes)
        if !extra.isEmpty {
            central.append16(0x0001)
            central.append16(UInt16(extra.count))
            central.append(contentsOf: extra)
        }
        offset += UInt64(local.count) + size
        count += 1
        return local
    }

    /// The bytes after the last file: the central directory and its end records.
    public mutating func finish() -> [UInt8] {
        var end = central
        let directoryOffset = offset
        let directorySize = UInt64(central.count)
        let large =
            directoryOffset >= classicLimit || directorySize >= classicLimit || count >= 0xFFFF
            || UInt64(count) >= classicLimit
        if large {
            let recordOffset = directoryOffset + directorySize
            end.append32(0x0606_4B50)
            end.append64(44)
            end.append16(3 << 8 | 45)
            end.append16(45)
            end.append32(0)
            end.append32(0)
            end.append64(UInt64(count))
            end.append64(UInt64(count))
            end.append64(directorySize)
            end.append64(directoryOffset)
            end.append32(0x0706_4B50)
            end.append32(0)
            end.append64(recordOffset)
            end.append32(1)
        }
        end.append32(0x0605_4B50)
        end.append16(0)
        end.append16(0)
        end.append16(large ? 0xFFFF : UInt16(count))
        end.append16(large ? 0xFFFF : UInt16(count))
        end.append32(large ? 0xFFFF_FFFF : UInt32(directorySize))
        end.append32(large ? 0xFFFF_FFFF : UInt32(directoryOffset))
        end.append16(0)
        offset += UInt64(end.count)
        central = []
        return end
    }

    /// A name as an entry: one file at the top, no folders, no way out (`..`, `/`, `\`, drive
    /// letters), no control characters, at most 240 bytes of UTF-8 (its extension kept), so that
    /// a numbered name (`NAME-12345.EXT`, ``FreeNames``) stays within 255.
    public static func entryName(_ name: String) -> String {
        var cleaned = String(
            String.UnicodeScalarView(
                name.unicodeScalars.map { scalar in
                    scalar.value < 0x20 || scalar.value == 0x7F || "/\\:".unicodeScalars.contains(scalar) ? "_" : scalar
                }))
        cleaned = String(cleaned.drop { $0 == "." })
        if cleaned.isEmpty { cleaned = "file" }
        if cleaned.utf8.count > 240 {
            let dot = PathString.pathExtension(cleaned)
            let suffix = dot.isEmpty || dot.utf8.count > 16 ? "" : "." + dot
            var stem = String(cleaned.dropLast(suffix.count))
            while stem.utf8.count + suffix.utf8.count > 240 { stem.removeLast() }
            cleaned = stem + suffix
        }
        return cleaned
    }

    /// MS-DOS's time and date fields (two-second steps, the years 1980 to 2107, clamped).
    static func dosTime(_ components: DateComponents) -> (time: UInt16, date: UInt16) {
        guard let year = components.year else { return (0, 1 << 5 | 1) }
        if year < 1980 { return (0, 1 << 5 | 1) }
        if year > 2107 { return (23 << 11 | 59 << 5 | 29, 127 << 9 | 12 << 5 | 31) }
        let month = min(max(components.month ?? 1, 1), 12)
        let day = min(max(components.day ?? 1, 1), 31)
        let hour = min(max(components.hour ?? 0, 0), 23)
        let minute = min(max(components.minute ?? 0, 0), 59)
        let second = min(max(components.second ?? 0, 0), 59)
        return (
            UInt16(hour << 11 | minute << 5 | second / 2), UInt16((year - 1980) << 9 | month << 5 | day)
        )
    }
}

extension [UInt8] {
    fileprivate mutating func append16(_ value: UInt16) {
        append(UInt8(value & 0xFF))
        append(UInt8(value >> 8))
    }

    fileprivate mutating func append32(_ value: UInt32) {
        for shift in stride(from: 0, to: 32, by: 8) { append(UInt8((value >> UInt32(shift)) & 0xFF)) }
    }

    fileprivate mutating func append64(_ value: UInt64) {
        for shift in stride(from: 0, to: 64, by: 8) { append(UInt8((value >> UInt64(shift)) & 0xFF)) }
    }
}
