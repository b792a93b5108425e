import Foundation
import Lightbox
import LightboxTestSupport
import Testing

@Suite("Folders of albums and folders")
struct FolderTests {
    @Test("Folders hold albums and folders in order, one parent each, no cycles")
    func folders() async throws {
        let folder = try TemporaryDirectory()
        let library = try folder.makeLibrary()
        var trips = ""
        var iceland = ""
        var norway = ""
        var winter = ""
        try await library.performChanges { changes in
            let tripsRequest = changes.creationRequestForCollectionList(withTitle: "Trips")
            trips = tripsRequest.localIdentifier
            iceland = changes.creationRequestForAssetCollection(withTitle: "Iceland").localIdentifier
            norway = changes.creationRequestForAssetCollection(withTitle: "Norway").localIdentifier
            winter = changes.creationRequestForCollectionList(withTitle: "Winter").localIdentifier
            tripsRequest.addChildCollections([norway, winter])
            tripsRequest.insertChildCollections([iceland], at: [0])
        }
        let tripsList = try #require(try library.fetchCollectionLists(withLocalIdentifiers: [trips]).firstObject)
        #expect(tripsList.collectionListType == .folder && tripsList.localizedTitle == "Trips")
        #expect(try library.fetchCollections(in: tripsList).map(\.localIdentifier) == [iceland, norway, winter])
        #expect(try library.fetchTopLevelUserCollections().map(\.localIdentifier) == [trips])
        #expect(try library.fetchCollectionLists(with: .folder).count == 2)

        // One parent: adding Norway to Winter while Trips holds it is refused; moving works.
        let second = await #expect(throws: LibraryError.self) {
            try await library.performChanges { changes in
                changes.changeRequest(forCollectionListWithLocalIdentifier: winter).addChildCollections([norway])
            }
        }
        #expect(second?.code == .invalidRequest)
        try await library.performChanges { changes in
            changes.changeRequest(forCollectionListWithLocalIdentifier: trips).removeChildCollections([norway])
            changes.changeRequest(forCollectionListWithLocalIdentifier: winter).addChildCollections([norway])
        }
        let winterList = try #require(try library.fetchCollectionLists(withLocalIdentifiers: [winter]).firstObject)
        #expect(try library.fetchCollections(in: winterList).map(\.localIdentifier) == [norway])
        #expect(try library.fetchCollections(in: tripsList).map(\.localIdentifier) == [iceland, winter])
        #expect(
            try library.fetchCollectionListsContaining(
                .assetCollection(
                    try #require(try library.fetchAssetCollections(withLocalIdentifiers: [norway]).firstObject))
            ).map(\.localIdentifier) == [winter])

        // No cycles: Trips holds Winter, so Winter cannot hold Trips, nor Trips itself.
        for (holder, child) in [(winter, trips), (trips, trips)] {
            let cycle = await #expect(throws: LibraryError.self) {
                try await library.performChanges { changes in
                    if holder == child {
                        changes.changeRequest(forCollectionListWithLocalIdentifier: holder).addChildCollections([child])
                    } else {
                        changes.changeRequest(forCollectionListWithLocalIdentifier: trips).removeChildCollections([])
                        changes.changeRequest(forCollectionListWithLocalIdentifier: holder).addChildCollections([child])
                    }
                }
            }
            #expect(cycle?.code == .invalidRequest)
        }
        // Smart albums stay out of folders.
        let favorites = try #require(
            try library.fetchAssetCollections(with: .smartAlbum, subtype: .smartAlbumFavorites).firstObject)
        await #expect(throws: LibraryError.self) {
            try await library.performChanges { changes in
                changes.changeRequest(forCollectionListWithLocalIdentifier: trips).addChildCollections([
                    favorites.localIdentifier
                ])
            }
        }

        // Moving and deleting: what a deleted folder held goes to the top level.
        try await library.performChanges { changes in
            changes.changeRequest(forCollectionListWithLocalIdentifier: trips).moveChildCollections(at: [1], to: 0)
        }
        #expect(try library.fetchCollections(in: tripsList).map(\.localIdentifier) == [winter, iceland])
        var spare = ""
        try await library.performChanges { changes in
            spare = changes.creationRequestForAssetCollection(withTitle: "Spare").localIdentifier
            changes.changeRequest(forCollectionListWithLocalIdentifier: trips).replaceChildCollections(
                at: [1], withChildCollections: [spare])
        }
        #expect(try library.fetchCollections(in: tripsList).map(\.localIdentifier) == [winter, spare])
        #expect(Set(try library.fetchTopLevelUserCollections().map(\.localIdentifier)) == [trips, iceland])
        try await library.performChanges { changes in changes.deleteCollectionLists([trips]) }
        #expect(Set(try library.fetchTopLevelUserCollections().map(\.localIdentifier)) == [winter, iceland, spare])
        #expect(try library.fetchAssetCollections(with: .album).count == 3)
        let history = try library.fetchPersistentChanges(since: PersistentChangeToken(rawValue: 0))
        #expect(history.last?.changeDetails(for: .collectionList).deletedLocalIdentifiers == [trips])
    }

    @Test("A folder's change details follow its children")
    func observeFolder() async throws {
        let folder = try TemporaryDirectory()
        let library = try folder.makeLibrary()
        var list = ""
        var album = ""
        try await library.performChanges { changes in
            list = changes.creationRequestForCollectionList(withTitle: "Folder").localIdentifier
            album = changes.creationRequestForAssetCollection(withTitle: "Album").localIdentifier
        }
        let folderList = try #require(try library.fetchCollectionLists(withLocalIdentifiers: [list]).firstObject)
        let children = try library.fetchCollections(in: folderList)
        let stream = try library.changes()
        try await library.performChanges { changes in
            changes.changeRequest(forCollectionListWithLocalIdentifier: list).addChildCollections([album])
        }
        var iterator = stream.makeAsyncIterator()
        let change = try #require(await iterator.next())
        let details = try #require(change.details(for: children))
        #expect(details.insertedIndexes == [0])
        #expect(details.insertedObjects.first?.localizedTitle == "Album")
        #expect(change.details(for: folderList)?.objectAfterChanges?.localizedTitle == "Folder")
    }
}
