import Foundation

/// A run of consecutive assets of a fetch result taken on the same day, in the time zone each
/// was taken in: what a timeline puts under one day's heading.
///
/// A result sorted by creation date gives one run a day; in another order a day can come back
/// as several runs. The runs' counts add up to the result's count; the first asset of a run is
/// at the sum of the counts before it.
public struct AssetDay: Sendable, Hashable {
    public var year: Int
    public var month: Int
    public var day: Int
    /// How many consecutive assets of the result were taken on this day.
    public var count: Int
    /// Each asset's shape as shown, in order, when asked for (empty else): its width over its
    /// height (``Asset/pixelWidth`` over ``Asset/pixelHeight``, the current version's), 1 where
    /// either is unknown, within ``aspectRatioBounds``. What a layout of justified rows needs
    /// before any asset is read.
    public var aspectRatios: [Double]

    /// The narrowest and widest shapes ``aspectRatios`` gives: any number a file claims is
    /// brought within them.
    public static let aspectRatioBounds: ClosedRange<Double> = 0.01...100

    public init(year: Int, month: Int, day: Int, count: Int, aspectRatios: [Double] = []) {
        self.year = year
        self.month = month
        self.day = day
        self.count = count
        self.aspectRatios = aspectRatios
    }

    /// An asset's shape from its stored size, within ``aspectRatioBounds``; 1 where the size is
    /// unknown (0) or not a size.
    public static func aspectRatio(width: Int64, height: Int64) -> Double {
        guard width > 0, height > 0 else { return 1 }
        let ratio = Double(width) / Double(height)
        return min(aspectRatioBounds.upperBound, max(aspectRatioBounds.lowerBound, ratio))
    }

    /// The day as `yyyy-MM-dd`.
    public var isoDay: String {
        func padded(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(padded(year, 4))-\(padded(month, 2))-\(padded(day, 2))"
    }

    /// The year, month and day of a day as the catalog writes it (`yyyy-MM-dd`, the date part
    /// of a local creation date; a year may have more digits or a sign); nil for other text.
    package static func parse(isoDay text: String) -> (year: Int, month: Int, day: Int)? {
        var rest = Substring(text)
        let negative = rest.first == "-"
        if negative { rest = rest.dropFirst() }
        let parts = rest.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, (1...6).contains(parts[0].count), parts[1].count == 2, parts[2].count == 2,
            parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
            (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        return (negative ? -year : year, month, day)
    }

    /// The day an asset was taken on where it was taken: days since 1970-01-01 of its
    /// creation date moved by its time zone's offset.
    package static func dayNumber(_ date: Date, offsetSeconds: Int) -> Int {
        let local = date.timeIntervalSince1970 + Double(offsetSeconds)
        guard local.isFinite, abs(local) < 1e15 else { return 0 }
        return Int((local / 86_400).rounded(.down))
    }

    /// Folds day numbers, and the sizes when `withAspectRatios`, in a result's order, into runs.
    package struct Runs {
        package let withAspectRatios: Bool
        private(set) var days: [AssetDay] = []
        private var current: Int?
        private var count = 0
        private var aspectRatios: [Double] = []

        package init(aspectRatios: Bool) {
            withAspectRatios = aspectRatios
        }

        package mutating func add(_ dayNumber: Int, width: Int64, height: Int64) {
            if dayNumber != current {
                close()
                current = dayNumber
            }
            count += 1
            if withAspectRatios { aspectRatios.append(AssetDay.aspectRatio(width: width, height: height)) }
        }

        package mutating func finish() -> [AssetDay] {
            close()
            return days
        }

        private mutating func close() {
            guard let current, count > 0 else { return }
            let (year, month, day) = AssetDay.civil(fromDayNumber: current)
            days.append(AssetDay(year: year, month: month, day: day, count: count, aspectRatios: aspectRatios))
            count = 0
            aspectRatios = []
        }
    }

    /// The proleptic Gregorian date of a day number (H. Hinnant's civil_from_days).
    package static func civil(fromDayNumber days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
