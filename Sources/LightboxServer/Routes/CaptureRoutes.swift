import Foundation
import Hummingbird
import Lightbox
import LightboxCapture
import Synchronization

/// Taking photos with the server's cameras (a doorbell, a lab bench, a Raspberry Pi), for the
/// server's admin. Each route's contract is its `APIOperation` (docs/API.md).
final class CaptureRoutes: Sendable {
    struct Body: Decodable {
        var device: String?
        var format: PhotoFormat?
        var live: Bool?
        var burst: Int?
        var preset: CaptureSession.Preset?
    }

    struct Event: Encodable, Sendable {
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

    private let busy = Mutex(false)

    // The server's own cameras and microphones: its admin's, not a member's, a token's or a
    // link's (which could list them, and take photos of the room the server is in).
    static let devicesOperation = APIOperation(
        "The server's cameras and microphones, and the synthetic camera.",
        details: """
            For the server's admin (or the local owner): each device's `uniqueID`, kind, name and formats.
            `test` is the synthetic camera, for trying capture without one.
            """,
        responses: [.json(200, "The devices.", Schema.array(Schema.ref("CaptureDevice")))])

    @Sendable
    func devices(_ _: Request, _ _: LightboxRequestContext) async throws -> Response {
        try LightboxServer.jsonResponse(CaptureDevice.discover())
    }

    static let captureOperation = APIOperation(
        "Takes a photo, a Live Photo or a burst with one of the server's cameras into the library.",
        details: """
            Every field optional: the server's first camera by default, `live` for a Live Photo, `burst` for 2
            to 30 frames, `format` `heic` or `jpeg`. 409 while another capture runs; 422 when the capture failed
            (nothing is saved); 400 for a device that is no camera of the server's (a movie file is never one
            over HTTP). The answer lists the assets and each capture event with the seconds it came at.
            """,
        body: .json(
            Schema.object([
                "device": Schema.string, "format": Schema.string(["heic", "jpeg"]), "live": Schema.boolean,
                "burst": Schema.integer(2...30), "preset": Schema.string(["photo", "high", "1080p", "720p"]),
            ])),
        responses: [.json(201, "What was taken.", Schema.ref("Capture"), changeToken: true)])

    @Sendable
    func capture(_ request: Request, _ context: LightboxRequestContext) async throws -> Response {
        let served = try context.library()
        let library = served.library
        let body = try await request.decode(as: Body.self, context: context)
        let id = body.device ?? ""
        guard !id.hasPrefix("file:") else {
            throw HTTPError(.badRequest, message: "a movie file is no camera of the server's: name a device")
        }
        if let burst = body.burst, !(2...Self.maximumBurst).contains(burst) {
            throw HTTPError(.badRequest, message: "burst takes 2 to \(Self.maximumBurst) photos")
        }
        if body.burst != nil, body.live == true {
            throw HTTPError(.badRequest, message: "a burst's photos are stills: burst and live exclude each other")
        }
        let device = try Self.failing(with: .badRequest) { () throws(CaptureError) in
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
        let start = Date()
        let events = Mutex<[Event]>([])
        let result: CaptureResult
        do {
            result = try await library.capture(
                CaptureRequest(
                    device: device, format: body.format ?? .heic, preset: body.preset ?? .photo,
                    live: body.live ?? false, burst: body.burst)
            ) { event in
                let seconds = Date().timeIntervalSince(start)
                events.withLock {
                    $0.append(Event(event: event.name, seconds: seconds, error: event.error?.message))
                }
            }
        } catch let error as CaptureError {
            throw HTTPError(
                error.code == .deviceBusy
                    ? .conflict : error.code == .outOfMemory ? .serviceUnavailable : .unprocessableContent,
                message: "the capture failed, nothing was saved: \(error.message)")
        }
        // The library's token once the capture's transaction has committed.
        return try await LightboxServer.written(
            Answer(assets: result.assets, events: events.withLock { $0 }), token: nil, in: library, status: .created
        )
    }

    /// Runs `body`; a capture error becomes an HTTP error (409 for a busy device).
    private static func failing<T>(with status: HTTPResponse.Status, _ body: () throws(CaptureError) -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw HTTPError(error.code == .deviceBusy ? .conflict : status, message: error.message)
        }
    }
}
