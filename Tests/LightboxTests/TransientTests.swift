import Foundation
import Lightbox
import LightboxTestSupport
import Testing

@Suite("Transient collections and lists")
struct TransientTests {
    @Test("A transient collection and list work where stored ones do, and store nothing")
    func transient() async throws {
        let folder = try TemporaryDirectory()
        let library = try folder.makeLibrary()
        _ = await library.importItems(at: try Corpus.photoPaths().prefix(4).map { URL(fileURLWithPath: $0) })
        let assets = Array(try library.fetchAssets())
        let picked = [assets[3], assets[0], assets[2]]
        let collection = AssetCollection.transientAssetCollection(with: picked, title: "Picked")
        #expect(collection.isTransient)
        #expect(collection.estimatedAssetCount == 3)
        let result = try library.fetchAssets(in: collection)
        #expect(result.map(\.localIdentifier) == picked.map(\.localIdentifier))
        #expect(result.index(of: assets[0]) == 1)
        #expect(!result.contains(assets[1]))
        let limited = try library.fetchAssets(in: collection, options: FetchOptions(fetchLimit: 2))
        #expect(limited.map(\.localIdentifier) == [assets[3].localIdentifier, assets[0].localIdentifier])
        let sorted = try library.fetchAssets(
            in: collection, options: FetchOptions(sortDescriptors: [FetchSortDescriptor(key: "creationDate")]))
        #expect(Set(sorted.map(\.localIdentifier)) == Set(picked.map(\.localIdentifier)))

        var album = ""
        try await library.performChanges { changes in
            album = changes.creationRequestForAssetCollection(withTitle: "Stored").localIdentifier
        }
        let stored = try #require(try library.fetchAssetCollections(withLocalIdentifiers: [album]).firstObject)
        let list = CollectionList.transientCollectionList(
            with: [.assetCollection(collection), .assetCollection(stored)], title: "Mixed")
        #expect(try library.fetchCollections(in: list).map(\.localizedTitle) == ["Picked", "Stored"])
        #expect(try library.fetchAssetCollections(with: .album).count == 1, "nothing transient was stored")

        // Transient results diff like fetched ones.
        let fewer = try library.fetchAssets(
            in: AssetCollection.transientAssetCollection(with: [assets[3], assets[2]], title: nil))
        let details = FetchResultChangeDetails(from: result, to: fewer, changedObjects: [])
        #expect(details.removedIndexes == [1])
    }
}
