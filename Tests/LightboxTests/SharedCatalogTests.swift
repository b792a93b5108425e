import Foundation
import Lightbox
import LightboxTestSupport
import Testing

/// Two library folders, as two servers keep them, on one PostgreSQL catalog and one bucket
/// (the servers scripts/services starts): what one imports the other fetches, hears of and
/// reads; the same files imported through both at once make one asset each.
@Suite(
    "Several folders on one PostgreSQL catalog and one bucket",
    .enabled(if: Services.postgresEnabled && Services.s3Enabled))
struct SharedCatalogTests {
    /// A catalog and a bucket, the first folder making the library in them and the second
    /// joining it with the catalog's address alone.
    static func twoFolders(_ folder: TemporaryDirectory) throws -> (PhotoLibrary, PhotoLibrary, database: String) {
        let database = try Services.makePostgresDatabase()
        let (settings, _) = try ObjectStorageLibraryTests.bucket()
        let environment = ObjectStorageLibraryTests.environment
        let first = try PhotoLibrary(
            url: folder.url.appendingPathComponent("One.lightbox"), originals: settings, database: database,
            environment: environment)
        let second = try PhotoLibrary(
            url: folder.url.appendingPathComponent("Two.lightbox"), database: database, environment: environment)
        return (first, second, database)
    }

    @Test("A folder joining with the catalog alone finds the bucket, fetches, hears of and reads the other's imports")
    func joining() async throws {
        let folder = try TemporaryDirectory()
        defer { withExtendedLifetime(folder) {} }
        let (first, second, database) = try Self.twoFolders(folder)
        let before = try second.fetchAssets()
        #expect(before.count == 0)
        let stream = try second.changes()
        let photo = try Corpus.path("forensics/original-files/pic1/IMG_1054.JPG")
        let summary = await first.importItems(at: [URL(fileURLWithPath: photo)])
        #expect(summary.progress.imported == 1, "\(summary)")

        // The second hears of it (PostgreSQL's notification of the commit), with details.
        var iterator = stream.makeAsyncIterator()
        let change = try #require(await iterator.next())
        let details = try #require(change.details(for: before))
        #expect(details.insertedIndexes == [0])
        let asset = try #require(details.fetchResultAfterChanges.firstObject)
        #expect(try second.fetchAssets().map(\.localIdentifier) == [asset.localIdentifier])
        // ...and reads its original from the bucket the catalog names.
        let resource = try #require(asset.resource(ofType: .photo))
        let file = try await second.fileURL(for: resource).path
        #expect(file.hasPrefix(second.url.path + "/cache/originals/"))
        #expect(FileManager.default.contentsEqual(atPath: file, andPath: photo))

        // Both folders name the catalog and the bucket: opened again with nothing more.
        let reopened = try PhotoLibrary(url: second.url, environment: ObjectStorageLibraryTests.environment)
        #expect(try await reopened.assetCount() == 1)
        // Given again, spelled another way, the same catalog opens; another one is refused.
        let respelled = database.replacingOccurrences(of: "postgres://", with: "postgresql://")
        #expect(
            try await PhotoLibrary(
                url: second.url, database: respelled, environment: ObjectStorageLibraryTests.environment
            )
            .assetCount() == 1)
        let other = #expect(throws: LibraryError.self) {
            try PhotoLibrary(
                url: second.url, database: try Services.makePostgresDatabase(),
                environment: ObjectStorageLibraryTests.environment)
        }
        #expect(other?.message.contains("catalog is at") == true)
        #expect(PhotoLibrary.isLibrary(second.url.path))
        #expect(!FileManager.default.fileExists(atPath: second.url.path + "/" + PhotoLibrary.databaseFilename))
    }

    @Test("The same files imported through both folders at once make one asset each")
    func simultaneousImports() async throws {
        let folder = try TemporaryDirectory()
        defer { withExtendedLifetime(folder) {} }
        let (first, second, _) = try Self.twoFolders(folder)
        let photos = try Corpus.photoPaths().map { URL(fileURLWithPath: $0) }
        async let one = first.importItems(at: photos)
        async let two = second.importItems(at: photos)
        let (a, b) = await (one, two)
        #expect(a.progress.failed == 0 && b.progress.failed == 0, "\(a) \(b)")
        #expect(a.progress.imported + b.progress.imported == photos.count, "\(a) \(b)")
        #expect(a.progress.duplicates + b.progress.duplicates == photos.count, "\(a) \(b)")
        #expect(try await first.assetCount() == photos.count)
        #expect(Set(try first.fetchAssets().map(\.localIdentifier)).count == photos.count)
    }

    @Test("Both folders' servers have one set of accounts: a user, a session, a token and a share made through one")
    func sharedAccounts() async throws {
        let folder = try TemporaryDirectory()
        defer { withExtendedLifetime(folder) {} }
        let (first, second, _) = try Self.twoFolders(folder)
        let one = try first.accountStore()
        let two = try second.accountStore()
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let ann = UserAccount(
            id: "u1", name: "Ann", role: .admin, passwordHash: "hash", libraryFolder: "", creationDate: now)
        try await one.addUser(ann)
        #expect(try await two.user(named: "ANN") == ann, "names compare without case, through either")
        await #expect(throws: LibraryError.self) {
            try await two.addUser(
                UserAccount(
                    id: "u2", name: "ann", role: .member, passwordHash: "h", libraryFolder: "users/u2",
                    creationDate: now))
        }
        let session = SignInSession(
            id: "s1", userID: "u1", secretHash: "secret", creationDate: now, lastSeenDate: now,
            expirationDate: now.addingTimeInterval(3600), userAgent: "test", address: "127.0.0.1")
        try await one.addSession(session)
        #expect(try await two.session(secretHash: "secret")?.0 == session, "a sign-in through one is good on the other")
        let token = AccessToken(
            id: "t1", userID: "u1", name: "backup", secretHash: "token", scope: .read, limitedTo: ["A", "B"],
            creationDate: now, expirationDate: nil, lastUsedDate: nil)
        try await two.addToken(token)
        #expect(try await one.token(secretHash: "token")?.0 == token)
        let share = AlbumShare(
            id: "sh1", ownerID: "u1", albumIdentifier: "album", audience: .link(key: "key"), permission: .view,
            passwordHash: nil, expirationDate: nil, creationDate: now)
        try await one.addShare(share)
        #expect(try await two.share(linkKey: "key")?.0 == share)
        // Removed through the second, gone for the first, sessions and tokens with the user.
        #expect(try await two.removeUser(id: "u1"))
        #expect(try await one.hasUsers() == false)
        #expect(try await one.session(secretHash: "secret") == nil)
        #expect(try await one.token(secretHash: "token") == nil)
    }

    @Test(
        "A member's library is a schema of the same database and a prefix of the same bucket, the same from both folders"
    )
    func memberLibraries() async throws {
        let folder = try TemporaryDirectory()
        defer { withExtendedLifetime(folder) {} }
        let (first, second, _) = try Self.twoFolders(folder)
        let memberFolder = "users/0af3c2d1-5b7e-4a8f-9c1d-2e3f4a5b6c7d"
        let one = try first.memberLibrary(folder: memberFolder, environment: ObjectStorageLibraryTests.environment)
        let two = try second.memberLibrary(folder: memberFolder, environment: ObjectStorageLibraryTests.environment)
        let photo = try Corpus.path("forensics/original-files/pic1/IMG_1054.JPG")
        let summary = await one.importItems(at: [URL(fileURLWithPath: photo)])
        #expect(summary.progress.imported == 1, "\(summary)")
        // The member's folder on the other server names the same catalog: it sees the import.
        let asset = try #require(try two.fetchAssets().firstObject)
        #expect(try one.fetchAssets().firstObject?.localIdentifier == asset.localIdentifier)
        // ...and reads it from the bucket, under the member's own prefix.
        let file = try await two.fileURL(for: try #require(asset.resource(ofType: .photo))).path
        #expect(FileManager.default.contentsEqual(atPath: file, andPath: photo))
        let placement = try String(contentsOf: two.url.appendingPathComponent("storage.json"), encoding: .utf8)
        #expect(placement.contains("schema=m_0af3c2d15b7e4a8f9c1d2e3f4a5b6c7d"), "\(placement)")
        #expect(placement.contains("/family/users/0af3c2d1-5b7e-4a8f-9c1d-2e3f4a5b6c7d"), "\(placement)")
        // The server's own library is another: it holds none of the member's assets.
        #expect(try first.fetchAssets().count == 0)
        #expect(try second.fetchAssets().count == 0)
    }
}
