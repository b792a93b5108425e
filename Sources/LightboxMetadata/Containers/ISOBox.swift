/// One box of an ISO base media file (HEIF, AVIF, CR3, MP4, QuickTime).
struct ISOBox {
    /// The four-character type ("moov", "meta", "©xyz").
    var type: String
    /// Where the box starts in the source.
    var offset: Int
    /// Where its payload starts (after size, type, a 64-bit size, and a uuid's 16 bytes).
    var payloadOffset: Int
    /// Where the box ends.
    var end: Int
    /// For "uuid" boxes, the user type.
    var userType: [UInt8]?

    var payloadSize: Int { end - payloadOffset }

    /// The most boxes one container may hold before the file is taken for hostile.
    static let maximumChildren = 100_000
    /// How deep boxes may nest.
    static let maximumDepth = 16

    /// The boxes in `range` of the source, in order. A box that claims to run past its parent
    /// ends the list with an error, unless it is the last one and `tolerateTruncation` holds
    /// (an `mdat` cut short does not hide the boxes before it).
    static func children(
        of source: ByteSource, in range: Range<Int>, tolerateTruncation: Bool = true
    ) throws(MetadataError) -> [ISOBox] {
        var boxes: [ISOBox] = []
        var offset = range.lowerBound
        while offset + 8 <= range.upperBound {
            guard boxes.count < maximumChildren else {
                throw MetadataError(.malformed, "more than \(maximumChildren) boxes at offset \(range.lowerBound)")
            }
            let header = try source.bytes(at: offset, count: 8)
            var size = Int(header.u32(at: 0)!)
            let type = header.fourCC(at: 4)!
            var headerSize = 8
            if size == 1 {
                let large = try source.bytes(at: offset + 8, count: 8)
                guard let value = large.u64(at: 0), value <= UInt64(Int.max) else {
                    throw MetadataError(.malformed, "box \(type) at offset \(offset) has an impossible 64-bit size")
                }
                size = Int(value)
                headerSize = 16
            } else if size == 0 {
                size = range.upperBound - offset  // to the end of the enclosing box or file
            }
            guard size >= headerSize else {
                throw MetadataError(.malformed, "box \(type) at offset \(offset) has size \(size)")
            }
            // A 64-bit size may be anything up to Int.max: past the container, it ends there.
            var end = size > range.upperBound - offset ? Int.max : offset + size
            if end > range.upperBound {
                guard tolerateTruncation else {
                    throw MetadataError(.truncated, "box \(type) at offset \(offset) runs past its container")
                }
                end = range.upperBound
            }
            var userType: [UInt8]?
            if type == "uuid" {
                userType = try source.bytes(at: offset + headerSize, count: 16)
                headerSize += 16
            }
            guard offset + headerSize <= end else {
                throw MetadataError(.truncated, "box \(type) at offset \(offset) is shorter than its header")
            }
            boxes.append(
                ISOBox(type: type, offset: offset, payloadOffset: offset + headerSize, end: end, userType: userType))
            offset = end
        }
        return boxes
    }

    /// This box's children, `skip` bytes into its payload (4 for a full box's version and flags).
    func children(of source: ByteSource, skip: Int = 0) throws(MetadataError) -> [ISOBox] {
        guard payloadOffset + skip <= end else { return [] }
        return try ISOBox.children(of: source, in: (payloadOffset + skip)..<end)
    }

    /// The payload, at most `limit` bytes of it.
    func payload(of source: ByteSource, limit: Int = 1 << 20) throws(MetadataError) -> [UInt8] {
        guard payloadSize <= limit else {
            throw MetadataError(
                .malformed, "box \(type) at offset \(offset) holds \(payloadSize) bytes, more than \(limit)")
        }
        return try source.bytes(at: payloadOffset, count: payloadSize)
    }
}

extension Array where Element == ISOBox {
    func first(_ type: String) -> ISOBox? { first { $0.type == type } }
}

/// Reads unsigned integers of 0 to 8 bytes, big-endian, from a payload, moving forward.
struct PayloadCursor {
    let bytes: [UInt8]
    var position = 0

    init(_ bytes: [UInt8], at position: Int = 0) {
        self.bytes = bytes
        self.position = position
    }

    mutating func read(_ size: Int) throws(MetadataError) -> Int {
        guard size >= 0, size <= 8, position + size <= bytes.count else {
            throw MetadataError(.truncated, "a box ends inside a \(size)-byte field")
        }
        var value: UInt64 = 0
        for index in 0..<size { value = value << 8 | UInt64(bytes[position + index]) }
        position += size
        guard value <= UInt64(Int.max) else { throw MetadataError(.malformed, "a box holds an impossible value") }
        return Int(value)
    }

    mutating func fourCC() throws(MetadataError) -> String {
        guard let text = bytes.fourCC(at: position) else { throw MetadataError(.truncated, "a box ends inside a type") }
        position += 4
        return text
    }

    /// A NUL-terminated string (or the rest of the payload).
    mutating func cString() -> String {
        let start = Swift.min(position, bytes.count)
        let end = bytes[start...].firstIndex(of: 0) ?? bytes.count
        position = Swift.min(end + 1, bytes.count)
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }
}
