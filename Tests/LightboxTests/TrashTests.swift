import Crypto
import Foundation
import LightboxImaging
import LightboxTestSupport
import Testing

@testable import Lightbox
@testable import LightboxStore

#if canImport(Glibc)
    import Glibc
#endif

/// Recently Deleted: deleting keeps an asset for the retention, restoring brings it back
/// whole, purging removes it and its files, and a purge killed at any point leaves a library
/// whose rows and files agree.
@Suite("Recently Deleted")
struct TrashTests {
    static func trash(_ library: PhotoLibrary) throws -> AssetCollection {
        try #require(
            try library.fetchAssetCollections(with: .smartAlbum, subtype: .smartAlbumRecentlyDeleted).firstObject)
    }

    @Test("A deleted asset leaves every fetch and album, waits in Recently Deleted, and comes back whole")
    func deleteAndRestore() async throws {
        let folder = try TemporaryDirectory()
        let (library, assets) = try await ChangeTests.makeLibrary(folder, count: 3)
        let ids = assets.map(\.localIdentifier)
        var albumID = ""
        try await library.performChanges { changes in
            let album = changes.creationRequestForAssetCollection(withTitle: "Trip")
            album.addAssets(ids)
            albumID = album.localIdentifier
            changes.changeRequest(for: assets[1]).isFavorite = true
        }
        let edited = try await library.edit(assets[1], with: RecipeEditor(adding: [.exposure(0.5)]))
        let original = try await library.fileURL(for: try #require(edited.resource(ofType: .photo))).path
        let everything = try library.fetchAssets(
            options: FetchOptions(includeHiddenAssets: true, includeAllBurstAssets: true))
        let inAlbum = try library.fetchAssets(inCollectionWithLocalIdentifier: albumID)
        let inTrash = try library.fetchAssets(in: try Self.trash(library))
        let token = try library.currentChangeToken()
        let changes = try library.changes()

        try await library.performChanges { $0.deleteAssets([ids[1]]) }

        // Out of every fetch, album and count.
        #expect(try library.fetchAssets().map(\.localIdentifier).sorted() == [ids[0], ids[2]].sorted())
        #expect(try library.fetchAssets(withLocalIdentifiers: [ids[1]]).count == 0)
        #expect(
            try library.fetchAssets(inCollectionWithLocalIdentifier: albumID).map(\.localIdentifier) == [
                ids[0], ids[2],
            ])
        let favorites = try #require(
            try library.fetchAssetCollections(with: .smartAlbum, subtype: .smartAlbumFavorites).firstObject)
        #expect(try library.fetchAssets(in: favorites).count == 0 && favorites.estimatedAssetCount == 0)
        #expect(try await library.assetCount() == 2)
        #expect(try await library.assets().count == 2)
        // In Recently Deleted, with its date, its files and its state.
        let trash = try Self.trash(library)
        #expect(trash.estimatedAssetCount == 1 && trash.localizedTitle == "Recently Deleted")
        let trashed = try #require(try library.fetchAssets(in: trash).firstObject)
        #expect(trashed.localIdentifier == ids[1] && trashed.trashedDate != nil)
        #expect(trashed.isFavorite && trashed.hasAdjustments)
        #expect(try await library.asset(withLocalIdentifier: ids[1])?.trashedDate != nil)
        #expect(FileManager.default.fileExists(atPath: original))
        // A deleted asset cannot be changed, nor deleted again.
        for refused in [
            { (c: ChangeRequests) in c.changeRequest(forAssetWithLocalIdentifier: ids[1]).isFavorite = false },
            { (c: ChangeRequests) in c.deleteAssets([ids[1]]) },
        ] {
            await #expect(throws: LibraryError.self) { try await library.performChanges(refused) }
        }
        // History and observers see a deletion to Recently Deleted, not a purge.
        let history = try library.fetchPersistentChanges(since: token)
        #expect(history.count == 1)
        let details = try #require(history.first).changeDetails(for: .asset)
        #expect(details.trashedLocalIdentifiers == [ids[1]] && details.deletedLocalIdentifiers.isEmpty)
        #expect(try #require(history.first).changeDetails(for: .assetCollection).updatedLocalIdentifiers == [albumID])
        var iterator = changes.makeAsyncIterator()
        let change = try #require(await iterator.next())
        let objectDetails = try #require(change.details(for: assets[1]))
        // PhotoKit's observers hear a deletion: deleted, no object after; Lightbox's flag says
        // it went to Recently Deleted.
        #expect(objectDetails.objectWasTrashed && objectDetails.objectWasDeleted)
        #expect(objectDetails.objectAfterChanges == nil)
        #expect(change.details(for: everything)?.removedIndexes == [everything.index(of: assets[1])!])
        #expect(change.details(for: inAlbum)?.removedIndexes == [1])
        // Recently Deleted's result, fetched again for the details, is still the trash.
        let trashDetails = try #require(change.details(for: inTrash))
        #expect(trashDetails.insertedIndexes == [0] && trashDetails.removedIndexes.isEmpty)
        #expect(trashDetails.fetchResultAfterChanges.map(\.localIdentifier) == [ids[1]])

        // Restored: in its album where it was, favourite and edited as before.
        try await library.performChanges { $0.restoreAssets([ids[1]]) }
        #expect(try library.fetchAssets(inCollectionWithLocalIdentifier: albumID).map(\.localIdentifier) == ids)
        let back = try #require(try await library.asset(withLocalIdentifier: ids[1]))
        #expect(back.trashedDate == nil && back.isFavorite && back.hasAdjustments)
        #expect(back.resources.map(\.sha256).sorted() == edited.resources.map(\.sha256).sorted())
        #expect(try library.fetchAssets(in: try Self.trash(library)).count == 0)
        #expect(try library.fetchAssets(in: favorites).count == 1)
        let restoreChange = try #require(await iterator.next())
        #expect(restoreChange.details(for: assets[1])?.objectWasRestored == true)
        #expect(restoreChange.persistentChange.changeDetails(for: .asset).restoredLocalIdentifiers == [ids[1]])
        await #expect(throws: LibraryError.self) { try await library.performChanges { $0.restoreAssets([ids[1]]) } }

        // Importing a deleted asset's file again brings it back.
        try await library.performChanges { $0.deleteAssets([ids[2]]) }
        let again = await library.importItems(at: try Corpus.photoPaths().prefix(3).map { URL(fileURLWithPath: $0) })
        #expect(again.progress.duplicates == 3)
        #expect(try await library.asset(withLocalIdentifier: ids[2])?.trashedDate == nil)
        #expect(try library.fetchAssets().count == 3)
    }

    @Test("Purging removes the rows and the originals; the retention purges what waited too long")
    func purge() async throws {
        let folder = try TemporaryDirectory()
        let (library, assets) = try await ChangeTests.makeLibrary(folder, count: 3)
        let ids = assets.map(\.localIdentifier)
        var originals: [String] = []
        for asset in assets {
            originals.append(try await library.fileURL(for: try #require(asset.resource(ofType: .photo))).path)
        }
        #expect(try library.trashRetention() == PhotoLibrary.defaultTrashRetention)
        try await library.performChanges { $0.deleteAssets([ids[0], ids[1]]) }
        let token = try library.currentChangeToken()

        // Emptied: gone from the database and the disk; history says deleted.
        try await library.performChanges { $0.purgeAssets([ids[0]]) }
        #expect(try await library.asset(withLocalIdentifier: ids[0]) == nil)
        #expect(!FileManager.default.fileExists(atPath: originals[0]))
        #expect(
            try library.fetchPersistentChanges(since: token).first?.changeDetails(for: .asset).deletedLocalIdentifiers
                == [ids[0]])

        // A retention of 0 purges what is in Recently Deleted now, and at every open.
        try library.setTrashRetention(0)
        #expect(try await library.asset(withLocalIdentifier: ids[1]) == nil)
        #expect(!FileManager.default.fileExists(atPath: originals[1]))
        try await library.performChanges { $0.deleteAssets([ids[2]]) }
        let reopened = try PhotoLibrary(url: library.url)
        #expect(try await reopened.asset(withLocalIdentifier: ids[2]) == nil)
        #expect(!FileManager.default.fileExists(atPath: originals[2]))
        #expect(throws: LibraryError.self) { try reopened.setTrashRetention(-1) }
    }

    /// Every resource's file is there and whole; returns the stored paths.
    @discardableResult
    static func expectRowsHaveFiles(_ library: PhotoLibrary, _ comment: String) async throws -> [String] {
        let stored = try library.withCatalog { db in
            try db.rows("SELECT storedPath, sha256 FROM resource").map {
                (try $0.text("storedPath"), try $0.text("sha256"))
            }
        }
        let root = library.url.appendingPathComponent("originals").path
        for (path, sha256) in stored {
            let bytes = try? Data(contentsOf: URL(fileURLWithPath: root + "/" + path))
            #expect(
                bytes.map { SHA256.hash(data: $0).map { String(format: "%02x", $0) }.joined() } == sha256,
                "\(comment): \(path)")
        }
        return stored.map(\.0)
    }

    /// Every resource's file is there and whole, and every file in originals/ is a resource's.
    static func expectConsistent(_ library: PhotoLibrary, _ comment: String) async throws {
        let stored = try await expectRowsHaveFiles(library, comment)
        let root = library.url.appendingPathComponent("originals").path
        let files = (FileManager.default.subpaths(atPath: root) ?? []).filter { !$0.hasPrefix(".") && $0.contains(".") }
        #expect(Set(files) == Set(stored), "\(comment): files no row knows of, or rows without files")
        #expect(try library.withCatalog { try $0.integer("SELECT COUNT(*) FROM pendingRemoval") } == 0)
    }

    @Test(
        "A purge killed at any point leaves no asset without its original and no original without an asset",
        arguments: ["changes-applied", "changes-committed", "removing-originals"])
    func killedPurge(point: String) async throws {
        let folder = try TemporaryDirectory()
        let (library, assets) = try await ChangeTests.makeLibrary(folder, count: 3)
        _ = try await library.edit(assets[0], with: RecipeEditor(adding: [.mono(1)]))
        try await library.performChanges { $0.deleteAssets([assets[0].localIdentifier, assets[1].localIdentifier]) }

        // `lightbox trash empty --yes` in its own process, stopped at `point` and killed there.
        let said = try CommandLineTests.runKilled(
            ["trash", "empty", "--yes", "--library", library.url.path], at: point)
        #expect(said.contains("paused at \(point)"), "the purge reached \(point): \(said)")

        // Reopened, the library finishes what was committed, and rows and files agree.
        let reopened = try PhotoLibrary(url: library.url)
        let purged = point != "changes-applied"
        for asset in assets.prefix(2) {
            #expect((try await reopened.asset(withLocalIdentifier: asset.localIdentifier) == nil) == purged, "\(point)")
        }
        #expect(try await reopened.asset(withLocalIdentifier: assets[2].localIdentifier)?.trashedDate == nil)
        try await Self.expectConsistent(reopened, point)
        // And it purges again.
        try reopened.emptyTrash()
        try await Self.expectConsistent(reopened, point + ", emptied")
        #expect(try await reopened.assetCount() == 1)
    }

    @Test("delete, trash ls, restore and delete --permanently on the command line")
    func commandLine() throws {
        let folder = try TemporaryDirectory()
        let library = folder.path("CLI.lightbox")
        let imported = try CommandLineTests.run(
            ["import", "--library", library, "--json"] + Array(try Corpus.photoPaths().prefix(2)))
        let ids = try imported.jsonLines().compactMap { $0["localIdentifier"] as? String }
        func run(_ arguments: [String]) throws -> CommandLineTests.Run {
            try CommandLineTests.run(arguments + ["--library", library])
        }
        let deleted = try run(["delete", String(ids[0].prefix(8))])
        #expect(deleted.status == 0 && deleted.stderr.contains("moved to Recently Deleted"), "\(deleted.stderr)")
        #expect(try run(["ls", "--json"]).jsonLines().compactMap { $0["localIdentifier"] as? String } == [ids[1]])
        let listed = try run(["trash", "ls"])
        #expect(listed.stdout.contains(ids[0]) && listed.stdout.contains("30 days left"), "\(listed.stdout)")
        #expect(try run(["ls", "--in", "Recently Deleted", "--json"]).jsonLines().count == 1)
        #expect(try run(["restore", String(ids[0].prefix(6))]).status == 0)
        #expect(try run(["ls", "--json"]).jsonLines().count == 2)

        // For good: without a terminal and without --yes, nothing goes.
        let unconfirmed = try run(["delete", "--permanently", ids[0]])
        #expect(unconfirmed.status == 1 && unconfirmed.stderr.contains("give --yes"), "\(unconfirmed.stderr)")
        #expect(unconfirmed.stderr.contains(ids[0]), "it says what it would remove")
        #expect(try run(["ls", "--json"]).jsonLines().count == 2)
        #expect(try run(["delete", "--permanently", "--yes", ids[0]]).status == 0)
        #expect(try run(["show", ids[0]]).status == 1)
        #expect(try run(["delete", ids[1]]).status == 0)
        #expect(try run(["trash", "empty", "--yes"]).stderr.contains("1 asset deleted for good"))
        #expect(
            try run(["history", "--json"]).jsonLines().last.flatMap {
                ($0["asset"] as? [String: Any])?["deletedLocalIdentifiers"] as? [String]
            } == [ids[1]])
    }
}

/// `import --move`, `delete` and `revert` killed at each point of their commit: the library
/// opens, every row's file is there, and nothing a user had is lost.
@Suite("Processes killed while they write")
struct KilledWriterTests {
    @Test(
        "import and import --move killed before or after its commit lose no photo and leave no stray file",
        arguments: [
            ("--move", "import-stored"), ("--move", "import-committed"), ("", "import-stored"),
            ("", "import-committed"),
        ])
    func killedMove(move: String, point: String) async throws {
        let folder = try TemporaryDirectory()
        let source = try folder.copy(Corpus.path("digikam/body-background.jpg"), as: "card/IMG_0001.JPG")
        let library = folder.path("Moved.lightbox")
        let said = try CommandLineTests.runKilled(
            ["import"] + (move.isEmpty ? [] : [move]) + ["--library", library, source], at: point)
        #expect(said.contains("paused at \(point)"), "\(said)")
        let reopened = try PhotoLibrary(url: URL(fileURLWithPath: library))
        let assets = try reopened.fetchAssets()
        // The photo is the source, still in place, or an asset whose original is whole.
        #expect(
            FileManager.default.fileExists(atPath: source), "the source is removed only after the commit is done with")
        #expect(assets.count == (point == "import-committed" ? 1 : 0))
        // The original stored before the kill is the asset's, or gone with its marker.
        try await TrashTests.expectConsistent(reopened, point)
        // The move, done again, ends with the photo in the library and the source gone.
        let again = await reopened.importItems(
            at: [URL(fileURLWithPath: source)], options: ImportOptions(shouldMoveFile: true))
        #expect(again.progress.failed == 0)
        #expect(!FileManager.default.fileExists(atPath: source))
        #expect(try reopened.fetchAssets().count == 1)
    }

    @Test(
        "delete and revert killed at each point of their commit leave the asset whole, before or after",
        arguments: [
            ("delete", "changes-applied"), ("delete", "changes-committed"), ("revert", "changes-applied"),
            ("revert", "changes-committed"),
        ])
    func killedChange(command: String, point: String) async throws {
        let folder = try TemporaryDirectory()
        let (library, assets) = try await ChangeTests.makeLibrary(folder, count: 2)
        let asset = try await library.edit(assets[0], with: RecipeEditor(adding: [.mono(1)]))
        let said = try CommandLineTests.runKilled(
            [command, "--library", library.url.path, asset.localIdentifier], at: point)
        #expect(said.contains("paused at \(point)"), "\(said)")
        let reopened = try PhotoLibrary(url: library.url)
        let after = try #require(try await reopened.asset(withLocalIdentifier: asset.localIdentifier))
        let committed = point == "changes-committed"
        if command == "delete" {
            #expect((after.trashedDate != nil) == committed)
            #expect(after.hasAdjustments, "a deleted asset keeps its edit")
        } else {
            #expect(after.hasAdjustments == !committed)
        }
        try await TrashTests.expectConsistent(reopened, "\(command) at \(point)")
    }
}
