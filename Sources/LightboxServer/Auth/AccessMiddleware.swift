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
/// - A shared album's link key (`?link=KEY`, or `X-Lightbox-Link`), `Authorization: Bearer
///   lbx_...` or the session cookie names the caller; a credential that names nobody (expired,
///   revoked, wrong) is 401 at once, a link that is gone 404, a link with a password without
///   its unlocking (``Accounts/unlockLink(key:password:)``) 401 `linkLocked`. With none, the
///   caller is the local owner of a library without users served on loopback, else nobody:
///   the routes that are not public answer 401 (``Routes``).
/// - `?share=ID` turns a user's request to the album shared with them as `ID`: 404 when no
///   such share is theirs.
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
                let client = forwarded.split(separator: ",").last.map({ String($0.trimmingSpaces()) }),
                !client.isEmpty, client.count <= 64
            {
                context.remoteAddress = client
            }
        }
        // Read once: both a link and a share may be named in it.
        let query = request.uri.query
        if var caller = try await authenticate(request, query: query) {
            if caller.sharedAlbum == nil, let shareID = Self.parameter("share", in: query, of: request) {
                caller.sharedAlbum = try await sharedAlbum(shareID, for: caller)
            }
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
                $0.trimmingSpaces().lowercased()
            }
            guard let type, Self.bodyTypes.contains(type) else {
                throw HTTPError(
                    .unsupportedMediaType,
                    message: "a change carries JSON (Content-Type: application/json), not \(type ?? "an untyped body")")
            }
        }
    }

    /// The album shared with `caller` as `id`: 404 when there is none of theirs. A limited
    /// token reaches nothing beyond its selection.
    private func sharedAlbum(_ id: String, for caller: Caller) async throws -> SharedAlbum {
        guard let accounts, let user = caller.user, caller.limitedTo == nil,
            let album = try await accounts.sharedAlbum(id: id, with: user)
        else {
            throw HTTPError(.notFound, message: "no album is shared with you as \(id)")
        }
        return album
    }

    /// The caller the request's credential names; nil when it carries none and the library is
    /// not open to a local owner. Throws 401 for a credential that names no one.
    private func authenticate(_ request: Request, query: String?) async throws -> Caller? {
        guard let accounts else { return Caller(user: nil, credential: .local) }
        if let key = request.headers[Self.linkHeader] ?? Self.parameter("link", in: query, of: request) {
            do {
                let caller = try await accounts.caller(linkKey: key) { share in
                    request.headers[Self.unlockHeader] ?? Self.cookie(Self.linkCookieName(share), in: request)
                }
                guard let caller else {
                    throw HTTPError(.notFound, message: "this link does not exist, or no longer")
                }
                return caller
            } catch is LinkLocked {
                throw CodedHTTPError(
                    status: .unauthorized, code: "linkLocked",
                    message: "this link has a password: POST /api/links/unlock with it first")
            }
        }
        if let authorization = request.headers[.authorization] {
            let parts = authorization.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "bearer",
                let caller = try await accounts.caller(bearer: String(parts[1].trimmingSpaces()))
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

    /// A link's key, for programs (a browser's page puts it in the query, so that images load).
    static let linkHeader = HTTPFields.Element.Name("X-Lightbox-Link")!
    /// A link's unlocking, for programs (a browser keeps it in a cookie).
    static let unlockHeader = HTTPFields.Element.Name("X-Lightbox-Link-Unlock")!

    /// The cookie that keeps a link unlocked in a browser: one for each link.
    static func linkCookieName(_ share: AlbumShare) -> String { "lightbox_link_" + share.id }

    /// A parameter of `request`'s query (`query`, read once), decoded only when the query
    /// names it: the hot path does not parse.
    static func parameter(_ name: String, in query: String?, of request: Request) -> String? {
        guard let query, names(query, name) else { return nil }
        return request.uri.formQuery.get(name).map { String($0) }
    }

    /// Whether `query` has a parameter called `name`: one pass over its bytes, nothing
    /// allocated, for the requests (nearly all) that name neither a share nor a link.
    static func names(_ query: String, _ name: String) -> Bool {
        let bytes = query.utf8
        let key = name.utf8
        var index = bytes.startIndex
        while index < bytes.endIndex {
            var cursor = index
            var matched = key.startIndex
            while matched < key.endIndex, cursor < bytes.endIndex, bytes[cursor] == key[matched] {
                bytes.formIndex(after: &cursor)
                key.formIndex(after: &matched)
            }
            if matched == key.endIndex, cursor < bytes.endIndex, bytes[cursor] == UInt8(ascii: "=") { return true }
            // On to the next parameter.
            guard let next = bytes[index...].firstIndex(of: UInt8(ascii: "&")) else { return false }
            index = bytes.index(after: next)
        }
        return false
    }

    /// A cookie's value from the request's `Cookie` headers.
    static func cookie(_ name: String, in request: Request) -> String? {
        for header in request.headers[values: .cookie] {
            for pair in header.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                if parts.count == 2, parts[0].trimmingSpaces() == name {
                    return String(parts[1].trimmingSpaces())
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

/// What every response, errors included, carries: `nosniff`, a referrer policy and a content
/// security policy that forbids framing and scripts or styles from elsewhere. Added by
/// ``ErrorMiddleware``, the outermost.
enum SecurityHeaders {
    static let contentSecurityPolicy = policy(imageSource: nil)

    /// The policy, letting images come from `imageSource` too (the map's tile server) when given.
    static func policy(imageSource: String?) -> String {
        "default-src 'self'; img-src 'self' blob: data:\(imageSource.map { " " + $0 } ?? ""); media-src 'self' blob:; "
            + "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    }

    static let referrerPolicy = HTTPFields.Element.Name("Referrer-Policy")!
    static let frameOptions = HTTPFields.Element.Name("X-Frame-Options")!

    static func add(to headers: inout HTTPFields, policy: String = contentSecurityPolicy) {
        headers[.xContentTypeOptions] = "nosniff"
        // A route may be stricter: a shared album's page tells no one its URL.
        if headers[referrerPolicy] == nil { headers[referrerPolicy] = "same-origin" }
        headers[.contentSecurityPolicy] = policy
        headers[frameOptions] = "DENY"
    }
}
