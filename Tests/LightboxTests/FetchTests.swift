import Foundation
import LightboxTestSupport
import Testing

@testable import Lightbox
@testable import LightboxStore

/// Fetches checked against a brute-force reference: every asset loaded, the predicate
/// evaluated in Swift, the sort done in Swift.
@Suite("Fetching assets with predicates and sorts")
struct FetchTests {
    /// A library of real photos whose flags are then varied (favorite, hidden, subtypes,
    /// bursts, duration) with a fixed seed, so predicates have something to select.
    static func makeLibrary(in folder: TemporaryDirectory) async throws -> PhotoLibrary {
        let library = try folder.makeLibrary()
        let summary = await library.importItems(at: try Corpus.photoPaths().map { URL(fileURLWithPath: $0) })
        try #require(summary.progress.imported == Corpus.photos.count)
        var random = SeededRandom(seed: 42)
        let draws = (0..<Corpus.photos.count).map { _ in (0..<5).map { _ in random.next() } }
        try library.withCatalog { db in
            let ids = try db.integers("SELECT id FROM asset ORDER BY id")
            for (index, id) in ids.enumerated() {
                let draw = draws[index]
                let burst: String? = index % 5 == 0 ? "BURST-A" : (index % 7 == 0 ? "BURST-B" : nil)
                try db.execute(
                    """
                    UPDATE asset SET isFavorite = ?, isHidden = ?, mediaSubtypes = ?, duration = ?,
                    burstIdentifier = ?, representsBurst = ?, mediaType = ? WHERE id = ?
                    """,
                    [
                        draw[0] % 3 == 0, draw[1] % 5 == 0, Int(draw[2] % 16), Double(draw[3] % 100) / 4, burst,
                        burst != nil && index < 10, draw[4] % 4 == 0 ? 2 : 1, id,
                    ])
            }
            try db.execute("INSERT INTO changeTransaction (date, author) VALUES (?, 'test')", [Date()])
        }
        return library
    }

    @Test("Random predicates and sorts select and order exactly as the brute-force reference")
    func matchesReference() async throws {
        let folder = try TemporaryDirectory()
        let library = try await Self.makeLibrary(in: folder)
        let everything = try library.fetchAssets(
            options: FetchOptions(includeHiddenAssets: true, includeAllBurstAssets: true))
        let all = Array(everything)
        #expect(all.count == Corpus.photos.count)
        let byRowID = try library.withCatalog { db in try db.texts("SELECT localIdentifier FROM asset ORDER BY id") }
        let rowOrder = Dictionary(uniqueKeysWithValues: byRowID.enumerated().map { ($1, $0) })
        var random = SeededRandom(seed: 7)
        for round in 0..<300 {
            let predicate = Reference.randomPredicate(&random, assets: all, depth: 2)
            let sorts = Reference.randomSorts(&random)
            let options = FetchOptions(
                predicate: predicate, sortDescriptors: sorts, includeHiddenAssets: random.next() % 2 == 0,
                includeAllBurstAssets: random.next() % 2 == 0, fetchLimit: random.next() % 4 == 0 ? 3 : 0)
            let fetched = try library.fetchAssets(options: options).map(\.localIdentifier)
            let expected = Reference.fetch(all, rowOrder: rowOrder, options: options).map(\.localIdentifier)
            #expect(fetched == expected, "round \(round): \(predicate) sorted by \(sorts)")
        }
    }

    @Test("The text form parses to the same predicate as the typed form")
    func textForm() throws {
        let start = try #require(ISO8601.date(from: "2023-01-01T00:00:00Z"))
        let end = try #require(ISO8601.date(from: "2024-01-01T00:00:00Z"))
        let cases: [(String, FetchPredicate)] = [
            ("favorite == true", .favorite == true),
            (
                "localIdentifier == 'X' OR SELF IN {'Y'}",
                .localIdentifier == "X" || FetchKeyPath.SELF.isIn([.string("Y")])
            ),
            (
                "favorite == YES AND creationDate >= 2023-01-01T00:00:00Z",
                .favorite == true && .creationDate >= .date(start)
            ),
            (
                "creationDate BETWEEN {2023-01-01T00:00:00Z, 2024-01-01T00:00:00+00:00}",
                FetchKeyPath.creationDate.between(.date(start), .date(end))
            ),
            (
                "mediaSubtypes & photoLive != 0",
                FetchKeyPath.mediaSubtypes.hasAnyBit(AssetMediaSubtypes.photoLive.rawValue)
            ),
            ("mediaType IN {image, video}", FetchKeyPath.mediaType.isIn([.int(1), .int(2)])),
            (
                "NOT (hidden == true) || pixelWidth > 4000",
                !(.hidden == true) || .pixelWidth > .int(4000)
            ),
            ("burstIdentifier == nil", .burstIdentifier == .null),
            ("localIdentifier BEGINSWITH[c] 'ab'", FetchKeyPath.localIdentifier.beginsWith("ab")),
            ("duration < -1.5", .duration < .double(-1.5)),
            ("TRUEPREDICATE", .constant(true)),
        ]
        for (text, typed) in cases {
            #expect(try FetchPredicate(text) == typed, "\(text)")
        }
    }

    @Test("Unknown keys, bad values and syntax errors are errors that say what is wrong")
    func errors() async throws {
        let folder = try TemporaryDirectory()
        let library = try folder.makeLibrary()
        let unknown = #expect(throws: LibraryError.self) {
            try library.fetchAssets(options: FetchOptions(predicate: try FetchPredicate("colour == 'red'")))
        }
        #expect(unknown?.code == .invalidPredicate)
        #expect(unknown?.message.contains("colour") == true)
        let sortKey = #expect(throws: LibraryError.self) {
            try library.fetchAssets(options: FetchOptions(sortDescriptors: [FetchSortDescriptor(key: "title")]))
        }
        #expect(sortKey?.message.contains("title") == true)
        let badDate = #expect(throws: LibraryError.self) {
            try library.fetchAssets(options: FetchOptions(predicate: try FetchPredicate("creationDate > 'yesterday'")))
        }
        #expect(badDate?.message.contains("ISO 8601") == true)
        // Numbers past Int's range for a key of whole numbers (found by the predicate fuzz
        // target: the conversion trapped, and one query string stopped the server).
        for text in [
            "estimatedAssetCount > 11111111111111111111111111111111111111111110",
            "pixelWidth > 100000000000000000000000",
            "pixelWidth < -99999999999999999999999", "pixelHeight IN {1, 9223372036854775808}",
        ] {
            let huge = #expect(throws: LibraryError.self, "\(text)") {
                let options = FetchOptions(predicate: try FetchPredicate(text))
                if text.hasPrefix("estimated") {
                    _ = try library.fetchAssetCollections(with: .album, options: options).count
                } else {
                    _ = try library.fetchAssets(options: options).count
                }
            }
            #expect(huge?.code == .invalidPredicate && huge?.message.contains("whole numbers") == true, "\(text)")
        }
        let syntax = #expect(throws: LibraryError.self) { try FetchPredicate("favorite == true AND") }
        #expect(syntax?.message.contains("character") == true)
        #expect(throws: LibraryError.self) { try FetchPredicate("favorite ==") }
        #expect(throws: LibraryError.self) { try FetchPredicate("(favorite == true") }
        #expect(throws: LibraryError.self) { try FetchPredicate("title CONTAINS unquoted") }
        #expect(throws: LibraryError.self) { try FetchSortDescriptor.parse("creationDate sideways") }
        #expect(
            try FetchSortDescriptor.parse("creationDate desc, pixelWidth")
                == [FetchSortDescriptor(key: "creationDate", ascending: false), FetchSortDescriptor(key: "pixelWidth")])
    }

    @Test("A fetch result is lazy, indexable, and never changes under its reader")
    func fetchResultSnapshot() async throws {
        let folder = try TemporaryDirectory()
        let library = try folder.makeLibrary()
        let paths = try Corpus.photoPaths()
        _ = await library.importItems(at: paths.prefix(10).map { URL(fileURLWithPath: $0) })
        let result = try library.fetchAssets(
            options: FetchOptions(sortDescriptors: [FetchSortDescriptor(key: "creationDate", ascending: false)]))
        #expect(result.count == 10)
        let newestFirst = try await library.assets()
        #expect(result.map(\.localIdentifier) == newestFirst.map(\.localIdentifier))
        #expect(result.firstObject?.localIdentifier == newestFirst.first?.localIdentifier)
        #expect(result.lastObject?.localIdentifier == newestFirst.last?.localIdentifier)
        for (index, asset) in newestFirst.enumerated() {
            #expect(result.index(of: asset) == index)
            #expect(result.contains(asset))
        }
        #expect(result.countOfAssets(with: .image) == 10)
        #expect(result.countOfAssets(with: .video) == 0)
        var visited = 0
        result.enumerateObjects { _, index, stop in
            visited += 1
            if index == 3 { stop = true }
        }
        #expect(visited == 4)

        // More imports commit; the old result stays as it was, a new fetch sees them.
        _ = await library.importItems(at: paths.dropFirst(10).map { URL(fileURLWithPath: $0) })
        #expect(result.count == 10)
        #expect(result.map(\.localIdentifier) == newestFirst.map(\.localIdentifier))
        let later = try library.fetchAssets()
        #expect(later.count == paths.count)
        let newcomer = try #require(later.first { !result.contains($0) })
        #expect(result.index(of: newcomer) == nil)
        #expect(try library.fetchAssets(withLocalIdentifiers: [newcomer.localIdentifier]).count == 1)
    }
}

/// The brute-force reference: predicates evaluated on loaded assets, sorts done in Swift,
/// with SQLite's semantics (NULL sorts first, text compares by bytes).
enum Reference {
    static func value(of key: String, in asset: Asset) -> FetchValue {
        switch key {
        case "SELF", "localIdentifier": .string(asset.localIdentifier)
        case "creationDate": .date(asset.creationDate)
        case "modificationDate": .date(asset.modificationDate)
        case "mediaType": .int(asset.mediaType.rawValue)
        case "mediaSubtypes": .int(asset.mediaSubtypes.rawValue)
        case "duration": .double(asset.duration)
        case "pixelWidth": .int(asset.pixelWidth)
        case "pixelHeight": .int(asset.pixelHeight)
        case "favorite", "isFavorite": .bool(asset.isFavorite)
        case "hidden", "isHidden": .bool(asset.isHidden)
        case "burstIdentifier": asset.burstIdentifier.map { .string($0) } ?? .null
        default: .null
        }
    }

    /// -1, 0, 1, or nil when either side is nil.
    static func compare(_ a: FetchValue, _ b: FetchValue) -> Int? {
        func sign<T: Comparable>(_ x: T, _ y: T) -> Int { x < y ? -1 : (x > y ? 1 : 0) }
        switch (a, b) {
        case (.int(let x), .int(let y)): return sign(x, y)
        case (.int(let x), .double(let y)): return sign(Double(x), y)
        case (.double(let x), .int(let y)): return sign(x, Double(y))
        case (.double(let x), .double(let y)): return sign(x, y)
        case (.bool(let x), .bool(let y)): return sign(x ? 1 : 0, y ? 1 : 0)
        case (.string(let x), .string(let y)):
            if x == y { return 0 }
            return Array(x.utf8).lexicographicallyPrecedes(Array(y.utf8)) ? -1 : 1
        case (.date(let x), .date(let y)): return sign(x, y)
        default: return nil
        }
    }

    static func evaluate(_ predicate: FetchPredicate, _ asset: Asset) -> Bool {
        switch predicate {
        case .constant(let value): return value
        case .and(let all): return all.allSatisfy { evaluate($0, asset) }
        case .or(let all): return all.contains { evaluate($0, asset) }
        case .not(let inner): return !evaluate(inner, asset)
        case .comparison(let key, let op, let literal):
            let actual = value(of: key, in: asset)
            if literal == .null {
                return op == .equal ? actual == .null : actual != .null
            }
            guard let order = compare(actual, literal) else { return op == .notEqual }
            switch op {
            case .equal: return order == 0
            case .notEqual: return order != 0
            case .less: return order < 0
            case .lessOrEqual: return order <= 0
            case .greater: return order > 0
            case .greaterOrEqual: return order >= 0
            }
        case .between(let key, let low, let high):
            let actual = value(of: key, in: asset)
            guard let a = compare(actual, low), let b = compare(actual, high) else { return false }
            return a >= 0 && b <= 0
        case .isIn(let key, let values):
            let actual = value(of: key, in: asset)
            return values.contains { compare(actual, $0) == 0 }
        case .bitmask(let key, let mask, let isSet):
            guard case .int(let bits) = value(of: key, in: asset) else { return false }
            return (bits & mask != 0) == isSet
        case .text(let key, let op, let needle, let caseInsensitive):
            guard case .string(var text) = value(of: key, in: asset) else { return false }
            var needle = needle
            if caseInsensitive {
                text = text.lowercased()
                needle = needle.lowercased()
            }
            switch op {
            case .contains: return text.contains(needle)
            case .beginsWith: return text.hasPrefix(needle)
            case .endsWith: return text.hasSuffix(needle)
            }
        }
    }

    /// `rowOrder`: each asset's position by row id, the order that breaks ties.
    static func fetch(_ all: [Asset], rowOrder: [String: Int], options: FetchOptions) -> [Asset] {
        var selected = all.filter { asset in
            (options.predicate.map { evaluate($0, asset) } ?? true)
                && (options.includeHiddenAssets || !asset.isHidden)
                && (options.includeAllBurstAssets || asset.burstIdentifier == nil || asset.representsBurst)
        }
        let sorts =
            options.sortDescriptors.isEmpty ? [FetchSortDescriptor(key: "creationDate")] : options.sortDescriptors
        selected.sort { a, b in
            for sort in sorts {
                let x = value(of: sort.key, in: a)
                let y = value(of: sort.key, in: b)
                let order: Int
                switch (x, y) {
                case (.null, .null): order = 0
                case (.null, _): order = -1
                case (_, .null): order = 1
                default: order = compare(x, y) ?? 0
                }
                if order != 0 { return sort.ascending ? order < 0 : order > 0 }
            }
            let lastAscending = sorts.last?.ascending ?? true
            let ra = rowOrder[a.localIdentifier]!
            let rb = rowOrder[b.localIdentifier]!
            return lastAscending ? ra < rb : ra > rb
        }
        if options.fetchLimit > 0 { selected = Array(selected.prefix(options.fetchLimit)) }
        return selected
    }

    static let keys = [
        "creationDate", "mediaType", "mediaSubtypes", "duration", "pixelWidth", "pixelHeight",
        "favorite", "isHidden", "burstIdentifier", "localIdentifier",
    ]

    static func randomSorts(_ random: inout SeededRandom) -> [FetchSortDescriptor] {
        (0..<Int(random.next() % 3)).map { _ in
            FetchSortDescriptor(key: keys[Int(random.next()) % keys.count], ascending: random.next() % 2 == 0)
        }
    }

    static func randomPredicate(_ random: inout SeededRandom, assets: [Asset], depth: Int) -> FetchPredicate {
        if depth > 0, random.next() % 3 == 0 {
            let parts = (0..<2).map { _ in randomPredicate(&random, assets: assets, depth: depth - 1) }
            switch random.next() % 3 {
            case 0: return .and(parts)
            case 1: return .or(parts)
            default: return .not(parts[0])
            }
        }
        let key = keys[Int(random.next()) % keys.count]
        // Literals taken from real assets, so that comparisons land on both sides.
        let sample = value(of: key, in: assets[Int(random.next()) % assets.count])
        switch key {
        case "mediaSubtypes":
            return .bitmask(key: key, mask: 1 << Int(random.next() % 4), isSet: random.next() % 2 == 0)
        case "localIdentifier":
            guard case .string(let id) = sample else { return .constant(true) }
            return random.next() % 2 == 0
                ? .text(key: key, .beginsWith, String(id.prefix(1)).lowercased(), caseInsensitive: true)
                : .isIn(key: key, [sample, value(of: key, in: assets[Int(random.next()) % assets.count])])
        case "burstIdentifier":
            // A key that may be nil: compared with nil, with a value (and under NOT, where a nil
            // must count as not matching the value), and by its text.
            switch random.next() % 5 {
            case 0: return .comparison(key: key, .equal, .null)
            case 1: return .comparison(key: key, .notEqual, .string("BURST-A"))
            case 2: return .comparison(key: key, .equal, .string("BURST-A"))
            case 3: return .comparison(key: key, .greater, .string("BURST-A"))
            default: return .text(key: key, .beginsWith, "burst-b", caseInsensitive: true)
            }
        default:
            let op = ComparisonOperator.allCases[Int(random.next()) % ComparisonOperator.allCases.count]
            if case .bool = sample { return .comparison(key: key, random.next() % 2 == 0 ? .equal : .notEqual, sample) }
            if random.next() % 5 == 0 {
                let other = value(of: key, in: assets[Int(random.next()) % assets.count])
                let ordered = (compare(sample, other) ?? 0) <= 0 ? (sample, other) : (other, sample)
                return .between(key: key, ordered.0, ordered.1)
            }
            return .comparison(key: key, op, sample)
        }
    }
}

/// A small deterministic generator (PCG-style), so failures reproduce.
struct SeededRandom {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return state >> 33
    }
}
