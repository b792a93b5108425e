import Foundation
import Hummingbird
import Lightbox

/// Movies over HTTP: a Live Photo's or a video's movie as stored, or as a copy browsers play.
/// Each route's contract is its `APIOperation` (docs/API.md).
struct MovieRoutes: Sendable {
    private let files = ResourceFile()

    static let movieOperation = APIOperation(
        "A Live Photo's or a video's movie, with byte ranges; with `playable`, one a browser plays.",
        details: """
            By default the current movie (the edited one when an edit made one), with its type, an `ETag` and
            byte ranges, as `<video>` elements ask; 404 for a still photo. With `playable=true` a movie browsers
            cannot decode (an iPhone's HEVC, ProRes, Motion JPEG) is answered as an H.264 copy made once and
            kept: 503 with `Retry-After` while it is made, 422 when the movie cannot be decoded at all. `size=N`
            asks for it at most N pixels long (a larger movie is copied at the largest of 640, 960, 1280, 1920
            and 3840 not above N, as PhotoKit's export presets); both imply `playable`.
            """,
        parameters: [
            .query("version", Schema.string(["current", "original"]), "current by default."),
            .query(
                "playable", Schema.string(["true", "false"]),
                "true: an H.264 copy when browsers cannot decode the movie's codec."),
            .query(
                "size", Schema.integer(16...16384), "At most this long on the long side: a copy when larger."),
            .query("transcode", Schema.string(["true", "false"]), "true: an H.264 copy whatever the codec."),
        ],
        responses: [
            .media(200, "The movie.", ["video/mp4", "video/quicktime"]),
            .media(206, "A range of it.", ["video/mp4", "video/quicktime"]), .empty(304, "The client has it."),
        ])

    @Sendable
    func movie(_ request: Request, _ context: LightboxRequestContext) async throws -> Response {
        let library = try context.library().library
        let asset = try await EditRoutes.asset(try context.parameters.require("id"), in: library)
        let query = request.uri.formQuery
        let version = query.get("version").map { String($0) } ?? "current"
        guard version == "current" || version == "original" else {
            throw HTTPError(.badRequest, message: "version must be current or original, not \(version)")
        }
        var playable = query.get("playable").map { String($0) } ?? "false"
        guard playable == "true" || playable == "false" else {
            throw HTTPError(.badRequest, message: "playable must be true or false, not \(playable)")
        }
        let transcode = query.get("transcode").map { String($0) } ?? "false"
        guard transcode == "true" || transcode == "false" else {
            throw HTTPError(.badRequest, message: "transcode must be true or false, not \(transcode)")
        }
        var size: Int?
        if let text = query.get("size") {
            guard let value = Int(text), (16...16384).contains(value) else {
                throw HTTPError(.badRequest, message: "size must be a number of pixels from 16 to 16384")
            }
            size = value
        }
        if size != nil || transcode == "true" { playable = "true" }
        let resource = version == "current" ? asset.currentMovieResource : asset.originalMovieResource
        guard let resource else {
            throw HTTPError(.notFound, message: "asset \(asset.localIdentifier) has no movie")
        }
        guard playable == "true" else {
            return try await files.response(for: resource, in: library, request: request, context: context)
        }
        let movie: PlayableMovie?
        do {
            movie = try await library.playableMovie(
                for: asset, current: version == "current", maximumSide: size, transcode: transcode == "true")
        } catch let error as LibraryError where error.code == .unreadableFile {
            throw HTTPError(.unprocessableContent, message: error.message)
        }
        switch movie {
        case nil, .stored:
            return try await files.response(for: resource, in: library, request: request, context: context)
        case .transcoded(let path, let tag):
            let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
            return try await files.response(
                forFileAt: path, size: size, entityTag: tag, contentType: "video/quicktime", request: request,
                context: context)
        case .preparing:
            throw HTTPError(
                .serviceUnavailable, headers: [.retryAfter: "2"],
                message: "the movie is being made playable for browsers; ask again in a moment")
        }
    }
}
