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
/// - Fetch results read a ``PostgresSnapshot`` each state, shared as SQLite's snapshots are.
/// - Each write that records a change tells every process listening (`NOTIFY`, sent by the
///   shared `recordChangeTransaction`) once it commits.
final class PostgresStore: LibraryStore, CatalogFetching, Sendable {
    let pool: PostgresPool
    let historyRetention: HistoryRetention
    let snapshots = SnapshotCache<PostgresSnapshot>()
    let writes = WriteCounter()
    /// What wakes observers when a commit's notification arrives.
    let commits = PostgresCommitSignal()

    /// The advisory lock write transactions take turns on.
    static let writeLock: Int64 = 0x4C42_5752_4954_4553  // "LBWRITES"
    /// The channel commits are announced on, with their change token.
    static let changeChannel = "lightbox_changes"

    /// Connects to the catalog at `address` and brings its schema up to date. Throws
    /// ``LibraryError/Code-swift.struct/newerLibraryVersion`` when a newer Lightbox wrote it.
    init(
        address: PostgresAddress, historyRetention: HistoryRetention = HistoryRetention(),
        environment: [String: String] = ProcessInfo.processInfo.environment, connections: Int = 8
    ) throws {
        pool = PostgresPool(address: address, environment: environment, maximum: connections)
        self.historyRetention = historyRetention
        try pool.withLink { link in try PostgresSchema.migrate(link) }
    }

    var address: PostgresAddress { pool.address }

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
                try link.execute("SELECT pg_advisory_xact_lock(?)", [.integer(Self.writeLock)])
                return try body(CatalogTransaction(db: PostgresTransaction(link: link), retention: historyRetention))
            }
        }
    }

    var localWrites: UInt64 { writes.value }

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
