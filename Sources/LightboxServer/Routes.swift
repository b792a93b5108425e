import Foundation
import Hummingbird
import HummingbirdCore
import Synchronization

/// Who may call a route. Authentication happened before (``AccessMiddleware``); each route
/// says what its caller must be, and the router checks it before the handler runs.
enum RouteAccess: Sendable {
    /// Anyone: the sign-in page and its call, the page's files.
    case open
    /// Any authenticated caller, a read token included.
    case read
    /// A caller who may change the library: a session, the local owner, a write token.
    case write
    /// A caller who may add to the library: one who may change it, or who contributes to the
    /// album shared with them (uploads).
    case contribute
    /// A person, not a program: a session or the local owner (sessions and tokens are managed so).
    case person
    /// An admin's session, or the local owner.
    case admin

    /// Nil when `caller` may call the route, else the error to answer.
    func refusal(for caller: Caller?) -> HTTPError? {
        if self == .open { return nil }
        guard let caller else {
            return HTTPError(
                .unauthorized, headers: [.wwwAuthenticate: "Bearer realm=\"Lightbox\""],
                message: "sign in, or send a token (Authorization: Bearer ...)")
        }
        switch self {
        case .open, .read: return nil
        case .write:
            if caller.canWrite { return nil }
            return caller.sharedAlbum == nil
                ? HTTPError(.forbidden, message: "this token may read the library, not change it")
                : HTTPError(.forbidden, message: "a shared album is its owner's to change")
        case .contribute:
            return caller.canContribute
                ? nil : HTTPError(.forbidden, message: "this caller may not add photos here")
        case .person:
            switch caller.credential {
            case .token: return HTTPError(.forbidden, message: "a token cannot do this: sign in")
            case .link: return HTTPError(.forbidden, message: "a shared link shows its album, nothing else")
            case .local, .session: return nil
            }
        case .admin:
            return caller.isAdmin ? nil : HTTPError(.forbidden, message: "only an admin may do this")
        }
    }
}

/// The router, with a record of each path's methods: a request for a path with a method it
/// does not take is answered 405 with the methods it takes (`Allow`), not 404. Each route
/// names who may call it (``RouteAccess``): reads by default, changes to the library by
/// default for the other methods.
struct Routes {
    typealias Handler = @Sendable (Request, LightboxRequestContext) async throws -> Response

    let router: Router<LightboxRequestContext>
    let table = MethodTable()
    /// Registers `route` under `section`.
    func add(_ route: Route, section: String) {
        let (access, handler) = (route.access, route.handler)
        router.on(RouterPath(route.path), method: route.method) { request, context in
            if let refusal = access.refusal(for: context.caller) { throw refusal }
            return try await handler(request, context)
        }
        table.record(route.method, route.path, section: section, access: access, operation: route.operation)
    }
}

/// One route of the API: how it is called, who may call it, its handler (a controller's named
/// method) and its operation (what it takes and answers).
struct Route: Sendable {
    var method: HTTPRequest.Method
    var path: String
    var access: RouteAccess
    var handler: Routes.Handler
    var operation: APIOperation

    init(
        _ method: HTTPRequest.Method, _ path: String, _ access: RouteAccess, _ handler: @escaping Routes.Handler,
        _ operation: APIOperation
    ) {
        (self.method, self.path, self.access, self.handler, self.operation) = (method, path, access, handler, operation)
    }
}

/// Each route: its path, method, who may call it and what it takes and answers.
final class MethodTable: Sendable {
    struct Route: Sendable {
        var path: String
        var method: HTTPRequest.Method
        var section: String
        var access: RouteAccess
        var operation: APIOperation
        var components: [Substring]
    }

    private let table = Mutex<[Route]>([])

    func record(
        _ method: HTTPRequest.Method, _ path: String, section: String, access: RouteAccess, operation: APIOperation
    ) {
        let route = Route(
            path: path, method: method, section: section, access: access, operation: operation,
            components: path.split(separator: "/", omittingEmptySubsequences: true))
        table.withLock { $0.append(route) }
    }

    /// Every route, in the order they were added.
    func routes() -> [Route] { table.withLock { $0 } }

    /// The methods the routes matching `path` take, sorted; empty when no route matches it.
    func methods(for path: String) -> [HTTPRequest.Method] {
        let components = path.split(separator: "/", omittingEmptySubsequences: true)
        let methods = table.withLock { table in
            table.filter { route in
                route.components.count == components.count
                    && zip(route.components, components).allSatisfy { $0.hasPrefix(":") || $0 == $1 }
            }.map(\.method)
        }
        return Set(methods).sorted { $0.rawValue < $1.rawValue }
    }
}

extension Request {
    /// Whether the client already holds the representation with this entity tag: one of the
    /// tags its `If-None-Match` lists (a client may list several).
    func hasEntityTag(_ tag: String) -> Bool {
        guard let ifNoneMatch = headers[.ifNoneMatch] else { return false }
        return ifNoneMatch.split(separator: ",").contains { $0.trimmingSpaces() == tag }
    }
}

extension URI {
    /// The query's parameters as an HTML form sends them: `+` is a space (what `curl
    /// --data-urlencode` and browsers send), then percent escapes are decoded. Hummingbird's
    /// `queryParameters` leaves `+` as it is, so a predicate `favorite == true` sent as
    /// `favorite+==+true` did not parse.
    var formQuery: Parameters {
        guard let query, !query.isEmpty else { return Parameters() }
        var pairs: [(Substring, Substring)] = []
        pairs.reserveCapacity(8)
        // One pass: each field up to `&`, its name up to the first `=`.
        var rest = query[...]
        while !rest.isEmpty {
            let end = rest.firstIndex(of: "&") ?? rest.endIndex
            let field = rest[..<end]
            rest = end < rest.endIndex ? rest[rest.index(after: end)...] : rest[rest.endIndex...]
            guard !field.isEmpty else { continue }
            if let equals = field.firstIndex(of: "=") {
                pairs.append(
                    (Self.formDecoded(field[..<equals]), Self.formDecoded(field[field.index(after: equals)...])))
            } else {
                pairs.append((Self.formDecoded(field), ""))
            }
        }
        return Parameters(pairs)
    }

    /// A query's name or value as a form sent it: most need nothing done, and are not copied.
    static func formDecoded(_ text: Substring) -> Substring {
        guard text.utf8.contains(where: { $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "%") }) else {
            return text
        }
        return Substring(formDecodedString(text))
    }

    /// `text` with `+` as a space and `%XX` as the byte it names; an escape that is not two
    /// hexadecimal digits stays as it is, and bytes that are not UTF-8 leave the text undecoded
    /// (but for its spaces).
    static func formDecodedString(_ text: Substring) -> String {
        let utf8 = Array(text.utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        func hex(_ byte: UInt8) -> UInt8? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        var index = 0
        while index < utf8.count {
            let byte = utf8[index]
            if byte == UInt8(ascii: "%"), index + 2 < utf8.count,
                let high = hex(utf8[index + 1]), let low = hex(utf8[index + 2])
            {
                bytes.append(high << 4 | low)
                index += 3
            } else {
                bytes.append(byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
                index += 1
            }
        }
        if let decoded = String(validating: bytes, as: UTF8.self) { return decoded }
        return String(decoding: utf8.map { $0 == UInt8(ascii: "+") ? UInt8(ascii: " ") : $0 }, as: UTF8.self)
    }
}

extension StringProtocol {
    /// Without the spaces and tabs at either end: what HTTP allows around a header's values,
    /// trimmed without Foundation's character sets (on every request's credentials).
    func trimmingSpaces() -> SubSequence {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return self[endIndex...]
        }
        return self[first...last]
    }
}
