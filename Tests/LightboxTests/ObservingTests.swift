import Foundation
import Lightbox
import LightboxTestSupport
import Testing

@Suite("Observing changes: RICE change details and observers")
struct ObservingTests {
    /// Applies details to the ids of the result before, in RICE order.
    static func applyRICE(_ details: FetchResultChangeDetails<Asset>, to before: [String]) -> [String] {
        var list = before
        for index in details.removedIndexes.sorted(by: >) { list.remove(at: index) }
        for (index, asset) in zip(details.insertedIndexes, details.insertedObjects).sorted(by: { $0.0 < $1.0 }) {
            list.insert(asset.localIdentifier, at: index)
        }
        details.enumerateMoves { from, to in
            let id = list.remove(at: from)
            list.insert(id, at: to)
        }
        return list
    }

    @Test("Random transactions: details applied in RICE order give the new result, and agree with a brute-force diff")
    func riceProperty() async throws {
        let folder = try TemporaryDirectory()
        let library = try folder.makeLibrary()
        _ = await library.importItems(at: try Corpus.photoPaths().map { URL(fileURLWithPath: $0) })
        var random = SeededRandom(seed: 99)
        let base = try #require(ISO8601.date(from: "2020-01-01T00:00:00Z"))
        var seen = (moves: 0, inserts: 0, removals: 0, changes: 0)
        for round in 0..<40 {
            let everything = Array(try library.fetchAssets(options: FetchOptions(includeHiddenAssets: true)))
            let predicates: [FetchPredicate?] = [
                nil, .favorite == true, .pixelWidth > .int(2000), !(.favorite == true),
            ]
            let options = FetchOptions(
                predicate: predicates[Int(random.next()) % predicates.count],
                sortDescriptors: [FetchSortDescriptor(key: "creationDate", ascending: random.next() % 2 == 0)])
            let before = try library.fetchAssets(options: options)
            let beforeIDs = before.map(\.localIdentifier)

            let touched = (0..<4).map { _ in everything[Int(random.next()) % everything.count] }
            let actions = (0..<4).map { _ in random.next() % 10 }
            let offsets = (0..<4).map { _ in Double(random.next() % 1_000_000) }
            try await library.performChanges { changes in
                for (asset, (action, offset)) in zip(touched, zip(actions, offsets)) {
                    let request = changes.changeRequest(for: asset)
                    switch action {
                    case 0..<4: request.isFavorite = !asset.isFavorite
                    case 4..<6: request.isHidden = !asset.isHidden
                    default: request.creationDate = base.addingTimeInterval(offset * 60)
                    }
                }
            }
            let updated = Set(touched.map(\.localIdentifier))
            let after = try library.fetchAssets(options: options)
            let afterIDs = after.map(\.localIdentifier)
            let changed = try library.fetchAssets(withLocalIdentifiers: Array(updated))
            let details = FetchResultChangeDetails(from: before, to: after, changedObjects: Array(changed))

            #expect(Self.applyRICE(details, to: beforeIDs) == afterIDs, "round \(round)")
            // Brute force: what left, what joined, what changed in place.
            #expect(Set(details.removedObjects.map(\.localIdentifier)) == Set(beforeIDs).subtracting(afterIDs))
            #expect(Set(details.insertedObjects.map(\.localIdentifier)) == Set(afterIDs).subtracting(beforeIDs))
            let expectedChanged = afterIDs.indices.filter {
                updated.contains(afterIDs[$0]) && beforeIDs.contains(afterIDs[$0])
            }
            #expect(details.changedIndexes == expectedChanged)
            #expect(details.changedObjects.allSatisfy { updated.contains($0.localIdentifier) })
            seen.moves += details.moves.count
            seen.inserts += details.insertedIndexes.count
            seen.removals += details.removedIndexes.count
            seen.changes += details.changedIndexes.count
        }
        // The rounds exercised every part of RICE.
        #expect(seen.moves > 0 && seen.inserts > 0 && seen.removals > 0 && seen.changes > 0, "\(seen)")
    }

    @Test("An observer hears of a committed block, with object and fetch result details")
    func observer() async throws {
        let folder = try TemporaryDirectory()
        let library = try folder.makeLibrary()
        _ = await library.importItems(at: try Corpus.photoPaths().prefix(4).map { URL(fileURLWithPath: $0) })
        let result = try library.fetchAssets(options: FetchOptions(predicate: .favorite == true))
        #expect(result.count == 0)
        let target = try #require(try library.fetchAssets().firstObject)
        let stream = try library.changes()
        try await library.performChanges { changes in changes.changeRequest(for: target).isFavorite = true }

        var iterator = stream.makeAsyncIterator()
        let change = try #require(await iterator.next())
        let objectDetails = try #require(change.details(for: target))
        #expect(objectDetails.objectAfterChanges?.isFavorite == true)
        #expect(!objectDetails.objectWasDeleted)
        let resultDetails = try #require(change.details(for: result))
        #expect(resultDetails.insertedIndexes == [0])
        #expect(resultDetails.fetchResultAfterChanges.firstObject?.localIdentifier == target.localIdentifier)
        let untouched = try library.fetchAssets(options: FetchOptions(predicate: .pixelWidth < .int(1)))
        #expect(change.details(for: untouched) == nil)

        try await library.performChanges { changes in changes.deleteAssets([target]) }
        let deletion = try #require(await iterator.next())
        #expect(deletion.details(for: target)?.objectWasTrashed == true, "to Recently Deleted")
        #expect(deletion.details(for: target)?.objectWasDeleted == true, "a deletion, as PhotoKit's observers hear it")
        #expect(deletion.details(for: resultDetails.fetchResultAfterChanges)?.removedIndexes == [0])
        try await library.performChanges { changes in changes.purgeAssets([target.localIdentifier]) }
        let purge = try #require(await iterator.next())
        #expect(purge.details(for: target)?.objectWasDeleted == true)
    }
}

/// `recentAsset(withLocalIdentifier:)`: assets answered from memory, never older than the
/// library than a change by this process (at once) or by another (within 0.1 s) allows.
@Suite("Recent assets")
struct RecentAssetsTests {
    @Test("A change here is seen at once; another process's within a moment; a deleted asset is gone")
    func freshness() async throws {
        let folder = try TemporaryDirectory()
        let library = try folder.makeLibrary()
        _ = await library.importItems(at: Array(try Corpus.photoPaths().prefix(2)).map { URL(fileURLWithPath: $0) })
        let ids = try await library.assets().map(\.localIdentifier)
        let id = try #require(ids.first)
        #expect(try await library.recentAsset(withLocalIdentifier: id)?.isFavorite == false)
        #expect(try await library.recentAsset(withLocalIdentifier: "nothing") == nil)

        // This process: the next answer already has it.
        try await library.performChanges { $0.changeRequest(forAssetWithLocalIdentifier: id).isFavorite = true }
        #expect(try await library.recentAsset(withLocalIdentifier: id)?.isFavorite == true)

        // Another process (another opening of the same library, with a store of its own): seen
        // once the last transaction is read again.
        let other = try PhotoLibrary(url: library.url)
        try await other.performChanges { $0.changeRequest(forAssetWithLocalIdentifier: id).isFavorite = false }
        var seen = false
        for _ in 0..<100 where !seen {
            seen = try await library.recentAsset(withLocalIdentifier: id)?.isFavorite == false
            if !seen { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(seen)
        // It does not come back: the memory was emptied, not refilled with the old asset.
        #expect(try await library.recentAsset(withLocalIdentifier: id)?.isFavorite == false)

        try await other.performChanges { $0.deleteAssets([ids[1]]) }
        let trashed = try await other.asset(withLocalIdentifier: ids[1])
        var gone = false
        for _ in 0..<100 where !gone {
            gone = try await library.recentAsset(withLocalIdentifier: ids[1])?.trashedDate == trashed?.trashedDate
            if !gone { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(gone && trashed?.trashedDate != nil)
    }
}
