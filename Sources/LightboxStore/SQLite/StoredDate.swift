import Foundation
import GRDB

/// Dates as the library stores them: GRDB's text form `yyyy-MM-dd HH:mm:ss.SSS`, in UTC.
///
/// Decoding goes through this instead of GRDB's own decoding, which builds each date with
/// Foundation's calendar: a batch of 100 assets holds 300 dates, and the calendar took most
/// of a batch's time. Anything not in the stored form falls back to GRDB.
enum StoredDate {
    /// The date at `index` of `row`, the column named `column` in errors. Throws when it is
    /// NULL or not a date.
    static func decode(_ row: Row, _ index: Int, _ column: String) throws -> Date {
        guard let date = try decodeIfPresent(row, index, column) else {
            throw LibraryError(.storageFailed, "the library's \(column) column is NULL")
        }
        return date
    }

    /// The date at `index` of `row`, or nil when it is NULL. Throws when it is not a date.
    static func decodeIfPresent(_ row: Row, _ index: Int, _ column: String) throws -> Date? {
        let value: DatabaseValue = row[index]
        if value.isNull { return nil }
        if case .string(let text) = value.storage, let date = parse(text) { return date }
        guard let date = Date.fromDatabaseValue(value) else {
            throw LibraryError(.storageFailed, "the library's \(column) column holds \(value), not a date")
        }
        return date
    }

    /// The stored form of a date: GRDB's own encoding, so that a date written through either
    /// path compares equal.
    static func format(_ date: Date) -> String {
        if case .string(let text) = date.databaseValue.storage { return text }
        return "\(date.databaseValue)"
    }

    /// Parses `yyyy-MM-dd HH:mm:ss[.fraction]` as UTC, or returns nil.
    static func parse(_ text: String) -> Date? {
        parse(bytes: text.utf8)
    }

    /// ``parse(_:)`` of the text's UTF-8 bytes (a column's text read without a String).
    static func parse(bytes: some Sequence<UInt8>) -> Date? {
        var utf8 = bytes.makeIterator()
        func number(_ digits: Int) -> Int? {
            var value = 0
            for _ in 0..<digits {
                guard let byte = utf8.next(), (48...57).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            return value
        }
        func expect(_ separator: UInt8) -> Bool { utf8.next() == separator }
        guard let year = number(4), expect(0x2D), let month = number(2), expect(0x2D), let day = number(2),
            expect(0x20), let hour = number(2), expect(0x3A), let minute = number(2), expect(0x3A),
            let second = number(2), (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60,
            second < 61
        else { return nil }
        var nanoseconds = 0
        if let dot = utf8.next() {
            guard dot == 0x2E else { return nil }
            var scale = 100_000_000
            while let byte = utf8.next() {
                guard (48...57).contains(byte) else { return nil }
                nanoseconds += Int(byte - 48) * scale
                scale /= 10
            }
        }
        // Days since 1970-01-01 in the proleptic Gregorian calendar (H. Hinnant's days_from_civil).
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        // The day's start and the time in the day added last, as Foundation's calendar does,
        // so that a date decodes to the very same value as through GRDB.
        let dayStart = Double(days - 11_323) * 86_400  // 11,323 days from 1970 to 2001-01-01
        let timeInDay =
            Double(hour) * 3_600 + Double(minute) * 60 + Double(second) + Double(nanoseconds) / 1_000_000_000
        return Date(timeIntervalSinceReferenceDate: dayStart + timeInDay)
    }
}
