import Foundation
import Hummingbird
import Lightbox

/// Movies over HTTP: `GET /api/assets/{id}/movie?version=current|original` answers a Live
/// Photo's movie (by default the current one: the edited movie when an edit made one) or a
/// video asset's file, with its type, an entity tag (the file's SHA-256) and byte ranges, as
/// `<video>` elements ask for them. 404 when the asset has no movie.
enum MovieRoutes {
    static func add(to routes: Routes) {
        let files = FileIO()
        routes.get("/api/assets/:id/movie") { request, context in
            let served = try context.library()
            let library = served.library
            let asset = try await EditRoutes.asset(try context.parameters.require("id"), in: library)
            let version = request.uri.formQuery.get("version").map { String($0) } ?? "current"
            guard version == "current" || version == "original" else {
                throw HTTPError(.badRequest, message: "version must be current or original, not \(version)")
            }
            guard let resource = version == "current" ? asset.currentMovieResource : asset.originalMovieResource else {
                throw HTTPError(.notFound, message: "asset \(asset.localIdentifier) has no movie")
            }
            let tag = "\"\(resource.sha256)\""
            var headers: HTTPFields = [:]
            headers[.contentType] = resource.uniformTypeIdentifier == "public.mpeg-4" ? "video/mp4" : "video/quicktime"
            headers[.eTag] = tag
            headers[.acceptRanges] = "bytes"
            headers[.cacheControl] = "private, max-age=3600"
            if request.hasEntityTag(tag) { return Response(status: .notModified, headers: headers) }
            let path = try await library.fileURL(for: resource).path
            let size = Int(resource.fileSize)
            guard size > 0 else { throw HTTPError(.internalServerError, message: "the stored movie is empty") }
            var status = HTTPResponse.Status.ok
            var range = 0...(size - 1)
            if let asked = request.headers[.range] {
                guard let wanted = ByteRange.parse(asked, size: size) else {
                    headers[.contentRange] = "bytes */\(size)"
                    return Response(status: .rangeNotSatisfiable, headers: headers)
                }
                range = wanted.lowerBound...(wanted.upperBound - 1)
                status = .partialContent
                headers[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound)/\(size)"
            }
            // Streamed from the file in chunks (the body states its length): a movie of
            // gigabytes is never held in memory.
            let body = try await files.loadFile(path: path, range: range, context: context)
            return Response(status: status, headers: headers, body: body)
        }
    }
}
