import Foundation
import LightboxStore

/// A part of a search the box understood, shown as a chip: what it is, its label, the words of
/// the query it came from, and its condition in the fetch language (MODEL.md, Fetching), so that
/// a page can take it away and search again without it.
public struct SearchChip: Sendable, Hashable, Codable {
    public enum Kind: String, Sendable, Hashable, Codable {
        case date, kind, favorite, person, place, camera, words
    }

    public var kind: Kind
    public var label: String
    public var text: String
    public var predicate: String
}

/// What a search box's text says, as the model's predicates where it names them and words for
/// the rest (docs/ANALYSIS.md, Search): years ("2019", "2018-2020"), months ("june", "june
/// 2019"), seasons ("summer", "last summer", "winter 2020"), days ("today", "yesterday"),
/// "this week", "last month", "last year"; kinds (videos, Live Photos, screenshots, selfies,
/// panoramas, portraits, slo-mo, time-lapses, bursts, HDR); favourites; the library's people,
/// places and cameras by their names. Small words ("in", "of", "the") are dropped; the rest
/// are searched as words.
public struct SearchQuery: Sendable, Hashable {
    /// The text searched, at most ``maximumLength`` characters of it.
    public var text: String
    /// What was understood, in the order it was written.
    public var chips: [SearchChip]
    /// The words for the full text (and CLIP), in order, lowercased.
    public var words: [String]

    /// The longest text read: a pasted page costs no more than a line.
    public static let maximumLength = 500

    /// The chips' predicates and the words', as one predicate of the fetch language; nil for none.
    public var predicateText: String? {
        let parts = chips.map(\.predicate)
        return parts.isEmpty ? nil : parts.map { "(\($0))" }.joined(separator: " AND ")
    }

    /// ``predicateText`` read.
    public var predicate: FetchPredicate? {
        get throws { try predicateText.map { try FetchPredicate($0) } }
    }

    /// The understood predicate alone, without the words'.
    public var understoodText: String? {
        let parts = chips.filter { $0.kind != .words }.map(\.predicate)
        return parts.isEmpty ? nil : parts.map { "(\($0))" }.joined(separator: " AND ")
    }

    /// Reads `text` against the library's `vocabulary`, its dates relative to `now` as the
    /// calendar (its time zone) counts days.
    public init(_ text: String, vocabulary: SearchVocabulary, now: Date = Date(), calendar: Calendar = .current) {
        self.text = String(text.prefix(Self.maximumLength))
        let reader = Reader(vocabulary: vocabulary, now: now, calendar: calendar)
        let (chips, words) = reader.read(self.text)
        self.chips = chips
        self.words = words
    }

    /// A string of the fetch language.
    static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}

/// The reading of a search's text, left to right, the longest phrase first.
private struct Reader {
    let now: Date
    let calendar: Calendar
    /// Names by their folded form.
    let people: [String: String]
    let places: [String: String]
    let models: [String: String]
    let makes: [String: String]

    init(vocabulary: SearchVocabulary, now: Date, calendar: Calendar) {
        self.now = now
        self.calendar = calendar
        func index(_ names: [String]) -> [String: String] {
            var found: [String: String] = [:]
            for name in names where !name.isEmpty { found[Self.fold(name)] = found[Self.fold(name)] ?? name }
            return found
        }
        people = index(vocabulary.people)
        places = index(vocabulary.places)
        models = index(vocabulary.cameras.map(\.model))
        makes = index(vocabulary.cameras.compactMap(\.make))
    }

    /// A name as it is compared: lowercased, accents dropped, spaces run together.
    static func fold(_ text: String) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil).split(
            whereSeparator: \.isWhitespace
        )
        .joined(separator: " ")
    }

    static let smallWords: Set<String> = [
        "a", "an", "the", "in", "at", "on", "of", "from", "with", "and", "or", "my", "our", "me", "us", "during",
        "near", "by", "to", "for", "taken", "shot", "show", "find", "all", "some", "any",
    ]

    static let kinds: [(words: [String], label: String, predicate: String)] = [
        (["photo", "photos", "picture", "pictures", "pic", "pics", "image", "images"], "Photos", "mediaType == image"),
        (["video", "videos", "movie", "movies"], "Videos", "mediaType == video"),
        (["live photo", "live photos", "live"], "Live Photos", "mediaSubtypes & photoLive != 0"),
        (["screenshot", "screenshots"], "Screenshots", "mediaSubtypes & photoScreenshot != 0"),
        (["panorama", "panoramas", "pano", "panos"], "Panoramas", "mediaSubtypes & photoPanorama != 0"),
        (["hdr"], "HDR", "mediaSubtypes & photoHDR != 0"),
        (["portrait", "portraits"], "Portraits", "mediaSubtypes & photoDepthEffect != 0"),
        (["slo mo", "slomo", "slow motion"], "Slo-mo", "mediaSubtypes & videoHighFrameRate != 0"),
        (
            ["time lapse", "timelapse", "time lapses", "timelapses"], "Time-lapse",
            "mediaSubtypes & videoTimelapse != 0"
        ),
        (["burst", "bursts"], "Bursts", "burstIdentifier != nil"),
        // An iPhone names its front camera in the lens model ("iPhone 12 front camera 2.71mm f/2.2").
        (["selfie", "selfies"], "Selfies", "lensModel CONTAINS[c] \"front\""),
    ]
    static let favourites: Set<String> = [
        "favorite", "favorites", "favourite", "favourites", "fave", "faves", "fav", "favs", "starred", "loved",
    ]
    static let months = [
        "january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
        "november", "december",
    ]
    static let seasons: [String: (first: Int, label: String)] = [
        "spring": (3, "Spring"), "summer": (6, "Summer"), "autumn": (9, "Autumn"), "fall": (9, "Autumn"),
        "winter": (12, "Winter"),
    ]

    func read(_ text: String) -> ([SearchChip], [String]) {
        // Words as written (for the chips) and folded (to compare); "slo-mo", "2018-2020" and
        // "Anna's" keep together, other punctuation separates.
        var written: [String] = []
        for piece in text.split(whereSeparator: { $0.isWhitespace || $0 == "," || $0 == ";" }) {
            var word = String(piece).trimmingCharacters(
                in: .punctuationCharacters.subtracting(CharacterSet(charactersIn: "-")))
            if word.lowercased().hasSuffix("'s") || word.lowercased().hasSuffix("’s") {
                word = String(word.dropLast(2))
            }
            if !word.isEmpty { written.append(word) }
        }
        let folded = written.map { Self.fold($0.replacingOccurrences(of: "-", with: " ")) }
        var chips: [SearchChip] = []
        var rest: [String] = []
        var index = 0
        while index < written.count {
            var matched = false
            for length in stride(from: min(4, written.count - index), through: 1, by: -1) {
                let phrase = folded[index..<index + length].joined(separator: " ")
                let original = written[index..<index + length].joined(separator: " ")
                if let chip = understand(phrase, original) {
                    // A kind or a date said twice is one chip.
                    if !chips.contains(where: { $0.predicate == chip.predicate }) { chips.append(chip) }
                    index += length
                    matched = true
                    break
                }
            }
            if matched { continue }
            if !Self.smallWords.contains(folded[index]) { rest.append(written[index]) }
            index += 1
        }
        let words = SearchWords.tokens(of: rest.joined(separator: " "))
        if !words.isEmpty {
            let joined = words.joined(separator: " ")
            chips.append(
                SearchChip(
                    kind: .words, label: rest.joined(separator: " "), text: rest.joined(separator: " "),
                    predicate: "words == " + SearchQuery.quoted(joined)))
        }
        return (chips, words)
    }

    /// The chip a phrase is, nil for none.
    func understand(_ phrase: String, _ original: String) -> SearchChip? {
        if let date = date(phrase) {
            return SearchChip(kind: .date, label: date.label, text: original, predicate: date.predicate)
        }
        if let kind = Self.kinds.first(where: { $0.words.contains(phrase) }) {
            return SearchChip(kind: .kind, label: kind.label, text: original, predicate: kind.predicate)
        }
        if Self.favourites.contains(phrase) {
            return SearchChip(kind: .favorite, label: "Favourites", text: original, predicate: "favorite == true")
        }
        if let name = people[phrase] {
            return SearchChip(
                kind: .person, label: name, text: original, predicate: "person == " + SearchQuery.quoted(name))
        }
        if let name = places[phrase] {
            return SearchChip(
                kind: .place, label: name, text: original, predicate: "place == " + SearchQuery.quoted(name))
        }
        if let model = models[phrase] {
            return SearchChip(
                kind: .camera, label: model, text: original, predicate: "cameraModel == " + SearchQuery.quoted(model))
        }
        if let make = makes[phrase] {
            return SearchChip(
                kind: .camera, label: make, text: original, predicate: "cameraMake == " + SearchQuery.quoted(make))
        }
        return nil
    }

    // MARK: Dates

    /// The years a season or a month without a year searches: those photos are likely from.
    static let firstYear = 1990

    var today: DateComponents { calendar.dateComponents([.year, .month, .day, .weekday], from: now) }

    /// A day of the fetch language (`2019-06-01`), from a year, a month and a day that may
    /// overflow (month 13 is January of the next year).
    func day(_ year: Int, _ month: Int, _ day: Int = 1) -> String {
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")!
        let date = utc.date(from: DateComponents(year: year, month: month, day: day)) ?? now
        let parts = utc.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", parts.year ?? 1970, parts.month ?? 1, parts.day ?? 1)
    }

    /// From `start` (included) to `end` (excluded), days as the timeline counts them (the clock
    /// where each photo was taken).
    func range(_ start: String, _ end: String) -> String {
        "localCreationDate >= \(start) AND localCreationDate < \(end)"
    }

    func months(_ year: Int, from month: Int, count: Int) -> String {
        range(day(year, month), day(year, month + count))
    }

    func everyYear(_ month: Int, count: Int) -> String {
        let last = (today.year ?? 2026)
        return (Self.firstYear...last).map { "(" + months($0, from: month, count: count) + ")" }.joined(
            separator: " OR ")
    }

    func date(_ phrase: String) -> (label: String, predicate: String)? {
        let words = phrase.split(separator: " ").map(String.init)
        let year = today.year ?? 2026
        let month = today.month ?? 1
        func isYear(_ text: String) -> Int? {
            guard text.count == 4, let value = Int(text), (1900...2100).contains(value) else { return nil }
            return value
        }
        switch words.count {
        case 1:
            let word = words[0]
            if let value = isYear(word) { return (word, months(value, from: 1, count: 12)) }
            if word == "today" {
                return ("Today", range(day(year, month, today.day ?? 1), day(year, month, (today.day ?? 1) + 1)))
            }
            if word == "yesterday" {
                return ("Yesterday", range(day(year, month, (today.day ?? 1) - 1), day(year, month, today.day ?? 1)))
            }
            if let index = Self.months.firstIndex(of: word)
                ?? Self.months.firstIndex(where: { $0.prefix(3) == word && word.count == 3 })
            {
                return (Self.months[index].capitalized, everyYear(index + 1, count: 1))
            }
            if let season = Self.seasons[word] { return (season.label, everyYear(season.first, count: 3)) }
        case 2:
            // "2018 2020" as "2018-2020" wrote it (a hyphen folds into a space).
            if let from = isYear(words[0]), let to = isYear(words[1]), from <= to {
                return ("\(from)–\(to)", range(day(from, 1), day(to + 1, 1)))
            }
            if let value = isYear(words[1]) {
                if let index = Self.months.firstIndex(of: words[0]) {
                    return ("\(Self.months[index].capitalized) \(value)", months(value, from: index + 1, count: 1))
                }
                if let season = Self.seasons[words[0]] {
                    return ("\(season.label) \(value)", months(value, from: season.first, count: 3))
                }
            }
            let relative = words[0]
            guard relative == "last" || relative == "this" else { return nil }
            let isLast = relative == "last"
            switch words[1] {
            case "year":
                let value = isLast ? year - 1 : year
                return ((isLast ? "Last year" : "This year") + " (\(value))", months(value, from: 1, count: 12))
            case "month":
                let first = isLast ? month - 1 : month
                return (isLast ? "Last month" : "This month", months(year, from: first, count: 1))
            case "week":
                // Weeks from Monday.
                let weekday = ((today.weekday ?? 2) + 5) % 7  // Monday 0
                let monday = (today.day ?? 1) - weekday - (isLast ? 7 : 0)
                return (
                    isLast ? "Last week" : "This week", range(day(year, month, monday), day(year, month, monday + 7))
                )
            default:
                guard let season = Self.seasons[words[1]] else { return nil }
                // This season: the one under way, or this year's; last: the latest that has ended
                // (a season of year y runs three months from its first; winter's into y + 1).
                var value = season.first == 12 && month <= 2 ? year - 1 : year
                if isLast {
                    value = year
                    while (value * 12 + season.first + 3) > (year * 12 + month) { value -= 1 }
                }
                let label = (isLast ? "Last " : "This ") + season.label.lowercased() + " (\(value))"
                return (label, months(value, from: season.first, count: 3))
            }
        default:
            return nil
        }
        return nil
    }
}
