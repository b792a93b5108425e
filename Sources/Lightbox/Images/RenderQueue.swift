import Dispatch
import LightboxStore
import Synchronization

/// Runs blocking renders a few at a time: one per processor, so that a grid asking for 200
/// images at once decodes two (on two cores) and holds two decodes' memory, not 200.
///
/// Work asked for by a person (`userInitiated`) starts before caching work (`background`);
/// within a priority, the newest request starts first, because in a scrolling grid the
/// newest requests are for what is on screen now. A job whose request was cancelled while it
/// waited never starts.
///
/// The waiting list is bounded: past `capacity` jobs of one priority waiting, a person's
/// request is refused with ``Full`` (a server answers 503, to be asked again) and a caching
/// job is dropped, so that a flood of requests for full-size renders holds neither memory
/// nor a queue that would take hours to drain.
final class RenderQueue: Sendable {
    /// The waiting list of the job's priority is at its capacity.
    struct Full: Error {
        let waiting: Int
    }

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
    /// The most jobs of one priority that wait for a slot.
    let capacity: Int
    private let state = Mutex(State())
    /// Threads of the renders' own, one a slot: Dispatch's concurrent queues share the
    /// processors' few threads with every other blocking job of the process.
    private let lanes: WorkPool

    init(width: Int, capacity: Int = 256) {
        self.width = max(1, width)
        self.capacity = max(1, capacity)
        lanes = WorkPool(label: "lightbox.render", lanes: self.width)
    }

    /// Runs `work` when a slot is free. Throws `CancellationError` when `isCancelled` says so
    /// before the work starts.
    func run<T: Sendable>(
        priority: Priority, isCancelled: @escaping @Sendable () -> Bool, _ work: @escaping @Sendable () throws -> T
    ) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let job = Job(
                priority: priority,
                start: { [self] in
                    lanes.submit {
                        continuation.resume(with: Result { try work() })
                        self.finished()
                    }
                },
                abandon: { continuation.resume(throwing: CancellationError()) },
                isCancelled: isCancelled)
            if let full = submit(job) {
                continuation.resume(throwing: priority == .background ? CancellationError() : full)
            }
        }
    }

    /// Starts or queues `job`; returns ``Full`` (and does neither) when its priority's
    /// waiting list is at capacity.
    private func submit(_ job: Job) -> Full? {
        if job.isCancelled() {
            job.abandon()
            return nil
        }
        var numbered = job
        let (start, full): (Bool, Full?) = state.withLock { state in
            if state.running < width {
                state.running += 1
                return (true, nil)
            }
            let waiting = state.waiting.count { $0.priority == job.priority }
            guard waiting < capacity else { return (false, Full(waiting: waiting)) }
            state.sequence += 1
            numbered.sequence = state.sequence
            state.waiting.append(numbered)
            return (false, nil)
        }
        if start { job.start() }
        return full
    }

    /// How many jobs wait for a slot.
    var waitingCount: Int { state.withLock { $0.waiting.count } }

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
                guard
                    let index = state.waiting.indices.max(by: { a, b in
                        let (x, y) = (state.waiting[a], state.waiting[b])
                        return x.priority != y.priority ? x.priority < y.priority : x.sequence < y.sequence
                    })
                else {
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
