import Foundation
import GRDB

extension SQLiteTransaction {
    func insertSyntheticAssets(count: Int, spreadFrom start: Date) throws {
        let statement = try db.makeStatement(
            sql: """
                INSERT INTO asset (localIdentifier, mediaType, mediaSubtypes, pixelWidth, pixelHeight, creationDate,
                modificationDate, addedDate, isFavorite) VALUES (?, ?, 0, 4032, 3024, ?, ?, ?, ?)
                """)
        // A fixed generator: every run fills the same dates, favourites and videos.
        var state: UInt64 = 0x5EED
        for _ in 0..<count {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let seconds = Double((state >> 33) % (4 * 365 * 24 * 3600))
            let date = start.addingTimeInterval(seconds)
            try statement.execute(arguments: [
                UUID().uuidString, (state >> 20) % 10 == 0 ? 2 : 1, date, date, date, (state >> 13) % 5 == 0,
            ])
        }
        try db.execute(sql: "INSERT INTO changeTransaction (date, author) VALUES (?, 'bench')", arguments: [Date()])
    }
}
