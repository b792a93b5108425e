import ArgumentParser
import Foundation
@_spi(Benchmarks) import Lightbox
import LightboxAnalysis

/// People over a million faces (issue 49): the People page and a person's first page, reading
/// a model's faces into grouping, and placing a new face among them.
struct PeopleBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "people",
        abstract: "Fill a temporary library with synthetic assets and faces of made-up people; time people's reads.")

    @Option(help: "How many asset rows (two faces each, at most).")
    var assets = 500_000

    @Option(help: "How many faces.")
    var faces = 1_000_000

    @Option(help: "How many people the faces are of.")
    var people = 20_000

    @Option(help: "How many new faces to place, for the median.")
    var placed = 200

    @Option(help: "How many times to read the People page and a person's page again, for their medians.")
    var runs = 9

    @Option(help: ArgumentHelp("The catalog on PostgreSQL: an empty database.", valueName: "URL"))
    var database: String?

    func run() async throws {
        let bench = try BenchLibrary(database: database)
        let library = bench.library
        let model = "bench-model"
        var start = Date()
        try SyntheticAssets.insert(count: assets, into: library)
        try library.insertSyntheticFaces(count: faces, people: people, model: model)
        let fillSeconds = Date().timeIntervalSince(start)

        // The People page as the server reads it: most faces first, its first 100.
        func peoplePage() throws -> (Int, [AssetCollection]) {
            var options = FetchOptions()
            options.sortDescriptors = [
                FetchSortDescriptor(key: "faceCount", ascending: false)
            ]
            let result = try library.fetchPeople(options: options)
            return (result.count, result.objects(at: 0..<min(100, result.count)))
        }
        // A person's first page: their timeline's days, and the first 200 of their photos.
        func personPage(_ person: AssetCollection) async throws -> Int {
            let timeline = FetchOptions(sortDescriptors: [
                FetchSortDescriptor(key: "localCreationDate", ascending: false)
            ])
            _ = try library.fetchAssets(in: person, options: timeline).creationDays()
            let page = try await library.fetchAssetPage(
                inCollectionWithLocalIdentifier: person.localIdentifier, options: timeline, from: .after(nil),
                limit: 200)
            return page.assets.count
        }
        start = Date()
        let (count, first) = try peoplePage()
        let peoplePageMs = Date().timeIntervalSince(start) * 1000
        guard let busiest = first.first else { throw ValidationError("no person was made") }
        start = Date()
        let shown = try await personPage(busiest)
        let personPageMs = Date().timeIntervalSince(start) * 1000
        var again: [String: [Double]] = [:]
        for index in 0..<max(0, runs) {
            start = Date()
            _ = try peoplePage()
            again["peoplePage", default: []].append(Date().timeIntervalSince(start) * 1000)
            start = Date()
            _ = try await personPage(first[index % first.count])
            again["personPage", default: []].append(Date().timeIntervalSince(start) * 1000)
        }

        // Grouping's reading of every face into its index, then new faces placed among them.
        let heapBefore = Report.heapBytes()
        var state = PhotoLibrary.FaceGroupingState(model: model)
        start = Date()
        _ = try await library.groupFaces(&state)
        let loadSeconds = Date().timeIntervalSince(start)
        let indexBytes = Report.heapBytes() - heapBefore
        var clustering = FaceClustering(dimensions: 128)
        var random: UInt64 = 0xBEEF
        // The same faces in a clustering of the bench's own, to time a placement alone.
        for person in 0..<min(people, faces) {
            for copy in 0..<max(1, faces / max(1, people)) {
                let id = Int64(person * 1_000 + copy)
                clustering.load(
                    id, embedding: PhotoLibrary.syntheticEmbedding(person: person, state: &random), quality: 0.9,
                    membership: .clustered(person: Int64(person)))
            }
        }
        start = Date()
        clustering.settleIndex()
        let indexSeconds = Date().timeIntervalSince(start)
        var placements: [Double] = []
        var joined = 0
        for index in 0..<max(1, placed) {
            let person = (index * 7_919) % people
            let embedding = PhotoLibrary.syntheticEmbedding(person: person, state: &random)
            start = Date()
            let placement = clustering.add(Int64(-1 - index), embedding: embedding, quality: 0.9)
            placements.append(Date().timeIntervalSince(start) * 1000)
            if placement == .joined(person: Int64(person)) { joined += 1 }
        }

        Report.print([
            "bench": "people", "store": database == nil ? "sqlite" : "postgres", "assets": assets, "faces": faces,
            "people": count, "fillSeconds": Report.round(fillSeconds),
            "peoplePageMs": Report.round(peoplePageMs),
            "peoplePageMedianMs": Report.round(Report.percentile(again["peoplePage"] ?? [], 0.5)),
            "personPageMs": Report.round(personPageMs), "personPhotosShown": shown,
            "personPageMedianMs": Report.round(Report.percentile(again["personPage"] ?? [], 0.5)),
            "groupingLoadSeconds": Report.round(loadSeconds), "groupingIndexMB": indexBytes >> 20,
            "groupingFaces": state.faces, "indexGroupingSeconds": Report.round(indexSeconds),
            "facesInIndex": clustering.index.count, "placeMedianMs": Report.round(Report.percentile(placements, 0.5)),
            "placeP95Ms": Report.round(Report.percentile(placements, 0.95)),
            "placedWithTheirPerson": "\(joined)/\(placements.count)",
            "peakMB": Report.peakResidentMegabytes(),
        ])
    }
}
