import Foundation
import LightboxCapture
import LightboxMetadata
import LightboxTestSupport
import Testing

/// Collects every event a capture reports, in the order delivered, through ``delegate``.
final class EventLog: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [PhotoCaptureEvent] = []
    private var finished: [Int64: CheckedContinuation<Void, Never>] = [:]
    private var finishedIDs: Set<Int64> = []

    /// The delegate to hand a capture.
    var delegate: PhotoCaptureEventHandler { PhotoCaptureEventHandler { [self] in record($0) } }

    private func record(_ event: PhotoCaptureEvent) {
        let waiter = lock.withLock { () -> CheckedContinuation<Void, Never>? in
            events.append(event)
            guard case .didFinishCapture(let settings, _) = event else { return nil }
            finishedIDs.insert(settings.uniqueID)
            return finished.removeValue(forKey: settings.uniqueID)
        }
        waiter?.resume()
    }

    /// Waits for `didFinishCapture` of the capture with this settings ID.
    func waitForCapture(_ id: Int64) async {
        await withCheckedContinuation { continuation in
            let done = lock.withLock {
                if finishedIDs.contains(id) { return true }
                finished[id] = continuation
                return false
            }
            if done { continuation.resume() }
        }
    }

    /// The events of one capture, by name.
    func names(of id: Int64) -> [String] { self.events(of: id).map(\.name) }

    func events(of id: Int64) -> [PhotoCaptureEvent] {
        lock.withLock { events }.filter { event in
            if case .didFinishProcessingPhoto(.failure) = event { return true }
            return event.resolvedSettings?.uniqueID == id
        }
    }
}

@Suite("Capturing Live Photos from the synthetic camera")
struct LivePhotoCaptureTests {
    @Test("A Live Photo: events in order, a 3 s movie around the still's moment, one identifier in both")
    func livePhoto() async throws {
        let folder = try TemporaryDirectory()
        let session = CaptureSession(preset: .photo)
        try session.addInput(.synthetic(width: 640, height: 360, frameRate: 30))
        let output = PhotoOutput()
        output.isLivePhotoCaptureEnabled = true
        try session.addOutput(output)
        try session.startRunning()
        defer { session.stopRunning() }
        // Let the recorder hold more than the movie's first half.
        try await Task.sleep(for: .seconds(2))

        var settings = PhotoSettings(format: .jpeg)
        settings.livePhotoMovieFileURL = URL(fileURLWithPath: folder.path("live.mov"))
        let log = EventLog()
        try output.capturePhoto(with: settings, delegate: log.delegate)
        await log.waitForCapture(settings.uniqueID)

        #expect(
            log.names(of: settings.uniqueID) == [
                "willBeginCapture", "willCapturePhoto", "didCapturePhoto", "didFinishProcessingPhoto",
                "didFinishRecordingLivePhotoMovie", "didFinishProcessingLivePhotoToMovieFile", "didFinishCapture",
            ])
        let events = log.events(of: settings.uniqueID)
        guard case .didFinishProcessingPhoto(.success(let photo)) = events[3],
            case .didFinishProcessingLivePhotoMovie(.success(let movie), let resolved) = events[5],
            case .didFinishCapture(_, nil) = events[6]
        else {
            Issue.record("the capture failed: \(events)")
            return
        }
        #expect(resolved.isLivePhoto && resolved.contentIdentifier != nil)
        #expect(abs(movie.duration - 3) <= 0.2, "\(movie.duration)")
        #expect(abs(movie.photoDisplayTime - 1.5) <= 0.2)

        // The movie shows the still's moment at the photo's time: the synthetic camera's clock,
        // read back from the frames ffmpeg decodes.
        // The synthetic camera's tone is the movie's sound.
        #expect(try FFmpeg.probe(movie.url.path).hasAudio)
        let decoded = try FFmpeg.greyFrames(of: movie.url.path)
        let shown = try #require(decoded.frames.last { $0.time <= movie.photoDisplayTime + 0.001 })
        let clock = try #require(
            SyntheticClock.milliseconds(inLuma: shown.luma, width: decoded.width, height: decoded.height))
        #expect(abs(Double(clock) / 1000 - photo.timestamp) < 0.034)
        let first = try #require(decoded.frames.first)
        let firstClock = try #require(
            SyntheticClock.milliseconds(inLuma: first.luma, width: decoded.width, height: decoded.height))
        #expect(abs(Double(firstClock) / 1000 - (photo.timestamp - 1.5)) <= 0.2)

        // One identifier in the still's maker note and the movie's keys, as exiftool reads them.
        let still = folder.path("still.jpg")
        try photo.fileData.write(to: URL(fileURLWithPath: still))
        // exiftool names the maker note's tag 0x0011 MediaGroupUUID.
        let stillTags = try ExifTool.tags(["MediaGroupUUID", "Make", "Model"], of: still)
        let movieTags = try ExifTool.tags(["ContentIdentifier"], of: movie.url.path)
        #expect(stillTags["MediaGroupUUID"] == resolved.contentIdentifier)
        #expect(movieTags["ContentIdentifier"] == resolved.contentIdentifier)
        #expect(stillTags["Model"] == "Lightbox Test Camera")
        // The still's moment in the movie's timed metadata, as exiftool and Lightbox read it.
        let sampleTime = try #require(try ExifTool.sampleTime(of: "StillImageTime", in: movie.url.path))
        #expect(abs(sampleTime - movie.photoDisplayTime) < 0.01)
        let metadata = try MetadataReader.read(fileAtPath: movie.url.path)
        #expect(abs((metadata.quickTime?.stillImageTime ?? -1) - sampleTime) < 0.001)
    }
}
