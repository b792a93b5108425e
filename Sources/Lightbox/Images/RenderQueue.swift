import Dispatch
import Synchronization

/// Runs blocking renders a few at a time: one per processor, so that a grid asking for 200
/// images at once decodes two (on two cores) and holds two decodes' memory, not 200.
///
/// Work asked for by a person (`userInitiated`) starts before caching work (`background`);
/// within a priority, the newest request starts first, because in a scrolling grid the
/// newest requests are for what is on screen now. A job whose request was cancelled while it
/// waited never starts.
final class RenderQueue: Sendable {
    enum Priority: Int, Comparable, Sendable {
        case background = 0
        case userInitiated = 1

        static func < (lhs: Priority, rhs: Priority) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    private struct Job {
        let priority: Priority
        var sequence = 0
        let start: @Sendable () -> Void
        let abandon: @Sendable () -> Void
        let isCancelled: @Sendable () -> Bool
    }

    private struct State {
        var running = 0
        var sequence = 0
        var waiting: [Job] = []
    }

    let width: Int
    private let state = Mutex(State())
    private let queue = DispatchQueue(label: "lightbox.render", qos: .userInitiated, attributes: .concurrent)
    private let backgroundQueue = DispatchQueue(label: "lightbox.render.background", qos: .utility, attributes: .concurrent)

    init(width: Int) {
        self.width = max(1, width)
    }

    /// Runs `work` when a slot is free. Throws `CancellationError` when `isCancelled` says so
    /// before the work starts.
    func run<T: Sendable>(
        priority: Priority, isCancelled: @escaping @Sendable () -> Bool, _ work: @escaping @Sendable () throws -> T
    ) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let dispatch = priority == .background ? backgroundQueue : queue
            let job = Job(
                priority: priority,
                start: { [self] in
                    dispatch.async {
                        continuation.resume(with: Result { try work() })
                        self.finished()
                    }
                },
                abandon: { continuation.resume(throwing: CancellationError()) },
                isCancelled: isCancelled)
            submit(job)
        }
    }

    private func submit(_ job: Job) {
        if job.isCancelled() {
            job.abandon()
            return
        }
        var numbered = job
        let start: Bool = state.withLock { state in
            state.sequence += 1
            numbered.sequence = state.sequence
            if state.running < width {
                state.running += 1
                return true
            }
            state.waiting.append(numbered)
            return false
        }
        if start { job.start() }
    }

    /// Abandons the waiting jobs whose requests were cancelled, at once rather than when a
    /// slot frees: their callers stop waiting.
    func dropCancelled() {
        let abandoned = state.withLock { Self.removeCancelled(&$0) }
        for job in abandoned { job.abandon() }
    }

    /// Takes the cancelled jobs out of the waiting list, each asked once.
    private static func removeCancelled(_ state: inout State) -> [Job] {
        var cancelled: [Job] = []
        state.waiting.removeAll { job in
            guard job.isCancelled() else { return false }
            cancelled.append(job)
            return true
        }
        return cancelled
    }

    /// A slot is free: start the most urgent waiting job, dropping cancelled ones.
    private func finished() {
        while true {
            var abandoned: [Job] = []
            let next: Job? = state.withLock { state in
                abandoned = Self.removeCancelled(&state)
                guard let index = state.waiting.indices.max(by: { a, b in
                    let (x, y) = (state.waiting[a], state.waiting[b])
                    return x.priority != y.priority ? x.priority < y.priority : x.sequence < y.sequence
                }) else {
                    state.running -= 1
                    return nil
                }
                return state.waiting.remove(at: index)
            }
            for job in abandoned { job.abandon() }
            guard let next else { return }
            if next.isCancelled() {
                next.abandon()
                continue
            }
            next.start()
            return
        }
    }
}
