import Foundation
import LightboxAnalysis
import LightboxImaging
import LightboxTestSupport
import Testing

@testable import Lightbox

/// The faces job: every photo's stored preview decoded and sent to the analysis service, its
/// faces recorded; stopped or failed midway, nothing lost or done twice.
@Suite("Faces found by the analysis job", .serialized)
struct FaceAnalysisTests {
    static let photos = [
        "faces/test_images/obama.jpg", "faces/test_images/obama2.jpg", "faces/test_images/biden.jpg",
        "faces-group/images/t1.jpg", "lomiri/backgrounds/Dragonfly_by_Bolly.jpg",
    ]

    static func makeLibrary(_ folder: TemporaryDirectory) async throws -> PhotoLibrary {
        let library = try folder.makeLibrary()
        let summary = await library.importItems(at: try photos.map { URL(fileURLWithPath: try Corpus.path($0)) })
        #expect(summary.progress.imported == photos.count, "\(summary)")
        return library
    }

    /// Every file under `folder`, by its path inside it.
    static func files(in folder: URL) -> Set<String> {
        Set((FileManager.default.subpaths(atPath: folder.path) ?? []).filter { !$0.hasSuffix("/") })
    }

    /// The library's asset imported from a corpus file, by its name.
    static func asset(_ library: PhotoLibrary, _ relative: String) throws -> Asset {
        let name = URL(fileURLWithPath: relative).lastPathComponent
        return try #require(
            try library.fetchAssets().first { $0.resources.first?.originalFilename == name }, "\(name)")
    }

    @Test("The job finds the faces of real photos through the service, as the service finds them in a preview")
    func realService() async throws {
        let service = try AnalysisServiceProcess()
        defer { service.stop() }
        let folder = try TemporaryDirectory()
        let library = try await Self.makeLibrary(folder)
        // The import queued the job.
        #expect(try await library.jobQueue().waiting[.faces] == 1)
        let pool = AnalysisPool([AnalysisClient(url: service.url)])
        let model = try await pool.describe().faceModel
        #expect(try await library.faceAnalysisBacklogCount(model: model) == Self.photos.count)
        // Each photo's stored preview is what is sent: nothing is rendered (and stored) anew.
        let derivatives = Self.files(in: library.url.appendingPathComponent("derivatives"))
        #expect(!derivatives.isEmpty)
        try await library.runJobs(
            PhotoLibrary.JobRunnerOptions(kinds: [.faces], untilIdle: true, retryDelay: 0, analyzer: pool))
        #expect(try await library.jobQueue().waiting[.faces] == nil)
        #expect(try await library.jobQueue().failed.isEmpty)
        #expect(try await library.faceAnalysisBacklogCount(model: model) == 0)
        #expect(Self.files(in: library.url.appendingPathComponent("derivatives")) == derivatives)

        // The oracle: the service asked directly with a preview libvips made of the original.
        for relative in Self.photos {
            let asset = try Self.asset(library, relative)
            let recorded = try await library.faces(in: asset)
            #expect(try await library.faceModel(of: asset) == model)
            let image = try ImageFile.thumbnail(
                ofFileAt: try Corpus.path(relative),
                options: RenderOptions(width: 1000, height: 1000, contentMode: .aspectFit))
            let pixels = try ImageFile.rgbPixels(ofEncoded: image.bytes, maximumSide: 1000)
            let direct = try await pool.faces(width: pixels.width, height: pixels.height, pixels: pixels.bytes)
            #expect(recorded.count == direct.faces.count, "\(relative): \(recorded) against \(direct.faces.map(\.box))")
            for face in direct.faces {
                #expect(
                    recorded.contains { recorded in
                        // The detector's boxes move with the preview's last bits: the same face
                        // overlaps by more than half.
                        FoundFace(
                            x: recorded.x, y: recorded.y, width: recorded.width, height: recorded.height, quality: 0,
                            landmarks: [], embedding: []
                        ).overlap(x: face.box.x, y: face.box.y, width: face.box.width, height: face.box.height) > 0.5
                    },
                    "\(relative): a face at \(face.box) is not recorded: \(recorded.map { [$0.x, $0.y, $0.width, $0.height] })"
                )
            }
        }
        #expect(try await library.faces(in: try Self.asset(library, "faces/test_images/obama.jpg")).count == 1)
        #expect(try await library.faces(in: try Self.asset(library, "faces-group/images/t1.jpg")).count >= 5)
        #expect(try await library.faces(in: try Self.asset(library, Self.photos[4])).isEmpty)

        // Nothing is left: a second run asks the service nothing.
        let again = try await library.analyseFaces(with: pool)
        #expect(again.analysed == 0 && again.failures.isEmpty)
    }

    /// An analyzer of its own: a face in the middle of every image, an answer that breaks the
    /// protocol for images of one size, and the service gone after some answers.
    actor Fake: PhotoAnalyzing {
        var answered = 0
        var refusedSize: PixelSize?
        var goneAfter: Int?
        var sizes: [String] = []

        init(refusedSize: PixelSize? = nil, goneAfter: Int? = nil) {
            self.refusedSize = refusedSize
            self.goneAfter = goneAfter
        }

        func describe() async throws(AnalysisError) -> AnalysisServiceInfo {
            AnalysisServiceInfo(
                version: "fake", faceModel: "fake-1", dimensions: 4, sameFaceDistance: 0.5, maximumSide: 2048,
                maximumFaces: 8, concurrent: 1)
        }

        func faces(width: Int, height: Int, pixels: [UInt8]) async throws(AnalysisError) -> FaceAnalysis {
            if let goneAfter, answered >= goneAfter {
                throw AnalysisError(.unreachable, "the fake service is gone")
            }
            if PixelSize(width: width, height: height) == refusedSize {
                throw AnalysisError(.badAnswer, "the fake answered nonsense for \(width)x\(height)")
            }
            answered += 1
            sizes.append("\(width)x\(height)")
            let face = FaceObservation(
                box: NormalizedRect(x: 0.4, y: 0.4, width: 0.2, height: 0.2), landmarks: [], quality: 0.8,
                embedding: [0.1, 0.2, 0.3, Float(width) / 10_000])
            return FaceAnalysis(model: "fake-1", faces: [face])
        }
    }

    @Test("A service gone midway stops the run; the next goes on; a refused photo is said and the rest done")
    func resumesWithoutLossOrDoubling() async throws {
        let folder = try TemporaryDirectory()
        let library = try await Self.makeLibrary(folder)
        let group = try Self.asset(library, "faces-group/images/t1.jpg")
        // The group photo's preview, by its size (the other photos' differ): what the fake refuses.
        let scale = 1000 / Double(max(group.pixelWidth, group.pixelHeight))
        let refused = PixelSize(
            width: Int((Double(group.pixelWidth) * scale).rounded()),
            height: Int((Double(group.pixelHeight) * scale).rounded()))

        let first = Fake(refusedSize: refused, goneAfter: 2)
        await #expect(throws: AnalysisError.self) { try await library.analyseFaces(with: first) }
        let answered = await first.answered
        #expect(answered == 2)
        let recordedFirst = try await library.fetchAssets().asyncCompactMap { asset in
            try await library.faces(in: asset).first.map { (asset.localIdentifier, $0.localIdentifier) }
        }
        #expect(recordedFirst.count == 2)
        #expect(try await library.faceAnalysisBacklogCount(model: "fake-1") <= Self.photos.count - 2)

        // The next run: the photos left, each once; the group photo refused and said so (in
        // whichever run reached it: the order of the import's commits is its own).
        let second = Fake(refusedSize: refused)
        let summary = try await library.analyseFaces(with: second)
        let (answeredFirst, answeredSecond) = (await first.answered, await second.answered)
        #expect(answeredFirst + answeredSecond == Self.photos.count - 1)
        #expect(summary.analysed == answeredSecond)
        #expect(summary.failures.allSatisfy { $0.contains(group.localIdentifier) && $0.contains("nonsense") })
        #expect(summary.failed == summary.failures.count)
        #expect(summary.previewsRendered == 0, "each photo's stored preview is sent, not one rendered again")
        // Every photo has one face, those of the first run as they were; the refused one none.
        for asset in try library.fetchAssets() {
            let faces = try await library.faces(in: asset)
            if asset.localIdentifier == group.localIdentifier {
                #expect(faces.isEmpty)
            } else {
                #expect(faces.count == 1, "\(asset.localIdentifier)")
            }
            if let kept = recordedFirst.first(where: { $0.0 == asset.localIdentifier }) {
                #expect(faces.first?.localIdentifier == kept.1)
            }
        }
        // The refused photo waits for another model, not for this one again.
        #expect(try await library.faceAnalysisBacklogCount(model: "fake-1") == 0)
        #expect(try await library.faceAnalysisBacklogCount(model: "fake-2") == Self.photos.count)
        let failures = try await library.faceAnalysisFailures(model: "fake-1")
        #expect(failures.map(\.localIdentifier) == [group.localIdentifier])
        #expect(failures.first?.error.contains("nonsense") == true)
    }
}

extension FaceAnalysisTests {
    @Test("The faces job failed while the service was away waits again once photos arrive")
    func failedJobWaitsAgain() async throws {
        let folder = try TemporaryDirectory()
        let library = try folder.makeLibrary()
        _ = await library.importItems(at: [URL(fileURLWithPath: try Corpus.path(Self.photos[0]))])
        try await library.runJobs(
            PhotoLibrary.JobRunnerOptions(
                kinds: [.faces], untilIdle: true, retryDelay: 0, analyzer: Fake(goneAfter: 0)))
        var queue = try await library.jobQueue()
        #expect(queue.failed.map(\.job.kind) == [.faces] && queue.failed.first?.error.contains("gone") == true)
        _ = await library.importItems(at: [URL(fileURLWithPath: try Corpus.path(Self.photos[2]))])
        queue = try await library.jobQueue()
        #expect(queue.failed.isEmpty && queue.waiting[.faces] == 1, "\(queue)")
        try await library.runJobs(
            PhotoLibrary.JobRunnerOptions(kinds: [.faces], untilIdle: true, retryDelay: 0, analyzer: Fake()))
        let after = try await library.jobQueue()
        #expect(after.waiting[.faces] == nil && after.failed.isEmpty, "\(after)")
        #expect(try await library.faceAnalysisBacklogCount(model: "fake-1") == 0)
    }
}

extension Sequence {
    fileprivate func asyncCompactMap<T>(_ transform: (Element) async throws -> T?) async rethrows -> [T] {
        var values: [T] = []
        for element in self { if let value = try await transform(element) { values.append(value) } }
        return values
    }
}
