import Foundation
import LightboxTestSupport
import Testing

@testable import Lightbox
@testable import LightboxStore

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

    @Test("A snapshot no result holds ends: no transaction of the store stays open to hold back the vacuum")
    func snapshotsEndWithTheirResults() throws {
        let store = try PostgresStore(address: try PostgresAddress(try Services.makePostgresDatabase()))
        func openTransactions() throws -> Int64? {
            try store.pool.withLink { link in
                try link.value(
                    """
                    SELECT count(*) FROM pg_stat_activity
                    WHERE datname = current_database() AND state = 'idle in transaction'
                    """)?.integer
            }
        }
        var held: (any CatalogSnapshot)? = try store.fetchSnapshot()
        #expect(try openTransactions() == 1, "a held snapshot is a transaction")
        held = nil
        // Nothing committed since: the state is the same, and still no snapshot is kept for it.
        #expect(try openTransactions() == 0)
        _ = try store.fetchSnapshot()
        #expect(try openTransactions() == 0, "a snapshot let go at once ends at once")
        withExtendedLifetime(held) {}
    }

    @Test("A commit through another store wakes a waiter by its notification; a write of no change does not")
    func commitsWakeWaiters() async throws {
        let address = try PostgresAddress(try Services.makePostgresDatabase())
        let listening = try PostgresStore(address: address)
        let writing = try PostgresStore(address: address)
        let signal = PostgresCommitSignal()
        func wait(_ timeout: Duration) async -> PostgresCommitSignal.Wake {
            await signal.wait(listeningWith: listening.pool, channel: PostgresStore.changeChannel, upTo: timeout)
        }
        // The first wait starts listening and returns at once: what came before was not heard.
        #expect(await wait(.seconds(120)) == .startedListening)
        async let woken = wait(.seconds(120))
        try writing.write { try $0.recordChanges(author: "test", [ObjectChangeRecord(.asset, "A", .inserted)]) }
        #expect(await woken == .notified)
        try writing.write { try $0.setTrashRetention(seconds: 60) }
        #expect(await wait(.milliseconds(500)) == .timedOut, "no change recorded, nothing announced")
    }
}
