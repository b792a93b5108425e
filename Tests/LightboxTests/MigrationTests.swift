import Foundation
import GRDB
import LightboxTestSupport
import Testing

@testable import Lightbox
@testable import LightboxStore

@Suite("Opening libraries older versions wrote")
struct MigrationTests {
    @Test(
        "A library at each earlier schema step migrates, keeping its assets and recording them in history",
        arguments: [
            "v1: assets and resources", "v2: location, bursts, adjustments", "v3: change transactions",
            "v16: timeline days", "v19: cameras of the library", "v25: photos have no duration",
        ])
    func migratesFrom(step: String) async throws {
        let folder = try TemporaryDirectory()
        let url = folder.url.appendingPathComponent("Old.lightbox")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        let queue = try DatabaseQueue(path: url.appendingPathComponent("library.sqlite").path)
        try SQLiteStore.migrator.migrate(queue, upTo: step)
        // Two assets as that version stored them.
        try await queue.write { db in
            for (index, id) in ["OLD-ASSET-1", "OLD-ASSET-2"].enumerated() {
                try db.execute(
                    sql: """
                        INSERT INTO asset (localIdentifier, mediaType, pixelWidth, pixelHeight, creationDate,
                        modificationDate, addedDate) VALUES (?, 1, 4000, 3000, ?, ?, ?)
                        """,
                    arguments: [id, Date(timeIntervalSince1970: Double(index) * 1000), Date(), Date()])
                try db.execute(
                    sql: """
                        INSERT INTO resource (assetId, type, originalFilename, uniformTypeIdentifier, fileSize, sha256, storedPath)
                        VALUES (?, 1, ?, 'public.jpeg', 10, ?, ?)
                        """,
                    arguments: [
                        db.lastInsertedRowID, "IMG_\(index).JPG", String(repeating: "\(index)", count: 64),
                        "x/\(index).jpg",
                    ])
            }
        }
        try queue.close()

        let library = try PhotoLibrary(url: url)
        let assets = try library.fetchAssets()
        #expect(assets.map(\.localIdentifier) == ["OLD-ASSET-1", "OLD-ASSET-2"])
        #expect(assets.first?.resources.first?.originalFilename == "IMG_0.JPG")
        // A library from before the history (step v3) has its assets recorded as inserted; these
        // rows, written past the history's own steps, were never recorded.
        let inserted = try library.fetchPersistentChanges(since: PersistentChangeToken(rawValue: 0))
            .flatMap { $0.changeDetails(for: .asset).insertedLocalIdentifiers }
        let pastHistory = ["v16: timeline days", "v19: cameras of the library", "v25: photos have no duration"]
            .contains(step)
        #expect(Set(inserted) == (pastHistory ? [] : ["OLD-ASSET-1", "OLD-ASSET-2"]))
        #expect(try library.fetchAssetCollections(with: .smartAlbum).count == SmartAlbums.rules.count)
        // The day tally (step v26) counted the rows the library held before it.
        var timeline = FetchOptions()
        timeline.sortDescriptors = [FetchSortDescriptor(key: "localCreationDate", ascending: false)]
        #expect(try library.fetchAssets(options: timeline).creationDays().map(\.isoDay) == ["1970-01-01"])
        #expect(try library.fetchAssets(options: timeline).creationDays().map(\.count) == [2])
        // Their cameras and orientations are to be read from their originals (here missing:
        // read as none); a library past step v17 has them read again for v20's orientation.
        // (A library past step v20 wrote them at import: these rows, written raw, claim none.)
        let unread = step == "v25: photos have no duration" ? 0 : 2
        #expect(try library.captureDetailsBacklogCount() == unread)
        #expect(try await library.fillCaptureDetails() == unread)
        #expect(try library.captureDetailsBacklogCount() == 0)
        // The library works on: a change lands and is logged.
        try await library.performChanges { changes in changes.changeRequest(for: assets[0]).isFavorite = true }
        #expect(try library.fetchAssets(options: FetchOptions(predicate: .favorite == true)).count == 1)
    }
}
