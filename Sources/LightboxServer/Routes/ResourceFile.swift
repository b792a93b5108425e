import Foundation
import Hummingbird
import Lightbox
import LightboxMetadata

/// A stored file of an asset as a response: its media type, its SHA-256 as the entity tag,
/// byte ranges as players and download managers ask for them, and the file streamed in chunks
/// (a movie of gigabytes is never held in memory).
struct ResourceFile: Sendable {
    let files = FileIO()

    /// The response for `resource`; `attachment` names the file a browser saves it as.
    func response(
        for resource: AssetResource, in library: PhotoLibrary, request: Request, context: LightboxRequestContext,
        attachment: String? = nil
    ) async throws -> Response {
        let tag = "\"\(resource.sha256)\""
        let contentType =
            FileFormat(uniformTypeIdentifier: resource.uniformTypeIdentifier)?.mimeType ?? "application/octet-stream"
        return try await response(
            forFileAt: try await library.fileURL(for: resource).path, size: Int(resource.fileSize), entityTag: tag,
            contentType: contentType, request: request, context: context, attachment: attachment)
    }

    /// The response for a file of the library's (an original, a movie's copy for browsers)
    /// of `size` bytes, ranges as asked.
    func response(
        forFileAt path: String, size: Int, entityTag tag: String, contentType: String, request: Request,
        context: LightboxRequestContext, attachment: String? = nil
    ) async throws -> Response {
        var headers: HTTPFields = [:]
        headers[.contentType] = contentType
        headers[.eTag] = tag
        headers[.acceptRanges] = "bytes"
        headers[.cacheControl] = "private, max-age=3600"
        if let attachment { headers[.contentDisposition] = Self.disposition(attachment) }
        if request.hasEntityTag(tag) { return Response(status: .notModified, headers: headers) }
        guard size > 0 else { throw HTTPError(.internalServerError, message: "the stored file is empty") }
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
        let body = try await files.loadFile(path: path, range: range, context: context)
        return Response(status: status, headers: headers, body: body)
    }

    /// `attachment` with the name as plain ASCII (quotes and controls replaced) and in full as
    /// RFC 5987's `filename*`.
    static func disposition(_ name: String) -> String {
        let plain = String(
            name.unicodeScalars.map { $0.isASCII && $0.value >= 0x20 && $0 != "\"" && $0 != "\\" ? Character($0) : "_" }
        )
        let encoded =
            name.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: ".-_")))
            ?? plain
        return "attachment; filename=\"\(plain)\"; filename*=UTF-8''\(encoded)"
    }
}
