import ArgumentParser
import Dispatch
import Foundation
import Lightbox
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

struct WorkerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "worker",
        abstract: "Run the library's background jobs until interrupted (or, with --until-idle, until none waits).",
        discussion: """
            Jobs are the work a library queues as it changes: the H.264 copy of a movie browsers \
            cannot play, the cameras of assets imported before the catalog kept them, the faces of \
            photos (with --analysis, the analysis services that find them). Any number of \
            workers (and servers, see `serve --jobs`) may run on one library, on one machine or, with \
            a PostgreSQL catalog, on several: each job is taken by one. A worker killed mid-job leaves \
            it to the next; Ctrl-C or SIGTERM gives the job back unfinished and stops.
            """)

    @OptionGroup var libraryOptions: LibraryOptions

    @OptionGroup var memoryOptions: MemoryBudgetOptions

    @OptionGroup var analysisOptions: AnalysisOptions

    @Option(help: "Jobs run at once.")
    var jobs = 1

    @Option(
        name: .customLong("kind"),
        help: ArgumentHelp(
            "Only jobs of this kind (repeatable): \(JobKind.allCases.map(\.rawValue).joined(separator: ", ")).",
            valueName: "KIND"))
    var kinds: [String] = []

    @Flag(help: "Stop once no job waits.")
    var untilIdle = false

    @Option(help: ArgumentHelp("Seconds a failed job waits before it is tried again.", valueName: "S"))
    var retryDelay = 60

    func run() async throws {
        guard (1...64).contains(jobs) else { throw ValidationError("--jobs must be 1...64, not \(jobs)") }
        guard (0...86_400).contains(retryDelay) else {
            throw ValidationError("--retry-delay must be 0...86400 seconds, not \(retryDelay)")
        }
        var chosen = Set<JobKind>()
        for name in kinds {
            guard let kind = JobKind(rawValue: name) else {
                throw ValidationError(
                    "no job kind is called \(name); the kinds are \(JobKind.allCases.map(\.rawValue).joined(separator: ", "))"
                )
            }
            chosen.insert(kind)
        }
        memoryOptions.apply()
        let library = try libraryOptions.open(joining: true)
        let (analyzer, local, unavailable) = try analysisOptions.analyzer()
        defer { local?.stop() }
        let options = PhotoLibrary.JobRunnerOptions(
            kinds: chosen.isEmpty ? Set(JobKind.allCases) : chosen, concurrency: jobs, untilIdle: untilIdle,
            retryDelay: TimeInterval(retryDelay), analyzer: analyzer)
        Output.message(
            "worker \(options.worker) on \(library.url.path): \(untilIdle ? "until no job waits" : "Ctrl-C stops")")
        if let line = await AnalysisOptions.describe(analyzer) ?? unavailable { Output.message(line) }
        let counts = JobCounts()
        let runner = Task {
            try await library.runJobs(options) { event in
                counts.record(event)
                Output.message(event.description)
            }
        }
        // Interrupted, the runner gives its jobs back before the process ends.
        let signals = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .main)
            source.setEventHandler { runner.cancel() }
            source.resume()
            return source
        }
        defer { for source in signals { source.cancel() } }
        do {
            try await runner.value
        } catch is CancellationError {
        } catch let error as LibraryError {
            throw CommandError(error.message)
        }
        Output.message(counts.summary)
    }
}

/// What a worker did, for its last line.
final class JobCounts: Sendable {
    private let counts = Mutex<(done: Int, failed: Int)>((0, 0))

    func record(_ event: JobEvent) {
        counts.withLock { counts in
            switch event {
            case .finished: counts.done += 1
            case .failed: counts.failed += 1
            case .started, .idle: break
            }
        }
    }

    var summary: String {
        let (done, failed) = counts.withLock { $0 }
        return "\(done) job\(done == 1 ? "" : "s") done, \(failed) failed"
    }
}

struct JobsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "jobs",
        abstract: "Show the library's background jobs: waiting, running (with their worker and progress), failed.")

    @OptionGroup var libraryOptions: LibraryOptions

    @Flag(help: "Make the failed jobs wait again.")
    var retry = false

    @Flag(help: "Print the queue as one JSON object.")
    var json = false

    func run() async throws {
        let library = try libraryOptions.open()
        do {
            if retry {
                let count = try await library.retryFailedJobs()
                Output.message("\(count) failed job\(count == 1 ? "" : "s") will be tried again")
            }
            let queue = try await library.jobQueue()
            if json {
                Output.jsonLine(queue)
                return
            }
            for line in Self.text(queue, now: Date()) { Output.line(line) }
        } catch let error as LibraryError {
            throw CommandError(error.message)
        }
    }

    /// The queue for a person: counts, then each running and failed job.
    static func text(_ queue: JobQueueState, now: Date) -> [String] {
        let waiting = queue.waiting.sorted { $0.key.rawValue < $1.key.rawValue }.filter { $0.value > 0 }
        var lines = [
            "waiting: \(queue.waitingCount)"
                + (waiting.isEmpty
                    ? "" : " (" + waiting.map { "\($0.value) \($0.key.rawValue)" }.joined(separator: ", ") + ")")
        ]
        lines.append("running: \(queue.running.count)")
        for running in queue.running {
            let seconds = max(0, Int(now.timeIntervalSince(running.run.startedDate)))
            let progress = running.run.total > 0 ? ", \(running.run.done) of \(running.run.total)" : ""
            lines.append("  \(running.job) by \(running.run.worker), for \(seconds) s\(progress)")
        }
        lines.append(
            "failed: \(queue.failed.count)"
                + (queue.failed.isEmpty ? "" : " (`lightbox jobs --retry` tries them again)"))
        for failed in queue.failed {
            lines.append("  \(failed.job), \(failed.runs) run\(failed.runs == 1 ? "" : "s"): \(failed.error)")
        }
        return lines
    }
}
