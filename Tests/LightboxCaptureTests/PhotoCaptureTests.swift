import Foundation
import Lightbox
import LightboxCapture
import LightboxTestSupport
import Testing

/// A running session on the synthetic camera, small and quick to encode.
func syntheticSession(live: Bool = false, width: Int = 640, height: Int = 360) throws -> (CaptureSession, PhotoOutput) {
    let session = CaptureSession(preset: .photo)
    try session.addInput(.synthetic(width: width, height: height, frameRate: 30))
    let output = PhotoOutput()
    output.isLivePhotoCaptureEnabled = live
    try session.addOutput(output)
    try session.startRunning()
    return (session, output)
}

/// The events of a capture, collected from its async sequence.
func events(of stream: AsyncStream<PhotoCaptureEvent>) async -> [PhotoCaptureEvent] {
    var events: [PhotoCaptureEvent] = []
    for await event in stream { events.append(event) }
    return events
}

let stillEvents = [
    "willBeginCapture", "willCapturePhoto", "didCapturePhoto", "didFinishProcessingPhoto", "didFinishCapture",
]

@Suite("Capturing photos from the synthetic camera")
struct PhotoCaptureTests {
    @Test("A still: events in order, settings resolved against the device, EXIF as exiftool reads it")
    func still() async throws {
        let folder = try TemporaryDirectory()
        let (session, output) = try syntheticSession()
        defer { session.stopRunning() }
        var settings = PhotoSettings(format: .jpeg)
        settings.flashMode = .on
        settings.maxPhotoDimensions = PhotoDimensions(width: 320, height: 320)
        settings.previewPhotoSide = 100
        let captured = await events(of: try output.capturePhoto(with: settings))
        #expect(captured.map(\.name) == stillEvents)
        guard case .didFinishProcessingPhoto(.success(let photo)) = captured[3] else {
            Issue.record("no photo: \(captured)")
            return
        }
        let resolved = photo.resolvedSettings
        // The camera has no flash: asked for, it resolves to off, and EXIF says there is none.
        #expect(resolved.uniqueID == settings.uniqueID && !resolved.isFlashEnabled)
        #expect(resolved.photoDimensions == PhotoDimensions(width: 320, height: 180))
        #expect(resolved.previewDimensions == PhotoDimensions(width: 100, height: 56))
        #expect(resolved.embeddedThumbnailDimensions == PhotoDimensions(width: 160, height: 90))
        #expect(resolved.expectedPhotoCount == 1 && !resolved.isLivePhoto && resolved.contentIdentifier == nil)

        let path = folder.path(photo.suggestedFilename)
        try photo.fileData.write(to: URL(fileURLWithPath: path))
        let tags = try ExifTool.tags(
            [
                "ImageWidth", "ImageHeight", "Make", "Model", "Flash", "DateTimeOriginal", "OffsetTimeOriginal",
                "ThumbnailLength",
            ], of: path)
        #expect(tags["ImageWidth"] == "320" && tags["ImageHeight"] == "180")
        #expect(tags["Make"] == "FFmpeg" && tags["Model"] == "Lightbox Test Camera")
        #expect(tags["Flash"] == "32")  // no flash function
        #expect(Int(tags["ThumbnailLength"] ?? "") ?? 0 > 0)
        #expect(tags["DateTimeOriginal"] != nil && tags["OffsetTimeOriginal"] != nil)
        let preview = folder.path("preview.jpg")
        try #require(photo.previewJPEG).write(to: URL(fileURLWithPath: preview))
        let previewTags = try ExifTool.tags(["ImageWidth", "ImageHeight"], of: preview)
        #expect(previewTags["ImageWidth"] == "100" && previewTags["ImageHeight"] == "56")

        // The same settings again: refused at once, with no events.
        #expect(throws: CaptureError.self) { try output.capturePhoto(with: settings) }
        do {
            _ = try output.capturePhoto(with: settings)
        } catch {
            #expect(error.code == .invalidSettings)
        }
        // New settings from the old ones are a new capture.
        let again = await events(of: try output.capturePhoto(with: PhotoSettings(from: settings)))
        #expect(again.map(\.name) == stillEvents)
    }

    @Test("A HEIC still carries the camera, the moment and the maker note's burst UUID")
    func heic() async throws {
        let folder = try TemporaryDirectory()
        let (session, output) = try syntheticSession()
        defer { session.stopRunning() }
        var settings = PhotoSettings(format: .heic)
        settings.burstIdentifier = "6B4F5C1A-0000-4000-8000-000000000001"
        let captured = await events(of: try output.capturePhoto(with: settings))
        guard case .didFinishProcessingPhoto(.success(let photo)) = captured[3] else {
            Issue.record("no photo: \(captured)")
            return
        }
        let path = folder.path("photo.heic")
        try photo.fileData.write(to: URL(fileURLWithPath: path))
        let tags = try ExifTool.tags(
            ["FileType", "ImageWidth", "ImageHeight", "Model", "BurstUUID", "SubSecTimeOriginal"], of: path)
        #expect(tags["FileType"] == "HEIC")
        #expect(tags["ImageWidth"] == "640" && tags["ImageHeight"] == "360")
        #expect(tags["Model"] == "Lightbox Test Camera")
        #expect(tags["BurstUUID"] == settings.burstIdentifier)
        // libvips reads it back: the picture is the pattern, not an empty image.
        #expect(try VipsTool.average(path) > 20)
    }

    @Test("Captures in flight at once each hear their own events, in order, from successive frames")
    func concurrent() async throws {
        let (session, output) = try syntheticSession()
        defer { session.stopRunning() }
        let settings = (0..<3).map { _ in PhotoSettings(format: .jpeg) }
        let streams = try settings.map { try output.capturePhoto(with: $0) }
        var photos: [CapturePhoto] = []
        for (stream, setting) in zip(streams, settings) {
            let captured = await events(of: stream)
            #expect(captured.map(\.name) == stillEvents)
            #expect(captured.allSatisfy { $0.resolvedSettings?.uniqueID == setting.uniqueID })
            if case .didFinishProcessingPhoto(.success(let photo)) = captured[3] { photos.append(photo) }
        }
        #expect(photos.count == 3)
        // Each took the next frame: a frame apart at 30 frames a second.
        let times = photos.map(\.timestamp)
        #expect(times == times.sorted() && Set(times).count == 3)
        #expect(zip(times, times.dropFirst()).allSatisfy { $1 - $0 < 0.1 })
    }

    @Test("A bracket delivers one photo per exposure, each brighter than the last")
    func bracket() async throws {
        let folder = try TemporaryDirectory()
        let (session, output) = try syntheticSession()
        defer { session.stopRunning() }
        var settings = PhotoSettings(format: .jpeg)
        settings.exposureBiases = [-1, 0, 1]
        let captured = await events(of: try output.capturePhoto(with: settings))
        #expect(
            captured.map(\.name) == [
                "willBeginCapture", "willCapturePhoto", "didCapturePhoto", "didFinishProcessingPhoto",
                "didFinishProcessingPhoto", "didFinishProcessingPhoto", "didFinishCapture",
            ])
        var brightness: [Double] = []
        for event in captured {
            guard case .didFinishProcessingPhoto(.success(let photo)) = event else { continue }
            let path = folder.path("bracket-\(photo.photoCount).jpg")
            try photo.fileData.write(to: URL(fileURLWithPath: path))
            brightness.append(try VipsTool.average(path))
            let tags = try ExifTool.tags(["ExposureCompensation"], of: path)
            #expect(Double(tags["ExposureCompensation"] ?? "") == photo.exposureBias)
        }
        #expect(brightness.count == 3 && brightness == brightness.sorted() && brightness[2] - brightness[0] > 20)
    }

    @Test("Settings a capture cannot use are refused before any event")
    func refused() async throws {
        let (session, output) = try syntheticSession()
        defer { session.stopRunning() }
        var live = PhotoSettings()
        live.livePhotoMovieFileURL = URL(fileURLWithPath: "/tmp/never.mov")
        #expect(throws: CaptureError.self) { try output.capturePhoto(with: live) }  // Live Photo capture is off
        var bracket = PhotoSettings()
        bracket.exposureBiases = [0, 9]
        #expect(throws: CaptureError.self) { try output.capturePhoto(with: bracket) }
        // More photos than an output holds frames for at once.
        await #expect(throws: CaptureError.self) {
            try await output.captureBurst(count: PhotoOutput.maximumCapturesInFlight + 1, settings: PhotoSettings())
        }
        let idle = PhotoOutput()
        #expect(throws: CaptureError.self) { try idle.capturePhoto(with: PhotoSettings()) }  // no session
    }

    @Test("Frames in flight are bounded by their bytes: a burst of 30 at 7680x4320 is refused, naming the size")
    func burstMemory() async throws {
        #expect(PhotoOutput.maximumFramesInFlight(at: PhotoDimensions(width: 7680, height: 4320)) == 5)
        #expect(PhotoOutput.maximumFramesInFlight(at: PhotoDimensions(width: 1920, height: 1080)) == 86)
        #expect(PhotoOutput.maximumFramesInFlight(at: PhotoDimensions(width: 640, height: 360)) == 100)
        // 30 copied frames of 8K took 1.3 GB; the output holds 5 (256 MB).
        let (session, output) = try syntheticSession(width: 7680, height: 4320)
        defer { session.stopRunning() }
        let error = await #expect(throws: CaptureError.self) {
            try await output.captureBurst(count: 30, settings: PhotoSettings())
        }
        #expect(error?.message.contains("7680x4320") == true, "\(error?.message ?? "")")
    }
}

@Suite("Saving captures into the library")
struct CaptureSavingTests {
    @Test("A Live Photo capture arrives in the library as one Live Photo, its still's moment known to editors")
    func livePhoto() async throws {
        let folder = try TemporaryDirectory()
        let library = try folder.makeLibrary()
        let (session, output) = try syntheticSession(live: true)
        defer { session.stopRunning() }
        try await Task.sleep(for: .seconds(2))
        var settings = PhotoSettings(format: .heic)
        settings.livePhotoMovieFileURL = URL(fileURLWithPath: folder.path("live.mov"))
        var photo: CapturePhoto?
        var movie: LivePhotoMovie?
        for await event in try output.capturePhoto(with: settings) {
            if case .didFinishProcessingPhoto(.success(let value)) = event { photo = value }
            if case .didFinishProcessingLivePhotoMovie(.success(let value), _) = event { movie = value }
        }
        let still = try #require(photo)
        let recorded = try #require(movie)
        let asset = try await library.saveCapture(still, livePhotoMovie: recorded.url)
        #expect(asset.mediaSubtypes.contains(.photoLive))
        #expect(asset.resource(ofType: .pairedVideo) != nil)
        #expect(asset.pixelWidth == 640 && asset.pixelHeight == 360)
        // The moment, its time zone and the camera, from the photo's EXIF block.
        #expect(abs(asset.creationDate.timeIntervalSince(still.captureDate)) < 0.002)
        #expect(asset.creationTimeZoneOffset == still.timeZone.secondsFromGMT(for: still.captureDate))
        let original = try await library.fileURL(for: try #require(asset.resource(ofType: .photo)))
        #expect(try ExifTool.tags(["Model"], of: original.path)["Model"] == "Lightbox Test Camera")
        #expect(try library.fetchAssets().count == 1)
        // Moved into the library.
        #expect(!FileManager.default.fileExists(atPath: recorded.url.path))
        let input = try await library.requestContentEditingInput(for: asset)
        let context = try LivePhotoEditingContext(livePhotoEditingInput: input)
        #expect(abs(context.photoTime - recorded.photoDisplayTime) < 0.01)
    }

    @Test("A burst of 10 becomes one burst with the capture's representative, and a user pick moves it")
    func burst() async throws {
        let folder = try TemporaryDirectory()
        let library = try folder.makeLibrary()
        let (session, output) = try syntheticSession()
        defer { session.stopRunning() }
        let log = EventLog()
        let burst = try await output.captureBurst(
            count: 10, settings: PhotoSettings(format: .jpeg), delegate: log.delegate)
        #expect(burst.photos.count == 10)
        let ids = burst.photos.map(\.resolvedSettings.uniqueID)
        #expect(Set(ids).count == 10)
        for id in ids {
            await log.waitForCapture(id)
            #expect(log.names(of: id) == stillEvents)
        }
        // One frame each, at the camera's rate: a frame apart at 30 frames a second.
        let times = burst.photos.map(\.timestamp)
        #expect(zip(times, times.dropFirst()).allSatisfy { $1 > $0 && $1 - $0 < 0.05 })
        #expect(burst.photos.allSatisfy { $0.resolvedSettings.burstIdentifier == burst.identifier })
        // The test pattern is all edges: a sharpness of 0 would pick a representative blindly.
        #expect(burst.photos.allSatisfy { $0.sharpness > 100 })
        let sharpest = burst.photos.map(\.sharpness).max()
        #expect(burst.photos[burst.representativeIndex].sharpness == sharpest)

        let assets = try await library.saveBurst(burst)
        #expect(assets.count == 10)
        #expect(Set(assets.map(\.burstIdentifier)) == [burst.identifier])
        #expect(
            assets.filter(\.representsBurst).map(\.localIdentifier) == [
                assets[burst.representativeIndex].localIdentifier
            ])
        #expect(assets[burst.representativeIndex].burstSelectionTypes == .autoPick)
        // Fetches show the burst once, by its representative.
        let shown = try library.fetchAssets()
        #expect(
            shown.count == 1 && shown.firstObject?.localIdentifier == assets[burst.representativeIndex].localIdentifier)

        // The user picks another frame: it stands for the burst now.
        let other = assets[(burst.representativeIndex + 1) % 10]
        try await library.performChanges { $0.changeRequest(for: other).burstSelectionTypes = .userPick }
        let picked = try #require(try await library.asset(withLocalIdentifier: other.localIdentifier))
        #expect(picked.representsBurst && picked.burstSelectionTypes == .userPick)
        #expect(try library.fetchAssets().firstObject?.localIdentifier == other.localIdentifier)
    }

    @Test("A movie that ends mid-capture ends the capture with an error and leaves no file behind")
    func sourceEnds() async throws {
        let folder = try TemporaryDirectory()
        let library = try folder.makeLibrary()
        // One second of movie: a Live Photo needs 1.5 s after its shutter.
        let movie = folder.path("short.mov")
        try FFmpeg.run([
            "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-f", "lavfi", "-i", "sine=frequency=440", "-t", "1",
            "-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "aac", movie,
        ])
        let session = CaptureSession()
        try session.addInput(try CaptureDevice.file(URL(fileURLWithPath: movie)))
        let output = PhotoOutput()
        output.isLivePhotoCaptureEnabled = true
        try session.addOutput(output)
        try session.startRunning()
        defer { session.stopRunning() }
        var settings = PhotoSettings(format: .jpeg)
        let target = folder.path("live.mov")
        settings.livePhotoMovieFileURL = URL(fileURLWithPath: target)
        let captured = await events(of: try output.capturePhoto(with: settings))
        #expect(captured.first?.name == "willBeginCapture" && captured.last?.name == "didFinishCapture")
        guard case .didFinishCapture(_, let error?) = captured.last else {
            Issue.record("the capture did not fail: \(captured.map(\.name))")
            return
        }
        #expect(error.code == .sourceEnded)
        #expect(session.runtimeError?.code == .sourceEnded)
        let movieEvents = captured.compactMap { event -> CaptureError? in
            if case .didFinishProcessingLivePhotoMovie(.failure(let error), _) = event { return error }
            return nil
        }
        #expect(movieEvents.count == 1)
        // No movie, whole or partial; nothing saved, and the library is whole.
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.path(""))
        #expect(!left.contains { $0.hasPrefix("live.mov") || $0.hasPrefix(".lightbox-movie-") }, "\(left)")
        #expect(try library.fetchAssets().count == 0)
        #expect(try library.check().problems.isEmpty)
        // A capture asked for after the end is refused.
        #expect(throws: CaptureError.self) { try output.capturePhoto(with: PhotoSettings()) }
    }
}

@Suite("Devices that fail")
struct FailingDeviceTests {
    @Test("A device that stops delivering fails the session as stalled, and a waiting capture with it")
    func stall() async throws {
        let folder = try TemporaryDirectory()
        // A camera on a pipe: ffmpeg writes a live MPEG-TS stream into it, then is paused.
        let pipe = folder.path("camera.ts")
        #expect(mkfifo(pipe, 0o600) == 0)
        let writer = Process()
        writer.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        writer.arguments = [
            "-v", "error", "-re", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-t", "30", "-c:v", "libx264",
            "-preset", "ultrafast", "-tune", "zerolatency", "-f", "mpegts", "-y", pipe,
        ]
        try writer.run()
        defer {
            kill(writer.processIdentifier, SIGKILL)
            writer.waitUntilExit()
        }
        let session = CaptureSession(stallTimeout: 1)
        try session.addInput(try CaptureDevice.file(URL(fileURLWithPath: pipe)))
        let output = PhotoOutput()
        try session.addOutput(output)
        try session.startRunning()
        defer { session.stopRunning() }
        let first = await events(of: try output.capturePhoto(with: PhotoSettings(format: .jpeg)))
        #expect(first.map(\.name) == stillEvents)
        kill(writer.processIdentifier, SIGSTOP)
        // What the pipe and the demuxer hold still plays; then nothing comes.
        var failure: CaptureError?
        for _ in 0..<300 where failure == nil {
            do {
                failure = await events(of: try output.capturePhoto(with: PhotoSettings(format: .jpeg))).last?.error
            } catch {
                failure = error
            }
        }
        #expect(failure?.code == .deviceStalled)
        #expect(session.runtimeError?.code == .deviceStalled)
    }
}
