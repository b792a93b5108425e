import Foundation
import Hummingbird
import HummingbirdCore
import Synchronization

/// The router, with a record of each path's methods: a request for a path with a method it
/// does not take is answered 405 with the methods it takes (`Allow`), not 404.
struct Routes {
    let router: Router<BasicRequestContext>
    let table = MethodTable()

    @discardableResult
    func get(
        _ path: RouterPath,
        use handler: @Sendable @escaping (Request, BasicRequestContext) async throws -> some ResponseGenerator
    ) -> Self {
        on(path, .get, handler)
    }

    @discardableResult
    func post(
        _ path: RouterPath,
        use handler: @Sendable @escaping (Request, BasicRequestContext) async throws -> some ResponseGenerator
    ) -> Self {
        on(path, .post, handler)
    }

    @discardableResult
    func delete(
        _ path: RouterPath,
        use handler: @Sendable @escaping (Request, BasicRequestContext) async throws -> some ResponseGenerator
    ) -> Self {
        on(path, .delete, handler)
    }

    private func on(
        _ path: RouterPath, _ method: HTTPRequest.Method,
        _ handler: @Sendable @escaping (Request, BasicRequestContext) async throws -> some ResponseGenerator
    ) -> Self {
        router.on(path, method: method, use: handler)
        table.record(method, path)
        return self
    }
}

/// Each route's path and the methods registered for it.
final class MethodTable: Sendable {
    private let routes = Mutex<[(path: RouterPath, methods: Set<HTTPRequest.Method>)]>([])

    func record(_ method: HTTPRequest.Method, _ path: RouterPath) {
        routes.withLock { routes in
            if let index = routes.firstIndex(where: { $0.path == path }) {
                routes[index].methods.insert(method)
            } else {
                routes.append((path, [method]))
            }
        }
    }

    /// The methods the routes matching `path` take, sorted; empty when no route matches it.
    func methods(for path: String) -> [HTTPRequest.Method] {
        let components = path.split(separator: "/", omittingEmptySubsequences: true)
        let methods = routes.withLock { routes in
            routes.filter { route in
                route.path.components.count == components.count
                    && zip(route.path.components, components).allSatisfy { $0 ~= $1 }
            }.reduce(into: Set<HTTPRequest.Method>()) { $0.formUnion($1.methods) }
        }
        return methods.sorted { $0.rawValue < $1.rawValue }
    }
}

extension Request {
    /// Whether the client already holds the representation with this entity tag: one of the
    /// tags its `If-None-Match` lists (a client may list several).
    func hasEntityTag(_ tag: String) -> Bool {
        guard let ifNoneMatch = headers[.ifNoneMatch] else { return false }
        return ifNoneMatch.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces) == tag }
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
        for field in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = field.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ text: Substring) -> Substring {
                let spaced = text.replacingOccurrences(of: "+", with: " ")
                return Substring(spaced.removingPercentEncoding ?? spaced)
            }
            pairs.append((decode(parts[0]), parts.count > 1 ? decode(parts[1]) : ""))
        }
        return Parameters(pairs)
    }
}
