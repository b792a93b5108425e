import Foundation

/// The job queue on PostgreSQL, shared by the workers of every machine: a worker takes a job
/// with `FOR NO KEY UPDATE SKIP LOCKED` in a transaction of a connection of its own and holds
/// that transaction open while the job runs, so that no other worker takes it; when the job
/// ends the transaction deletes it (done) or settles its failure, and commits. A worker that
/// dies takes its connection with it, the server rolls the transaction back, and the job waits
/// again for the next worker, which ends the dead one's run as failed.
///
/// Runs are written on the pool's connections, outside that transaction, so that their
/// progress shows while the job runs and a dead worker's run stays to be counted. (Their
/// foreign key takes a key-share lock on the job's row, which a no-key-update lock allows.)
extension PostgresStore {
    func enqueueJob(_ kind: JobKind, subject: String) throws {
        try pool.withLink { link in try PostgresTransaction(link: link).enqueueJob(kind, subject: subject) }
    }

    func takeJob(kinds: Set<JobKind>, worker: String) throws -> (any JobLease)? {
        let link = try pool.takeSpare()
        do {
            let held = PostgresTransaction(link: link)
            try link.execute("BEGIN")
            while let job = try held.nextJob(kinds: kinds, due: Date(), locking: "FOR NO KEY UPDATE SKIP LOCKED") {
                // This transaction holds the job: a run still open is a dead worker's.
                let failed = try pool.withLink { link in
                    let db = PostgresTransaction(link: link)
                    try db.endOpenRuns(ofJob: job.id)
                    return try db.failedRuns(ofJob: job.id).count
                }
                if failed >= JobRules.maximumRuns {
                    _ = try held.settleFailure(ofJob: job.id, retryDate: Date())
                    try link.execute("COMMIT")
                    try link.execute("BEGIN")
                    continue
                }
                let run = try pool.withLink { link in
                    try PostgresTransaction(link: link).startRun(ofJob: job.id, worker: worker, lease: nil)
                }
                return PostgresJobLease(store: self, link: link, job: job, run: run)
            }
            try link.execute("ROLLBACK")
            pool.giveSpare(link)
            return nil
        } catch {
            // Closing the connection ends whatever transaction it was in.
            link.close()
            throw error
        }
    }

    func jobQueue() throws -> JobQueueState {
        return try pool.withLink { link in
            let queue = try PostgresTransaction(link: link).jobQueueRows()
            // A run's worker lives while its transaction holds the job's row: the rows that can
            // be locked now are dead workers'.
            let ids = Set(queue.running.map(\.state.job.id))
            var free: Set<Int64> = []
            if !ids.isEmpty {
                free = try link.transaction {
                    Set(
                        try link.integers(
                            "SELECT id FROM job WHERE id IN (\(ids.map(String.init).joined(separator: ", "))) FOR NO KEY UPDATE SKIP LOCKED"
                        ))
                }
            }
            return JobQueueState(queue) { job, _ in !free.contains(job.job.id) }
        }
    }

    func retryFailedJobs() throws -> Int {
        try pool.withLink { link in try link.transaction { try PostgresTransaction(link: link).retryFailedJobs() } }
    }
}

/// A job taken from a PostgreSQL catalog: the connection whose open transaction holds its row.
final class PostgresJobLease: JobLease, @unchecked Sendable {
    // @unchecked: `link` is used by one thread at a time, the worker's, until the lease ends.
    let job: QueuedJob
    private let run: Int64
    private let store: PostgresStore
    private let link: PostgresLink

    init(store: PostgresStore, link: PostgresLink, job: QueuedJob, run: Int64) {
        self.store = store
        self.link = link
        self.job = job
        self.run = run
    }

    func progress(done: Int, total: Int) {
        try? store.pool.withLink { link in
            try PostgresTransaction(link: link).recordProgress(ofRun: run, done: done, total: total)
        }
    }

    func finish() throws {
        try end { try PostgresTransaction(link: link).deleteJob(job.id) }
    }

    func fail(_ error: String, retryAfter: TimeInterval) throws -> Bool {
        try store.pool.withLink { link in try PostgresTransaction(link: link).endRun(run, error: error) }
        return try end {
            try PostgresTransaction(link: link).settleFailure(
                ofJob: job.id, retryDate: Date().addingTimeInterval(max(0, retryAfter)))
        }
    }

    func giveBack() {
        try? store.pool.withLink { link in try PostgresTransaction(link: link).endRun(run, error: nil) }
        _ = try? link.execute("ROLLBACK")
        store.pool.giveSpare(link)
    }

    /// Runs `body` in the held transaction and commits; the connection goes back to the pool's
    /// spares, or is closed when anything failed (which rolls back).
    private func end<T>(_ body: () throws -> T) throws -> T {
        do {
            let result = try body()
            try link.execute("COMMIT")
            store.pool.giveSpare(link)
            return result
        } catch {
            link.close()
            throw error
        }
    }
}
