import Dispatch

/// Runs blocking work (libvips, file I/O) on Dispatch's threads, so that Swift's cooperative
/// pool and the server's event loops never wait on it.
enum BlockingWork {
    private static let queue = DispatchQueue(label: "lightbox.blocking", qos: .userInitiated, attributes: .concurrent)

    static func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async {
                continuation.resume(with: Result { try work() })
            }
        }
    }
}
