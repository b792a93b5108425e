import Foundation
import GRDB
import Synchronization

/// How much persistent history a library keeps (see `fetchPersistentChanges(since:)`):
/// transactions beyond either bound are pruned as new ones commit, and a change token older
/// than what is kept fails with `persistentChangeTokenExpired`.
public struct HistoryRetention: Sendable, Hashable {
    /// The most transactions kept.
    public var maximumTransactions: Int
    /// The longest time a transaction is kept, in seconds.
    public var maximumAge: TimeInterval

    /// By default, a million transactions or a year, whichever is less.
    public init(maximumTransactions: Int = 1_000_000, maximumAge: TimeInterval = 365 * 24 * 3600) {
        self.maximumTransactions = max(1, maximumTransactions)
        self.maximumAge = max(0, maximumAge)
    }
}

/// The library's SQLite database: owns the connection pool and the schema's migrations.
///
/// Invariants live in the schema (foreign keys, uniqueness, checks), so no code path can
/// store a resource without its asset, or the same photo bytes twice.
struct SQLiteStore: Sendable {
    /// The pool: one writer, concurrent readers, WAL journal.
    let writer: DatabasePool
    /// How much history writes keep.
    let historyRetention: HistoryRetention
    /// The snapshots fetch results read.
    let snapshots = SnapshotCache<SQLiteSnapshot>()
    /// The write transactions run through this store (``LibraryStore/localWrites``).
    let writes = WriteCounter()
    /// The lock that tells other processes this one's job runs live (made on the first job).
    let jobWorker = JobWorkerLock()

    /// Opens (creating when missing) and migrates the database at `path`.
    ///
    /// Throws ``LibraryError/Code-swift.struct/newerLibraryVersion`` when the database holds
    /// migrations this build does not know: a newer Lightbox wrote it, and opening it could
    /// damage what that version stored.
    init(path: String, historyRetention: HistoryRetention = HistoryRetention()) throws {
        self.historyRetention = historyRetention
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.label = "Lightbox"
        configuration.busyMode = .timeout(10)
        // Processes that open a new library, or one to upgrade, at the same moment would each
        // run the migrations they find missing ("table asset already exists"): they take turns,
        // and whoever comes second finds them applied.
        let lock = try Self.lockMigrations(path)
        defer { close(lock) }
        let pool = try DatabasePool(path: path, configuration: configuration)
        // FULL: a commit is on disk when it returns, so `import --move` may delete the source
        // and a purge the original right after; WAL keeps readers unblocked while it writes.
        // Set on the one writer connection once GRDB has opened it: GRDB's WAL setup sets
        // NORMAL after `prepareDatabase`, which made commits durable only at checkpoints.
        try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
        let migrator = Self.migrator
        try pool.read { db in
            let known = Set(migrator.migrations)
            let unknown = try migrator.appliedIdentifiers(db).subtracting(known)
            if !unknown.isEmpty {
                throw LibraryError(
                    .newerLibraryVersion,
                    "the library was written by a newer version of Lightbox (schema steps \(unknown.sorted().joined(separator: ", "))); upgrade Lightbox to open it",
                    path: path)
            }
        }
        try migrator.migrate(pool)
        writer = pool
    }

    /// The name of the lock file beside the database that openers take turns on.
    static let migrationLockSuffix = "-migrations.lock"

    /// Opens and locks (blocking) the lock file beside the database; closing it unlocks.
    static func lockMigrations(_ path: String) throws -> Int32 {
        let lockPath = path + migrationLockSuffix
        let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw FileIO.posixError("creating a lock", lockPath) }
        while flock(fd, LOCK_EX) != 0 {
            guard errno == EINTR else {
                let error = FileIO.posixError("locking", lockPath)
                close(fd)
                throw error
            }
        }
        return fd
    }
}

/// A count every copy of the store shares.
final class WriteCounter: Sendable {
    private let count = Atomic<UInt64>(0)

    var value: UInt64 { count.load(ordering: .acquiring) }

    func increment() {
        count.add(1, ordering: .releasing)
    }
}
