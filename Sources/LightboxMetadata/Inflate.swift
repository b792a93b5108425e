/// A small decoder of zlib streams (RFC 1950 around RFC 1951's DEFLATE), for the compressed
/// text chunks of PNG files ("Raw profile type exif", compressed XMP).
///
/// Written for safety over speed (the chunks are kilobytes): every read is bounds-checked,
/// the output is capped, and malformed streams throw. It follows the structure of Mark
/// Adler's `puff.c`, the reference decoder that ships with zlib.
enum Inflate {
    /// The decompressed bytes of a zlib stream, at most `limit` of them.
    static func zlib(_ data: [UInt8], limit: Int = 16 << 20) throws(MetadataError) -> [UInt8] {
        guard data.count >= 2, data[0] & 0x0F == 8, (UInt16(data[0]) << 8 | UInt16(data[1])) % 31 == 0,
            data[1] & 0x20 == 0
        else { throw MetadataError(.malformed, "not a zlib stream") }
        var state = State(input: data, position: 2, limit: limit)
        try state.run()
        return state.output
    }

    private struct Huffman {
        var counts: [Int]
        var symbols: [Int]

        init(lengths: [Int]) throws(MetadataError) {
            counts = Array(repeating: 0, count: 16)
            for length in lengths { counts[length] += 1 }
            var left = 1
            for length in 1..<16 {
                left <<= 1
                left -= counts[length]
                if left < 0 { throw MetadataError(.malformed, "an over-subscribed Huffman code") }
            }
            var offsets = Array(repeating: 0, count: 16)
            for length in 1..<15 { offsets[length + 1] = offsets[length] + counts[length] }
            symbols = Array(repeating: 0, count: lengths.count)
            for (symbol, length) in lengths.enumerated() where length != 0 {
                symbols[offsets[length]] = symbol
                offsets[length] += 1
            }
        }
    }

    private struct State {
        let input: [UInt8]
        var position: Int
        let limit: Int
        var output: [UInt8] = []
        var bitBuffer = 0
        var bitCount = 0

        mutating func bits(_ need: Int) throws(MetadataError) -> Int {
            var value = bitBuffer
            while bitCount < need {
                guard position < input.count else { throw MetadataError(.truncated, "the zlib stream ends early") }
                value |= Int(input[position]) << bitCount
                position += 1
                bitCount += 8
            }
            bitBuffer = value >> need
            bitCount -= need
            return value & ((1 << need) - 1)
        }

        mutating func decode(_ code: Huffman) throws(MetadataError) -> Int {
            var value = 0
            var first = 0
            var index = 0
            for length in 1..<16 {
                value |= try bits(1)
                let count = code.counts[length]
                if value - count < first { return code.symbols[index + (value - first)] }
                index += count
                first += count
                first <<= 1
                value <<= 1
            }
            throw MetadataError(.malformed, "an invalid Huffman code in the zlib stream")
        }

        mutating func append(_ byte: UInt8) throws(MetadataError) {
            guard output.count < limit else {
                throw MetadataError(.malformed, "the zlib stream inflates past \(limit) bytes")
            }
            output.append(byte)
        }

        static let lengthBase = [
            3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195,
            227, 258,
        ]
        static let lengthExtra = [
            0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0,
        ]
        static let distanceBase = [
            1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097,
            6145, 8193, 12289, 16385, 24577,
        ]
        static let distanceExtra = [
            0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13,
        ]

        mutating func codes(_ lengthCode: Huffman, _ distanceCode: Huffman) throws(MetadataError) {
            while true {
                let symbol = try decode(lengthCode)
                if symbol < 256 {
                    try append(UInt8(symbol))
                } else if symbol == 256 {
                    return
                } else {
                    let index = symbol - 257
                    guard index < 29 else {
                        throw MetadataError(.malformed, "an invalid length code in the zlib stream")
                    }
                    let length = Self.lengthBase[index] + (try bits(Self.lengthExtra[index]))
                    let distanceSymbol = try decode(distanceCode)
                    guard distanceSymbol < 30 else {
                        throw MetadataError(.malformed, "an invalid distance code in the zlib stream")
                    }
                    let distance = Self.distanceBase[distanceSymbol] + (try bits(Self.distanceExtra[distanceSymbol]))
                    guard distance <= output.count else {
                        throw MetadataError(.malformed, "a zlib distance reaches before the start")
                    }
                    for _ in 0..<length { try append(output[output.count - distance]) }
                }
            }
        }

        mutating func run() throws(MetadataError) {
            var last = 0
            repeat {
                last = try bits(1)
                switch try bits(2) {
                case 0:
                    bitBuffer = 0
                    bitCount = 0
                    guard position + 4 <= input.count else {
                        throw MetadataError(.truncated, "the zlib stream ends early")
                    }
                    let length = Int(input[position]) | Int(input[position + 1]) << 8
                    let complement = Int(input[position + 2]) | Int(input[position + 3]) << 8
                    guard length == (~complement & 0xFFFF) else {
                        throw MetadataError(.malformed, "a stored block's length is corrupt")
                    }
                    position += 4
                    guard position + length <= input.count else {
                        throw MetadataError(.truncated, "the zlib stream ends early")
                    }
                    for byte in input[position..<position + length] { try append(byte) }
                    position += length
                case 1:
                    var lengths = Array(repeating: 8, count: 288)
                    for symbol in 144..<256 { lengths[symbol] = 9 }
                    for symbol in 256..<280 { lengths[symbol] = 7 }
                    try codes(try Huffman(lengths: lengths), try Huffman(lengths: Array(repeating: 5, count: 30)))
                case 2:
                    let literalCount = try bits(5) + 257
                    let distanceCount = try bits(5) + 1
                    let codeCount = try bits(4) + 4
                    guard literalCount <= 286, distanceCount <= 30 else {
                        throw MetadataError(.malformed, "too many codes in a zlib block")
                    }
                    let order = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]
                    var codeLengths = Array(repeating: 0, count: 19)
                    for index in 0..<codeCount { codeLengths[order[index]] = try bits(3) }
                    let lengthCode = try Huffman(lengths: codeLengths)
                    var lengths: [Int] = []
                    while lengths.count < literalCount + distanceCount {
                        let symbol = try decode(lengthCode)
                        if symbol < 16 {
                            lengths.append(symbol)
                        } else {
                            var repeated = 0
                            var times: Int
                            if symbol == 16 {
                                guard let previous = lengths.last else {
                                    throw MetadataError(.malformed, "a repeat with nothing to repeat")
                                }
                                repeated = previous
                                times = 3 + (try bits(2))
                            } else if symbol == 17 {
                                times = 3 + (try bits(3))
                            } else {
                                times = 11 + (try bits(7))
                            }
                            guard lengths.count + times <= literalCount + distanceCount else {
                                throw MetadataError(.malformed, "too many lengths in a zlib block")
                            }
                            lengths += Array(repeating: repeated, count: times)
                        }
                    }
                    try codes(
                        try Huffman(lengths: Array(lengths[..<literalCount])),
                        try Huffman(lengths: Array(lengths[literalCount...])))
                default:
                    throw MetadataError(.malformed, "an invalid zlib block type")
                }
            } while last == 0
        }
    }
}
