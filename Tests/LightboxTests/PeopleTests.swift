import Foundation
import LightboxAnalysis
import LightboxTestSupport
import Testing

@testable import Lightbox

/// People (schema step v28), on both stores: faces grouped into people as they arrive, people as
/// asset collections (fetches, predicates, change details, history), and someone's choices
/// (naming, merging, moving a face, "not them", not a face) kept through grouping and analysing
/// again.
@Suite("People found in photos", .serialized)
struct PeopleTests {
    /// The corpus's photos of real people (face_recognition's test images, insightface's group
    /// photo) and one without a face; which show Barack Obama is what the package's names say.
    static let obama = [
        "faces/test_images/obama.jpg", "faces/test_images/obama2.jpg", "faces/test_images/obama3.jpg",
        "faces/test_images/32bit.png", "faces/test_images/obama_partial_face.jpg",
        "faces/test_images/obama_partial_face2.jpg",
    ]
    static let others = [
        "faces/test_images/biden.jpg", "faces-group/images/t1.jpg", "faces-group/images/Tom_Hanks_54745.png",
        "lomiri/backgrounds/Dragonfly_by_Bolly.jpg",
    ]

    /// The real service under another model's name: what a new model would answer, so that the
    /// library analyses every photo again.
    struct Renamed: PhotoAnalyzing {
        let base: any PhotoAnalyzing
        let suffix: String

        func describe() async throws(AnalysisError) -> AnalysisServiceInfo {
            var info = try await base.describe()
            info.faceModel += suffix
            return info
        }

        func faces(width: Int, height: Int, pixels: [UInt8]) async throws(AnalysisError) -> FaceAnalysis {
            var answer = try await base.faces(width: width, height: height, pixels: pixels)
            answer.model += suffix
            return answer
        }
    }

    static func names(_ assets: some Sequence<Asset>) -> Set<String> {
        Set(assets.compactMap { $0.resources.first?.originalFilename })
    }

    @Test("Real photos: one person's photos grouped, strangers not; a name outlives analysing again")
    func realPhotos() async throws {
        let service = try AnalysisServiceProcess()
        defer { service.stop() }
        let folder = try TemporaryDirectory()
        let library = try folder.makeLibrary()
        let files = try (Self.obama + Self.others).map { URL(fileURLWithPath: try Corpus.path($0)) }
        let imported = await library.importItems(at: files)
        #expect(imported.progress.imported == files.count, "\(imported)")
        let pool = AnalysisPool([AnalysisClient(url: service.url)])
        let summary = try await library.analyseFaces(with: pool)
        #expect(summary.analysed == files.count)
        #expect(summary.grouping.newPeople == 1, "\(summary.grouping)")

        // One person, in the People list: the photos of Obama, and no other.
        let people = try library.fetchPeople()
        #expect(people.count == 1)
        let person = try #require(people.firstObject)
        #expect(person.assetCollectionType == .person)
        let list = try library.peopleList()
        #expect(try library.fetchCollections(in: list).map(\.localIdentifier) == [person.localIdentifier])
        let photos = try library.fetchAssets(in: person)
        #expect(Self.names(photos) == Set(Self.obama.map { URL(fileURLWithPath: $0).lastPathComponent }))
        #expect(person.estimatedAssetCount == Self.obama.count)
        #expect(person.person?.faceCount == Self.obama.count)
        let key = try #require(person.person?.keyFace)
        #expect(key.isKeyFace && key.personLocalIdentifier == person.localIdentifier)
        #expect(
            try await library.faces(of: person).map(\.quality)
                == (try await library.faces(of: person)).map(\.quality).sorted(by: >))

        try await library.performChanges { $0.changeRequest(forPerson: person).name = "Barack Obama" }
        let named = try library.fetchAssets(
            options: FetchOptions(predicate: try FetchPredicate("person == \"Barack Obama\"")))
        #expect(Self.names(named) == Self.names(photos))
        #expect(
            try library.fetchAssets(options: FetchOptions(predicate: try FetchPredicate("person == nil"))).count
                == Self.others.count)

        // A new model analyses every photo again: the faces keep their identity, and so the
        // person keeps their photos and name.
        let again = try await library.analyseFaces(with: Renamed(base: pool, suffix: "-next"))
        #expect(again.analysed == files.count)
        #expect(again.grouping.newPeople == 0)
        let after = try #require(try library.fetchPeople().firstObject)
        #expect(try library.fetchPeople().count == 1)
        #expect(after.localIdentifier == person.localIdentifier && after.localizedTitle == "Barack Obama")
        #expect(Self.names(try library.fetchAssets(in: after)) == Self.names(photos))
        #expect(try await library.faces(of: after).allSatisfy { $0.model.hasSuffix("-next") })
    }

    // MARK: Choices, on faces of made-up embeddings

    /// An embedding near one of a few far-apart centres: faces of one made-up person.
    static func embedding(person: Int, variant: Int) -> [Float] {
        (0..<128).map { index in
            let centre: Float = index % 4 == person ? 0.3 : 0
            return centre + sin(Float(index * 7 + variant * 13)) * 0.01
        }
    }

    static func found(person: Int, variant: Int, at x: Double = 0.1) -> FoundFace {
        FoundFace(
            x: x, y: 0.1, width: 0.2, height: 0.2, quality: 0.9, landmarks: [],
            embedding: embedding(person: person, variant: variant))
    }

    /// Photos, each with faces of made-up people: `faces[i]` are photo i's people.
    static func makeLibrary(_ folder: TemporaryDirectory, faces: [[Int]]) async throws -> (PhotoLibrary, [Asset]) {
        let library = try folder.makeLibrary()
        let files = try Corpus.photoPaths().prefix(faces.count).map { URL(fileURLWithPath: $0) }
        #expect(await library.importItems(at: Array(files)).progress.imported == faces.count)
        let assets = try library.fetchAssets(
            options: FetchOptions(sortDescriptors: [FetchSortDescriptor(key: "localIdentifier")])
        )
        .objects(at: 0..<faces.count)
        for (index, people) in faces.enumerated() {
            let found = people.enumerated().map {
                Self.found(person: $0.element, variant: index, at: 0.05 + 0.25 * Double($0.offset))
            }
            try await library.recordFaces(found, in: assets[index], model: "made-up")
        }
        return (library, assets)
    }

    static func group(_ library: PhotoLibrary) async throws -> PhotoLibrary.FaceGroupingSummary {
        var state = PhotoLibrary.FaceGroupingState(model: "made-up")
        return try await library.groupFaces(&state)
    }

    static func person(_ library: PhotoLibrary, containing asset: Asset, _ index: Int = 0) async throws
        -> AssetCollection
    {
        let face = try await library.faces(in: asset).sorted { $0.x < $1.x }[index]
        let id = try #require(face.personLocalIdentifier, "a face of \(asset.localIdentifier) is nobody's")
        return try #require(try library.fetchAssetCollections(withLocalIdentifiers: [id]).firstObject)
    }

    @Test("Faces wait until three alike found a person; later ones join; grouping again places nothing")
    func incremental() async throws {
        let folder = try TemporaryDirectory()
        // Person 0 in photos 0, 1, 3; person 1 in 2 and 3 only (too few to found anyone).
        let (library, assets) = try await Self.makeLibrary(folder, faces: [[0], [0], [1], [0, 1]])
        let history = try library.currentChangeToken()
        let first = try await Self.group(library)
        #expect(first.newPeople == 1 && first.foundingFaces == 3 && first.looked == 5)
        #expect(try library.fetchPeople().count == 1)
        let anna = try await Self.person(library, containing: assets[0])
        #expect(
            Set(try library.fetchAssets(in: anna).map(\.localIdentifier))
                == Set([0, 1, 3].map { assets[$0].localIdentifier }))
        #expect(try await library.faces(in: assets[2]).allSatisfy { $0.personLocalIdentifier == nil })
        // The grouping is in the history: a person inserted, by "faces".
        let changes = try library.fetchPersistentChanges(since: history)
        #expect(changes.map(\.author) == ["faces"])
        #expect(changes[0].changeDetails(for: .assetCollection).insertedLocalIdentifiers == [anna.localIdentifier])

        // Run again: nothing moves.
        let again = try await Self.group(library)
        #expect(again == PhotoLibrary.FaceGroupingSummary())
        // Analysed again, a waiting face's new embedding is looked at again (alone still).
        try await library.recordFaces([Self.found(person: 1, variant: 2, at: 0.05)], in: assets[2], model: "made-up")
        let reanalysed = try await Self.group(library)
        #expect(reanalysed.looked == 1 && reanalysed.newPeople == 0)
        // A third photo of person 1 arrives: the three found a second person.
        let more = try await Self.makeMore(library, person: 1)
        let second = try await Self.group(library)
        // Only the new face was placed: the two waiting were looked at last time, and were
        // found by the new one's neighbours.
        #expect(second.newPeople == 1 && second.looked == 1)
        let ben = try await Self.person(library, containing: more)
        #expect(ben.localIdentifier != anna.localIdentifier)
        #expect(try library.fetchAssets(in: ben).count == 3)
        // people.@count: the photo with both.
        let both = try library.fetchAssets(options: FetchOptions(predicate: try FetchPredicate("people.@count >= 2")))
        #expect(both.map(\.localIdentifier) == [assets[3].localIdentifier])

        // A photo deleted for good takes its faces with it (the catalog's cascade), and the
        // person's face count (kept by triggers) follows; in Recently Deleted, only their photos'.
        let before = try #require(
            try library.fetchAssetCollections(withLocalIdentifiers: [anna.localIdentifier]).firstObject)
        #expect(before.person?.faceCount == 3 && before.estimatedAssetCount == 3)
        try await library.performChanges { $0.deleteAssets([assets[1].localIdentifier]) }
        let trashed = try #require(
            try library.fetchAssetCollections(withLocalIdentifiers: [anna.localIdentifier]).firstObject)
        #expect(trashed.person?.faceCount == 3 && trashed.estimatedAssetCount == 2)
        try await library.performChanges { $0.purgeAssets([assets[1].localIdentifier]) }
        let purged = try #require(
            try library.fetchAssetCollections(withLocalIdentifiers: [anna.localIdentifier]).firstObject)
        #expect(purged.person?.faceCount == 2 && purged.estimatedAssetCount == 2)
    }

    /// Imports one more photo with a face of the made-up `person`.
    static func makeMore(_ library: PhotoLibrary, person: Int) async throws -> Asset {
        let path = try #require(try Corpus.photoPaths().dropFirst(8).first)
        let summary = await library.importItems(at: [URL(fileURLWithPath: path)])
        let id = try #require(summary.results.first?.outcome.localIdentifier)
        let asset = try #require(try await library.asset(withLocalIdentifier: id))
        try await library.recordFaces([Self.found(person: person, variant: 40)], in: asset, model: "made-up")
        return asset
    }

    @Test("Naming, moving a face, \"not them\", merging and \"not a face\" hold through grouping, with change details")
    func choices() async throws {
        let folder = try TemporaryDirectory()
        let (library, assets) = try await Self.makeLibrary(folder, faces: [[0], [0], [0], [0, 1], [1], [1]])
        _ = try await Self.group(library)
        #expect(try library.fetchPeople().count == 2)
        let anna = try await Self.person(library, containing: assets[0])
        let ben = try await Self.person(library, containing: assets[4])
        try await library.performChanges { changes in
            changes.changeRequest(forPerson: anna).name = "Anna"
            changes.changeRequest(forPerson: ben).name = "Ben"
        }
        // Two people of one name cannot be told apart: refused.
        await #expect(throws: LibraryError.self) {
            try await library.performChanges { $0.changeRequest(forPerson: ben).name = "anna" }
        }
        let annas = try library.fetchAssets(in: anna)
        #expect(annas.count == 4)

        // "This is Ben": photo 0's face moves; the fetch of Anna's photos hears of it.
        let stream = try library.changes()
        var iterator = stream.makeAsyncIterator()
        let moved = try #require(try await library.faces(in: assets[0]).first)
        try await library.performChanges { $0.assignFaces([moved], to: ben) }
        let change = try #require(await iterator.next())
        let details = try #require(change.details(for: annas))
        #expect(details.removedIndexes.count == 1)
        #expect(details.removedObjects.map(\.localIdentifier) == [assets[0].localIdentifier])
        #expect(change.details(for: anna) != nil)
        #expect(try library.fetchAssets(in: ben).contains { $0.localIdentifier == assets[0].localIdentifier })
        // Grouping does not undo it.
        _ = try await Self.group(library)
        #expect(try await library.faces(in: assets[0]).first?.personLocalIdentifier == ben.localIdentifier)
        #expect(try await library.faces(in: assets[0]).first?.membership == .chosen)

        // "Not Anna": photo 1's face is nobody's, and grouping never puts it back in Anna.
        let notAnna = try #require(try await library.faces(in: assets[1]).first)
        try await library.performChanges { $0.assignFaces([notAnna], to: nil) }
        _ = try await Self.group(library)
        #expect(try await library.faces(in: assets[1]).first?.personLocalIdentifier == nil)
        #expect(
            try library.fetchAssets(options: FetchOptions(predicate: FetchPredicate.key("person") == "Anna")).count == 2
        )

        // Not a face at all: gone from the photo's faces, and from Ben.
        let wrong = try #require(try await library.faces(in: assets[5]).first)
        try await library.performChanges { $0.rejectFaces([wrong]) }
        #expect(try await library.faces(in: assets[5]).isEmpty)
        _ = try await Self.group(library)
        #expect(try await library.faces(in: assets[5]).isEmpty)

        // Merge Ben into Anna: one person, named Anna, with the faces both had; Ben is deleted.
        let benNow = try #require(
            try library.fetchAssetCollections(withLocalIdentifiers: [ben.localIdentifier]).firstObject)
        let annaNow = try #require(
            try library.fetchAssetCollections(withLocalIdentifiers: [anna.localIdentifier]).firstObject)
        try await library.performChanges { $0.mergePeople([benNow], into: annaNow) }
        // The stream heard every commit since the move; the merge is the last.
        let token = try library.currentChangeToken()
        var merge = try #require(await iterator.next())
        while merge.changeToken < token { merge = try #require(await iterator.next()) }
        let gone = try #require(merge.details(for: benNow))
        #expect(gone.objectWasDeleted)
        #expect(try library.fetchPeople().map(\.localizedTitle) == ["Anna"])
        let merged = try #require(try library.fetchPeople().firstObject)
        #expect(merged.person?.faceCount == 5, "seven, less one nobody's and one no face")
        #expect(merged.person?.keyFace != nil)
        // The face taken from Anna stays out of her, merged or not.
        #expect(try await library.faces(in: assets[1]).first?.personLocalIdentifier == nil)

        // Split: a new person of chosen faces, then hidden from the list.
        let split = try await library.faces(of: merged).filter { $0.assetLocalIdentifier == assets[4].localIdentifier }
        var carl: ObjectPlaceholder?
        try await library.performChanges { changes in
            carl = changes.creationRequestForPerson(named: "Carl", faces: split).placeholderForCreatedPerson
        }
        let carlID = try #require(carl?.localIdentifier)
        #expect(
            try library.fetchAssets(inCollectionWithLocalIdentifier: carlID).map(\.localIdentifier)
                == [assets[4].localIdentifier])
        try await library.performChanges { $0.changeRequest(forPersonWithLocalIdentifier: carlID).isHidden = true }
        #expect(try library.fetchPeople().map(\.localizedTitle) == ["Anna"])
        #expect(try library.fetchPeople(options: FetchOptions(includeHiddenAssets: true)).count == 2)
    }

    @Test("Switched off, the library deletes every face, embedding and person, and analyses nothing")
    func privacy() async throws {
        let folder = try TemporaryDirectory()
        let (library, assets) = try await Self.makeLibrary(folder, faces: [[0], [0], [0]])
        _ = try await Self.group(library)
        let person = try #require(try library.fetchPeople().firstObject)
        try await library.performChanges { $0.changeRequest(forPerson: person).name = "Anna" }
        #expect(try await library.facesEnabled())
        let token = try library.currentChangeToken()

        try await library.setFacesEnabled(false)
        #expect(try await !library.facesEnabled())
        #expect(try library.fetchPeople(options: FetchOptions(includeHiddenAssets: true)).count == 0)
        for asset in assets {
            #expect(try await library.faces(in: asset).isEmpty)
            #expect(try await library.faceModel(of: asset) == nil)
        }
        #expect(
            try library.fetchAssets(options: FetchOptions(predicate: try FetchPredicate("person == \"Anna\""))).count
                == 0)
        let history = try library.fetchPersistentChanges(since: token)
        #expect(history.map(\.author) == ["faces off"])
        #expect(history.first?.changeDetails(for: .assetCollection).deletedLocalIdentifiers == [person.localIdentifier])
        // While off: nothing waits, and what a run still under way answers is not kept.
        #expect(try await library.faceAnalysisBacklogCount(model: "made-up") == 0)
        #expect(
            try await library.recordFaces([Self.found(person: 0, variant: 1)], in: assets[0], model: "made-up").isEmpty)
        #expect(try await library.faces(in: assets[0]).isEmpty)
        let queued = try await library.jobQueue().waiting[.faces] ?? 0

        // On again: every photo waits for the model, and the job is queued.
        try await library.setFacesEnabled(true)
        #expect(try await library.faceAnalysisBacklogCount(model: "made-up") == assets.count)
        #expect((try await library.jobQueue().waiting[.faces] ?? 0) >= max(1, queued))
    }

    @Test("lightbox worker starts this machine's analysis service by itself; people, name and ls --person")
    func commandLine() async throws {
        let folder = try TemporaryDirectory()
        let path = folder.path("Faces.lightbox")
        let files =
            try Self.obama.prefix(4).map { try Corpus.path($0) } + [try Corpus.path("faces/test_images/biden.jpg")]
        let imported = try CommandLineTests.run(["import", "--library", path] + files)
        #expect(imported.status == 0, "\(imported.stderr)")
        // No --analysis: the worker starts the service beside it (the tests' environment says
        // off, for the commands that do not test faces).
        let worker = try CommandLineTests.run(
            ["worker", "--library", path, "--until-idle"], environment: ["LIGHTBOX_ANALYSIS": "on"])
        #expect(worker.status == 0, "\(worker.stderr)")
        #expect(worker.stderr.contains("Faces: dlib-"), "\(worker.stderr)")
        #expect(worker.stderr.contains("done: faces found in photos"), "\(worker.stderr)")
        let people = try CommandLineTests.run(["people", "--library", path, "--json"])
        let lines = people.stdout.split(separator: "\n")
        #expect(lines.count == 1, "\(people.stdout)")
        let line = try #require(lines.first)
        let person = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let id = try #require(person["localIdentifier"] as? String)
        #expect(person["estimatedAssetCount"] as? Int == 4)
        let named = try CommandLineTests.run(["people", "name", "--library", path, String(id.prefix(6)), "Barack"])
        #expect(named.status == 0 && named.stdout.contains("Barack"), "\(named.stderr)")
        let listed = try CommandLineTests.run(["ls", "--library", path, "--person", "barack"])
        #expect(listed.stdout.split(separator: "\n").count == 4, "\(listed.stdout)")
        #expect(!listed.stdout.contains("biden.jpg"))
        // Off without --yes says what it would delete, and deletes nothing.
        let off = try CommandLineTests.run(["people", "off", "--library", path])
        #expect(off.status != 0 && off.stderr.contains("1 people (1 named)"), "\(off.stderr)")
        #expect(try CommandLineTests.run(["people", "--library", path]).stdout.contains("Barack"))
    }
}
