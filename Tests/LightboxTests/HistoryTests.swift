import Foundation
import Lightbox
import LightboxTestSupport
import Testing

@Suite("Persistent history")
struct HistoryTests {
    @Test("Every transaction is in the history, with what it inserted, updated and deleted")
    func history() async throws {
        let folder = try TemporaryDirectory()
        let library = try folder.makeLibrary()
        let start = try library.currentChangeToken()
        let paths = Array(try Corpus.photoPaths().prefix(3))
        _ = await library.importItems(at: paths.map { URL(fileURLWithPath: $0) })
        let assets = Array(try library.fetchAssets())
        let afterImport = try library.currentChangeToken()
        #expect(afterImport > start)

        var album = ""
        let albumToken = try await library.performChanges { changes in
            let request = changes.creationRequestForAssetCollection(withTitle: "History")
            request.addAssets([assets[0].localIdentifier])
            album = request.localIdentifier
            changes.changeRequest(for: assets[1]).isFavorite = true
        }
        let deletion = try await library.performChanges { changes in changes.deleteAssets([assets[2]]) }
        // A block answers its own transaction's token; one that changes nothing, none.
        #expect(deletion == (try library.currentChangeToken()))
        #expect(try await library.performChanges { _ in } == nil)

        let all = try library.fetchPersistentChanges(since: start)
        #expect(all.count == 5, "three imports and two blocks")
        let imported = all.prefix(3).flatMap { $0.changeDetails(for: .asset).insertedLocalIdentifiers }
        #expect(Set(imported) == Set(assets.map(\.localIdentifier)))
        #expect(all.map(\.changeToken) == all.map(\.changeToken).sorted())
        #expect(all.last?.changeToken == (try library.currentChangeToken()))

        let since = try library.fetchPersistentChanges(since: afterImport)
        #expect(since.count == 2)
        #expect(since[0].changeDetails(for: .assetCollection).insertedLocalIdentifiers == [album])
        #expect(since[0].changeToken == albumToken && since[1].changeToken == deletion)
        #expect(since[0].changeDetails(for: .asset).updatedLocalIdentifiers == [assets[1].localIdentifier])
        #expect(
            since[1].changeDetails(for: .asset).trashedLocalIdentifiers == [assets[2].localIdentifier],
            "to Recently Deleted")
        #expect(
            since[1].changeDetails(for: .collectionList) == PersistentObjectChangeDetails(objectType: .collectionList))
        #expect(try library.fetchPersistentChanges(since: try library.currentChangeToken()).isEmpty)
    }

    @Test("History beyond the retention is pruned, and older tokens expire")
    func retention() async throws {
        let folder = try TemporaryDirectory()
        let path = folder.url.appendingPathComponent("Short.lightbox")
        let library = try PhotoLibrary(url: path, historyRetention: HistoryRetention(maximumTransactions: 2))
        let first = try library.currentChangeToken()
        _ = await library.importItems(at: try Corpus.photoPaths().prefix(1).map { URL(fileURLWithPath: $0) })
        let asset = try #require(try library.fetchAssets().firstObject)
        for round in 0..<4 {
            try await library.performChanges { changes in changes.changeRequest(for: asset).isFavorite = round % 2 == 0
            }
        }
        let error = #expect(throws: LibraryError.self) { try library.fetchPersistentChanges(since: first) }
        #expect(error?.code == .persistentChangeTokenExpired)
        let current = try library.currentChangeToken()
        let recent = try library.fetchPersistentChanges(since: PersistentChangeToken(rawValue: current.rawValue - 2))
        #expect(recent.count == 2)
    }
}
