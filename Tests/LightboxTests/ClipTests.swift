import Foundation
import LightboxAnalysis
import LightboxImaging
import LightboxTestSupport
import Testing

@testable import Lightbox

/// Content search with a CLIP model in Immich's layout: the tests' tiny model (four numbers an
/// embedding, an image's red, green and blue and a constant; "crimson" red, "sea" blue), loaded
/// by the real service, the clip job embedding real photos, and a search ranking them as their
/// pixels say.
@Suite("Content search with a CLIP model", .serialized)
struct ClipTests {
    static let photos = [
        "lomiri/backgrounds/Bridge_by_Sander_Klootwijk.jpg",
        "lomiri/backgrounds/Picture_0B_by_freespace.jpg",
        "lomiri/backgrounds/life_by_Aitzol_Berasategi.jpg",
        "lomiri/backgrounds/seeding_by_Clements_Engelhardt.jpg",
    ]

    /// What the tiny model says of a photo, worked out apart from the service by libvips' own
    /// command: the mean of each band over the centre square of the photo, normalised as CLIP's
    /// preprocessing does.
    static func expected(_ path: String, in folder: TemporaryDirectory) throws -> [Double] {
        func header(_ field: String) throws -> Int { try #require(Int(try VipsTool.header(field, of: path))) }
        let (width, height) = (try header("width"), try header("height"))
        let side = min(width, height)
        let square = folder.url.appendingPathComponent(UUID().uuidString + ".v").path
        try VipsTool.run(
            "extract_area", path, square, "\((width - side) / 2)", "\((height - side) / 2)", "\(side)", "\(side)")
        let (mean, std) = ([0.48145466, 0.4578275, 0.40821073], [0.26862954, 0.26130258, 0.27577711])
        var vector: [Double] = []
        for band in 0..<3 {
            let one = folder.url.appendingPathComponent(UUID().uuidString + ".v").path
            try VipsTool.run("extract_band", square, one, "\(band)")
            vector.append((try VipsTool.average(one) / 255 - mean[band]) / std[band])
        }
        vector.append(0.05)
        let norm = vector.reduce(0) { $0 + $1 * $1 }.squareRoot()
        return vector.map { $0 / norm }
    }

    @Test("The job embeds real photos; words find the photos they mean, in a limited view its own, never the trash")
    func realService() async throws {
        let models = try TemporaryDirectory()
        let modelFolder = models.url.appendingPathComponent("Tiny-CLIP__tests")
        try AnalysisServiceProcess.buildTinyClip(in: modelFolder)
        let service = try AnalysisServiceProcess(clipModel: modelFolder)
        defer { service.stop() }
        let folder = try TemporaryDirectory()
        let library = try folder.makeLibrary()
        let paths = try Self.photos.map { try Corpus.path($0) }
        let summary = await library.importItems(at: paths.map { URL(fileURLWithPath: $0) })
        #expect(summary.progress.imported == 4, "\(summary)")
        #expect(try await library.jobQueue().waiting[.clip] == 1)
        let pool = AnalysisPool([AnalysisClient(url: service.url)])
        let info = try await pool.describe()
        let model = try #require(info.clipModel)
        #expect(model.hasPrefix("clip-Tiny-CLIP__tests-") && info.clipDimensions == 4)
        #expect(try await library.analysisBacklogCount(.clip, model: model) == 4)
        try await library.runJobs(
            PhotoLibrary.JobRunnerOptions(kinds: [.clip], untilIdle: true, retryDelay: 0, analyzer: pool))
        #expect(try await library.jobQueue().failed.isEmpty)
        #expect(try await library.analysisBacklogCount(.clip, model: model) == 0)

        let assets = try library.fetchAssets()
        func name(_ identifier: String) -> String? {
            assets.first { $0.localIdentifier == identifier }?.resources.first?.originalFilename
        }
        let expected = try Dictionary(
            uniqueKeysWithValues: paths.map {
                (URL(fileURLWithPath: $0).lastPathComponent, try Self.expected($0, in: models))
            })
        func best(_ axis: Int, among names: Set<String>? = nil) -> String? {
            expected.filter { names?.contains($0.key) ?? true }.max { $0.value[axis] < $1.value[axis] }?.key
        }
        for (query, axis) in [("crimson", 0), ("a photo of the sea", 2), ("grass", 1)] {
            let found = try await library.searchContent(query, with: pool, limit: 10)
            #expect(found.count == 4, "\(query)")
            #expect(name(found[0].localIdentifier) == best(axis), "\(query): \(found)")
            #expect(found.map(\.score) == found.map(\.score).sorted(by: >), "nearest first")
            #expect(found.allSatisfy { (-1.001...1.001).contains($0.score) })
        }
        #expect(try await library.searchContent("sea", with: pool, limit: 2).count == 2)

        // A limited view ranks its own photos alone.
        let blue = try #require(assets.first { $0.resources.first?.originalFilename == best(2) })
        let green = try #require(assets.first { $0.resources.first?.originalFilename == best(1) })
        let limited = library.limited(
            to: LimitedSelection(assetIdentifiers: [blue.localIdentifier, green.localIdentifier]))
        let seen = try await limited.searchContent("crimson", with: pool, limit: 10)
        #expect(Set(seen.map(\.localIdentifier)) == [blue.localIdentifier, green.localIdentifier])

        // A photo in Recently Deleted is not found.
        let red = try #require(assets.first { $0.resources.first?.originalFilename == best(0) })
        try await library.performChanges { $0.deleteAssets([red.localIdentifier]) }
        let after = try await library.searchContent("crimson", with: pool, limit: 10)
        #expect(after.count == 3 && !after.contains { $0.localIdentifier == red.localIdentifier })

        // Switched off: every embedding forgotten, and search refused; on again, all waiting.
        try await library.setAnalysisEnabled(.clip, false)
        await #expect(throws: LibraryError.self) { try await library.searchContent("sea", with: pool) }
        try await library.setAnalysisEnabled(.clip, true)
        #expect(try await library.analysisBacklogCount(.clip, model: model) == 3)
        #expect(try await library.searchContent("sea", with: pool).isEmpty)
    }

    @Test("Without a CLIP model the job has nothing to do and a search says why")
    func withoutModel() async throws {
        let service = try AnalysisServiceProcess()
        defer { service.stop() }
        let folder = try TemporaryDirectory()
        let library = try folder.makeLibrary()
        _ = await library.importItems(at: [URL(fileURLWithPath: try Corpus.path(Self.photos[0]))])
        let pool = AnalysisPool([AnalysisClient(url: service.url)])
        #expect(try await pool.describe().clipModel == nil)
        try await library.runJobs(
            PhotoLibrary.JobRunnerOptions(kinds: [.clip], untilIdle: true, retryDelay: 0, analyzer: pool))
        #expect(try await library.jobQueue().waiting[.clip] == nil)
        #expect(try await library.jobQueue().failed.isEmpty)
        let error = await #expect(throws: LibraryError.self) { try await library.searchContent("sea", with: pool) }
        #expect("\(error.map { "\($0)" } ?? "")".contains("CLIP model"))
    }
}
