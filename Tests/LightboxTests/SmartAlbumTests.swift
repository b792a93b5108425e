import Foundation
import LightboxTestSupport
import Testing

@testable import Lightbox
@testable import LightboxStore

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
            .smartAlbumUserLibrary, .smartAlbumFavorites, .smartAlbumRecentlyAdded, .smartAlbumVideos,
            .smartAlbumBursts,
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
        #expect(
            Set(try library.fetchAssets(in: favorites).map(\.localIdentifier))
                == [assets[0].localIdentifier, assets[1].localIdentifier])
        #expect(try library.fetchAssets(in: hidden).map(\.localIdentifier) == [assets[2].localIdentifier])
        #expect(try library.fetchAssets(in: library_).count == 5)

        // Counts and dates agree with the fetches.
        let refreshed = Dictionary(
            uniqueKeysWithValues: try library.fetchAssetCollections(with: .smartAlbum).map {
                ($0.assetCollectionSubtype, $0)
            })
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

    @Test("Screenshots, Live Photos and long exposures follow the asset's subtypes and playback style")
    func subtypes() async throws {
        let folder = try TemporaryDirectory()
        let library = try folder.makeLibrary()
        _ = await library.importItems(at: try Corpus.photoPaths().prefix(3).map { URL(fileURLWithPath: $0) })
        let ids = try library.fetchAssets().map(\.localIdentifier)
        // A screenshot, a Live Photo, and a Live Photo with the Long Exposure effect (shown as
        // a still), as the importer and the editor record them.
        try library.withCatalog { db in
            try db.execute("UPDATE asset SET mediaSubtypes = 4 WHERE localIdentifier = ?", [ids[0]])
            try db.execute("UPDATE asset SET mediaSubtypes = 8, playbackStyle = 3 WHERE localIdentifier = ?", [ids[1]])
            try db.execute("UPDATE asset SET mediaSubtypes = 8, playbackStyle = 1 WHERE localIdentifier = ?", [ids[2]])
            try db.execute("INSERT INTO changeTransaction (date, author) VALUES (?, 'test')", [Date()])
        }
        func album(_ subtype: AssetCollectionSubtype) throws -> [String] {
            let collection = try #require(
                try library.fetchAssetCollections(with: .smartAlbum, subtype: subtype).firstObject)
            return try library.fetchAssets(in: collection).map(\.localIdentifier)
        }
        #expect(try album(.smartAlbumScreenshots) == [ids[0]])
        #expect(Set(try album(.smartAlbumLivePhotos)) == [ids[1], ids[2]])
        #expect(try album(.smartAlbumLongExposures) == [ids[2]])
    }

    @Test("A photo from a front camera lands in Selfies")
    func selfies() async throws {
        let folder = try TemporaryDirectory()
        let library = try folder.makeLibrary()
        let source = try TemporaryDirectory()
        let front = try source.copy(Corpus.path("digikam/body-background.jpg"), as: "front.jpg")
        try ExifTool.write(["LensModel": "iPhone 7 front camera 2.87mm f/2.2"], to: front)
        let back = try Corpus.path("digikam/body-background.jpg")  // "iPhone 7 back camera 3.99mm f/1.8"
        let summary = await library.importItems(at: [front, back].map { URL(fileURLWithPath: $0) })
        #expect(summary.progress.imported == 2)
        let selfies = try #require(
            try library.fetchAssetCollections(with: .smartAlbum, subtype: .smartAlbumSelfPortraits).firstObject)
        let inSelfies = try library.fetchAssets(in: selfies)
        #expect(inSelfies.count == 1)
        #expect(inSelfies.firstObject?.resource(ofType: .photo)?.originalFilename == "front.jpg")
    }
}
