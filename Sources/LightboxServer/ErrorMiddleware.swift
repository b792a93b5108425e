import Foundation
import Hummingbird
import Lightbox
import Logging

/// Turns errors into JSON responses: `{"error": {"code": ..., "message": ...}}`. This is the
/// only place library errors meet HTTP status codes.
struct ErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        do {
            return try await next(request, context)
        } catch let error as HTTPError {
            return Self.response(status: error.status, code: "\(error.status.code)", message: error.body ?? error.status.reasonPhrase)
        } catch let error as LibraryError {
            let status: HTTPResponse.Status =
                switch error.code {
                case .assetNotFound, .collectionNotFound: .notFound
                case .persistentChangeTokenExpired: .gone
                case .invalidRequest, .invalidPredicate: .badRequest
                case .corruptFile, .unreadableFile, .unsupportedFormat: .unprocessableContent
                default: .internalServerError
                }
            if status.code >= 500 {
                context.logger.error("\(request.uri): \(error)")
            } else {
                context.logger.debug("\(request.uri): \(error)")
            }
            return Self.response(status: status, code: "\(error.code)", message: error.message)
        }
    }

    static func response(status: HTTPResponse.Status, code: String, message: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        let data = (try? JSONEncoder.lightbox.encode(ErrorBody(error: .init(code: code, message: message)))) ?? Data()
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}

/// The JSON body of an error response.
struct ErrorBody: Encodable {
    struct Detail: Encodable {
        var code: String
        var message: String
    }
    var error: Detail
}
