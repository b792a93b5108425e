import Foundation

/// The HTTP `Range` header of a request for a file (RFC 9110, section 14.1.2): only single
/// byte ranges, which is what players and downloads ask for.
///
/// The header is the client's: every number in it is range-checked before any arithmetic.
public enum ByteRange {
    /// One range of `bytes=A-B`, `bytes=A-` or `bytes=-N` within a file of `size` bytes; nil
    /// when it is malformed, names several ranges, or lies past the end.
    public static func parse(_ header: String, size: Int) -> Range<Int>? {
        guard header.hasPrefix("bytes="), !header.contains(",") else { return nil }
        let parts = header.dropFirst(6).split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, size > 0 else { return nil }
        let (first, last) = (
            parts[0].trimmingCharacters(in: .whitespaces), parts[1].trimmingCharacters(in: .whitespaces)
        )
        if first.isEmpty {
            guard let suffix = Int(last), suffix > 0 else { return nil }
            return max(0, size - suffix)..<size
        }
        guard let start = Int(first), start >= 0, start < size else { return nil }
        guard !last.isEmpty else { return start..<size }
        guard let end = Int(last), end >= start else { return nil }
        // `end` is the client's: past the file (up to Int.max) it means the rest of it.
        return start..<(end < size ? end + 1 : size)
    }
}
