import Foundation
import LightboxAnalysis
import LightboxStore
import LightboxTestSupport
import Testing

@testable import Lightbox

/// The search box: its text read as the model's predicates and words (against a fixed day and a
/// library's names), and a real library searched through the real analysis service's things,
/// text and places, its albums and file names.
@Suite("One search box", .serialized)
struct SearchTests {
    /// Friday 4 December 2026, noon UTC.
    static let now = Date(timeIntervalSince1970: 1_796_385_600)
    static var utc: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }
    static let vocabulary = SearchVocabulary(
        people: ["Anna", "José Álvarez"], places: ["Lisbon", "São Paulo", "United Kingdom"],
        cameras: [.init(make: "Apple", model: "iPhone 12"), .init(make: "Canon", model: "Canon EOS 5D")])

    static func read(_ text: String) -> SearchQuery {
        SearchQuery(text, vocabulary: vocabulary, now: now, calendar: utc)
    }

    static func range(_ from: String, _ to: String) -> String {
        "localCreationDate >= \(from) AND localCreationDate < \(to)"
    }

    @Test("Dates, kinds, favourites, people, places and cameras are understood; the rest are words")
    func reading() throws {
        let dog = Self.read("dog in Lisbon 2019")
        #expect(dog.chips.map(\.kind) == [.place, .date, .words])
        #expect(
            dog.chips.map(\.predicate) == [
                #"place == "Lisbon""#, Self.range("2019-01-01", "2020-01-01"), #"words == "dog""#,
            ])
        #expect(dog.words == ["dog"])
        #expect(try dog.predicate != nil)
        #expect(dog.understoodText == "(place == \"Lisbon\") AND (\(Self.range("2019-01-01", "2020-01-01")))")

        let cases: [(String, [SearchChip.Kind], [String])] = [
            ("last summer", [.date], [Self.range("2026-06-01", "2026-09-01")]),
            ("this summer", [.date], [Self.range("2026-06-01", "2026-09-01")]),
            ("last winter", [.date], [Self.range("2025-12-01", "2026-03-01")]),
            ("winter 2020", [.date], [Self.range("2020-12-01", "2021-03-01")]),
            ("june 2019", [.date], [Self.range("2019-06-01", "2019-07-01")]),
            ("2018-2020", [.date], [Self.range("2018-01-01", "2021-01-01")]),
            ("yesterday", [.date], [Self.range("2026-12-03", "2026-12-04")]),
            ("today", [.date], [Self.range("2026-12-04", "2026-12-05")]),
            ("this week", [.date], [Self.range("2026-11-30", "2026-12-07")]),
            ("last week", [.date], [Self.range("2026-11-23", "2026-11-30")]),
            ("last month", [.date], [Self.range("2026-11-01", "2026-12-01")]),
            ("last year", [.date], [Self.range("2025-01-01", "2026-01-01")]),
            ("videos of Anna", [.kind, .person], ["mediaType == video", #"person == "Anna""#]),
            ("Anna's selfies", [.person, .kind], [#"person == "Anna""#, #"lensModel CONTAINS[c] "front""#]),
            ("favourite live photos", [.favorite, .kind], ["favorite == true", "mediaSubtypes & photoLive != 0"]),
            (
                "slo-mo screenshots", [.kind, .kind],
                [
                    "mediaSubtypes & videoHighFrameRate != 0", "mediaSubtypes & photoScreenshot != 0",
                ]
            ),
            ("sao paulo iphone 12", [.place, .camera], [#"place == "São Paulo""#, #"cameraModel == "iPhone 12""#]),
            ("jose alvarez canon", [.person, .camera], [#"person == "José Álvarez""#, #"cameraMake == "Canon""#]),
            ("photos photos", [.kind], ["mediaType == image"]),
        ]
        for (text, kinds, predicates) in cases {
            let query = Self.read(text)
            #expect(query.chips.map(\.kind) == kinds, "\(text): \(query.chips)")
            #expect(query.chips.map(\.predicate) == predicates, "\(text)")
            #expect(query.words.isEmpty, "\(text): \(query.words)")
            #expect(throws: Never.self) { try query.predicate }
        }
        // A month or a season alone is every year's.
        let june = Self.read("june")
        #expect(june.chips.first?.label == "June")
        #expect(june.chips.first?.predicate.contains(Self.range("2019-06-01", "2019-07-01")) == true)
        #expect(june.chips.first?.predicate.contains(Self.range("1990-06-01", "1990-07-01")) == true)
        // Small words go; a quote in a word cannot break out of the predicate.
        let quoted = Self.read(#"the "red" car with O'Brien\"#)
        #expect(quoted.words == ["red", "car", "o", "brien"])
        #expect(quoted.predicateText == #"(words == "red car o brien")"#)
        #expect(Self.read("in the of").chips.isEmpty)
        #expect(Self.read(String(repeating: "dog ", count: 400)).words.count == SearchWords.maximumCount)
    }

    /// A copy of a real photo with its date written by exiftool.
    static func dated(_ photo: String, _ date: String, as name: String, in folder: TemporaryDirectory) throws -> URL {
        let copy = folder.url.appendingPathComponent(name)
        try FileManager.default.copyItem(atPath: try Corpus.path(photo), toPath: copy.path)
        try ExifTool.write(["DateTimeOriginal": date, "CreateDate": date], to: copy.path)
        return copy
    }

    @Test("\"dog\" finds the dog photos, \"dog 2019\" narrows by both, and text, places, albums and names are found")
    func realLibrary() async throws {
        let service = try AnalysisServiceProcess()
        defer { service.stop() }
        let files = try TemporaryDirectory()
        let dog = "lomiri/backgrounds/friends_by_Aitzol_Berasategi.jpg"
        let mountain = "lomiri/backgrounds/aitzgorri_by_Aitzol_Berasategi.jpg"
        let photos = [
            try Self.dated(dog, "2019:07:14 10:00:00", as: "dog-2019.jpg", in: files),
            try Self.dated(dog, "2021:03:02 10:00:00", as: "dog-2021.jpg", in: files),
            try Self.dated(mountain, "2019:08:01 09:00:00", as: "aitzgorri.jpg", in: files),
            URL(fileURLWithPath: try Corpus.path("exiftool/images/Apple.jpg")),
        ]
        let receipt = files.url.appendingPathComponent("till.jpg")
        try AnalysisServiceProcess.drawText(
            ["RECEIPT 42.50 EUR"], on: try Corpus.path("lomiri/backgrounds/Wine_by_Jakkub_Mede.jpg"), to: receipt)
        let folder = try TemporaryDirectory()
        let library = try folder.makeLibrary()
        let summary = await library.importItems(at: photos + [receipt])
        #expect(summary.progress.imported == 5, "\(summary)")
        let pool = AnalysisPool([AnalysisClient(url: service.url)])
        try await library.runJobs(
            PhotoLibrary.JobRunnerOptions(
                kinds: [.things, .text, .places, .search], untilIdle: true, retryDelay: 0, analyzer: pool))
        #expect(try await library.jobQueue().failed.isEmpty)
        let assets = try library.fetchAssets()
        func named(_ name: String) throws -> String {
            try #require(assets.first { $0.resources.first?.originalFilename == name }).localIdentifier
        }
        let mountainID = try named("aitzgorri.jpg")
        var albumID = ""
        try await library.performChanges { changes in
            let album = changes.creationRequestForAssetCollection(withTitle: "Holiday in the Basque Country")
            album.addAssets([mountainID])
            albumID = album.localIdentifier
        }

        func found(_ text: String, in searched: PhotoLibrary? = nil) async throws -> [String] {
            try await (searched ?? library).search(text, now: Self.now, calendar: Self.utc).identifiers
        }
        let dogs = [try named("dog-2019.jpg"), try named("dog-2021.jpg")]
        #expect(Set(try await found("dog")) == Set(dogs))
        #expect(Set(try await found("Dogs")) == Set(dogs), "stemmed")
        #expect(try await found("dog 2019") == [dogs[0]])
        #expect(Set(try await found("2019")) == [dogs[0], try named("aitzgorri.jpg")])
        #expect(try await found("dog summer 2019") == [dogs[0]])
        #expect(try await found("dog 2020").isEmpty)
        #expect(try await found("animal").count == 2, "a broader word")
        #expect(try await found("receipt") == [try named("till.jpg")], "a word inside RECEIPT42.50EUR")
        #expect(try await found("basque") == [try named("aitzgorri.jpg")], "an album's title")
        #expect(try await found("aitzgorri") == [try named("aitzgorri.jpg")], "a file's name")
        let sheffield = try await library.search("Sheffield", now: Self.now, calendar: Self.utc)
        #expect(sheffield.query.chips.map(\.kind) == [.place], "a place of the library is understood")
        #expect(sheffield.identifiers == [try named("Apple.jpg")])
        #expect(try await found("Apple") == [try named("Apple.jpg")], "the camera's make")
        #expect(try await found("zebra").isEmpty)
        let results = try await library.search("dog", now: Self.now, calendar: Self.utc)
        #expect(results.covers.contains("things") && results.covers.contains("text in photos"))
        #expect(results.notes.contains { $0.contains("CLIP") }, "\(results.notes)")

        // The fetch language's words key, as a page's grid asks for them.
        var options = FetchOptions()
        options.predicate = try FetchPredicate(#"words == "dog" AND localCreationDate < 2020-01-01"#)
        #expect(try library.fetchAssets(options: options).map(\.localIdentifier) == [dogs[0]])

        // Renamed, the album is found by its new title; trashed, a photo is not found.
        try await library.performChanges {
            $0.changeRequest(forAssetCollectionWithLocalIdentifier: albumID).title = "Mountains"
        }
        #expect(try await found("basque").isEmpty)
        #expect(try await found("mountains").contains(try named("aitzgorri.jpg")))
        try await library.performChanges { $0.deleteAssets([dogs[1]]) }
        #expect(try await found("dog") == [dogs[0]])

        // A limited view searches its own photos.
        let limited = library.limited(to: LimitedSelection(assetIdentifiers: [try named("aitzgorri.jpg")]))
        #expect(try await found("dog", in: limited).isEmpty)
        #expect(try await found("mountains", in: limited) == [try named("aitzgorri.jpg")])
        #expect(try await limited.search("Sheffield").query.chips.map(\.kind) == [.words])
    }
}
