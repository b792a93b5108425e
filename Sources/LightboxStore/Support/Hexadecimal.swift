/// Bytes as lowercase hexadecimal digits, two a byte: how digests and secrets are written.
extension Sequence<UInt8> {
    public var hexadecimal: String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(underestimatedCount * 2)
        for byte in self {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
