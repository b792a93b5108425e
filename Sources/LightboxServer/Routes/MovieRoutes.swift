import Foundation
import Hummingbird
import Lightbox

/// Movies over HTTP: `GET /api/assets/{id}/movie?version=current|original` answers a Live
/// Photo's movie (by default the current one: the edited movie when an edit made one) or a
/// video asset's file, with its type, an entity tag (the file's SHA-256) and byte ranges, as
/// `<video>` elements ask for them. 404 when the asset has no movie.
enum MovieRoutes {
    static func add(to routes: Routes) {
        let files = ResourceFile()
        routes.get(
            "/api/assets/:id/movie",
            doc: APIOperation(
                "A Live Photo's or a video's movie, with byte ranges.",
                parameters: [.query("version", Schema.string(["current", "original"]), "current by default.")],
                responses: [
                    .media(200, "The movie.", ["video/mp4", "video/quicktime"]),
                    .media(206, "A range of it.", ["video/mp4", "video/quicktime"]), .empty(304, "The client has it."),
                ])
        ) { request, context in
            let library = try context.library().library
            let asset = try await EditRoutes.asset(try context.parameters.require("id"), in: library)
            let version = request.uri.formQuery.get("version").map { String($0) } ?? "current"
            guard version == "current" || version == "original" else {
                throw HTTPError(.badRequest, message: "version must be current or original, not \(version)")
            }
            guard let resource = version == "current" ? asset.currentMovieResource : asset.originalMovieResource else {
                throw HTTPError(.notFound, message: "asset \(asset.localIdentifier) has no movie")
            }
            return try await files.response(for: resource, in: library, request: request, context: context)
        }
    }
}
