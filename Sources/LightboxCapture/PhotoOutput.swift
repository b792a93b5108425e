import CCapture
import Foundation
import LightboxMetadata
import Synchronization

/// Takes photos from a session's camera (AVFoundation's `AVCapturePhotoOutput`): stills, Live
/// Photos, brackets and bursts, each capture reporting its lifecycle to a delegate or as an
/// async sequence of ``PhotoCaptureEvent``.
///
/// A capture's photo is the first frame that arrives after ``capturePhoto(with:delegate:)``;
/// a bracket takes one frame per exposure, a burst one frame per photo, at the device's rate.
/// Several captures may be in flight at once: each gets its own frames and events.
public final class PhotoOutput: Sendable {
    /// How much of a Live Photo's movie lies on each side of its shutter, in seconds.
    public static let livePhotoHalfDuration = 1.5

    private struct State {
        var session: CaptureSession?
        var frameSize: PhotoDimensions?
        var livePhotoCaptureEnabled = false
        var usedIDs: Set<Int64> = []
        /// Captures waiting for their frames, in the order asked.
        var waiting: [Capture] = []
        /// Live Photo captures whose movie is still being recorded.
        var recording: [Capture] = []
        var stopped: CaptureError?
        /// Frames the captures accepted and not yet ended may hold (one a photo, a bracket's
        /// each), each copied until its photo is encoded.
        var inFlight = 0
    }

    /// The most captures in flight at once (a burst's photos each count): each holds its frame
    /// until its photo is encoded, which is slower than frames arrive.
    public static let maximumCapturesInFlight = 100
    /// The most bytes the frames of the captures in flight may hold together: a burst of 30 at
    /// 7680x4320 held 1.3 GB before this bound.
    public static let maximumFrameMemory = 256 << 20

    /// The most frames in flight at once at `size`: a copied frame is 4:2:0, a byte and a half
    /// a pixel. At 1920x1080, 86; at 7680x4320, 5.
    public static func maximumFramesInFlight(at size: PhotoDimensions) -> Int {
        Swift.max(1, Swift.min(maximumCapturesInFlight, maximumFrameMemory / frameBytes(at: size)))
    }

    /// The bytes of one frame copied at `size`.
    static func frameBytes(at size: PhotoDimensions) -> Int {
        Swift.max(1, size.width) * Swift.max(1, size.height) * 3 / 2
    }

    private let state = Mutex(State())
    /// Where delegates hear events, one at a time.
    let delegateQueue = DispatchQueue(label: "lightbox.capture.delegate")
    /// Photos are encoded here, one at a time; movies are written on their own queue, so that a
    /// burst's encoding does not hold a Live Photo's movie back.
    private let photoQueue = DispatchQueue(label: "lightbox.capture.photos")
    private let movieQueue = DispatchQueue(label: "lightbox.capture.movies")

    public init() {}

    /// Whether Live Photos may be captured: set before the session starts, which then records
    /// the last seconds of frames all the time.
    public var isLivePhotoCaptureEnabled: Bool {
        get { state.withLock { $0.livePhotoCaptureEnabled } }
        set { state.withLock { $0.livePhotoCaptureEnabled = newValue } }
    }

    /// The camera's device, once attached to a session with one.
    public var device: CaptureDevice? { state.withLock { $0.session }?.camera }

    func attach(to session: CaptureSession) { state.withLock { $0.session = session } }

    func sessionStarted(frameSize: PhotoDimensions) {
        state.withLock { state in
            state.frameSize = frameSize
            state.stopped = nil
        }
    }

    /// Takes a photo; `delegate` hears each step. Throws at once, with no events, for settings
    /// that cannot be used: a reused unique ID, a Live Photo without a movie URL or with Live
    /// Photo capture off, a bracket on a device that cannot set its exposure.
    public func capturePhoto(with settings: PhotoSettings, delegate: any PhotoCaptureDelegate) throws(CaptureError) {
        try start(settings, delegate: delegate, continuation: nil)
    }

    /// Takes a photo; the events arrive in order and the sequence ends after `didFinishCapture`.
    public func capturePhoto(with settings: PhotoSettings) throws(CaptureError) -> AsyncStream<PhotoCaptureEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: PhotoCaptureEvent.self)
        try start(settings, delegate: nil, continuation: continuation)
        return stream
    }

    /// A burst: `count` photos from consecutive frames, all with one burst identifier, each a
    /// capture of its own (settings copied from `settings` with fresh unique IDs). Returns once
    /// every photo is processed, with the sharpest marked as the representative.
    public func captureBurst(count: Int, settings: PhotoSettings, delegate: (any PhotoCaptureDelegate)? = nil)
        async throws(CaptureError) -> CapturedBurst
    {
        guard (2...Self.maximumCapturesInFlight).contains(count) else {
            throw CaptureError(
                .invalidSettings, "a burst has 2 to \(Self.maximumCapturesInFlight) photos, not \(count)")
        }
        let (room, size) = state.withLock { state in
            let size = state.frameSize ?? PhotoDimensions(width: 1, height: 1)
            return (Self.maximumFramesInFlight(at: size) - state.inFlight, size)
        }
        guard count <= room else {
            throw CaptureError(
                .invalidSettings,
                "room for \(Swift.max(0, room)) more photos of \(size) in flight (\(Self.maximumFrameMemory >> 20) MB of frames), not a burst of \(count)"
            )
        }
        guard settings.livePhotoMovieFileURL == nil, settings.exposureBiases.isEmpty else {
            throw CaptureError(.invalidSettings, "a burst's photos are stills: no Live Photo movie, no bracket")
        }
        let identifier = UUID().uuidString
        var streams: [AsyncStream<PhotoCaptureEvent>] = []
        for _ in 0..<count {
            var photo = PhotoSettings(from: settings)
            photo.burstIdentifier = identifier
            let (stream, continuation) = AsyncStream.makeStream(of: PhotoCaptureEvent.self)
            try start(photo, delegate: delegate, continuation: continuation)
            streams.append(stream)
        }
        var photos: [CapturePhoto] = []
        var failure: CaptureError?
        for stream in streams {
            for await event in stream {
                switch event {
                case .didFinishProcessingPhoto(.success(let photo)): photos.append(photo)
                case .didFinishCapture(_, let error?): failure = failure ?? error
                default: break
                }
            }
        }
        if let failure { throw failure }
        let representative = photos.indices.max { photos[$0].sharpness < photos[$1].sharpness } ?? 0
        return CapturedBurst(identifier: identifier, photos: photos, representativeIndex: representative)
    }

    private func start(
        _ settings: PhotoSettings, delegate: (any PhotoCaptureDelegate)?,
        continuation: AsyncStream<PhotoCaptureEvent>.Continuation?
    ) throws(CaptureError) {
        let capture = try state.withLock { state throws(CaptureError) -> Capture in
            // After its device failed, a session answers with what failed.
            if let stopped = state.stopped { throw stopped }
            guard let session = state.session, let frameSize = state.frameSize, session.isRunning,
                let device = session.camera
            else { throw CaptureError(.notRunning, "the photo output's session is not running") }
            guard !state.usedIDs.contains(settings.uniqueID) else {
                throw CaptureError(
                    .invalidSettings,
                    "photo settings \(settings.uniqueID) were used already: make new settings for every capture")
            }
            if settings.livePhotoMovieFileURL != nil, !state.livePhotoCaptureEnabled {
                throw CaptureError(
                    .invalidSettings, "Live Photo capture is off: enable it on the output before the session starts")
            }
            guard settings.exposureBiases.isEmpty || device.isExposureAdjustable else {
                throw CaptureError(.invalidSettings, "\(device.localizedName) cannot set its exposure for a bracket")
            }
            guard settings.exposureBiases.count <= 9,
                settings.exposureBiases.allSatisfy({ $0.isFinite && abs($0) <= 4 })
            else { throw CaptureError(.invalidSettings, "a bracket has at most 9 exposures, each within ±4 EV") }
            guard settings.livePhotoMovieFileURL == nil || settings.exposureBiases.isEmpty else {
                throw CaptureError(.invalidSettings, "a Live Photo cannot be bracketed")
            }
            let frames = Swift.max(1, settings.exposureBiases.count)
            let most = Self.maximumFramesInFlight(at: frameSize)
            guard state.inFlight + frames <= most else {
                throw CaptureError(
                    .invalidSettings,
                    "\(state.inFlight) photos of \(frameSize) are in flight, at most \(most): wait for one to end")
            }
            // The frames' copies come out of the process's memory budget too, beside decodes
            // and imports: a capture that cannot have them now is refused, not queued, since
            // its frames arrive whether it waits or not.
            let memory = frames * Self.frameBytes(at: frameSize)
            guard MemoryBudget.shared.reserveNow(memory) else {
                throw CaptureError(
                    .outOfMemory,
                    "the process's memory budget has no room now for \(frames) frame\(frames == 1 ? "" : "s") of \(frameSize): try again when the work in hand ends"
                )
            }
            state.inFlight += frames
            state.usedIDs.insert(settings.uniqueID)
            return Capture(
                settings: settings, resolved: resolve(settings, device: device, frameSize: frameSize),
                device: device, delegate: delegate, continuation: continuation, memory: memory)
        }
        // Its first events are queued before the session's thread can see the capture: its
        // frame's didCapturePhoto always comes after them.
        emit(.willBeginCapture(capture.resolved), for: capture)
        emit(.willCapturePhoto(capture.resolved), for: capture)
        let stopped = state.withLock { state -> CaptureError? in
            if let stopped = state.stopped { return stopped }
            state.waiting.append(capture)
            return nil
        }
        // The device failed in between: the capture ends as one waiting would have.
        if let stopped { fail([capture], waiting: true, error: stopped) }
    }

    private func resolve(_ settings: PhotoSettings, device: CaptureDevice, frameSize: PhotoDimensions)
        -> ResolvedPhotoSettings
    {
        let photo = settings.maxPhotoDimensions.map { frameSize.fitting($0) } ?? frameSize
        let live = settings.livePhotoMovieFileURL != nil
        return ResolvedPhotoSettings(
            uniqueID: settings.uniqueID, format: settings.format, photoDimensions: photo,
            previewDimensions: settings.previewPhotoSide.map { photo.fitting(side: $0) }
                ?? PhotoDimensions(width: 0, height: 0),
            embeddedThumbnailDimensions: settings.embeddedThumbnailSide.map { photo.fitting(side: $0) }
                ?? PhotoDimensions(width: 0, height: 0),
            isFlashEnabled: device.hasFlash && settings.flashMode != .off, isLivePhoto: live,
            livePhotoMovieDimensions: live ? frameSize : PhotoDimensions(width: 0, height: 0),
            expectedPhotoCount: Swift.max(1, settings.exposureBiases.count),
            contentIdentifier: live ? UUID().uuidString : nil, burstIdentifier: settings.burstIdentifier)
    }

    /// A frame from the session's thread: the waiting captures take what they need, and Live
    /// Photo movies whose end has come are written.
    func received(_ item: ccapture_item) {
        let time = Double(item.time_us) / 1_000_000
        let (taker, ended) = state.withLock { state -> (Capture?, [Capture]) in
            let ended = state.recording.filter { time >= $0.movieEnd }
            state.recording.removeAll { time >= $0.movieEnd }
            return (state.waiting.first, ended)
        }
        for capture in ended { finishRecording(capture) }
        guard let capture = taker else { return }
        // One frame for each photo of the capture; the capture leaves the line when it has all.
        let frame = Frame(copying: item)
        let complete = capture.take(frame, date: Date())
        guard complete else { return }
        state.withLock { state in
            state.waiting.removeAll { $0 === capture }
            if capture.resolved.isLivePhoto { state.recording.append(capture) }
        }
        if capture.resolved.isLivePhoto, let recorder = state.withLock({ $0.session })?.recorder {
            capture.hold = recorder.hold(from: capture.shutter - Self.livePhotoHalfDuration)
        }
        emit(.didCapturePhoto(capture.resolved), for: capture)
        photoQueue.async { [self] in process(capture) }
    }

    /// Encodes a capture's photos and reports each.
    private func process(_ capture: Capture) {
        for (index, frame) in capture.frames.enumerated() {
            let bias = capture.settings.exposureBiases.isEmpty ? nil : capture.settings.exposureBiases[index]
            let result = Result { () throws(CaptureError) -> CapturePhoto in
                let source = frame.exposed(by: bias ?? 0).fitting(capture.resolved.photoDimensions)
                let exif = CaptureExif(
                    make: capture.device.manufacturer, model: capture.device.localizedName, software: "Lightbox",
                    date: capture.dates[index], timeZone: .current, pixelWidth: source.width,
                    pixelHeight: source.height,
                    contentIdentifier: capture.resolved.contentIdentifier,
                    burstUUID: capture.resolved.burstIdentifier, exposureBias: bias, hasFlash: capture.device.hasFlash,
                    flashFired: capture.resolved.isFlashEnabled)
                let data = try StillEncoder.encode(
                    source, as: capture.settings.format, thumbnailSide: capture.settings.embeddedThumbnailSide,
                    exif: exif)
                let preview = try capture.settings.previewPhotoSide.map { _ throws(CaptureError) in
                    Data(try StillEncoder.jpeg(source, capture.resolved.previewDimensions, quality: 85))
                }
                return CapturePhoto(
                    resolvedSettings: capture.resolved, device: capture.device, timestamp: frame.time,
                    captureDate: capture.dates[index], timeZone: .current, photoCount: index + 1, exposureBias: bias,
                    fileData: data, previewJPEG: preview, sharpness: frame.sharpness)
            }
            if case .failure(let error) = result { capture.fail(error) }
            emit(.didFinishProcessingPhoto(result), for: capture)
        }
        capture.frames = []
        capture.photosDone()
        finishIfDone(capture)
    }

    /// The movie's last frame has come: report it and write the file.
    private func finishRecording(_ capture: Capture) {
        guard let url = capture.settings.livePhotoMovieFileURL else { return }
        emit(.didFinishRecordingLivePhotoMovie(url, capture.resolved), for: capture)
        let recorder = state.withLock { $0.session }?.recorder
        movieQueue.async { [self] in
            let result = Result { () throws(CaptureError) -> LivePhotoMovie in
                guard let recorder else { throw CaptureError(.notRunning, "the session stopped") }
                return try writeMovie(capture, recorder: recorder, to: url)
            }
            if let hold = capture.hold { recorder?.release(hold) }
            if case .failure(let error) = result { capture.fail(error) }
            emit(.didFinishProcessingLivePhotoMovie(result, capture.resolved), for: capture)
            capture.movieDone()
            finishIfDone(capture)
        }
    }

    /// Cuts the movie from the recorder's window, then gives it the still's identifier and moment.
    private func writeMovie(_ capture: Capture, recorder: MovieRecorder, to url: URL) throws(CaptureError)
        -> LivePhotoMovie
    {
        // The movie is made in a folder of its own beside its place, then renamed there whole:
        // no file of anyone else's is ever written over or removed on the way.
        var template = Array((url.deletingLastPathComponent().path + "/.lightbox-movie-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else {
            throw CaptureError(
                .processingFailed,
                "cannot write the Live Photo's movie beside \(url.path): \(String(cString: strerror(errno)))")
        }
        let folder = String(cString: made)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let partial = folder + "/movie.mov"
        // The movie shows from shutter-1.5 s, or from the window's first frame when the session
        // is younger than that: the still's moment is counted from what the movie shows.
        let shown = try recorder.write(
            to: partial, from: capture.shutter - Self.livePhotoHalfDuration, to: capture.movieEnd)
        do {
            let photoTime = Swift.max(0, capture.shutter - shown)
            // The content identifier and the still's moment replace the movie's index at its end.
            let ending = try AppleMetadataWriter.livePhotoMovieEnding(
                ofFileAt: partial, contentIdentifier: capture.resolved.contentIdentifier ?? "",
                stillImageTime: photoTime)
            let file = try FileHandle(forUpdating: URL(fileURLWithPath: partial))
            defer { try? file.close() }
            try file.truncate(atOffset: UInt64(ending.offset))
            try file.seekToEnd()
            try file.write(contentsOf: ending.bytes)
            try file.synchronize()
            // Into place whole, replacing a file of that name, as AVFoundation does.
            guard rename(partial, url.path) == 0 else {
                throw CaptureError(
                    .processingFailed,
                    "cannot move the Live Photo's movie to \(url.path): \(String(cString: strerror(errno)))")
            }
            let duration = (try? MetadataReader.read(fileAtPath: url.path))?.quickTime?.duration ?? 0
            return LivePhotoMovie(url: url, duration: duration, photoDisplayTime: photoTime)
        } catch let error as CaptureError {
            throw error
        } catch {
            throw CaptureError(.processingFailed, "cannot write the Live Photo's movie \(url.path): \(error)")
        }
    }

    /// Ends every capture still waiting for frames or recording: the session stopped or failed.
    func sessionStopped(error: CaptureError) {
        let (waiting, recording) = state.withLock { state in
            if state.stopped == nil { state.stopped = error }
            defer {
                state.waiting = []
                state.recording = []
            }
            return (state.waiting, state.recording)
        }
        fail(waiting, waiting: true, error: error)
        fail(recording, waiting: false, error: error)
    }

    /// Ends captures with `error`: those still `waiting` for frames report the photos never
    /// taken; a Live Photo reports its movie failed; each then ends with `didFinishCapture`.
    private func fail(_ captures: [Capture], waiting: Bool, error: CaptureError) {
        let recorder = state.withLock { $0.session }?.recorder
        for capture in captures {
            capture.fail(error)
            if waiting {
                photoQueue.async { [self] in
                    for _ in capture.frames.count..<capture.resolved.expectedPhotoCount {
                        emit(.didFinishProcessingPhoto(.failure(error)), for: capture)
                    }
                    capture.frames = []
                    capture.photosDone()
                    if capture.resolved.isLivePhoto {
                        emit(.didFinishProcessingLivePhotoMovie(.failure(error), capture.resolved), for: capture)
                        capture.movieDone()
                    }
                    finishIfDone(capture)
                }
            } else {
                movieQueue.async { [self] in
                    if let hold = capture.hold { recorder?.release(hold) }
                    emit(.didFinishProcessingLivePhotoMovie(.failure(error), capture.resolved), for: capture)
                    capture.movieDone()
                    finishIfDone(capture)
                }
            }
        }
    }

    /// Waits until every photo and movie queued is processed and its events delivered.
    func waitForProcessing() {
        photoQueue.sync {}
        movieQueue.sync {}
        delegateQueue.sync {}
    }

    /// Reports `didFinishCapture` once the photos and the movie are done.
    private func finishIfDone(_ capture: Capture) {
        guard capture.isDone() else { return }
        state.withLock { $0.inFlight -= Swift.max(1, capture.settings.exposureBiases.count) }
        MemoryBudget.shared.giveBack(capture.memory)
        emit(.didFinishCapture(capture.resolved, capture.error), for: capture)
    }

    /// Delivers an event on the delegate queue. A Live Photo's movie events wait until its photo
    /// events are out, so that the order is always MODEL.md's.
    private func emit(_ event: PhotoCaptureEvent, for capture: Capture) {
        let events = capture.order(event)
        guard !events.isEmpty else { return }
        delegateQueue.async { [self] in
            for event in events {
                capture.delegate?.deliver(event, from: self)
                capture.continuation?.yield(event)
                if case .didFinishCapture = event { capture.continuation?.finish() }
            }
        }
    }
}

/// A burst's photos in the order taken, and the one chosen to stand for it.
public struct CapturedBurst: Sendable {
    public let identifier: String
    public let photos: [CapturePhoto]
    /// The sharpest photo (its Laplacian's variance highest): the library's autoPick.
    public let representativeIndex: Int
}

/// One capture in flight.
final class Capture: @unchecked Sendable {
    let settings: PhotoSettings
    let resolved: ResolvedPhotoSettings
    let device: CaptureDevice
    let delegate: (any PhotoCaptureDelegate)?
    let continuation: AsyncStream<PhotoCaptureEvent>.Continuation?
    /// The bytes its frames hold, reserved from the process's ``MemoryBudget`` until it ends.
    let memory: Int

    private let lock = NSLock()
    /// Frames taken (one per photo), and the wall-clock moment of each.
    var frames: [Frame] = []
    var dates: [Date] = []
    var shutter = 0.0
    var movieEnd: Double { shutter + PhotoOutput.livePhotoHalfDuration }
    var hold: Int32?
    private(set) var error: CaptureError?
    private var photosFinished = false
    private var movieFinished: Bool
    private var finished = false
    /// Movie events held back until the photo events are out.
    private var deferred: [PhotoCaptureEvent] = []

    init(
        settings: PhotoSettings, resolved: ResolvedPhotoSettings, device: CaptureDevice,
        delegate: (any PhotoCaptureDelegate)?, continuation: AsyncStream<PhotoCaptureEvent>.Continuation?,
        memory: Int
    ) {
        self.memory = memory
        self.settings = settings
        self.resolved = resolved
        self.device = device
        self.delegate = delegate
        self.continuation = continuation
        movieFinished = !resolved.isLivePhoto
    }

    /// Takes a frame; true once the capture has all its frames.
    func take(_ frame: Frame, date: Date) -> Bool {
        lock.withLock {
            if frames.isEmpty { shutter = frame.time }
            frames.append(frame)
            dates.append(date)
            return frames.count >= resolved.expectedPhotoCount
        }
    }

    func fail(_ error: CaptureError) { lock.withLock { if self.error == nil { self.error = error } } }

    func photosDone() { lock.withLock { photosFinished = true } }
    func movieDone() { lock.withLock { movieFinished = true } }

    /// True once, when both photos and movie are done.
    func isDone() -> Bool {
        lock.withLock {
            guard photosFinished, movieFinished, !finished else { return false }
            finished = true
            return true
        }
    }

    /// The events to deliver now, in order: movie events wait for the photos.
    func order(_ event: PhotoCaptureEvent) -> [PhotoCaptureEvent] {
        lock.withLock {
            switch event {
            case .didFinishRecordingLivePhotoMovie, .didFinishProcessingLivePhotoMovie:
                if !photosFinished {
                    deferred.append(event)
                    return []
                }
                return [event]
            case .didFinishCapture:
                let events = deferred + [event]
                deferred = []
                return events
            default:
                return [event]
            }
        }
    }
}
