import Dispatch

/// Runs blocking work (libvips, file I/O) on Dispatch's threads, so that Swift's cooperative
/// pool and the server's event loops never wait on it: on a 2-core machine the pool has two
/// threads, and two blocked ones stop every task of the process.
public enum BlockingWork {
    private static let queue = DispatchQueue(label: "lightbox.blocking", qos: .userInitiated, attributes: .concurrent)

    public static func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async {
                continuation.resume(with: Result { try work() })
            }
        }
    }
}
