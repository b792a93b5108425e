import Foundation
import GRDB
import Lightbox
import LightboxTestSupport
import Testing

@Suite("Smart albums, kept current by the library")
struct SmartAlbumTests {
    @Test("Smart albums follow their rules after every transaction, and refuse edits")
    func rules() async throws {
        let folder = try TemporaryDirectory()
        let library = try folder.makeLibrary()
        _ = await library.importItems(at: try Corpus.photoPaths().prefix(6).map { URL(fileURLWithPath: $0) })
        let assets = Array(try library.fetchAssets())
        let smart = try library.fetchAssetCollections(with: .smartAlbum)
        let bySubtype = Dictionary(uniqueKeysWithValues: smart.map { ($0.assetCollectionSubtype, $0) })
        for subtype: AssetCollectionSubtype in [
            .smartAlbumUserLibrary, .smartAlbumFavorites, .smartAlbumRecentlyAdded, .smartAlbumVideos, .smartAlbumBursts,
            .smartAlbumPanoramas, .smartAlbumLivePhotos, .smartAlbumScreenshots, .smartAlbumAllHidden,
        ] {
            #expect(bySubtype[subtype] != nil, "\(subtype)")
        }
        let favorites = try #require(bySubtype[.smartAlbumFavorites])
        let hidden = try #require(bySubtype[.smartAlbumAllHidden])
        let library_ = try #require(bySubtype[.smartAlbumUserLibrary])
        #expect(try library.fetchAssets(in: favorites).count == 0)
        #expect(try library.fetchAssets(in: library_).count == 6)
        #expect(try library.fetchAssets(in: try #require(bySubtype[.smartAlbumRecentlyAdded])).count == 6)

        try await library.performChanges { changes in
            changes.changeRequest(for: assets[0]).isFavorite = true
            changes.changeRequest(for: assets[1]).isFavorite = true
            changes.changeRequest(for: assets[2]).isHidden = true
        }
        #expect(Set(try library.fetchAssets(in: favorites).map(\.localIdentifier))
            == [assets[0].localIdentifier, assets[1].localIdentifier])
        #expect(try library.fetchAssets(in: hidden).map(\.localIdentifier) == [assets[2].localIdentifier])
        #expect(try library.fetchAssets(in: library_).count == 5)

        // Counts and dates agree with the fetches.
        let refreshed = Dictionary(
            uniqueKeysWithValues: try library.fetchAssetCollections(with: .smartAlbum).map { ($0.assetCollectionSubtype, $0) })
        #expect(refreshed[.smartAlbumFavorites]?.estimatedAssetCount == 2)
        #expect(refreshed[.smartAlbumAllHidden]?.estimatedAssetCount == 1)
        #expect(refreshed[.smartAlbumUserLibrary]?.estimatedAssetCount == 5)
        #expect(refreshed[.smartAlbumVideos]?.estimatedAssetCount == 0)
        #expect(refreshed[.smartAlbumFavorites]?.startDate == min(assets[0].creationDate, assets[1].creationDate))
        #expect(try library.fetchAssetCollections(with: .smartAlbum, subtype: .smartAlbumFavorites).count == 1)
        #expect(try library.fetchAssetCollections(with: .album).count == 0)

        let refused = await #expect(throws: LibraryError.self) {
            try await library.performChanges { changes in
                changes.changeRequest(for: favorites).addAssets([assets[3].localIdentifier])
            }
        }
        #expect(refused?.code == .invalidRequest)
    }

    @Test("Screenshots and Live Photos follow the asset's subtypes")
    func subtypes() async throws {
        let folder = try TemporaryDirectory()
        let library = try folder.makeLibrary()
        _ = await library.importItems(at: try Corpus.photoPaths().prefix(3).map { URL(fileURLWithPath: $0) })
        let ids = try library.fetchAssets().map(\.localIdentifier)
        // Subtypes come from metadata (issue #4); set them as the importer will.
        try await DatabaseQueue(path: library.url.appendingPathComponent("library.sqlite").path).write { db in
            try db.execute(sql: "UPDATE asset SET mediaSubtypes = 4 WHERE localIdentifier = ?", arguments: [ids[0]])
            try db.execute(sql: "UPDATE asset SET mediaSubtypes = 8 WHERE localIdentifier = ?", arguments: [ids[1]])
            try db.execute(sql: "INSERT INTO changeTransaction (date, author) VALUES (?, 'test')", arguments: [Date()])
        }
        let screenshots = try #require(
            try library.fetchAssetCollections(with: .smartAlbum, subtype: .smartAlbumScreenshots).firstObject)
        let live = try #require(try library.fetchAssetCollections(with: .smartAlbum, subtype: .smartAlbumLivePhotos).firstObject)
        #expect(try library.fetchAssets(in: screenshots).map(\.localIdentifier) == [ids[0]])
        #expect(try library.fetchAssets(in: live).map(\.localIdentifier) == [ids[1]])
    }
}
