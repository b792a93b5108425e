import Foundation

/// What a background job does. Jobs are work a library wants done after a commit, outside
/// any request: run by `lightbox worker` processes and by `lightbox serve` itself (see
/// ``PhotoLibrary/runJobs(_:onEvent:)``), on whichever machine takes them first.
public enum JobKind: String, Sendable, Hashable, Codable, CodingKeyRepresentable, CaseIterable {
    /// The H.264 copy of a movie browsers cannot play (an iPhone's HEVC), made ahead of the
    /// first request for it. The subject is the asset.
    case playableMovie
    /// The cameras, lenses and orientations of assets imported before the catalog kept them,
    /// read from their originals. One job for the library (no subject).
    case captureDetails
    /// The faces of the photos the analysis service's model has yet to see, found and recorded
    /// (``PhotoLibrary/analyseFaces(with:imageManager:progress:)``). One job for the library
    /// (no subject), queued by an import of photos; it works until none is left.
    case faces
    /// The places of the assets with a location that the analysis service's places model has
    /// yet to name (``PhotoLibrary/findPlaces(with:progress:)``). One job for the library (no
    /// subject), queued by an import of an asset with a location.
    case places
    /// The text in the photos the analysis service's text model has yet to read
    /// (``PhotoLibrary/readText(with:imageManager:progress:)``). One job for the library (no
    /// subject), queued by an import of photos.
    case text
    /// The things in the photos the analysis service's things model has yet to see
    /// (``PhotoLibrary/findThings(with:imageManager:progress:)``). One job for the library (no
    /// subject), queued by an import of photos.
    case things
    /// CLIP's embeddings of the photos the analysis service's CLIP model has yet to see
    /// (``PhotoLibrary/embedPhotos(with:imageManager:progress:)``), for content search. One job
    /// for the library (no subject), queued by an import of photos.
    case clip
    /// The search's documents of the assets whose words changed beyond what a write transaction
    /// makes again itself (a migrated library's every asset). One job for the library.
    case search

    /// Whether it needs an analysis service: a runner without one does not take it.
    public var needsAnalysis: Bool {
        switch self {
        case .faces, .places, .text, .things, .clip: true
        case .playableMovie, .captureDetails, .search: false
        }
    }

    /// What it does, for a person.
    public var summary: String {
        switch self {
        case .playableMovie: "movie made playable in browsers"
        case .captureDetails: "cameras and lenses read from older imports"
        case .faces: "faces found in photos"
        case .places: "places named for locations"
        case .text: "text read in photos"
        case .things: "things found in photos"
        case .clip: "photos embedded for content search"
        case .search: "search index brought up to date"
        }
    }
}

/// A job in the queue: what to do, and to what.
public struct QueuedJob: Sendable, Hashable, Codable {
    public var id: Int64
    public var kind: JobKind
    /// The asset's identifier, or empty for a job on the whole library.
    public var subject: String
    public var enqueuedDate: Date
}

/// One attempt at a job by one worker.
public struct JobRun: Sendable, Hashable, Codable {
    /// Who ran it: a host name and process id.
    public var worker: String
    public var startedDate: Date
    /// When it ended; nil while it runs.
    public var endedDate: Date?
    /// How far it got, for jobs that count their steps (0 of 0 for those that do not).
    public var done: Int
    public var total: Int
    /// Why it failed; nil while it runs, or when it ended well.
    public var error: String?
}

/// The queue as it stands: what waits, what runs and how far it got, what failed.
public struct JobQueueState: Sendable, Hashable, Codable {
    /// Jobs waiting for a worker, by kind (those waiting to be tried again included).
    public var waiting: [JobKind: Int]
    /// Jobs a worker holds, each with its run.
    public var running: [RunningJob]
    /// Jobs that failed every time they were tried, with the last error: not tried again until
    /// asked (``PhotoLibrary/retryFailedJobs()``).
    public var failed: [FailedJob]

    public struct RunningJob: Sendable, Hashable, Codable {
        public var job: QueuedJob
        public var run: JobRun
    }

    public struct FailedJob: Sendable, Hashable, Codable {
        public var job: QueuedJob
        public var error: String
        /// How many runs failed.
        public var runs: Int
    }

    public var waitingCount: Int { waiting.values.reduce(0, +) }
}

/// What a job runner reports as it works.
public enum JobEvent: Sendable {
    case started(QueuedJob)
    case finished(QueuedJob, seconds: Double)
    /// `willRetry`: another run will be tried later; false once it has failed too often.
    case failed(QueuedJob, error: String, willRetry: Bool)
    /// No job waits (the runner waits for one, or returns when asked to stop when idle).
    case idle
}

extension QueuedJob: CustomStringConvertible {
    /// The job for a person: its kind and subject.
    public var description: String {
        subject.isEmpty ? kind.summary : "\(kind.summary) (\(subject))"
    }
}

extension JobEvent: CustomStringConvertible {
    /// One line for a log or a terminal.
    public var description: String {
        switch self {
        case .started(let job): "started: \(job)"
        case .finished(let job, let seconds): "done: \(job), in \(String(format: "%.1f", seconds)) s"
        case .failed(let job, let error, let retry):
            "failed: \(job): \(error)" + (retry ? "; it will be tried again" : "; not tried again until retried")
        case .idle: "no job waits"
        }
    }
}
