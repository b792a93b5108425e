/// A date as EXIF writes it: a local wall-clock time, and a UTC offset where the camera knew it.
public struct ExifDate: Sendable, Hashable {
    /// Calendar fields of the wall-clock time, as written in the file.
    public var year: Int
    public var month: Int
    public var day: Int
    public var hour: Int
    public var minute: Int
    public var second: Int
    /// Fractions of a second.
    public var fraction: Double
    /// Seconds east of UTC, when the file says (OffsetTime* tags).
    public var utcOffsetSeconds: Int?

    /// Parses "YYYY:MM:DD HH:MM:SS" (dashes are accepted as date separators, as some
    /// software writes them), with optional sub-seconds digits and an offset like "+02:00".
    /// Returns nil for blank or impossible dates ("0000:00:00 00:00:00").
    public init?(_ text: String, subSeconds: String? = nil, offset: String? = nil) {
        let digits = text.split(whereSeparator: { ":- T".contains($0) })
        guard digits.count >= 6,
            let year = Int(digits[0]), let month = Int(digits[1]), let day = Int(digits[2]),
            let hour = Int(digits[3]), let minute = Int(digits[4]), let second = Int(digits[5].prefix(2))
        else { return nil }
        guard (1800...9999).contains(year), (1...12).contains(month), (1...31).contains(day),
            (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second)
        else { return nil }
        (self.year, self.month, self.day) = (year, month, day)
        (self.hour, self.minute, self.second) = (hour, minute, second)
        let subDigits = subSeconds?.filter(\.isNumber) ?? ""
        self.fraction = subDigits.isEmpty ? 0 : (Double("0." + subDigits) ?? 0)
        self.utcOffsetSeconds = offset.flatMap(Self.parseOffset)
    }

    /// "+02:00", "-0530", "Z" -> seconds east of UTC.
    static func parseOffset(_ text: String) -> Int? {
        let trimmed = text.trimmingWhitespace()
        if trimmed == "Z" { return 0 }
        guard let sign = trimmed.first, sign == "+" || sign == "-" else { return nil }
        let digits = trimmed.dropFirst().filter(\.isNumber)
        guard digits.count == 4, let hours = Int(digits.prefix(2)), let minutes = Int(digits.suffix(2)),
            hours <= 14, minutes < 60
        else { return nil }
        let seconds = hours * 3600 + minutes * 60
        return sign == "-" ? -seconds : seconds
    }
}
