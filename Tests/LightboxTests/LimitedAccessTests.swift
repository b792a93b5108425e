import Foundation
import Lightbox
import LightboxTestSupport
import Testing

/// PhotoKit's limited access: through `limited(to:)` only the chosen assets exist, everywhere.
@Suite("Limited access")
struct LimitedAccessTests {
    @Test("Fetches, counts, smart albums, albums, moments and history show the selection and nothing else")
    func selection() async throws {
        let folder = try TemporaryDirectory()
        let library = try folder.makeLibrary()
        let paths = Array(try Corpus.photoPaths().prefix(5))
        _ = await library.importItems(at: paths.map { URL(fileURLWithPath: $0) })
        let ids = try library.fetchAssets().map(\.localIdentifier)
        try #require(ids.count == 5)
        var made = ("", "")
        try await library.performChanges { changes in
            let trip = changes.creationRequestForAssetCollection(withTitle: "Trip")
            trip.addAssets([ids[0], ids[1]])
            let other = changes.creationRequestForAssetCollection(withTitle: "Other")
            other.addAssets([ids[3]])
            made = (trip.localIdentifier, other.localIdentifier)
            changes.changeRequest(forAssetWithLocalIdentifier: ids[0]).isFavorite = true
            changes.changeRequest(forAssetWithLocalIdentifier: ids[3]).isFavorite = true
        }
        let (trip, other) = made
        let limited = library.limited(to: LimitedSelection(assetIdentifiers: [ids[2]], albumIdentifiers: [trip]))
        let visible = Set([ids[0], ids[1], ids[2]])

        #expect(Set(try limited.fetchAssets().map(\.localIdentifier)) == visible)
        #expect(try await limited.assetCount() == 3)
        #expect(try await limited.asset(withLocalIdentifier: ids[3]) == nil)
        #expect(try await limited.asset(withLocalIdentifier: ids[2]) != nil)
        #expect(Set(try await limited.assets().map(\.localIdentifier)) == visible)
        // Smart albums count what is visible; only the chosen album exists, and no folder.
        let favorites = try #require(
            try limited.fetchAssetCollections(with: .smartAlbum, subtype: .smartAlbumFavorites).firstObject)
        #expect(favorites.estimatedAssetCount == 1)
        #expect(try limited.fetchAssets(in: favorites).map(\.localIdentifier) == [ids[0]])
        #expect(try limited.fetchAssetCollections(with: .album).map(\.localIdentifier) == [trip])
        #expect(throws: LibraryError.self) { try limited.fetchAssets(inCollectionWithLocalIdentifier: other) }
        #expect(try limited.fetchCollectionLists(with: .folder).count == 0)
        // Moments are made of the visible assets alone.
        #expect(try limited.fetchMoments().reduce(0) { $0 + $1.estimatedAssetCount } == 3)
        // An image's file is there for a visible asset only.
        let hidden = try #require(try await library.asset(withLocalIdentifier: ids[3]))
        #expect(throws: (any Error).self) { try limited.fileURL(for: hidden.resources[0]) as URL }

        // History: a change to an invisible asset is nothing; to a visible one, only it.
        let start = try library.currentChangeToken()
        try await library.performChanges { $0.changeRequest(forAssetWithLocalIdentifier: ids[4]).isFavorite = true }
        #expect(try limited.fetchPersistentChanges(since: start).isEmpty)
        try await library.performChanges { changes in
            changes.changeRequest(forAssetWithLocalIdentifier: ids[4]).isHidden = true
            changes.changeRequest(forAssetWithLocalIdentifier: ids[1]).isFavorite = true
        }
        let seen = try limited.fetchPersistentChanges(since: start)
        #expect(seen.count == 1)
        #expect(seen.first?.changeDetails(for: .asset).updatedLocalIdentifiers == [ids[1]])
        // An asset put into the chosen album is chosen with it.
        try await library.performChanges {
            $0.changeRequest(forAssetCollectionWithLocalIdentifier: trip).addAssets([ids[4]])
        }
        #expect(try await limited.asset(withLocalIdentifier: ids[4]) != nil)
        // Limited access reads.
        await #expect(throws: LibraryError.self) {
            try await limited.performChanges { $0.changeRequest(forAssetWithLocalIdentifier: ids[2]).isFavorite = true }
        }
        #expect(try await library.asset(withLocalIdentifier: ids[2])?.isFavorite == false)
    }

    @Test("A smart album's and an album's dates are those of the assets visible, never of a hidden one outside")
    func datesOfWhatIsVisible() async throws {
        let folder = try TemporaryDirectory()
        let library = try folder.makeLibrary()
        let paths = Array(try Corpus.photoPaths().prefix(5))
        _ = await library.importItems(at: paths.map { URL(fileURLWithPath: $0) })
        let assets = try library.fetchAssets().map { $0 }.sorted { $0.creationDate < $1.creationDate }
        try #require(assets.count == 5)
        // The oldest and the newest photos are favourites outside the album, one of them hidden.
        var trip = ""
        try await library.performChanges { changes in
            let album = changes.creationRequestForAssetCollection(withTitle: "Trip")
            album.addAssets([assets[1].localIdentifier, assets[2].localIdentifier])
            trip = album.localIdentifier
            for asset in [assets[0], assets[2], assets[4]] {
                changes.changeRequest(forAssetWithLocalIdentifier: asset.localIdentifier).isFavorite = true
            }
            changes.changeRequest(forAssetWithLocalIdentifier: assets[4].localIdentifier).isHidden = true
        }
        let owner = try #require(
            try library.fetchAssetCollections(with: .smartAlbum, subtype: .smartAlbumFavorites).firstObject)
        #expect(owner.startDate == assets[0].creationDate, "the owner sees the whole library")
        let limited = library.limited(to: LimitedSelection(assetIdentifiers: [], albumIdentifiers: [trip]))
        let favorites = try #require(
            try limited.fetchAssetCollections(with: .smartAlbum, subtype: .smartAlbumFavorites).firstObject)
        #expect(favorites.estimatedAssetCount == 1)
        #expect(favorites.startDate == assets[2].creationDate && favorites.endDate == assets[2].creationDate)
        let album = try #require(try limited.fetchAssetCollections(with: .album).firstObject)
        #expect(album.startDate == assets[1].creationDate && album.endDate == assets[2].creationDate)
        // A smart album with nothing visible has no dates at all.
        let videos = try #require(
            try limited.fetchAssetCollections(with: .smartAlbum, subtype: .smartAlbumVideos).firstObject)
        #expect(videos.estimatedAssetCount == 0 && videos.startDate == nil && videos.endDate == nil)
    }
}
