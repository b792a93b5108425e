import Foundation

/// The job queue's rules, the same on both stores.
enum JobRules {
    /// A job whose runs failed this many times (a dead worker's run counts) is failed: not
    /// taken again until someone asks (a movie that kills its worker must not kill them all).
    static let maximumRuns = 3
    /// The error a run whose worker went away ends with.
    static let stoppedWorker = "the worker stopped before the job ended (killed, or its machine went down)"

    /// Kinds as a SQL list of strings: the enum's own names, written into statements, never
    /// anything from outside.
    static func list(_ kinds: Set<JobKind>) -> String {
        kinds.map { "'\($0.rawValue)'" }.sorted().joined(separator: ", ")
    }
}

/// The job queue's statements, shared by both stores: `job` holds what waits (a job leaves
/// when done), `jobRun` each attempt at one, with its worker and progress. Taking a job is
/// each store's own: SQLite's single writer and a lock file per worker, PostgreSQL's row lock
/// held by the worker's transaction.
extension SQLDatabase {
    /// Adds a job, unless the same one is queued already.
    func enqueueJob(_ kind: JobKind, subject: String, at date: Date = Date()) throws {
        try execute(
            "INSERT INTO job (kind, subject, enqueuedDate) VALUES (?, ?, ?) ON CONFLICT (kind, subject) DO NOTHING",
            [kind.rawValue, subject, date])
    }

    /// Queues a job whose work grows (the faces job, as photos arrive): one that had failed too
    /// often (its service away for a while) waits again with its runs forgotten, as
    /// ``retryFailedJobs()`` would make it. On an import's path, one statement when the job
    /// waits already; its runs are read only when it was queued or woken.
    func enqueueJobAgain(_ kind: JobKind, subject: String, at date: Date = Date()) throws {
        guard
            let woken = try integer(
                """
                INSERT INTO job (kind, subject, enqueuedDate) VALUES (?, ?, ?)
                ON CONFLICT (kind, subject) DO UPDATE SET failed = 0, notBefore = NULL, lastError = NULL
                WHERE job.failed = 1 RETURNING id
                """, [kind.rawValue, subject, date])
        else { return }
        try execute("DELETE FROM jobRun WHERE jobId = ?", [woken])
    }

    /// The oldest job of `kinds` due at `date` and not failed; `condition` narrows the choice
    /// and `locking` ends the statement (a row lock).
    func nextJob(kinds: Set<JobKind>, due date: Date, condition: String = "", locking: String = "") throws
        -> QueuedJob?
    {
        guard !kinds.isEmpty else { return nil }
        let rows = try rows(
            """
            SELECT id, kind, subject, enqueuedDate FROM job
            WHERE failed = 0 AND kind IN (\(JobRules.list(kinds))) AND (notBefore IS NULL OR notBefore <= ?) \(condition)
            ORDER BY id LIMIT 1 \(locking)
            """, [date])
        return try rows.first.flatMap(Self.job)
    }

    /// Whether a taker may find anything: a job of `kinds` due at `date` (a dead worker's among
    /// them: its job stays until done). Read first, so that a runner with an empty queue takes
    /// no write lock.
    func mayHaveJobs(kinds: Set<JobKind>, due date: Date) throws -> Bool {
        guard !kinds.isEmpty else { return false }
        return try integer(
            """
            SELECT COUNT(*) FROM (SELECT 1 FROM job WHERE failed = 0 AND kind IN (\(JobRules.list(kinds)))
                AND (notBefore IS NULL OR notBefore <= ?) LIMIT 1) AS due
            """, [date]) == 1
    }

    /// A job's row as a value; nil for a kind this version does not know (a newer one's).
    private static func job(_ row: SQLRow) throws -> QueuedJob? {
        guard let kind = JobKind(rawValue: try row.text("kind")) else { return nil }
        return QueuedJob(
            id: try row.integer("id"), kind: kind, subject: try row.text("subject"),
            enqueuedDate: try row.date("enqueuedDate"))
    }

    /// Runs that have not ended, with the job they are of and the lease that says whether
    /// their worker lives.
    func openRuns() throws -> [(run: Int64, job: Int64, lease: String?)] {
        try rows("SELECT id, jobId, lease FROM jobRun WHERE endedDate IS NULL").map {
            (try $0.integer("id"), try $0.integer("jobId"), $0["lease"].text)
        }
    }

    /// Records a run of a job by `worker`; answers its id.
    func startRun(ofJob job: Int64, worker: String, lease: String?, at date: Date = Date()) throws -> Int64 {
        guard
            let id = try integer(
                "INSERT INTO jobRun (jobId, worker, lease, startedDate) VALUES (?, ?, ?, ?) RETURNING id",
                [job, worker, lease, date])
        else { throw LibraryError(.storageFailed, "the job run got no id") }
        return id
    }

    /// Ends a run: well (nil) or with an error.
    func endRun(_ run: Int64, error: String?, at date: Date = Date()) throws {
        try execute("UPDATE jobRun SET endedDate = ?, error = ? WHERE id = ?", [date, error, run])
    }

    /// Ends a job's runs still open as failed: their worker went away.
    func endOpenRuns(ofJob job: Int64, at date: Date = Date()) throws {
        try execute(
            "UPDATE jobRun SET endedDate = ?, error = ? WHERE jobId = ? AND endedDate IS NULL",
            [date, JobRules.stoppedWorker, job])
    }

    func recordProgress(ofRun run: Int64, done: Int, total: Int) throws {
        try execute("UPDATE jobRun SET done = ?, total = ? WHERE id = ?", [done, total, run])
    }

    /// How many of a job's runs failed, and the last one's error.
    func failedRuns(ofJob job: Int64) throws -> (count: Int, lastError: String?) {
        let rows = try rows(
            "SELECT error FROM jobRun WHERE jobId = ? AND error IS NOT NULL ORDER BY id DESC", [job])
        return (rows.count, rows.first?["error"].text)
    }

    /// After a failed run: the job is failed for good once its runs failed too often, else due
    /// again at `retryDate`. Answers whether it will be tried again.
    func settleFailure(ofJob job: Int64, retryDate: Date) throws -> Bool {
        let (count, error) = try failedRuns(ofJob: job)
        let retry = count < JobRules.maximumRuns
        try execute(
            "UPDATE job SET failed = ?, notBefore = ?, lastError = ? WHERE id = ?",
            [retry ? 0 : 1, retry ? retryDate : nil, error, job])
        return retry
    }

    /// The job is done: it leaves the queue with its runs.
    func deleteJob(_ job: Int64) throws {
        try execute("DELETE FROM job WHERE id = ?", [job])
    }

    /// Makes failed jobs wait again, their failed runs forgotten; answers how many.
    func retryFailedJobs() throws -> Int {
        let ids = try integers("SELECT id FROM job WHERE failed = 1")
        for id in ids {
            try execute("DELETE FROM jobRun WHERE jobId = ?", [id])
            try execute("UPDATE job SET failed = 0, notBefore = NULL, lastError = NULL WHERE id = ?", [id])
        }
        return ids.count
    }

    /// The queue: jobs waiting by kind, the open runs (with each run's job id and lease, for
    /// the store to tell whether its worker lives) and the failed jobs.
    func jobQueueRows() throws -> (
        waiting: [JobKind: Int], running: [(state: JobQueueState.RunningJob, lease: String?)],
        failed: [JobQueueState.FailedJob]
    ) {
        var waiting: [JobKind: Int] = [:]
        for row in try rows(
            """
            SELECT kind, COUNT(*) AS count FROM job WHERE failed = 0
            AND NOT EXISTS (SELECT 1 FROM jobRun WHERE jobId = job.id AND endedDate IS NULL) GROUP BY kind
            """)
        {
            guard let kind = JobKind(rawValue: try row.text("kind")) else { continue }
            waiting[kind] = Int(try row.integer("count"))
        }
        var running: [(JobQueueState.RunningJob, String?)] = []
        for row in try rows(
            """
            SELECT job.id, kind, subject, enqueuedDate, worker, lease, startedDate, done, total
            FROM jobRun JOIN job ON job.id = jobRun.jobId WHERE jobRun.endedDate IS NULL ORDER BY jobRun.id
            """)
        {
            guard let job = try Self.job(row) else { continue }
            let run = JobRun(
                worker: try row.text("worker"), startedDate: try row.date("startedDate"), endedDate: nil,
                done: Int(clamping: try row.integer("done")), total: Int(clamping: try row.integer("total")),
                error: nil)
            running.append((JobQueueState.RunningJob(job: job, run: run), row["lease"].text))
        }
        var failed: [JobQueueState.FailedJob] = []
        for row in try rows(
            """
            SELECT id, kind, subject, enqueuedDate, lastError,
            (SELECT COUNT(*) FROM jobRun WHERE jobId = job.id AND error IS NOT NULL) AS runs
            FROM job WHERE failed = 1 ORDER BY id
            """)
        {
            guard let job = try Self.job(row) else { continue }
            failed.append(
                JobQueueState.FailedJob(
                    job: job, error: row["lastError"].text ?? "", runs: Int(clamping: try row.integer("runs"))))
        }
        return (waiting, running, failed)
    }
}

extension JobQueueState {
    /// The queue from its rows, the runs whose worker is gone (`isLive` false) counted as
    /// waiting: the next worker takes them again.
    init(
        _ rows: (
            waiting: [JobKind: Int], running: [(state: RunningJob, lease: String?)], failed: [FailedJob]
        ),
        isLive: (RunningJob, String?) -> Bool
    ) {
        var waiting = rows.waiting
        var running: [RunningJob] = []
        for (job, lease) in rows.running {
            if isLive(job, lease) {
                running.append(job)
            } else {
                waiting[job.job.kind, default: 0] += 1
            }
        }
        self.init(waiting: waiting, running: running, failed: rows.failed)
    }
}

/// The queue's tables (schema step v21 on both stores).
enum JobSchema {
    /// `job`: one row per job to do, unique by kind and subject (a failed one keeps its last
    /// error). `jobRun`: each attempt, open (`endedDate` NULL) while its worker holds the job;
    /// `lease` names the SQLite worker's lock. Dates are stored as the catalog's others are.
    static func tables(id: String, text: String) -> [String] {
        [
            """
            CREATE TABLE job (
                id \(id),
                kind \(text) NOT NULL,
                subject \(text) NOT NULL,
                enqueuedDate \(text) NOT NULL,
                notBefore \(text),
                failed SMALLINT NOT NULL DEFAULT 0 CHECK (failed IN (0, 1)),
                lastError TEXT,
                UNIQUE (kind, subject)
            )
            """,
            """
            CREATE TABLE jobRun (
                id \(id),
                jobId BIGINT NOT NULL REFERENCES job(id) ON DELETE CASCADE,
                worker TEXT NOT NULL,
                lease \(text),
                startedDate \(text) NOT NULL,
                endedDate \(text),
                done BIGINT NOT NULL DEFAULT 0,
                total BIGINT NOT NULL DEFAULT 0,
                error TEXT
            )
            """,
            "CREATE INDEX job_on_failed_id ON job (failed, id)",
            "CREATE INDEX jobRun_on_jobId ON jobRun (jobId)",
            "CREATE INDEX jobRun_open ON jobRun (jobId) WHERE endedDate IS NULL",
        ]
    }

    static let sqlite = tables(id: "INTEGER PRIMARY KEY AUTOINCREMENT", text: "TEXT").joined(separator: ";\n")
    static let postgres = tables(id: "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY", text: "TEXT COLLATE \"C\"")
}
