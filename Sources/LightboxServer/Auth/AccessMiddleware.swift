import Foundation
import Hummingbird
import Lightbox

/// What every request passes before a route: the Host it names, where a state change comes
/// from and what it carries, and who sends it.
///
/// - A `Host` that is not `localhost`, an IP address or one of the configured names: 421.
/// - A state change (POST, PUT, PATCH, DELETE) from a browser page of another origin (its
///   `Origin`, or `Sec-Fetch-Site: cross-site`): 403 `foreignOrigin`. With a body, it must be
///   JSON (or what an upload route takes): 415. Together they stop cross-site request forgery,
///   which needs a form or a "simple" request.
/// - `Authorization: Bearer lbx_...` or the session cookie names the caller; a credential that
///   names nobody (expired, revoked, wrong) is 401 at once. With none, the caller is the local
///   owner of a library without users served on loopback, else nobody: the routes that are not
///   public answer 401 (``Routes``).
struct AccessMiddleware: RouterMiddleware {
    typealias Context = LightboxRequestContext

    let accounts: Accounts?
    let libraries: ServedLibraries
    let policy: AccessPolicy

    /// The session cookie's name.
    static let cookieName = "lightbox_session"
    /// Body types a state change may carry: JSON, and an upload's bytes (upload routes; the
    /// second is what tus clients send).
    static let bodyTypes = ["application/json", "application/octet-stream", "application/offset+octet-stream"]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        var context = context
        if let host = request.head.authority ?? request.headers[.init("Host")!], !policy.accepts(host: host) {
            throw HTTPError(
                .misdirectedRequest,
                message: "this server does not answer to the name \(host) (serve --public-name adds names)")
        }
        if ![.get, .head, .options].contains(request.method) {
            try checkStateChange(request)
        }
        if policy.trustProxy {
            context.isSecure = request.headers[.init("X-Forwarded-Proto")!] == "https"
            // The proxy appends the address it saw: the last entry is the one it vouches for.
            if let forwarded = request.headers[.init("X-Forwarded-For")!],
                let client = forwarded.split(separator: ",").last?.trimmingCharacters(in: .whitespaces),
                !client.isEmpty, client.count <= 64
            {
                context.remoteAddress = client
            }
        }
        if let caller = try await authenticate(request) {
            context.caller = caller
            context.served = try libraries.library(for: caller)
        }
        return try await next(request, context)
    }

    private func checkStateChange(_ request: Request) throws {
        if let origin = request.headers[.origin] {
            let host = request.head.authority ?? request.headers[.init("Host")!] ?? ""
            guard origin == "http://" + host || origin == "https://" + host else {
                throw HTTPError(.forbidden, message: "a change from a page of another site (\(origin)) is refused")
            }
        } else if let site = request.headers[.init("Sec-Fetch-Site")!], site == "cross-site" || site == "same-site" {
            throw HTTPError(.forbidden, message: "a change from a page of another site is refused")
        }
        let hasBody =
            (request.headers[.contentLength].flatMap { Int($0) } ?? 0) > 0 || request.headers[.transferEncoding] != nil
        if hasBody {
            let type = request.headers[.contentType]?.split(separator: ";").first.map {
                $0.trimmingCharacters(in: .whitespaces).lowercased()
            }
            guard let type, Self.bodyTypes.contains(type) else {
                throw HTTPError(
                    .unsupportedMediaType,
                    message: "a change carries JSON (Content-Type: application/json), not \(type ?? "an untyped body")")
            }
        }
    }

    /// The caller the request's credential names; nil when it carries none and the library is
    /// not open to a local owner. Throws 401 for a credential that names no one.
    private func authenticate(_ request: Request) async throws -> Caller? {
        guard let accounts else { return Caller(user: nil, credential: .local) }
        if let authorization = request.headers[.authorization] {
            let parts = authorization.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "bearer",
                let caller = try await accounts.caller(bearer: String(parts[1]).trimmingCharacters(in: .whitespaces))
            else {
                throw HTTPError(
                    .unauthorized, headers: [.wwwAuthenticate: "Bearer realm=\"Lightbox\", error=\"invalid_token\""],
                    message: "the bearer token is unknown, expired or revoked")
            }
            return caller
        }
        if let secret = Self.cookie(Self.cookieName, in: request) {
            guard let caller = try await accounts.caller(sessionSecret: secret) else {
                throw HTTPError(
                    .unauthorized, headers: [.setCookie: Self.clearedCookie],
                    message: "the session has ended: sign in again")
            }
            return caller
        }
        if policy.loopbackOnly, try await !accounts.hasUsers() {
            return Caller(user: nil, credential: .local)
        }
        return nil
    }

    /// A cookie's value from the request's `Cookie` headers.
    static func cookie(_ name: String, in request: Request) -> String? {
        for header in request.headers[values: .cookie] {
            for pair in header.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == name {
                    return String(parts[1]).trimmingCharacters(in: .whitespaces)
                }
            }
        }
        return nil
    }

    /// The `Set-Cookie` of a new session.
    static func sessionCookie(_ secret: String, secure: Bool) -> String {
        "\(cookieName)=\(secret); Path=/; Max-Age=\(Int(Accounts.sessionLifetime)); HttpOnly; SameSite=Strict"
            + (secure ? "; Secure" : "")
    }

    static let clearedCookie = "\(cookieName)=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict"
}

/// Every response, errors included, carries `nosniff`, a referrer policy and a content
/// security policy that forbids framing and scripts or styles from elsewhere. Outermost.
struct SecurityHeadersMiddleware: RouterMiddleware {
    typealias Context = LightboxRequestContext

    static let contentSecurityPolicy =
        "default-src 'self'; img-src 'self' blob: data:; media-src 'self' blob:; object-src 'none'; "
        + "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        var response = try await next(request, context)
        Self.addSecurityHeaders(&response.headers)
        return response
    }

    static func addSecurityHeaders(_ headers: inout HTTPFields) {
        headers[.xContentTypeOptions] = "nosniff"
        headers[.init("Referrer-Policy")!] = "same-origin"
        headers[.contentSecurityPolicy] = contentSecurityPolicy
        headers[.init("X-Frame-Options")!] = "DENY"
    }
}
