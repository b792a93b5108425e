import Foundation
import LightboxAnalysis
import LightboxImaging
import LightboxTestSupport
import Testing

@testable import Lightbox

/// Things in photos: each photo's preview looked at by the analysis service's things models
/// (TensorFlow's ImageNet classifier and COCO detector) through the things job, the things kept
/// with the words WordNet finds them by, and "dog" finding the dog photo of the corpus.
@Suite("Things found in photos", .serialized)
struct ThingTests {
    static let dog = "lomiri/backgrounds/friends_by_Aitzol_Berasategi.jpg"
    static let mountain = "lomiri/backgrounds/aitzgorri_by_Aitzol_Berasategi.jpg"
    static let brushes = "lomiri/backgrounds/Picture_1A_by_freespace.jpg"

    static func asset(_ library: PhotoLibrary, _ relative: String) throws -> Asset {
        let name = URL(fileURLWithPath: relative).lastPathComponent
        return try #require(try library.fetchAssets().first { $0.resources.first?.originalFilename == name }, "\(name)")
    }

    static func names(_ library: PhotoLibrary, _ text: String) throws -> Set<String> {
        var options = FetchOptions()
        options.predicate = try FetchPredicate(text)
        return Set(try library.fetchAssets(options: options).compactMap { $0.resources.first?.originalFilename })
    }

    @Test("The job finds a dog, a mountain and brushes in real photos, and \"dog\" and \"animal\" find the dog")
    func realService() async throws {
        let service = try AnalysisServiceProcess()
        defer { service.stop() }
        let folder = try TemporaryDirectory()
        let library = try folder.makeLibrary()
        let photos = [Self.dog, Self.mountain, Self.brushes]
        let summary = await library.importItems(at: try photos.map { URL(fileURLWithPath: try Corpus.path($0)) })
        #expect(summary.progress.imported == 3, "\(summary)")
        #expect(try await library.jobQueue().waiting[.things] == 1)
        let pool = AnalysisPool([AnalysisClient(url: service.url)])
        let model = try #require(try await pool.describe().thingModel)
        #expect(try await library.analysisBacklogCount(.things, model: model) == 3)
        try await library.runJobs(
            PhotoLibrary.JobRunnerOptions(kinds: [.things], untilIdle: true, retryDelay: 0, analyzer: pool))
        #expect(try await library.jobQueue().waiting[.things] == nil)
        #expect(try await library.jobQueue().failed.isEmpty)
        #expect(try await library.analysisBacklogCount(.things, model: model) == 0)

        let found = try #require(try await library.things(of: try Self.asset(library, Self.dog)))
        #expect(found.model == model)
        let dog = try #require(found.things.first { $0.label == "dog" }, "\(found.things)")
        #expect(dog.synset == "n02084071" && dog.confidence > 0.5)
        let (x, y, width, height) = (
            try #require(dog.x), try #require(dog.y), try #require(dog.width), try #require(dog.height)
        )
        #expect(x >= 0 && y >= 0 && x + width <= 1 && y + height <= 1 && width > 0.1, "the dog's box")
        #expect(dog.terms.contains("canine") && dog.terms.contains("animal"))

        // Found by its words, whatever their case, and by the broader ones.
        let dogPhoto = URL(fileURLWithPath: Self.dog).lastPathComponent
        #expect(try Self.names(library, #"thing == "dog""#) == [dogPhoto])
        #expect(try Self.names(library, #"thing == "Dog""#) == [dogPhoto])
        #expect(try Self.names(library, #"thing == "animal""#) == [dogPhoto])
        #expect(
            try Self.names(library, #"thing == "mountain""#) == [URL(fileURLWithPath: Self.mountain).lastPathComponent])
        #expect(try Self.names(library, #"thing == "brush""#) == [URL(fileURLWithPath: Self.brushes).lastPathComponent])
        #expect(try Self.names(library, #"thing == "dog" AND thing == "mountain""#).isEmpty)
        #expect(try Self.names(library, #"thing CONTAINS[c] "spaniel""#) == [dogPhoto])
        #expect(try await library.findThings(with: pool).tally.analysed == 0, "nothing is left")

        // A limited view finds only among its photos.
        let mountain = try Self.asset(library, Self.mountain)
        let limited = library.limited(to: LimitedSelection(assetIdentifiers: [mountain.localIdentifier]))
        #expect(try Self.names(limited, #"thing == "dog""#).isEmpty)
        #expect(try await limited.things(of: try Self.asset(library, Self.dog)) == nil)

        // Switched off: every thing forgotten; on again, all waiting.
        try await library.setAnalysisEnabled(.things, false)
        #expect(try Self.names(library, #"thing == "dog""#).isEmpty)
        #expect(try await library.things(of: mountain) == nil)
        try await library.setAnalysisEnabled(.things, true)
        #expect(try await library.analysisBacklogCount(.things, model: model) == 3)
    }
}
