import Foundation
import LightboxTestSupport
import Testing

@testable import Lightbox
@testable import LightboxStore

/// `lightbox migrate`: a folder library (SQLite, originals in the folder) moved to PostgreSQL
/// and a bucket, with its accounts and its members' libraries, nothing lost, and a migration
/// killed after its copy finished by running it again.
@Suite(
    "Migrating a library to PostgreSQL and a bucket",
    .enabled(if: Services.postgresEnabled && Services.s3Enabled))
struct MigrateTests {
    /// What a library's model is, to compare before and after.
    struct Snapshot: Equatable {
        var assets: [String]
        var favorites: [String]
        var album: [String]
        var trash: [String]
        var count: Int
        var token: PersistentChangeToken
        /// The first asset's faces, as an analysis recorded them.
        var faces: [Face]

        init(_ library: PhotoLibrary, album identifier: String) throws {
            assets = try library.fetchAssets().map(\.localIdentifier)
            var favorites = FetchOptions()
            favorites.predicate = try FetchPredicate("favorite == true")
            self.favorites = try library.fetchAssets(options: favorites).map(\.localIdentifier)
            album = try library.fetchAssets(inCollectionWithLocalIdentifier: identifier).map(\.localIdentifier)
            let deleted = try #require(
                try library.fetchAssetCollections(with: .smartAlbum, subtype: .smartAlbumRecentlyDeleted).firstObject)
            trash = try library.fetchAssets(inCollectionWithLocalIdentifier: deleted.localIdentifier).map(
                \.localIdentifier)
            count = try library.fetchAssets().count
            token = try library.currentChangeToken()
            faces = try library.faces(in: try #require(try library.fetchAssets().firstObject))
        }
    }

    /// A folder library of real photos, an HEVC movie (a job waiting), a favourite, an album,
    /// one photo in Recently Deleted, two users and the second one's library with a photo.
    static func makeFolderLibrary(_ folder: TemporaryDirectory) async throws -> (PhotoLibrary, album: String) {
        let library = try PhotoLibrary(url: folder.url.appendingPathComponent("Home.lightbox"))
        #expect(library.store is SQLiteStore)
        let movie = folder.path("HEVC_0001.MOV")
        try FFmpeg.hevc(try Corpus.path(Corpus.livePhotoMovie), to: movie)
        let photos = Array(try Corpus.photoPaths().prefix(6))
        let summary = await library.importItems(at: (photos + [movie]).map(URL.init(fileURLWithPath:)))
        #expect(summary.progress.failed == 0, "\(summary)")
        let ids = try library.fetchAssets().map(\.localIdentifier)
        var album: ObjectPlaceholder?
        try await library.performChanges { changes in
            changes.changeRequest(forAssetWithLocalIdentifier: ids[0]).isFavorite = true
            let request = changes.creationRequestForAssetCollection(withTitle: "Iceland")
            request.addAssets([ids[2], ids[1]])
            album = request.placeholderForCreatedAssetCollection
        }
        try await library.performChanges { $0.deleteAssets([ids[3]]) }
        let first = try #require(try await library.asset(withLocalIdentifier: ids[0]))
        let faces = try await library.recordFaces(
            [FaceCatalogTests.face(0.1, 0.1, 0.2, quality: 0.6, seed: 1)], in: first, model: "m1")
        #expect(faces.count == 1)
        let accounts = try SQLiteAccountStore(libraryURL: library.url)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let memberFolder = "users/0af3c2d1-5b7e-4a8f-9c1d-2e3f4a5b6c7d"
        try await accounts.addUser(
            UserAccount(id: "u1", name: "ann", role: .admin, passwordHash: "h1", libraryFolder: "", creationDate: now))
        try await accounts.addUser(
            UserAccount(
                id: "u2", name: "bob", role: .member, passwordHash: "h2", libraryFolder: memberFolder, creationDate: now
            ))
        let member = try PhotoLibrary(url: library.url.appendingPathComponent(memberFolder))
        _ = await member.importItems(at: [
            URL(fileURLWithPath: try Corpus.path("forensics/original-files/pic1/IMG_1054.JPG"))
        ])
        #expect(try member.fetchAssets().count == 1)
        return (library, try #require(album).localIdentifier)
    }

    @Test("Everything moves: assets, albums, trash, history, jobs, accounts, members, originals; the folder switches")
    func migrates() async throws {
        let folder = try TemporaryDirectory()
        let (library, album) = try await Self.makeFolderLibrary(folder)
        let before = try Snapshot(library, album: album)
        let stored = try await library.store.read { try $0.storedResources() }
        let database = try Services.makePostgresDatabase()
        let (settings, _) = try ObjectStorageLibraryTests.bucket()
        let environment = ObjectStorageLibraryTests.environment
        let summary = try library.migrate(to: database, originals: settings, environment: environment)
        #expect(summary.members == 1 && !summary.resumed)
        #expect(summary.originals == Set(stored.map(\.storedPath)).count, "\(summary)")

        let moved = try PhotoLibrary(url: library.url, environment: environment)
        #expect(moved.store is PostgresStore)
        #expect(try Snapshot(moved, album: album) == before)
        for name in ["library.sqlite.migrated", "originals.migrated", "accounts.sqlite.migrated", "storage.json"] {
            #expect(FileManager.default.fileExists(atPath: library.url.path + "/" + name), "\(name)")
        }
        #expect(!FileManager.default.fileExists(atPath: library.url.path + "/library.sqlite"))
        // Every original, read back from the bucket, is the file it was.
        for resource in stored {
            let asset = try #require(try await moved.asset(withLocalIdentifier: resource.assetLocalIdentifier))
            let copy = try #require(asset.resources.first { $0.type == resource.type })
            let file = try await moved.fileURL(for: copy).path
            #expect(file.hasPrefix(library.url.path + "/cache/originals/"))
            #expect(
                FileManager.default.contentsEqual(
                    atPath: file, andPath: library.url.path + "/originals.migrated/" + resource.storedPath))
        }
        // History goes on from the last token, and new rows get new ids.
        try await moved.performChanges {
            $0.changeRequest(forAssetWithLocalIdentifier: before.assets[1]).isFavorite = true
        }
        #expect(try moved.currentChangeToken().rawValue == before.token.rawValue + 1)
        #expect(try moved.fetchPersistentChanges(since: PersistentChangeToken(rawValue: 0)).count > 3)
        let summaryAgain = await moved.importItems(at: [URL(fileURLWithPath: try Corpus.photoPaths()[6])])
        #expect(summaryAgain.progress.imported == 1, "\(summaryAgain)")
        // The movie's job came along; the photos' faces, places, text and things jobs wait for a runner
        // with a service.
        #expect(
            try await moved.jobQueue().waiting == [
                .playableMovie: 1, .faces: 1, .places: 1, .text: 1, .things: 1, .clip: 1,
            ],
            "the waiting jobs came along")
        // The accounts and the member's library, on PostgreSQL.
        #expect(try await moved.accountStore().users().map(\.name) == ["ann", "bob"])
        let member = try moved.memberLibrary(
            folder: "users/0af3c2d1-5b7e-4a8f-9c1d-2e3f4a5b6c7d", environment: environment)
        #expect(member.store is PostgresStore)
        #expect(try member.fetchAssets().count == 1)
        // Migrated, it cannot be again; another library into the same database is refused.
        #expect(throws: LibraryError.self) {
            try moved.migrate(to: database, originals: settings, environment: environment)
        }
        let other = try PhotoLibrary(url: folder.url.appendingPathComponent("Other.lightbox"))
        _ = await other.importItems(at: [
            URL(fileURLWithPath: try Corpus.path("forensics/original-files/pic1/IMG_1054.JPG"))
        ])
        let refused = try #require(throws: LibraryError.self) { try other.migrate(to: database, originals: nil) }
        #expect(refused.message.contains("migrated from"), "\(refused.message)")
        #expect(try other.fetchAssets().count == 1 && other.store is SQLiteStore)
    }

    @Test(
        "A migration killed after a copy (the member's, first), its folder not switched, is finished by running it again"
    )
    func resumes() async throws {
        let folder = try TemporaryDirectory()
        // Closed before the command runs: a migration refuses a library another process has open.
        let (url, album, before) = try await {
            let (library, album) = try await Self.makeFolderLibrary(folder)
            return (library.url, album, try Snapshot(library, album: album))
        }()
        let database = try Services.makePostgresDatabase()
        let (settings, _) = try ObjectStorageLibraryTests.bucket()
        let arguments = [
            "migrate", "--library", url.path, "--to", database, "--originals", settings.url, "--s3-endpoint",
            settings.endpoint ?? "",
        ]
        let said = try CommandLineTests.runKilled(
            arguments, at: "migrate-copied", environment: ObjectStorageLibraryTests.environment)
        #expect(said.contains("catalog: asset,"), "\(said)")
        // Killed before the switch: the folder is still the SQLite library, whole.
        #expect(FileManager.default.fileExists(atPath: url.path + "/library.sqlite"))
        #expect(try Snapshot(try PhotoLibrary(url: url), album: album) == before)
        // The command's own refusal while this process has it open.
        do {
            let open = try PhotoLibrary(url: url)
            let refused = try CommandLineTests.run(arguments, environment: ObjectStorageLibraryTests.environment)
            #expect(
                refused.status == 1 && refused.stderr.contains("1 other process has the library open"),
                "\(refused.stderr)")
            withExtendedLifetime(open) {}
        }
        let again = try CommandLineTests.run(arguments, environment: ObjectStorageLibraryTests.environment)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stderr.contains("Migrated, going on from where an earlier run stopped"), "\(again.stderr)")
        let moved = try PhotoLibrary(url: url, environment: ObjectStorageLibraryTests.environment)
        #expect(moved.store is PostgresStore)
        #expect(try Snapshot(moved, album: album) == before)
        let member = try moved.memberLibrary(
            folder: "users/0af3c2d1-5b7e-4a8f-9c1d-2e3f4a5b6c7d", environment: ObjectStorageLibraryTests.environment)
        #expect(try member.fetchAssets().count == 1)
        let check = try CommandLineTests.run(
            ["check", "--library", url.path], environment: ObjectStorageLibraryTests.environment)
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
    }
}
