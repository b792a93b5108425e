import Foundation
import LightboxAnalysis
import LightboxStore

#if canImport(Glibc)
    import Glibc
#endif

extension PhotoLibrary {
    /// How a job runner works: which jobs, how many at once, and when it stops.
    public struct JobRunnerOptions: Sendable {
        /// The kinds it takes.
        public var kinds: Set<JobKind>
        /// Jobs run at once. Movie copies take every core each, and take turns in a process.
        public var concurrency: Int
        /// Returns once no job waits, instead of waiting for more.
        public var untilIdle: Bool
        /// Seconds a failed job waits before it is tried again.
        public var retryDelay: TimeInterval
        /// Who runs them, as the queue shows it.
        public var worker: String
        /// What finds faces and places and reads text: the runner takes those jobs only with one.
        public var analyzer: (any PhotoAnalyzing)?

        public init(
            kinds: Set<JobKind> = Set(JobKind.allCases), concurrency: Int = 1, untilIdle: Bool = false,
            retryDelay: TimeInterval = 60, worker: String = PhotoLibrary.workerName,
            analyzer: (any PhotoAnalyzing)? = nil
        ) {
            self.kinds = analyzer == nil ? kinds.filter { !$0.needsAnalysis } : kinds
            self.analyzer = analyzer
            self.concurrency = max(1, min(concurrency, 64))
            self.untilIdle = untilIdle
            self.retryDelay = max(0, retryDelay)
            self.worker = worker
        }
    }

    /// This process as a worker: its machine's name and its process id.
    public static var workerName: String {
        "\(ProcessInfo.processInfo.hostName) pid \(getpid())"
    }

    /// Runs the library's jobs until the task is cancelled (or, with `untilIdle`, until none
    /// waits): takes one (no other runner, in this process or another, on this machine or
    /// another, takes it meanwhile), does it, and ends it: done, it leaves the queue; failed, it
    /// is tried again later, by whichever runner comes first, until its runs failed
    /// ``JobRules/maximumRuns`` times. Between jobs it waits for a commit (which is what queues
    /// new ones) or a few seconds. Cancelled, a runner gives its job back unfinished.
    ///
    /// It first queues the work the library has waiting (an older library's cameras to read).
    public func runJobs(
        _ options: JobRunnerOptions = JobRunnerOptions(), onEvent: @escaping @Sendable (JobEvent) -> Void = { _ in }
    )
        async throws
    {
        if options.kinds.contains(.captureDetails),
            try await store.read({ try $0.captureDetailsBacklogCount() }) > 0
        {
            try await BlockingWork.run { [store] in try store.enqueueJob(.captureDetails, subject: "") }
        }
        if options.kinds.contains(.search), try await store.read({ try $0.searchBacklogCount() }) > 0 {
            try await BlockingWork.run { [store] in try store.enqueueJob(.search, subject: "") }
        }
        // Photos a new model has yet to see (or imported while no runner found faces).
        if options.kinds.contains(.faces), let analyzer = options.analyzer,
            let model = try? await analyzer.describe().faceModel,
            try await faceAnalysisBacklogCount(model: model) > 0
        {
            try await BlockingWork.run { [store] in try store.enqueueJob(.faces, subject: "") }
        }
        // Locations a new places model has yet to name.
        if options.kinds.contains(.places), try await placesWaiting(options) {
            try await BlockingWork.run { [store] in try store.enqueueJob(.places, subject: "") }
        }
        // Photos a new text or things model has yet to see.
        for kind in PhotoAnalysisKind.allCases where options.kinds.contains(kind.job) {
            if try await analysisWaiting(kind, options) {
                try await BlockingWork.run { [store] in try store.enqueueJob(kind.job, subject: "") }
            }
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<options.concurrency {
                group.addTask { try await self.takeJobs(options, onEvent: onEvent) }
            }
            try await group.waitForAll()
        }
    }

    /// The queue as it stands: what waits, what runs and how far it got, what failed.
    public func jobQueue() async throws -> JobQueueState {
        try await BlockingWork.run { [store] in try store.jobQueue() }
    }

    /// Makes the jobs that failed too often wait again; answers how many.
    @discardableResult
    public func retryFailedJobs() async throws -> Int {
        try await BlockingWork.run { [store] in try store.retryFailedJobs() }
    }

    /// One runner: takes jobs one after another until cancelled, or idle with `untilIdle`.
    private func takeJobs(_ options: JobRunnerOptions, onEvent: @escaping @Sendable (JobEvent) -> Void) async throws {
        var idle = false
        while !Task.isCancelled {
            let lease = try await BlockingWork.run { [store] in
                try store.takeJob(kinds: options.kinds, worker: options.worker)
            }
            guard let lease else {
                if !idle { onEvent(.idle) }
                idle = true
                if options.untilIdle { return }
                await waitForJobs()
                continue
            }
            idle = false
            await run(lease, options, onEvent: onEvent)
        }
    }

    /// Returns when a commit may have queued jobs, or after five seconds (a failed job coming
    /// due, a dead worker's job): SQLite's store is looked at ten times a second, PostgreSQL's
    /// hears commits as they happen.
    private func waitForJobs() async {
        let start = ContinuousClock.now
        let token = try? await store.read { try $0.lastChangeTransaction() }
        while !Task.isCancelled && ContinuousClock.now - start < .seconds(5) {
            await store.waitForChanges()
            if let token, let now = try? await store.read({ try $0.lastChangeTransaction() }), now != token { return }
        }
    }

    private func run(_ lease: any JobLease, _ options: JobRunnerOptions, onEvent: @Sendable (JobEvent) -> Void)
        async
    {
        let job = lease.job
        onEvent(.started(job))
        FaultInjection.pause(at: .jobStarted)
        let start = ContinuousClock.now
        do {
            try await perform(job, lease: lease, options)
            try Task.checkCancellation()
            try await BlockingWork.run { try lease.finish() }
            // Photos imported after its last look at the backlog, and before it left the
            // queue, queued no job of their own (the finished one held its place): one now.
            if job.kind == .faces, let model = try? await options.analyzer?.describe().faceModel,
                (try? await faceAnalysisBacklogCount(model: model)) ?? 0 > 0
            {
                try await BlockingWork.run { [store] in try store.enqueueJob(.faces, subject: "") }
            }
            if job.kind == .places, (try? await placesWaiting(options)) ?? false {
                try await BlockingWork.run { [store] in try store.enqueueJob(.places, subject: "") }
            }
            if let kind = PhotoAnalysisKind(job: job.kind),
                (try? await analysisWaiting(kind, options)) ?? false
            {
                try await BlockingWork.run { [store] in try store.enqueueJob(job.kind, subject: "") }
            }
            let elapsed = ContinuousClock.now - start
            onEvent(
                .finished(
                    job, seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18))
        } catch is CancellationError {
            _ = try? await BlockingWork.run { lease.giveBack() }
        } catch {
            let message = "\(error)"
            let retry =
                (try? await BlockingWork.run { try lease.fail(message, retryAfter: options.retryDelay) }) ?? true
            onEvent(.failed(job, error: message, willRetry: retry))
        }
    }

    /// Whether assets with a location wait for the runner's places model.
    private func placesWaiting(_ options: JobRunnerOptions) async throws -> Bool {
        guard let model = try? await options.analyzer?.describe().placeModel else { return false }
        return try await placeBacklogCount(model: model) > 0
    }

    /// Whether photos wait for the runner's model of `kind`.
    private func analysisWaiting(_ kind: PhotoAnalysisKind, _ options: JobRunnerOptions) async throws -> Bool {
        guard let info = try? await options.analyzer?.describe(), let model = info.model(of: kind) else { return false }
        return try await analysisBacklogCount(kind, model: model) > 0
    }

    /// Does one job's work.
    private func perform(_ job: QueuedJob, lease: any JobLease, _ options: JobRunnerOptions) async throws {
        switch job.kind {
        case .playableMovie:
            // Deleted since it was queued: nothing to do.
            guard let asset = try await store.read({ try $0.asset(withLocalIdentifier: job.subject) }) else { return }
            if case .preparing = try await playableMovie(for: asset, wait: .seconds(24 * 3600)) {
                throw LibraryError(.storageFailed, "the playable copy of \(job.subject) took more than a day")
            }
        case .captureDetails:
            try await fillCaptureDetails { done, total in
                Task.detached { _ = try? await BlockingWork.run { lease.progress(done: done, total: total) } }
            }
        case .search:
            var done = 0
            while true {
                let (more, left) = try await BlockingWork.run { [store] in
                    try store.write { try $0.refreshSearchDocuments() }
                }
                guard more else { break }
                done += SearchDocuments.perJobStep
                let (finished, total) = (done, done + left)
                Task.detached { _ = try? await BlockingWork.run { lease.progress(done: finished, total: total) } }
            }
        case .faces:
            guard let analyzer = options.analyzer else {
                throw LibraryError(.invalidRequest, "this runner has no analysis service to find faces with")
            }
            // A photo that cannot be analysed is recorded with why (``faceAnalysisFailures``),
            // and the work goes on.
            try await analyseFaces(with: analyzer) { done, total in
                Task.detached { _ = try? await BlockingWork.run { lease.progress(done: done, total: total) } }
            }
        case .places:
            guard let analyzer = options.analyzer else {
                throw LibraryError(.invalidRequest, "this runner has no analysis service to name places with")
            }
            try await findPlaces(with: analyzer) { done, total in
                Task.detached { _ = try? await BlockingWork.run { lease.progress(done: done, total: total) } }
            }
        case .text, .things, .clip:
            guard let analyzer = options.analyzer else {
                throw LibraryError(.invalidRequest, "this runner has no analysis service for \(job.kind.summary)")
            }
            // A service without the kind's model has nothing to do here: the job ends.
            guard let kind = PhotoAnalysisKind(job: job.kind) else { return }
            guard try await analyzer.describe().model(of: kind) != nil else { return }
            let progress: @Sendable (Int, Int) -> Void = { done, total in
                Task.detached { _ = try? await BlockingWork.run { lease.progress(done: done, total: total) } }
            }
            switch kind {
            case .text: try await readText(with: analyzer, progress: progress)
            case .things: try await findThings(with: analyzer, progress: progress)
            case .clip: try await embedPhotos(with: analyzer, progress: progress)
            }
        }
    }
}
