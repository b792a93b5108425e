import Crypto
import Foundation
import Lightbox
import LightboxImaging
import LightboxS3
import LightboxTestSupport
import Testing

/// A library whose originals are in a bucket (moto's S3 server, started by scripts/services):
/// import, reads, images, edits, removals, the sweep and the check, on real photos.
@Suite("Originals in object storage", .enabled(if: Services.s3Enabled))
struct ObjectStorageLibraryTests {
    static let environment = [
        "AWS_ACCESS_KEY_ID": "lightbox-test", "AWS_SECRET_ACCESS_KEY": "lightbox-test-secret", "HOME": "/nonexistent",
    ]

    /// A new bucket's settings, and a client to look into it.
    static func bucket(grace: Int? = nil) throws -> (ObjectStorageSettings, S3Client) {
        let endpoint = try Services.requireS3()
        let name = "lightbox-" + UUID().uuidString.lowercased().prefix(18)
        let settings = ObjectStorageSettings(
            url: "s3://\(name)/family", endpoint: endpoint.absoluteString, sweepGraceSeconds: grace)
        let client = S3Client(
            location: try S3Location("s3://\(name)/family", endpoint: endpoint),
            credentials: try S3Credentials.fromEnvironment(environment))
        try client.createBucket()
        return (settings, client)
    }

    static func sha256(_ path: String) throws -> String {
        SHA256.hash(data: try Data(contentsOf: URL(fileURLWithPath: path))).map { String(format: "%02x", $0) }.joined()
    }

    static let photos = [
        "forensics/original-files/pic1/IMG_1054.JPG", "forensics/original-files/pic2/IMG_20200124_231153.jpg",
        "exiv2/data/IMG_3578.heic",
    ]

    @Test("Imported photos and a Live Photo land in the bucket, not the folder; reads, images, edits and removals work")
    func library() async throws {
        let folder = try TemporaryDirectory()
        defer { withExtendedLifetime(folder) {} }
        let (settings, bucket) = try Self.bucket()
        let url = folder.url.appendingPathComponent("Bucket.lightbox")
        let library = try PhotoLibrary(url: url, originals: settings, environment: Self.environment)
        let sources = try Self.photos.map { try folder.copy(Corpus.path($0)) }
        let pair = try Corpus.livePhotoPair(in: folder, identifier: "6B3A1F7E-0000-4000-8000-0000000000A1")
        let summary = await library.importItems(
            at: (sources + [pair.still, pair.movie]).map(URL.init(fileURLWithPath:)))
        #expect(summary.progress.imported == 4, "\(summary)")
        #expect(summary.progress.failed == 0)

        // Nothing stored in the folder; every resource's object in the bucket, of its size.
        let inFolder =
            FileManager.default.subpaths(atPath: url.path + "/originals")?.filter { !$0.hasPrefix(".") } ?? []
        #expect(inFolder.isEmpty, "\(inFolder)")
        let objects = try bucket.objects(prefix: "originals/")
        #expect(objects.count == 5, "three photos, a still and its movie: \(objects.map(\.key))")
        let assets = try await library.assets()
        #expect(assets.count == 4)
        for asset in assets {
            for resource in asset.resources {
                let file = try await library.fileURL(for: resource).path
                #expect(file.hasPrefix(url.path + "/cache/originals/"), "read from a fetched copy: \(file)")
                let object = try #require(objects.first { $0.key.hasSuffix((file as NSString).lastPathComponent) })
                #expect(object.size == Int64(try Data(contentsOf: URL(fileURLWithPath: file)).count))
            }
        }
        // The copies are the sources' bytes.
        for source in sources {
            let hash = try Self.sha256(source)
            #expect(objects.contains { $0.key.contains(hash) })
        }

        // A duplicate is found as in a folder library.
        let again = await library.importItems(at: [URL(fileURLWithPath: sources[0])])
        #expect(again.progress.duplicates == 1)

        // Images: the import's thumbnails are in the bucket, for every server of the library.
        let derivatives = try bucket.objects(prefix: "derivatives/").map(\.key)
        for asset in assets {
            #expect(derivatives.contains { $0.contains("/\(asset.localIdentifier)/") }, "\(derivatives)")
        }
        // A final render from the fetched original, stored; with this machine's copies gone,
        // it comes from the bucket, not rendered again.
        let photo = try #require(assets.first { $0.mediaType == .image && !$0.mediaSubtypes.contains(.photoLive) })
        let size = PixelSize(width: 400, height: 400)
        let results = await ImageManager(library: library).requestImage(for: photo, targetSize: size).results()
        #expect(results.last?.image != nil && results.last?.info.isDegraded == false)
        try FileManager.default.removeItem(atPath: url.path + "/cache/derivatives")
        let fromBucket = await ImageManager(library: try PhotoLibrary(url: url, environment: Self.environment))
            .requestImage(for: photo, targetSize: size).results()
        #expect(fromBucket.last?.info.source == .diskCache, "\(fromBucket.map(\.info.source))")
        #expect(fromBucket.last?.image?.bytes == results.last?.image?.bytes)

        // An edit's render and recipe go to the bucket too; revert lets them go.
        let edited = try await library.edit(photo, with: RecipeEditor(adding: [.exposure(0.4)]))
        #expect(edited.hasAdjustments)
        #expect(try bucket.objects(prefix: "originals/").count == 7, "the render and the recipe")

        // Removed for good: the objects go once nothing refers to them.
        try await library.performChanges { $0.deleteAssets([photo.localIdentifier]) }
        _ = try library.emptyTrash()
        let afterRemoval = try bucket.objects(prefix: "originals/").map(\.key)
        #expect(afterRemoval.count == 4, "\(afterRemoval)")
        let derivativesLeft = try bucket.objects(prefix: "derivatives/").map(\.key)
        #expect(!derivativesLeft.contains { $0.contains(photo.localIdentifier) }, "its images go with it")
        #expect(!derivativesLeft.isEmpty)

        // Opened again with no settings: the folder says where its originals are; the check
        // reads each object again and finds them whole.
        let reopened = try PhotoLibrary(url: url, environment: Self.environment)
        #expect(try await reopened.assetCount() == 3)
        let report = try reopened.check()
        #expect(report.problems.isEmpty, "\(report.problems)")
        #expect(report.originals == 4)
    }

    @Test("Another place for an existing library's originals is refused, as are missing credentials")
    func refusals() async throws {
        let folder = try TemporaryDirectory()
        defer { withExtendedLifetime(folder) {} }
        let (settings, _) = try Self.bucket()
        let url = folder.url.appendingPathComponent("Bucket.lightbox")
        _ = try PhotoLibrary(url: url, originals: settings, environment: Self.environment)
        var elsewhere = settings
        elsewhere.url += "-other"
        let moved = try #require(throws: LibraryError.self) {
            try PhotoLibrary(url: url, originals: elsewhere, environment: Self.environment)
        }
        #expect(moved.code == .storageFailed && moved.message.contains(settings.url))

        // A library whose originals are in its folder stays so.
        let local = try folder.makeLibrary("Local.lightbox")
        _ = try local.performChangesAndWait { _ in }
        let photo = try folder.copy(Corpus.path(Self.photos[0]))
        _ = await local.importItems(at: [URL(fileURLWithPath: photo)])
        let refused = try #require(throws: LibraryError.self) {
            try PhotoLibrary(url: local.url, originals: settings, environment: Self.environment)
        }
        #expect(refused.message.contains("in its folder"))

        let noKeys = try #require(throws: LibraryError.self) {
            try PhotoLibrary(url: url, environment: ["HOME": "/nonexistent"])
        }
        #expect(noKeys.message.contains("AWS_ACCESS_KEY_ID"), "\(noKeys.message)")

        // A bucket that does not answer: no library is said to be there.
        let unreachable = ObjectStorageSettings(url: "s3://nobody-home/x", endpoint: "http://127.0.0.1:9")
        let fresh = folder.url.appendingPathComponent("Unreachable.lightbox")
        #expect(throws: LibraryError.self) {
            try PhotoLibrary(url: fresh, originals: unreachable, environment: Self.environment)
        }
        #expect(!FileManager.default.fileExists(atPath: fresh.path + "/storage.json"))
    }

    @Test("The sweep: an object no row refers to stays while young, goes when old; a reused one is made young")
    func sweep() async throws {
        let folder = try TemporaryDirectory()
        defer { withExtendedLifetime(folder) {} }
        let (settings, bucket) = try Self.bucket(grace: 2)
        let library = try PhotoLibrary(
            url: folder.url.appendingPathComponent("Bucket.lightbox"), originals: settings,
            environment: Self.environment)
        let photo = try folder.copy(Corpus.path(Self.photos[0]))
        let hash = try Self.sha256(photo)
        // What a process killed between its upload and its commit leaves: the object alone.
        let stray = "originals/\(hash.prefix(2))/\(hash).jpg"
        try bucket.putFile(at: photo, key: stray)
        let young = try library.check(repairing: true)
        #expect(young.problems.isEmpty && young.repaired.isEmpty, "in flight while young: \(young.problems)")

        try await Task.sleep(for: .seconds(3))
        // Imported now, the same bytes reuse the object and make it young again: a sweep
        // racing the import cannot take it.
        let imported = await library.importItems(at: [URL(fileURLWithPath: photo)])
        #expect(imported.progress.imported == 1, "\(imported)")
        #expect(try bucket.head(stray) != nil)
        let unrelated = "originals/ff/" + String(repeating: "f", count: 64) + ".jpg"
        try bucket.put(Array("not an original".utf8), key: unrelated)
        try await Task.sleep(for: .seconds(3))
        let report = try library.check(repairing: true)
        #expect(report.repaired.map(\.description).contains { $0.contains(String(repeating: "f", count: 64)) })
        #expect(try bucket.head(unrelated) == nil, "the old unreferenced object is swept")
        #expect(try bucket.head(stray) != nil, "the referenced one stays")

        // A missing and a damaged object are reported as a folder's files are.
        try bucket.put(Array("short".utf8), key: stray)
        let damaged = try library.check()
        #expect(
            damaged.problems.contains {
                if case .damagedOriginal = $0 { return true }
                return false
            }, "\(damaged.problems)")
        try bucket.delete(stray)
        let missing = try library.check()
        #expect(
            missing.problems.contains {
                if case .missingOriginal = $0 { return true }
                return false
            }, "\(missing.problems)")
    }

    @Test(
        "The command line: a library made with --originals remembers it; an import killed after its upload leaves no asset"
    )
    func commandLine() async throws {
        let folder = try TemporaryDirectory()
        defer { withExtendedLifetime(folder) {} }
        let (settings, bucket) = try Self.bucket()
        let library = folder.path("Cli.lightbox")
        let photos = try Self.photos.prefix(2).map { try folder.copy(Corpus.path($0)) }
        let made = try CommandLineTests.run(
            [
                "import", "--library", library, "--originals", settings.url, "--s3-endpoint", settings.endpoint!,
                photos[0],
            ],
            environment: Self.environment)
        #expect(made.status == 0, "\(made.stderr)")
        let listed = try CommandLineTests.run(["ls", "--library", library], environment: Self.environment)
        #expect(
            listed.status == 0 && listed.stdout.split(separator: "\n").count == 1, "\(listed.stdout)\(listed.stderr)")

        // Killed between the upload and the commit: the object is there, no row refers to it.
        let said = try CommandLineTests.runKilled(
            ["import", "--library", library, photos[1]], at: "import-stored", environment: Self.environment)
        #expect(said.contains("paused at import-stored"), "\(said)")
        let hash = try Self.sha256(photos[1])
        #expect(try bucket.head("originals/\(hash.prefix(2))/\(hash).jpg") != nil)
        let after = try CommandLineTests.run(["ls", "--library", library], environment: Self.environment)
        #expect(after.stdout.split(separator: "\n").count == 1, "no asset without its original: \(after.stdout)")
        let checked = try CommandLineTests.run(["check", "--library", library], environment: Self.environment)
        #expect(
            checked.status == 0, "the object is in flight until the grace passes: \(checked.stdout)\(checked.stderr)")
        // The same file imported again reuses the object.
        let again = try CommandLineTests.run(
            ["import", "--library", library, photos[1]], environment: Self.environment)
        #expect(again.status == 0, "\(again.stderr)")
        let two = try CommandLineTests.run(["ls", "--library", library], environment: Self.environment)
        #expect(two.stdout.split(separator: "\n").count == 2)

        let elsewhere = try CommandLineTests.run(
            ["ls", "--library", library, "--originals", settings.url + "-other"], environment: Self.environment)
        #expect(elsewhere.status != 0 && elsewhere.stderr.contains(settings.url), "\(elsewhere.stderr)")
    }
}
