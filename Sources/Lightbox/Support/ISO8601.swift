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
}
