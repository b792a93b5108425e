import Foundation

/// Wakes the tasks waiting for a commit when PostgreSQL notifies one, over a connection of its
/// own that listens from the first wait on. A notification that arrives while nobody waits is
/// kept for the next wait, so that a commit landing between two looks at the history is not
/// slept through. When the connection cannot be made or breaks, waits last their whole time and
/// the next wait tries again.
final class PostgresCommitSignal: @unchecked Sendable {
    // @unchecked: every field is read and written only while holding `lock`.
    private let lock = NSLock()
    private var listener: PostgresLink?
    /// Why the next wait returns at once, when something came while nobody waited.
    private var pending: Wake?
    private var waiters: [UUID: Waiter] = [:]

    private struct Waiter {
        var continuation: CheckedContinuation<Wake, Never>
        var timer: Task<Void, Never>?
    }

    /// Why a wait returned.
    enum Wake: Sendable, Equatable {
        /// A commit was announced (since the last wait, or during this one).
        case notified
        /// Listening began: what committed before it was not heard, so the caller looks.
        case startedListening
        /// Nothing was heard in the time given.
        case timedOut
    }

    /// Returns at the next notification on `channel` (or one that came since the last wait), at
    /// once when it had to start listening, or after `timeout`.
    @discardableResult
    func wait(listeningWith pool: PostgresPool, channel: String, upTo timeout: Duration) async -> Wake {
        await listen(pool, channel)
        let id = UUID()
        return await withCheckedContinuation { (continuation: CheckedContinuation<Wake, Never>) in
            let now: Wake? = lock.withLock {
                if let wake = pending {
                    pending = nil
                    return wake
                }
                waiters[id] = Waiter(continuation: continuation)
                return nil
            }
            if let now {
                continuation.resume(returning: now)
                return
            }
            let timer = Task {
                try? await Task.sleep(for: timeout)
                guard !Task.isCancelled else { return }
                self.lock.withLock { self.waiters.removeValue(forKey: id) }?.continuation.resume(returning: .timedOut)
            }
            // Kept to be cancelled when a notification wakes the waiter first (unless it did already).
            lock.withLock { waiters[id]?.timer = timer }
        }
    }

    /// Starts listening unless a live connection already does (connecting on a thread of
    /// blocking work: an unreachable server takes its time to say so). A new listener has heard
    /// nothing of what committed before it: the next wait returns at once.
    private func listen(_ pool: PostgresPool, _ channel: String) async {
        let listening = lock.withLock { listener.map { !$0.isClosed } ?? false }
        guard !listening else { return }
        let link = try? await BlockingWork.run { [weak self] in
            let link = try pool.connect()
            // The channel of the catalog's schema, as the commits' `pg_notify` names it.
            let schema = try link.value("SELECT current_schema()")?.text ?? "public"
            try link.listen(channel + ":" + schema) { [weak self] _ in self?.notified() }
            return link
        }
        guard let link else { return }
        lock.withLock {
            listener = link
            pending = .startedListening
        }
    }

    private func notified() {
        let woken: [Waiter] = lock.withLock {
            let all = Array(waiters.values)
            waiters.removeAll()
            if all.isEmpty, pending == nil { pending = .notified }
            return all
        }
        for waiter in woken {
            waiter.timer?.cancel()
            waiter.continuation.resume(returning: .notified)
        }
    }
}
