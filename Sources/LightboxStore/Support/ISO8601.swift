import Foundation

/// Dates as ISO 8601 text with a UTC offset ("2019-07-14T18:03:12.250+02:00"), the form of
/// every date Lightbox prints or serves.
public enum ISO8601 {
    /// Formats `date` as wall-clock time at `offsetSeconds` east of UTC, with milliseconds when
    /// the date has a fraction of a second.
    public static func string(from date: Date, offsetSeconds: Int) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: offsetSeconds) ?? TimeZone(secondsFromGMT: 0)!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second, .nanosecond], from: date)
        let millis = Int((Double(c.nanosecond ?? 0) / 1_000_000).rounded())
        var text = String(
            format: "%04d-%02d-%02dT%02d:%02d:%02d", c.year ?? 0, c.month ?? 0, c.day ?? 0, c.hour ?? 0, c.minute ?? 0,
            c.second ?? 0)
        if millis > 0 && millis < 1000 { text += String(format: ".%03d", millis) }
        let sign = offsetSeconds < 0 ? "-" : "+"
        let magnitude = abs(offsetSeconds)
        text += String(format: "%@%02d:%02d", sign, magnitude / 3600, (magnitude % 3600) / 60)
        return text
    }

    /// Formats `date` in the current time zone's offset at that date.
    public static func localString(from date: Date) -> String {
        string(from: date, offsetSeconds: TimeZone.current.secondsFromGMT(for: date))
    }

    /// Parses ISO 8601: a date (`2023-01-01`, local midnight), or a date and time with optional
    /// fractions of a second and an optional offset (`2023-01-01T10:00:00.5+02:00`, `...Z`;
    /// local time without one). Returns nil for anything else.
    public static func date(from text: String) -> Date? {
        let pattern = #/(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?)?(Z|[+-]\d{2}:?\d{2})?/#
        guard let match = text.wholeMatch(of: pattern) else { return nil }
        var components = DateComponents()
        components.year = Int(match.1)
        components.month = Int(match.2)
        components.day = Int(match.3)
        components.hour = match.4.flatMap { Int($0) } ?? 0
        components.minute = match.5.flatMap { Int($0) } ?? 0
        components.second = match.6.flatMap { Int($0) } ?? 0
        guard let month = components.month, (1...12).contains(month), let day = components.day, (1...31).contains(day),
            (0...23).contains(components.hour!), (0...59).contains(components.minute!),
            (0...60).contains(components.second!)
        else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        if let zone = match.8 {
            let offset: Int
            if zone == "Z" {
                offset = 0
            } else {
                let digits = zone.dropFirst().filter(\.isNumber)
                guard let hours = Int(digits.prefix(2)), let minutes = Int(digits.suffix(2)) else { return nil }
                offset = (zone.first == "-" ? -1 : 1) * (hours * 3600 + minutes * 60)
            }
            guard let timeZone = TimeZone(secondsFromGMT: offset) else { return nil }
            calendar.timeZone = timeZone
        } else {
            calendar.timeZone = TimeZone.current
        }
        guard let date = calendar.date(from: components) else { return nil }
        let fraction = match.7.flatMap { Double("0" + $0) } ?? 0
        return date.addingTimeInterval(fraction)
    }
}
