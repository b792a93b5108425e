import Foundation
import LightboxTestSupport
import Testing

@testable import Lightbox

/// What the PostgreSQL store adds to the shared statements (the model's suites run on it too:
/// `LIGHTBOX_TEST_CATALOG=postgres`).
@Suite("The PostgreSQL store", .enabled(if: Services.postgresEnabled))
struct PostgresStoreTests {
    /// The server process behind a snapshot's connection.
    static func backend(_ snapshot: any CatalogSnapshot) throws -> Int64? {
        try snapshot.read { db in try db.integer("SELECT pg_backend_pid()") }
    }

    @Test("A state's snapshot is shared; an ended snapshot's connection serves the next state's")
    func spareConnections() throws {
        let store = try PostgresStore(address: try PostgresAddress(try Services.makePostgresDatabase()))
        var first: (any CatalogSnapshot)? = try store.fetchSnapshot()
        let firstBackend = try Self.backend(try #require(first))
        #expect(try Self.backend(try store.fetchSnapshot()) == firstBackend, "the same state, the same snapshot")

        // A write makes a new state; the first snapshot still lives, so another connection.
        try store.write { try $0.setTrashRetention(seconds: 3_600) }
        let second = try store.fetchSnapshot()
        #expect(try Self.backend(second) != firstBackend)

        // The first let go: its connection, out of its transaction, takes the next state.
        first = nil
        try store.write { try $0.setTrashRetention(seconds: 7_200) }
        let third = try store.fetchSnapshot()
        #expect(try Self.backend(third) == firstBackend)
        #expect(try third.read { try $0.trashRetention() } == 7_200, "the newest state")
        #expect(try second.read { try $0.trashRetention() } == 3_600, "the second keeps its own")
        withExtendedLifetime(first) {}
    }
}
