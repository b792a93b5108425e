import Foundation

/// The library's catalog on PostgreSQL: the same operations, in the same SQL, as
/// ``SQLiteStore``, for libraries shared by servers and workers on several machines.
///
/// - Reads run in a repeatable-read, read-only transaction: everything one `read` body asks
///   sees one state.
/// - Writes take an advisory transaction lock first, so that write transactions, on every
///   machine, commit one after the other as SQLite's single writer does: change tokens then
///   commit in the order they are handed out, and a client that read the changes up to one
///   token never misses an earlier one committed later.
/// - Fetch results read a ``PostgresSnapshot`` each state, shared as SQLite's snapshots are
///   while results hold it, and ended with the last (its transaction left open would hold
///   back the vacuum).
/// - Each write that records a change tells every process listening (`NOTIFY`, sent by the
///   shared `recordChangeTransaction`) once it commits.
final class PostgresStore: LibraryStore, CatalogFetching, Sendable {
    let pool: PostgresPool
    let historyRetention: HistoryRetention
    let snapshots = SnapshotCache<PostgresSnapshot>(keepsNewest: false)
    let writes = WriteCounter()
    /// What wakes observers when a commit's notification arrives.
    let commits = PostgresCommitSignal()

    /// The advisory lock write transactions take turns on: one per schema, so that the
    /// libraries of one database (a server's members') do not wait on each other.
    let writeLock: Int64
    /// The channels commits are announced on, with their change token: this prefix, a colon and
    /// the catalog's schema (`current_schema()`), one channel per library of a database.
    static let changeChannel = "lightbox_changes"

    /// Connects to the catalog at `address` and brings its schema up to date. Throws
    /// ``LibraryError/Code-swift.struct/newerLibraryVersion`` when a newer Lightbox wrote it.
    init(
        address: PostgresAddress, historyRetention: HistoryRetention = HistoryRetention(),
        environment: [String: String] = ProcessInfo.processInfo.environment, connections: Int = 8
    ) throws {
        pool = PostgresPool(address: address, environment: environment, maximum: connections)
        writeLock = Self.writeLock(schema: address.schema)
        self.historyRetention = historyRetention
        try pool.withLink { link in try PostgresSchema.migrate(link) }
    }

    var address: PostgresAddress { pool.address }

    var sharedAddress: String? { address.description }

    func accountStore(libraryFolder: URL) throws -> any AccountStore {
        PostgresAccountStore(pool: pool)
    }

    /// "LBWRITES", mixed with the schema's name (FNV-1a) for a schema of its own.
    static func writeLock(schema: String?) -> Int64 {
        let base: UInt64 = 0x4C42_5752_4954_4553
        guard let schema else { return Int64(bitPattern: base) }
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in schema.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0100_0000_01B3 }
        return Int64(bitPattern: base ^ hash)
    }

    func read<T>(_ body: (any StoreReader) throws -> T) throws -> T {
        try pool.withLink { link in
            try link.transaction(.repeatableRead, readOnly: true) {
                try body(CatalogTransaction(db: PostgresTransaction(link: link), retention: historyRetention))
            }
        }
    }

    func read<T: Sendable>(_ body: @escaping @Sendable (any StoreReader) throws -> T) async throws -> T {
        try await BlockingWork.run { try self.read(body) }
    }

    func write<T>(_ body: (any StoreWriter) throws -> T) throws -> T {
        // Counted once the transaction is over, committed or not, as SQLite's.
        defer { writes.increment() }
        return try pool.withLink { link in
            try link.transaction {
                try link.execute("SELECT pg_advisory_xact_lock(?)", [.integer(writeLock)])
                let transaction = CatalogTransaction(db: PostgresTransaction(link: link), retention: historyRetention)
                let result = try body(transaction)
                try transaction.finishWrite()
                return result
            }
        }
    }

    var localWrites: UInt64 { writes.value }

    /// What autovacuum would do in its own time (for benchmarks).
    func settleAfterBulkWrites() throws {
        _ = try pool.withLink { link in try link.execute("VACUUM ANALYZE") }
    }

    /// Returns when a commit's notification arrives (from any process on any machine), or after
    /// five seconds, in case a notification was lost with a connection.
    func waitForChanges() async {
        _ = await commits.wait(listeningWith: pool, channel: Self.changeChannel, upTo: .seconds(5))
    }

    // MARK: Settings every server shares

    /// Where the catalog's originals are, when in a bucket: kept in the catalog, so that a
    /// server opening it from a folder of its own finds them.
    func sharedOriginals() throws -> ObjectStorageSettings? {
        try pool.withLink { link in
            guard let json = try link.value("SELECT value FROM librarySetting WHERE key = 'originals'")?.text else {
                return nil
            }
            guard let settings = try? JSONDecoder().decode(ObjectStorageSettings.self, from: Data(json.utf8)) else {
                throw LibraryError(
                    .storageFailed,
                    "the catalog at \(address) names its originals' place in a form this Lightbox cannot read")
            }
            return settings
        }
    }

    /// Keeps where the originals are, unless another server kept a place first; answers the
    /// place the catalog keeps.
    func shareOriginals(_ settings: ObjectStorageSettings) throws -> ObjectStorageSettings? {
        let json = String(decoding: try JSONEncoder().encode(settings), as: UTF8.self)
        try pool.withLink { link in
            _ = try link.execute(
                "INSERT INTO librarySetting (key, value) VALUES ('originals', ?) ON CONFLICT (key) DO NOTHING",
                [.text(json)])
        }
        return try sharedOriginals()
    }

    var dialect: SQLDialect { .postgres }

    func fetchSnapshot() throws -> any CatalogSnapshot {
        let token = try pool.withLink { link in try PostgresTransaction(link: link).lastChangeTransaction() }
        return try snapshots.snapshot(token: token, writes: localWrites) { [pool] in
            let snapshot = try PostgresSnapshot(link: pool.takeSpare(), release: { pool.giveSpare($0) })
            return (snapshot, snapshot.token)
        }
    }
}
