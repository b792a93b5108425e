import Foundation
import LightboxTestSupport
import Testing

@testable import Lightbox
@testable import LightboxStore

/// Results larger than the first window of ids a fetch reads, over synthetic asset rows,
/// checked against a brute-force reference: every row loaded, filtered and sorted in Swift.
@Suite("Large fetch results: ids read on demand, counts from tallies")
struct LargeFetchTests {
    /// One synthetic asset row as the reference sees it.
    struct Row {
        var id: Int64
        var localIdentifier: String
        var creationDate: Date
        var isFavorite: Bool
        var isHidden: Bool
        var burstIdentifier: String?
        var representsBurst: Bool
        var mediaType: Int
        var sourceType: Int
        var isTrashed = false

        var isBurstFrame: Bool { burstIdentifier != nil && !representsBurst }
    }

    /// 2,600 asset rows (no files): some videos, hidden ones, bursts, other source types, and
    /// creation dates that tie, so the order needs its tiebreaker.
    static func makeLibrary(_ folder: TemporaryDirectory) async throws -> PhotoLibrary {
        let library = try folder.makeLibrary()
        let start = Date(timeIntervalSince1970: 1_600_000_000)
        try library.withCatalog { db in
            for index in 0..<2_600 {
                let date = start.addingTimeInterval(Double(index * 7_919 % 2_000) * 60)
                let burst: String? = (100..<200).contains(index) ? "BURST-\(index / 5)" : nil
                try db.execute(
                    """
                    INSERT INTO asset (localIdentifier, mediaType, pixelWidth, pixelHeight, creationDate,
                    modificationDate, addedDate, isFavorite, isHidden, burstIdentifier, representsBurst, sourceType)
                    VALUES (?, ?, 4032, 3024, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                    [
                        String(format: "SYNTH-%05d", index), index % 7 == 0 ? 2 : 1, date, date, date, index % 3 == 0,
                        index % 11 == 0, burst, burst != nil && index % 5 == 0, index % 13 == 0 ? 2 : 1,
                    ])
            }
            try db.execute("INSERT INTO changeTransaction (date, author) VALUES (?, 'test')", [Date()])
        }
        return library
    }

    /// Every row, straight from the table.
    static func rows(_ library: PhotoLibrary) async throws -> [Row] {
        try library.withCatalog { db in
            try db.rows("SELECT * FROM asset").map { row in
                Row(
                    id: try row.integer("id"), localIdentifier: try row.text("localIdentifier"),
                    creationDate: try row.date("creationDate"), isFavorite: try row.integer("isFavorite") != 0,
                    isHidden: try row.integer("isHidden") != 0, burstIdentifier: row["burstIdentifier"].text,
                    representsBurst: try row.integer("representsBurst") != 0,
                    mediaType: Int(try row.integer("mediaType")), sourceType: Int(try row.integer("sourceType")),
                    isTrashed: row["trashedDate"] != .null)
            }
        }
    }

    /// What a fetch with these options selects, newest first (ties: larger row id first).
    static func reference(_ rows: [Row], _ options: FetchOptions) -> [Row] {
        rows.filter { row in
            !row.isTrashed && (options.includeHiddenAssets || !row.isHidden)
                && (options.includeAllBurstAssets || !row.isBurstFrame)
                && (options.includeAssetSourceTypes.isEmpty
                    || row.sourceType & options.includeAssetSourceTypes.rawValue != 0)
        }.sorted { ($0.creationDate, $0.id) > ($1.creationDate, $1.id) }
    }

    static let newestFirst = [FetchSortDescriptor(key: "creationDate", ascending: false)]

    static var optionVariants: [FetchOptions] {
        var variants: [FetchOptions] = []
        for hidden in [false, true] {
            for bursts in [false, true] {
                for sources: AssetSourceType in [[], .typeCloudShared, [.typeUserLibrary, .typeiTunesSynced]] {
                    variants.append(
                        FetchOptions(
                            sortDescriptors: newestFirst, includeHiddenAssets: hidden, includeAllBurstAssets: bursts,
                            includeAssetSourceTypes: sources))
                }
            }
        }
        return variants
    }

    static func expectCounts(_ library: PhotoLibrary, _ rows: [Row], _ comment: String) throws {
        for options in optionVariants {
            let expected = reference(rows, options)
            let result = try library.fetchAssets(options: options)
            let label =
                "\(comment): hidden \(options.includeHiddenAssets), bursts \(options.includeAllBurstAssets), sources \(options.includeAssetSourceTypes.rawValue)"
            #expect(result.count == expected.count, "\(label)")
            guard result.count == expected.count else { continue }  // walking a wrong count would trap
            #expect(result.countOfAssets(with: .video) == expected.filter { $0.mediaType == 2 }.count, "\(label)")
            #expect(result.countOfAssets(with: .image) == expected.filter { $0.mediaType == 1 }.count, "\(label)")
            #expect(result.map(\.localIdentifier) == expected.map(\.localIdentifier), "\(label)")
        }
    }

    @Test("Counts without a predicate come from tallies that stay exact through every kind of write")
    func tallies() async throws {
        let folder = try TemporaryDirectory()
        let library = try await Self.makeLibrary(folder)
        var rows = try await Self.rows(library)
        try Self.expectCounts(library, rows, "as inserted")

        // Hide and show, delete (to Recently Deleted) and purge, and change what the tallies
        // tell apart behind the API's back.
        let all = try library.fetchAssets(options: FetchOptions(includeHiddenAssets: true, includeAllBurstAssets: true))
        let byIdentifier = Dictionary(uniqueKeysWithValues: all.map { ($0.localIdentifier, $0) })
        try await library.performChanges { changes in
            for row in rows where row.id % 17 == 0 {
                changes.changeRequest(for: byIdentifier[row.localIdentifier]!).isHidden = !row.isHidden
            }
            changes.deleteAssets(rows.filter { $0.id % 19 == 0 }.map(\.localIdentifier))
            changes.purgeAssets(rows.filter { $0.id % 31 == 0 && $0.id % 19 != 0 }.map(\.localIdentifier))
        }
        try library.withCatalog { db in
            try db.execute("UPDATE asset SET representsBurst = 1 - representsBurst WHERE id % 23 = 0")
            try db.execute("UPDATE asset SET mediaType = 3 - mediaType, sourceType = 4 WHERE id % 29 = 0")
            try db.execute("INSERT INTO changeTransaction (date, author) VALUES (?, 'test')", [Date()])
        }
        rows = try await Self.rows(library)
        let purged = (1...2_600).filter { $0 % 31 == 0 && $0 % 19 != 0 }.count
        #expect(rows.count == 2_600 - purged)
        #expect(rows.filter(\.isTrashed).count == 2_600 / 19)
        try Self.expectCounts(library, rows, "after writes")
        let trash = try #require(
            try library.fetchAssetCollections(with: .smartAlbum, subtype: .smartAlbumRecentlyDeleted).firstObject)
        #expect(try library.fetchAssets(in: trash).count == 2_600 / 19)
        #expect(trash.estimatedAssetCount == 2_600 / 19)
    }

    @Test("A result larger than its first window reads the rest on demand, in order, wherever it is first read")
    func onDemand() async throws {
        let folder = try TemporaryDirectory()
        let library = try await Self.makeLibrary(folder)
        let rows = try await Self.rows(library)
        let options = FetchOptions(sortDescriptors: Self.newestFirst)
        let expected = Self.reference(rows, options).map(\.localIdentifier)
        #expect(expected.count > 2_000)

        // Each access first, on a result of its own.
        #expect(try library.fetchAssets(options: options).object(at: 2_000).localIdentifier == expected[2_000])
        #expect(try library.fetchAssets(options: options).lastObject?.localIdentifier == expected.last)
        #expect(try library.fetchAssets(options: options).firstObject?.localIdentifier == expected.first)
        let far = try #require(
            try library.fetchAssets(withLocalIdentifiers: [expected[expected.count - 3]]).firstObject)
        #expect(try library.fetchAssets(options: options).index(of: far) == expected.count - 3)
        let hidden = try #require(rows.first { $0.isHidden })
        let hiddenAsset = try #require(
            try library.fetchAssets(withLocalIdentifiers: [hidden.localIdentifier]).firstObject)
        #expect(try library.fetchAssets(options: options).contains(hiddenAsset) == false)
        let walked = try library.fetchAssets(options: options)
        #expect(walked.map(\.localIdentifier) == expected)
        #expect(walked.count == expected.count)

        // Limits below, at and above the first window.
        for limit in [999, 1_000, 1_001, 1_500, expected.count + 10] {
            var limited = options
            limited.fetchLimit = limit
            let prefix = Array(Self.reference(rows, options).prefix(limit))
            let result = try library.fetchAssets(options: limited)
            #expect(result.countOfAssets(with: .video) == prefix.filter { $0.mediaType == 2 }.count, "limit \(limit)")
            #expect(result.count == prefix.count, "limit \(limit)")
            #expect(result.map(\.localIdentifier) == prefix.map(\.localIdentifier), "limit \(limit)")
        }

        // A predicate: the count is a query of its own, the objects the same as walking.
        let favorites = try library.fetchAssets(
            options: FetchOptions(predicate: .favorite == true, sortDescriptors: Self.newestFirst))
        let expectedFavorites = Self.reference(rows, options).filter(\.isFavorite)
        #expect(favorites.countOfAssets(with: .video) == expectedFavorites.filter { $0.mediaType == 2 }.count)
        #expect(favorites.count == expectedFavorites.count)
        #expect(favorites.map(\.localIdentifier) == expectedFavorites.map(\.localIdentifier))
    }

    @Test("Change details over a large result: applied in RICE order they give the new result")
    func largeDetails() async throws {
        let folder = try TemporaryDirectory()
        let library = try await Self.makeLibrary(folder)
        let rows = try await Self.rows(library)
        let options = FetchOptions(sortDescriptors: Self.newestFirst)
        let before = try library.fetchAssets(options: options)
        let beforeIDs = before.map(\.localIdentifier)
        let all = try library.fetchAssets(options: FetchOptions(includeHiddenAssets: true, includeAllBurstAssets: true))
        let byIdentifier = Dictionary(uniqueKeysWithValues: all.map { ($0.localIdentifier, $0) })
        let favorites = rows.filter { $0.id % 97 == 0 }.map(\.localIdentifier)
        let redated = rows.filter { $0.id % 331 == 0 }.map(\.localIdentifier)
        let toggled = rows.filter { $0.id % 401 == 0 }.map(\.localIdentifier)
        try await library.performChanges { changes in
            for id in favorites { changes.changeRequest(for: byIdentifier[id]!).isFavorite = true }
            for (n, id) in redated.enumerated() {
                changes.changeRequest(for: byIdentifier[id]!).creationDate = Date(
                    timeIntervalSince1970: 1_500_000_000 + Double(n))
            }
            for id in toggled { changes.changeRequest(for: byIdentifier[id]!).isHidden = !byIdentifier[id]!.isHidden }
        }
        let after = try library.fetchAssets(options: options)
        let afterIDs = after.map(\.localIdentifier)
        let changedIDs = Set(favorites + redated + toggled)
        let details = FetchResultChangeDetails(
            from: before, to: after,
            changedObjects: try Array(library.fetchAssets(withLocalIdentifiers: Array(changedIDs))))
        #expect(ObservingTests.applyRICE(details, to: beforeIDs) == afterIDs)
        #expect(Set(details.removedObjects.map(\.localIdentifier)) == Set(beforeIDs).subtracting(afterIDs))
        #expect(Set(details.insertedObjects.map(\.localIdentifier)) == Set(afterIDs).subtracting(beforeIDs))
        let beforeSet = Set(beforeIDs)
        #expect(
            details.changedIndexes
                == afterIDs.indices.filter { changedIDs.contains(afterIDs[$0]) && beforeSet.contains(afterIDs[$0]) })
        #expect(!details.moves.isEmpty && !details.changedIndexes.isEmpty)
        #expect(!details.removedIndexes.isEmpty || !details.insertedIndexes.isEmpty)
    }
}
