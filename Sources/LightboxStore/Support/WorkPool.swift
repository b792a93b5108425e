import Dispatch
import Synchronization

/// Blocking work on threads of its own, at most `lanes` at once, in the order it came.
///
/// Each lane is a serial Dispatch queue, which Dispatch gives a thread of its own whenever it
/// has work. Its concurrent queues do not: they share the processors' few threads (two on a
/// 2-core server), so two long jobs on any of them stalled every other job of the process. Two
/// scrypt hashes of wrong passwords, or two hostile uploads being parsed, stopped every read
/// of the server until they ended. Each kind of long work (imports, renders, passwords) has a
/// pool of its own, and what is left for ``BlockingWork`` is short.
public final class WorkPool: Sendable {
    private struct State {
        package var free: [Int]
        package var waiting: [@Sendable () -> Void] = []
    }

    private let lanes: [DispatchQueue]
    private let state: Mutex<State>

    /// A pool of `lanes` lanes (at least one), named `label` in a debugger's thread list.
    public init(label: String, lanes: Int) {
        let count = max(1, lanes)
        self.lanes = (0..<count).map { DispatchQueue(label: "\(label).\($0)", qos: .userInitiated) }
        state = Mutex(State(free: Array((0..<count).reversed())))
    }

    /// Runs `work` on a free lane, or once one frees.
    public func submit(_ work: @escaping @Sendable () -> Void) {
        let lane = state.withLock { state -> Int? in
            guard let lane = state.free.popLast() else {
                state.waiting.append(work)
                return nil
            }
            return lane
        }
        if let lane { start(work, on: lane) }
    }

    /// Runs `work` on a lane and answers what it returns or throws.
    public func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            submit { continuation.resume(with: Result { try work() }) }
        }
    }

    private func start(_ work: @escaping @Sendable () -> Void, on lane: Int) {
        lanes[lane].async { [self] in
            work()
            let next = state.withLock { state -> (@Sendable () -> Void)? in
                guard !state.waiting.isEmpty else {
                    state.free.append(lane)
                    return nil
                }
                return state.waiting.removeFirst()
            }
            if let next { start(next, on: lane) }
        }
    }
}
