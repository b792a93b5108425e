import Foundation
import Hummingbird
import Lightbox
import LightboxCapture
import Synchronization

/// Taking photos with the server's cameras (a doorbell, a lab bench, a Raspberry Pi):
///
/// - `GET /api/capture/devices`: the cameras and microphones the server has, and the synthetic
///   camera (`test`), each with its `uniqueID`, kind, name and formats.
/// - `POST /api/capture` with `{"device": "/dev/video0", "format": "heic", "live": false,
///   "burst": null, "preset": "photo"}` (every field optional; the device defaults to the
///   server's first camera):
///   takes the photo, a Live Photo or a burst of 2 to 30 and saves it into the library. Answers
///   201 with `{"assets": [...], "events": [{"event": ..., "seconds": ...}]}`; 409 while
///   another capture runs; 422 when the capture failed (nothing is saved); 400 for a device
///   that is no camera of the server's (a movie file is never one over HTTP).
enum CaptureRoutes {
    struct Body: Decodable {
        var device: String?
        var format: PhotoFormat?
        var live: Bool?
        var burst: Int?
        var preset: CaptureSession.Preset?
    }

    struct Event: Encodable {
        var event: String
        var seconds: Double
        var error: String?
    }

    struct Answer: Encodable {
        var assets: [Asset]
        var events: [Event]
    }

    /// The most photos one request's burst may take.
    static let maximumBurst = 30

    static func add(to routes: Routes, library: PhotoLibrary) {
        let busy = Mutex(false)
        routes.get("/api/capture/devices") { _, _ in
            try LightboxServer.jsonResponse(CaptureDevice.discover())
        }
        routes.post("/api/capture") { request, context in
            let body = try await request.decode(as: Body.self, context: context)
            let id = body.device ?? ""
            guard !id.hasPrefix("file:") else {
                throw HTTPError(.badRequest, message: "a movie file is no camera of the server's: name a device")
            }
            if let burst = body.burst, !(2...maximumBurst).contains(burst) {
                throw HTTPError(.badRequest, message: "burst takes 2 to \(maximumBurst) photos")
            }
            if body.burst != nil, body.live == true {
                throw HTTPError(.badRequest, message: "a burst's photos are stills: burst and live exclude each other")
            }
            let device = try failing(with: .badRequest) { () throws(CaptureError) in
                id.isEmpty ? try CaptureDevice.defaultCamera() : try CaptureDevice.named(id)
            }
            let claimed = busy.withLock { running -> Bool in
                if running { return false }
                running = true
                return true
            }
            guard claimed else {
                throw HTTPError(.conflict, message: "another capture is running; try again when it ends")
            }
            defer { busy.withLock { $0 = false } }
            return try await capture(body, device: device, library: library)
        }
    }

    private static func capture(_ body: Body, device: CaptureDevice, library: PhotoLibrary) async throws -> Response {
        let session = CaptureSession(preset: body.preset ?? .photo)
        let output = PhotoOutput()
        let live = body.live ?? false
        output.isLivePhotoCaptureEnabled = live
        let start = Date()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "lightbox-capture-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try failing(with: .unprocessableContent) { () throws(CaptureError) in
            try session.addInput(device)
            try session.addOutput(output)
            try session.startRunning()
        }
        defer { session.stopRunning() }
        var settings = PhotoSettings(format: body.format ?? .heic)
        if let count = body.burst {
            let burst = try await failing(with: .unprocessableContent) { () async throws(CaptureError) in
                try await output.captureBurst(count: count, settings: settings)
            }
            let assets = try await library.saveBurst(burst)
            return try created(
                Answer(assets: assets, events: [Event(event: "burst", seconds: Date().timeIntervalSince(start))]))
        }
        if live {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            settings.livePhotoMovieFileURL = folder.appendingPathComponent("IMG_\(settings.uniqueID).MOV")
            try await Task.sleep(for: .seconds(PhotoOutput.livePhotoHalfDuration + 0.2))
        }
        let stream = try failing(with: .unprocessableContent) { () throws(CaptureError) in
            try output.capturePhoto(with: settings)
        }
        var events: [Event] = []
        var photo: CapturePhoto?
        var movie: URL?
        var failure: CaptureError?
        for await event in stream {
            events.append(
                Event(event: event.name, seconds: Date().timeIntervalSince(start), error: event.error?.message))
            switch event {
            case .didFinishProcessingPhoto(.success(let value)): photo = value
            case .didFinishProcessingLivePhotoMovie(.success(let value), _): movie = value.url
            case .didFinishCapture(_, let error): failure = error
            default: break
            }
        }
        guard failure == nil, let photo else {
            throw HTTPError(
                .unprocessableContent,
                message: "the capture failed, nothing was saved: \(failure?.message ?? "no photo was made")")
        }
        let asset = try await library.saveCapture(photo, livePhotoMovie: movie)
        return try created(Answer(assets: [asset], events: events))
    }

    private static func created(_ answer: Answer) throws -> Response {
        var response = try LightboxServer.jsonResponse(answer)
        response.status = .created
        return response
    }

    /// Runs `body`; a capture error becomes an HTTP error (409 for a busy device).
    private static func failing<T>(with status: HTTPResponse.Status, _ body: () throws(CaptureError) -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw HTTPError(error.code == .deviceBusy ? .conflict : status, message: error.message)
        }
    }

    private static func failing<T>(with status: HTTPResponse.Status, _ body: () async throws(CaptureError) -> T)
        async throws -> T
    {
        do {
            return try await body()
        } catch {
            throw HTTPError(error.code == .deviceBusy ? .conflict : status, message: error.message)
        }
    }
}
