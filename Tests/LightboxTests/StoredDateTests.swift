import Foundation
import GRDB
import LightboxTestSupport
import Testing

@testable import Lightbox
@testable import LightboxStore

@Suite("Stored dates")
struct StoredDateTests {
    @Test("A stored date parses to exactly the value GRDB's own decoding gives")
    func agreesWithGRDB() throws {
        var random = SeededRandom(seed: 7)
        for _ in 0..<20_000 {
            // Any millisecond from 1900 to 2100, as GRDB writes it.
            let draw = random.next() << 31 | random.next()
            let milliseconds = Int64(draw % 6_311_390_400_000) - 2_208_988_800_000
            let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
            let stored = try #require(String.fromDatabaseValue(date.databaseValue))
            let expected = try #require(Date.fromDatabaseValue(date.databaseValue))
            #expect(
                StoredDate.parse(stored) == expected,
                "\(stored) \(StoredDate.parse(stored)?.timeIntervalSinceReferenceDate ?? 0) \(expected.timeIntervalSinceReferenceDate)"
            )
        }
        for text in [
            "2024-02-29 23:59:59", "2024-02-29 23:59:59.5", "1969-12-31 23:59:59.999", "2000-01-01 00:00:00.000",
        ] {
            #expect(StoredDate.parse(text) == Date.fromDatabaseValue(text.databaseValue), "\(text)")
        }
        for text in ["2024-13-01 00:00:00", "2024-02-29T23:59:59", "2024-02-29 23:59", "2024-02-29 23:59:59.5x", ""] {
            #expect(StoredDate.parse(text) == nil, "\(text)")
        }
    }
}
