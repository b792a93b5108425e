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
    private var pending = false
    private var waiters: [UUID: CheckedContinuation<Void, Never>] = [:]

    /// Returns at the next notification on `channel` (or one that came since the last wait), or
    /// after `timeout`.
    func wait(listeningWith pool: PostgresPool, channel: String, upTo timeout: Duration) async {
        await listen(pool, channel)
        let id = UUID()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = lock.withLock {
                if pending {
                    pending = false
                    return true
                }
                waiters[id] = continuation
                return false
            }
            if now {
                continuation.resume()
                return
            }
            Task {
                try? await Task.sleep(for: timeout)
                self.lock.withLock { self.waiters.removeValue(forKey: id) }?.resume()
            }
        }
    }

    /// Starts listening unless a live connection already does (connecting on a thread of
    /// blocking work: an unreachable server takes its time to say so).
    private func listen(_ pool: PostgresPool, _ channel: String) async {
        let listening = lock.withLock { listener.map { !$0.isClosed } ?? false }
        guard !listening else { return }
        let link = try? await BlockingWork.run { [weak self] in
            let link = try pool.connect()
            try link.listen(channel) { [weak self] _ in self?.notified() }
            return link
        }
        guard let link else { return }
        lock.withLock { listener = link }
    }

    private func notified() {
        let woken: [CheckedContinuation<Void, Never>] = lock.withLock {
            let all = Array(waiters.values)
            waiters.removeAll()
            if all.isEmpty { pending = true }
            return all
        }
        for continuation in woken { continuation.resume() }
    }
}
