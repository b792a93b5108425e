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

    @Test("The top level keeps the order it is given, against the same moves made on an array")
    func topLevelOrder() async throws {
        let folder = try TemporaryDirectory()
        let library = try folder.makeLibrary()
        var made: [String] = []
        for index in 0..<6 {
            try await library.performChanges { changes in
                made.append(
                    index % 3 == 2
                        ? changes.creationRequestForCollectionList(withTitle: "Folder \(index)").localIdentifier
                        : changes.creationRequestForAssetCollection(withTitle: "Album \(index)").localIdentifier)
            }
        }
        var expected = made
        #expect(try library.fetchTopLevelUserCollections().map(\.localIdentifier) == expected, "oldest first at first")
        // Moves as a person makes them, one at a time and several at once, each checked against an array.
        let moves: [([Int], Int)] = [([5], 0), ([0, 1], 3), ([2], 2), ([4, 0, 2], 1), ([3], 5)]
        for (indexes, destination) in moves {
            let before = try library.fetchTopLevelUserCollections()
            let stream = try library.changes()
            try await library.performChanges { changes in
                changes.changeRequestForTopLevelCollections().moveChildCollections(at: indexes, to: destination)
            }
            let moving = indexes.sorted().map { expected[$0] }
            for index in indexes.sorted().reversed() { expected.remove(at: index) }
            expected.insert(contentsOf: moving, at: destination)
            #expect(
                try library.fetchTopLevelUserCollections().map(\.localIdentifier) == expected,
                "\(indexes) to \(destination)")
            var iterator = stream.makeAsyncIterator()
            let change = try #require(await iterator.next())
            let details = change.details(for: before)
            #expect(details?.hasMoves == true || before.map(\.localIdentifier) == expected)
            #expect(details?.removedIndexes.isEmpty ?? true)
        }
        // Made later: at the end. Into a folder and out again: with those without a place,
        // oldest first (before the one made later).
        var late = ""
        try await library.performChanges {
            late = $0.creationRequestForAssetCollection(withTitle: "Late").localIdentifier
        }
        expected.append(late)
        #expect(try library.fetchTopLevelUserCollections().map(\.localIdentifier) == expected)
        let holder = made[2]
        let traveller = expected.first { $0 != holder }!
        try await library.performChanges {
            $0.changeRequest(forCollectionListWithLocalIdentifier: holder).addChildCollections([traveller])
        }
        expected.removeAll { $0 == traveller }
        #expect(try library.fetchTopLevelUserCollections().map(\.localIdentifier) == expected)
        try await library.performChanges {
            $0.changeRequest(forCollectionListWithLocalIdentifier: holder).removeChildCollections([traveller])
        }
        expected.insert(traveller, at: expected.count - 1)
        #expect(try library.fetchTopLevelUserCollections().map(\.localIdentifier) == expected)
        // A move past the end is refused, and changes nothing; a deleted album leaves the order.
        await #expect(throws: LibraryError.self) {
            try await library.performChanges {
                $0.changeRequestForTopLevelCollections().moveChildCollections(at: [0], to: expected.count)
            }
        }
        #expect(try library.fetchTopLevelUserCollections().map(\.localIdentifier) == expected)
        let gone = expected.first { try! library.fetchAssetCollections(withLocalIdentifiers: [$0]).count == 1 }!
        try await library.performChanges { changes in
            changes.changeRequestForTopLevelCollections().moveChildCollections(at: [expected.count - 1], to: 0)
            changes.deleteAssetCollections([gone])
        }
        expected.insert(expected.removeLast(), at: 0)
        expected.removeAll { $0 == gone }
        #expect(try library.fetchTopLevelUserCollections().map(\.localIdentifier) == expected)
    }

    @Test("A title another album (folder) has, case aside, is refused; the block changes nothing")
    func takenTitles() async throws {
        let folder = try TemporaryDirectory()
        let library = try folder.makeLibrary()
        var iceland = ""
        var norway = ""
        var trips = ""
        try await library.performChanges { changes in
            iceland = changes.creationRequestForAssetCollection(withTitle: "Iceland").localIdentifier
            norway = changes.creationRequestForAssetCollection(withTitle: "Norway").localIdentifier
            trips = changes.creationRequestForCollectionList(withTitle: "Trips").localIdentifier
            // A folder may share an album's title: they are listed apart.
            _ = changes.creationRequestForCollectionList(withTitle: "Iceland")
        }
        let before = try library.currentChangeToken()
        let refusals: [(String, (ChangeRequests) -> Void)] = [
            (
                "an album titled \"Iceland\" exists already; give the new one another title",
                {
                    _ = $0.creationRequestForAssetCollection(withTitle: "ICELAND")
                }
            ),
            (
                "an album titled \"Norway\" exists already; give it another title",
                {
                    $0.changeRequest(forAssetCollectionWithLocalIdentifier: iceland).title = "norway"
                }
            ),
            (
                "a folder titled \"Trips\" exists already; give the new one another title",
                {
                    _ = $0.creationRequestForCollectionList(withTitle: "trips")
                }
            ),
            // Two new ones of one title in one block: the second is refused, and the first with it.
            (
                "an album titled \"Lofoten\" exists already",
                {
                    _ = $0.creationRequestForAssetCollection(withTitle: "Lofoten")
                    _ = $0.creationRequestForAssetCollection(withTitle: "Lofoten")
                }
            ),
        ]
        for (message, block) in refusals {
            let refused = await #expect(throws: LibraryError.self) { try await library.performChanges(block) }
            #expect(refused?.code == .invalidRequest)
            #expect(refused?.message.hasPrefix(message) == true, "\(refused?.message ?? "")")
        }
        #expect(try library.currentChangeToken() == before)
        #expect(
            try library.fetchAssetCollections(with: .album).compactMap(\.localizedTitle).sorted() == [
                "Iceland", "Norway",
            ])

        // Its own title in another case, and a title a deleted album freed, in the same block.
        try await library.performChanges { changes in
            changes.changeRequest(forAssetCollectionWithLocalIdentifier: iceland).title = "ICELAND"
            changes.deleteAssetCollections([norway])
            _ = changes.creationRequestForAssetCollection(withTitle: "Norway")
            changes.changeRequest(forCollectionListWithLocalIdentifier: trips).title = "trips"
        }
        #expect(
            try library.fetchAssetCollections(with: .album).compactMap(\.localizedTitle).sorted() == [
                "ICELAND", "Norway",
            ])
        #expect(
            try library.fetchCollectionLists(with: .folder).compactMap(\.localizedTitle).sorted() == [
                "Iceland", "trips",
            ])
    }
}
