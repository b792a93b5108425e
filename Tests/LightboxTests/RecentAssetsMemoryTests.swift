import Foundation
import LightboxTestSupport
import Synchronization
import Testing

@testable import Lightbox
@testable import LightboxStore

/// What `recentAsset` is for: the same identifiers answered without reading the catalog again.
@Suite("Recent assets, from memory")
struct RecentAssetsMemoryTests {
    @Test("An asset asked for again is not read again, until a write of this process empties the memory")
    func memory() async throws {
        let folder = try TemporaryDirectory()
        let library = try folder.makeLibrary()
        _ = await library.importItems(at: Array(try Corpus.photoPaths().prefix(1)).map { URL(fileURLWithPath: $0) })
        let id = try #require(try await library.assets().first?.localIdentifier)
        let reads = { library.recentAssets.catalogReads.load(ordering: .relaxed) }
        #expect(try await library.recentAsset(withLocalIdentifier: id) != nil)
        #expect(reads() == 1)
        for _ in 0..<20 { #expect(try await library.recentAsset(withLocalIdentifier: id) != nil) }
        #expect(reads() == 1, "answered from memory")
        try await library.performChanges { $0.changeRequest(forAssetWithLocalIdentifier: id).isFavorite = true }
        #expect(try await library.recentAsset(withLocalIdentifier: id)?.isFavorite == true)
        #expect(reads() == 2, "read again after the write")
    }
}
