import Foundation
import GRDB
import LightboxMetadata
import Synchronization

/// The job queue on SQLite, whose processes share one machine: a job is taken in the write
/// transaction (one writer, so no two processes take the same one), and a run records the
/// name of its process's lock in the library's `workers/` folder (``ProcessFolder``): a run
/// whose lock is free belongs to a process that died, and its job is taken again.
extension SQLiteStore {
    /// The folder of the locks of this library's workers.
    var workersFolder: String {
        PathString.appending(PathString.deletingLastComponent(writer.path), "workers")
    }

    func enqueueJob(_ kind: JobKind, subject: String) throws {
        try writer.write { db in try db.enqueueJob(kind, subject: subject) }
    }

    func takeJob(kinds: Set<JobKind>, worker: String) throws -> (any JobLease)? {
        // The writer is the library's one: an idle runner looks before it takes it.
        guard try writer.read({ db in try db.mayHaveJobs(kinds: kinds, due: Date()) }) else { return nil }
        let folder = workersFolder
        let lease = try jobWorker.name(in: folder)
        return try writer.write { db -> SQLiteJobLease? in
            for open in try db.openRuns() where !ProcessFolder.isHeld(open.lease ?? "", in: folder) {
                try db.endRun(open.run, error: JobRules.stoppedWorker)
            }
            let now = Date()
            while let job = try db.nextJob(
                kinds: kinds, due: now,
                condition: "AND NOT EXISTS (SELECT 1 FROM jobRun WHERE jobId = job.id AND endedDate IS NULL)")
            {
                // A dead worker's failed run may be the last it was allowed.
                if try db.failedRuns(ofJob: job.id).count >= JobRules.maximumRuns {
                    _ = try db.settleFailure(ofJob: job.id, retryDate: now)
                    continue
                }
                let run = try db.startRun(ofJob: job.id, worker: worker, lease: lease)
                return SQLiteJobLease(writer: writer, job: job, run: run)
            }
            return nil
        }
    }

    func jobQueue() throws -> JobQueueState {
        let folder = workersFolder
        return JobQueueState(try writer.read { try $0.jobQueueRows() }) { _, lease in
            ProcessFolder.isHeld(lease ?? "", in: folder)
        }
    }

    func retryFailedJobs() throws -> Int {
        try writer.write { try $0.retryFailedJobs() }
    }
}

/// This process's lock among a library's workers, made when it first takes a job and held
/// while the store lives.
final class JobWorkerLock: Sendable {
    private let folder = Mutex<ProcessFolder?>(nil)

    /// The lock's name, made (after sweeping dead workers' locks) on first use.
    func name(in parent: String) throws -> String {
        try folder.withLock { folder in
            if let folder { return folder.name }
            ProcessFolder.removeLeftovers(in: parent)
            let made = try ProcessFolder(parent: parent)
            folder = made
            return made.name
        }
    }
}

/// A job taken from a SQLite catalog: its run is open until the lease ends.
final class SQLiteJobLease: JobLease {
    let job: QueuedJob
    private let run: Int64
    private let writer: DatabasePool

    init(writer: DatabasePool, job: QueuedJob, run: Int64) {
        self.writer = writer
        self.job = job
        self.run = run
    }

    func progress(done: Int, total: Int) {
        try? writer.write { db in try db.recordProgress(ofRun: run, done: done, total: total) }
    }

    func finish() throws {
        try writer.write { db in try db.deleteJob(job.id) }
    }

    func fail(_ error: String, retryAfter: TimeInterval) throws -> Bool {
        try writer.write { db in
            try db.endRun(run, error: error)
            return try db.settleFailure(ofJob: job.id, retryDate: Date().addingTimeInterval(max(0, retryAfter)))
        }
    }

    func giveBack() {
        try? writer.write { db in try db.endRun(run, error: nil) }
    }
}
