import Foundation
import Hummingbird
import Lightbox
import Logging

/// Turns errors into JSON responses of one form, `{"error": {"code": ..., "message": ...}}`,
/// whoever threw them: a route, the router (no route: 404; a route without this method: 405
/// with `Allow`), Hummingbird or the library. `code` is a stable word, never a number. This is
/// the only place library errors meet HTTP status codes.
///
/// Outermost, it also gives every response, errors included, the security headers
/// (``SecurityHeaders``): one layer rather than two, on every
/// request.
struct ErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    let methods: MethodTable
    /// The content security policy every answer carries (``SecurityHeaders``).
    var securityPolicy = SecurityHeaders.contentSecurityPolicy

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        var response = await answer(request, context: context, next: next)
        SecurityHeaders.add(to: &response.headers, policy: securityPolicy)
        return response
    }

    private func answer(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async
        -> Response
    {
        do {
            return try await next(request, context)
        } catch let error as LibraryError {
            let status: HTTPResponse.Status =
                switch error.code {
                case .assetNotFound, .collectionNotFound, .editorNotFound: .notFound
                case .persistentChangeTokenExpired: .gone
                case .invalidRequest, .invalidPredicate: .badRequest
                case .corruptFile, .unreadableFile, .unsupportedFormat: .unprocessableContent
                case .busy: .serviceUnavailable
                case .notShared: .conflict
                default: .internalServerError
                }
            if status.code >= 500 && error.code != .busy {
                context.logger.error("\(request.uri): \(error)")
            } else {
                context.logger.debug("\(request.uri): \(error)")
            }
            var response = Self.response(status: status, code: "\(error.code)", message: error.message)
            if error.code == .busy { response.headers[.retryAfter] = "1" }
            return response
        } catch let error as CodedHTTPError {
            var response = Self.response(status: error.status, code: error.code, message: error.message)
            for field in error.headers { response.headers.append(field) }
            return response
        } catch let error as HTTPError {
            // No route for this method: 405 with the methods the path takes, when it takes any.
            // Worked out here, on the way out, so that a request that finds its route pays nothing.
            if error.status == .notFound && error.body == nil {
                let allowed = methods.methods(for: request.uri.path)
                if !allowed.isEmpty && !allowed.contains(request.method) {
                    var response = Self.response(
                        status: .methodNotAllowed, code: "methodNotAllowed",
                        message:
                            "\(request.uri.path) takes \(allowed.map(\.rawValue).joined(separator: ", ")), not \(request.method.rawValue)"
                    )
                    response.headers[.allow] = allowed.map(\.rawValue).joined(separator: ", ")
                    return response
                }
                // A person's mistyped or stale link: a page that says so, not raw JSON.
                if allowed.isEmpty, let page = WebPage.notFoundPage(for: request) { return page }
            }
            let message =
                error.body
                ?? (error.status == .notFound
                    ? "no route \(request.method.rawValue) \(request.uri.path)" : error.status.reasonPhrase)
            var response = Self.response(status: error.status, code: Self.code(error.status), message: message)
            for field in error.headers { response.headers.append(field) }
            return response
        } catch let error as any HTTPResponseError {
            return Self.response(status: error.status, code: Self.code(error.status), message: "\(error)")
        } catch {
            context.logger.error("\(request.uri): \(error)")
            return Self.response(status: .internalServerError, code: "internal", message: "the server failed: \(error)")
        }
    }

    /// A status as a stable word for `code`: the reason phrase in lower camel case
    /// ("Not Found" is "notFound").
    static func code(_ status: HTTPResponse.Status) -> String {
        let words = status.reasonPhrase.split(whereSeparator: { !$0.isLetter && !$0.isNumber })
        guard let first = words.first else { return "status\(status.code)" }
        return first.lowercased()
            + words.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst().lowercased() }.joined()
    }

    static func response(status: HTTPResponse.Status, code: String, message: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        let data = (try? JSONEncoder.lightbox.encode(ErrorBody(error: .init(code: code, message: message)))) ?? Data()
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}

/// An error a client must tell apart from others of its status, by its own code: a link that
/// wants its password (`linkLocked`) is not a session that ended.
struct CodedHTTPError: Error {
    var status: HTTPResponse.Status
    var code: String
    var message: String
    var headers: HTTPFields = [:]
}

/// The JSON body of an error response.
struct ErrorBody: Encodable {
    struct Detail: Encodable {
        var code: String
        var message: String
    }
    var error: Detail
}
