import Foundation
import LightboxTestSupport
import Synchronization
import Testing

@testable import Lightbox
@testable import LightboxStore

#if canImport(Glibc)
    import Glibc
#endif

/// The queue of background jobs, on the store under test: each job taken by one worker, a dead
/// worker's job taken again, failures counted and bounded, and the movies browsers cannot play
/// copied by whoever runs the jobs.
@Suite("Background jobs: a queue shared by workers")
struct JobQueueTests {
    @Test("Each job goes to one worker; a dead worker's is taken again, failures end it, retry brings it back")
    func queueRules() async throws {
        let folder = try TemporaryDirectory()
        let library = try folder.makeLibrary()
        let store = library.store
        try store.enqueueJob(.playableMovie, subject: "A")
        try store.enqueueJob(.playableMovie, subject: "B")
        try store.enqueueJob(.playableMovie, subject: "A")
        var queue = try store.jobQueue()
        #expect(queue.waiting == [.playableMovie: 2], "the same job twice is queued once")

        // Another process's view of the library takes one, this one the other: never both the same.
        var other: PhotoLibrary? = try PhotoLibrary(url: library.url)
        var first = try #require(try other?.store.takeJob(kinds: [.playableMovie], worker: "other worker"))
        let second = try #require(try store.takeJob(kinds: [.playableMovie], worker: "this worker"))
        #expect(Set([first.job.subject, second.job.subject]) == ["A", "B"])
        #expect(try store.takeJob(kinds: [.playableMovie], worker: "this worker") == nil, "both are held")
        first.progress(done: 1, total: 4)
        queue = try store.jobQueue()
        #expect(queue.waitingCount == 0)
        #expect(Set(queue.running.map(\.run.worker)) == ["other worker", "this worker"])
        let shown = try #require(queue.running.first { $0.job.id == first.job.id })
        #expect((shown.run.done, shown.run.total) == (1, 4))
        try second.finish()
        #expect(try store.jobQueue().running.map(\.job.id) == [first.job.id], "a finished job leaves the queue")

        // The other worker dies holding its job (its process, or its connection, goes).
        let held = first.job
        first = SentinelLease()
        other = nil
        #expect(other == nil)
        let retaken = try await Self.take(held, from: store)
        #expect(retaken.job == held, "the dead worker's job is taken again")
        #expect(try store.jobQueue().running.map(\.run.worker) == ["this worker"])
        #expect(try retaken.fail("the copy could not be made", retryAfter: 0), "two failed runs of three: tried again")
        let third = try #require(try store.takeJob(kinds: [.playableMovie], worker: "this worker"))
        #expect(try !third.fail("the copy could not be made again", retryAfter: 0), "the third failure ends it")
        #expect(
            try store.takeJob(kinds: [.playableMovie], worker: "this worker") == nil, "a failed job waits for a retry")
        queue = try store.jobQueue()
        #expect(queue.waitingCount == 0 && queue.running.isEmpty)
        let failed = try #require(queue.failed.first)
        #expect(queue.failed.count == 1 && failed.job == held && failed.runs == 3)
        #expect(failed.error == "the copy could not be made again")

        // Retried, it waits again; given back unfinished, no failure is counted.
        #expect(try store.retryFailedJobs() == 1)
        let again = try #require(try store.takeJob(kinds: [.playableMovie], worker: "this worker"))
        #expect(again.job == held)
        again.giveBack()
        #expect(try store.jobQueue().waiting == [.playableMovie: 1])
        let last = try #require(try store.takeJob(kinds: [.playableMovie], worker: "this worker"))
        try last.finish()

        // A worker takes only the kinds it runs.
        try store.enqueueJob(.captureDetails, subject: "")
        #expect(try store.takeJob(kinds: [.playableMovie], worker: "this worker") == nil)
        let whole = try #require(try store.takeJob(kinds: [.captureDetails, .playableMovie], worker: "this worker"))
        #expect(whole.job.kind == .captureDetails && whole.job.subject == "")
        try whole.finish()
        queue = try store.jobQueue()
        #expect(queue.waitingCount == 0 && queue.running.isEmpty && queue.failed.isEmpty)
    }

    /// Takes `job` again once its dead worker has let it go: at once on SQLite (the lock file is
    /// free when the store goes), as soon as the server has rolled the connection back on
    /// PostgreSQL.
    static func take(_ job: QueuedJob, from store: any LibraryStore) async throws -> any JobLease {
        for _ in 0..<200 {
            if let lease = try store.takeJob(kinds: [job.kind], worker: "this worker") { return lease }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw LibraryError(.storageFailed, "the dead worker's job was never taken again")
    }

    @Test("A movie browsers cannot play queues its copy at import; a worker makes it and the queue empties")
    func moviesAreMadePlayable() async throws {
        let folder = try TemporaryDirectory()
        let library = try folder.makeLibrary()
        let phoneMovie = try Corpus.path(Corpus.livePhotoMovie)
        let hevc = folder.path("HEVC_0001.MOV")
        try FFmpeg.hevc(phoneMovie, to: hevc)
        let pair = try Corpus.livePhotoPair(
            in: folder, identifier: UUID().uuidString, name: "IMG_0002", moviePath: hevc)
        // The Live Photo's still first, then its movie: the movie joins the still.
        for batch in [[hevc, phoneMovie, pair.still], [pair.movie]] {
            let summary = await library.importItems(at: batch.map(URL.init(fileURLWithPath:)))
            #expect(summary.progress.failed == 0)
        }
        let assets = Array(try library.fetchAssets())
        let hevcMovie = try #require(assets.first { $0.originalMovieResource?.originalFilename == "HEVC_0001.MOV" })
        let live = try #require(assets.first { $0.mediaSubtypes.contains(.photoLive) })
        var queue = try await library.jobQueue()
        // The still's faces, text and things and the phone movie's place wait too, for a runner with an
        // analysis service.
        #expect(
            queue.waiting == [.playableMovie: 2, .faces: 1, .places: 1, .text: 1, .things: 1, .clip: 1],
            "the H.264 movie needs no copy: \(queue)")
        // No copy yet (looked for on disk: asking for one would start making it).
        #expect(Self.movieCopies(in: library).isEmpty)
        let events = Events()
        try await library.runJobs(PhotoLibrary.JobRunnerOptions(untilIdle: true, worker: "test")) { events.add($0) }
        #expect(events.finished.sorted() == [hevcMovie.localIdentifier, live.localIdentifier].sorted())
        queue = try await library.jobQueue()
        #expect(
            queue.waiting == [.faces: 1, .places: 1, .text: 1, .things: 1, .clip: 1] && queue.running.isEmpty
                && queue.failed.isEmpty,
            "\(queue)")
        #expect(Self.movieCopies(in: library).count == 2, "the jobs made them")
        for asset in [hevcMovie, live] {
            // Made: answered at once, without waiting.
            guard case .transcoded(let path, _) = try await library.playableMovie(for: asset, wait: .zero) else {
                Issue.record("\(asset.localIdentifier): no copy after the jobs ran")
                continue
            }
            #expect(try FFmpeg.videoCodec(path).codec == "h264")
        }
    }

    /// The H.264 copies of movies in the library's folder of renders.
    static func movieCopies(in library: PhotoLibrary) -> [String] {
        let root = library.url.appendingPathComponent("derivatives").path
        return (FileManager.default.subpaths(atPath: root) ?? []).filter { $0.contains("-h264-") }
    }

    @Test("A worker killed mid-job leaves its job to the next, which makes the copy; `lightbox jobs` shows the run")
    func killedWorker() async throws {
        let folder = try TemporaryDirectory()
        let (library, asset) = try await folder.makeLibraryWithHEVCMovie()
        let path = library.url.path
        let said = try CommandLineTests.runKilled(["worker", "--library", path], at: "job-started")
        #expect(said.contains("started: movie made playable in browsers (\(asset.localIdentifier))"), "\(said)")
        // The dead worker's job waits again (at once on SQLite; on PostgreSQL once the server has
        // seen the connection go), beside the movie's place, which waits for a runner with an
        // analysis service.
        var listing = ""
        for _ in 0..<100 {
            listing = try CommandLineTests.run(["jobs", "--library", path]).stdout
            if listing.hasPrefix("waiting: 2 (1 places, 1 playableMovie)\nrunning: 0\n") { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(listing.hasPrefix("waiting: 2 (1 places, 1 playableMovie)\nrunning: 0\n"), "\(listing)")

        let worker = try CommandLineTests.run(["worker", "--library", path, "--until-idle"])
        #expect(worker.status == 0, "\(worker.stderr)")
        #expect(worker.stderr.contains("done: movie made playable in browsers (\(asset.localIdentifier))"))
        #expect(worker.stderr.contains("1 job done, 0 failed"), "\(worker.stderr)")
        guard case .transcoded = try await library.playableMovie(for: asset, wait: .zero) else {
            Issue.record("no copy after the second worker")
            return
        }
        let jobs = try CommandLineTests.run(["jobs", "--library", path])
        #expect(jobs.status == 0, "\(jobs.stderr)")
        #expect(jobs.stdout.hasPrefix("waiting: 1 (1 places)\nrunning: 0\nfailed: 0"), "\(jobs.stdout)")
    }
}

/// A lease that holds nothing: what a variable holds once its worker's lease is dropped.
private struct SentinelLease: JobLease {
    var job: QueuedJob { QueuedJob(id: -1, kind: .playableMovie, subject: "", enqueuedDate: .distantPast) }
    func progress(done: Int, total: Int) {}
    func finish() throws {}
    func fail(_ error: String, retryAfter: TimeInterval) throws -> Bool { false }
    func giveBack() {}
}

/// The jobs a runner finished, by subject.
private final class Events: Sendable {
    private let done = Mutex<[String]>([])

    func add(_ event: JobEvent) {
        if case .finished(let job, _) = event { done.withLock { $0.append(job.subject) } }
    }

    var finished: [String] { done.withLock { $0 } }
}
