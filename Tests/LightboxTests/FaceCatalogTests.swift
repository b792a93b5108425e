import Foundation
import LightboxTestSupport
import Testing

@testable import Lightbox

/// The catalog's faces (schema step v27), on both stores: an analysis recorded, read back the
/// surest first, replaced by the next analysis without losing a face's identity, refused when a
/// model answers numbers the catalog cannot keep, and gone with its asset.
@Suite("Faces in the catalog")
struct FaceCatalogTests {
    static func face(_ x: Double, _ y: Double, _ side: Double, quality: Double, seed: Float) -> FoundFace {
        FoundFace(
            x: x, y: y, width: side, height: side, quality: quality,
            landmarks: [
                x + side * 0.3, y + side * 0.4, x + side * 0.7, y + side * 0.4, x + side * 0.5, y + side * 0.7,
            ],
            embedding: (0..<128).map { sin(Float($0) * seed) * 0.1 })
    }

    static func makeLibrary(_ folder: TemporaryDirectory) async throws -> (PhotoLibrary, [Asset]) {
        let library = try folder.makeLibrary()
        let files = ["faces/test_images/obama.jpg", "faces/test_images/biden.jpg", "faces-group/images/t1.jpg"]
        let summary = await library.importItems(at: try files.map { URL(fileURLWithPath: try Corpus.path($0)) })
        #expect(summary.progress.imported == 3, "\(summary)")
        let movie = await library.importItems(at: [URL(fileURLWithPath: try Corpus.path(Corpus.livePhotoMovie))])
        #expect(movie.progress.imported == 1, "\(movie)")
        let photos = try library.fetchAssets(with: .image).objects(at: 0..<3)
        return (library, photos)
    }

    @Test("An analysis is recorded and read back; the next keeps a face's identity where boxes overlap")
    func recordAndAnalyseAgain() async throws {
        let folder = try TemporaryDirectory()
        let (library, photos) = try await Self.makeLibrary(folder)
        let group = photos[0]
        // Every photo waits for the model; the movie is not a photo to analyse.
        #expect(try await library.faceAnalysisBacklogCount(model: "m1") == 3)
        #expect(try await library.faceModel(of: group) == nil)
        #expect(try await library.faces(in: group).isEmpty)

        let first = try await library.recordFaces(
            [Self.face(0.1, 0.1, 0.2, quality: 0.6, seed: 1), Self.face(0.6, 0.2, 0.25, quality: 0.9, seed: 2)],
            in: group, model: "m1")
        #expect(first.map(\.quality) == [0.9, 0.6])
        #expect(first.allSatisfy { $0.assetLocalIdentifier == group.localIdentifier && $0.model == "m1" })
        #expect(first.allSatisfy { $0.membership == .waiting && $0.personLocalIdentifier == nil && !$0.isKeyFace })
        #expect(Set(first.map(\.localIdentifier)).count == 2)
        #expect(try await library.faces(in: group) == first)
        #expect(try await library.faceModel(of: group) == "m1")
        #expect(try await library.faceAnalysisBacklogCount(model: "m1") == 2)
        // A photo with no face is analysed too: it leaves the backlog.
        #expect(try await library.recordFaces([], in: photos[1], model: "m1").isEmpty)
        #expect(try await library.faceAnalysisBacklogCount(model: "m1") == 1)
        // A new model: every photo waits again.
        #expect(try await library.faceAnalysisBacklogCount(model: "m2") == 3)

        // The next model finds the first face a little moved, not the second, and a third.
        let again = try await library.recordFaces(
            [Self.face(0.11, 0.1, 0.2, quality: 0.7, seed: 1), Self.face(0.4, 0.6, 0.1, quality: 0.5, seed: 3)],
            in: group, model: "m2")
        #expect(again.count == 2)
        let kept = try #require(again.first { $0.quality == 0.7 })
        #expect(kept.localIdentifier == first.first { $0.x == 0.1 }?.localIdentifier)
        #expect(abs(kept.x - 0.11) < 1e-9 && kept.model == "m2")
        #expect(
            !Set(first.map(\.localIdentifier)).contains(try #require(again.first { $0.quality == 0.5 }).localIdentifier)
        )
        #expect(try await library.faceModel(of: group) == "m2")
        #expect(try await library.faceAnalysisBacklogCount(model: "m2") == 2)

        // A limited view sees the faces of what it sees, and no work to do.
        let limited = library.limited(to: LimitedSelection(assetIdentifiers: [photos[1].localIdentifier]))
        #expect(try await limited.faces(in: group).isEmpty)
        #expect(try await limited.faceModel(of: group) == nil)
        #expect(try await limited.faceModel(of: photos[1]) == "m1")
        #expect(try await limited.faceAnalysisBacklogCount(model: "m3") == 0)
    }

    @Test("What a model answers that the catalog cannot keep is refused, and nothing is recorded")
    func refusals() async throws {
        let folder = try TemporaryDirectory()
        let (library, photos) = try await Self.makeLibrary(folder)
        let good = Self.face(0.1, 0.1, 0.2, quality: 0.6, seed: 1)
        var outside = good
        outside.x = 0.9
        var empty = good
        empty.width = 0
        var notANumber = good
        notANumber.y = .nan
        var quality = good
        quality.quality = 1.5
        var landmarks = good
        landmarks.landmarks.append(0.5)
        var shorter = good
        shorter.embedding.removeLast()
        var infinite = good
        infinite.embedding[3] = .infinity
        var huge = good
        huge.embedding[3] = 1e9
        let answers: [([FoundFace], String, String)] = [
            ([outside], "m", "a box outside the image"), ([empty], "m", "a box outside the image"),
            ([notANumber], "m", "a box outside the image"), ([quality], "m", "a quality outside 0 to 1"),
            ([landmarks], "m", "landmarks outside the image"), ([good, shorter], "m", "an embedding of 127 numbers"),
            ([infinite], "m", "an embedding"), ([huge], "m", "an embedding"),
            (Array(repeating: good, count: 101), "m", "101 faces"), ([good], "", "a model name of 0 characters"),
        ]
        for (faces, model, said) in answers {
            let error = await #expect(throws: LibraryError.self) {
                try await library.recordFaces(faces, in: photos[0], model: model)
            }
            #expect(error?.code == .invalidRequest)
            #expect(error?.message.contains(said) == true, "\(error?.message ?? "")")
        }
        #expect(try await library.faceModel(of: photos[0]) == nil)
        #expect(try await library.faces(in: photos[0]).isEmpty)
    }

    @Test("A face goes with its asset; a deleted photo leaves the backlog; the library checks clean")
    func facesGoWithTheirAsset() async throws {
        let folder = try TemporaryDirectory()
        let (library, photos) = try await Self.makeLibrary(folder)
        try await library.recordFaces([Self.face(0.1, 0.1, 0.2, quality: 0.6, seed: 1)], in: photos[0], model: "m1")
        try await library.performChanges { $0.deleteAssets([photos[1].localIdentifier]) }
        #expect(try await library.faceAnalysisBacklogCount(model: "m1") == 1)
        try await library.performChanges { $0.purgeAssets([photos[0].localIdentifier]) }
        #expect(try await library.faces(in: photos[0]).isEmpty)
        #expect(try await library.faceModel(of: photos[0]) == nil)
        // An analysis of an asset purged meanwhile records nothing.
        #expect(
            try await library.recordFaces([Self.face(0.1, 0.1, 0.2, quality: 0.6, seed: 1)], in: photos[0], model: "m1")
                .isEmpty)
        #expect(try library.check(verifyingHashes: false).problems.isEmpty)
    }
}
