import Dispatch

/// Runs short blocking work (a catalog read or commit, a file read) off Swift's cooperative
/// pool and the server's event loops: on a 2-core machine the pool has two threads, and two
/// blocked ones stop every task of the process. Long work (imports, renders, password
/// hashing) runs on pools of its own (``WorkPool``), so that it never holds these lanes.
public enum BlockingWork {
    /// Lanes enough that a few slow reads (a cold disk) leave others free.
    private static let pool = WorkPool(label: "lightbox.blocking", lanes: 16)

    public static func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await pool.run(work)
    }
}
