import Foundation
import Hummingbird
import HummingbirdTesting
import Lightbox
import LightboxTestSupport
import Testing

@testable import LightboxServer

/// Every route of the OpenAPI document, called as each kind of caller: nobody, a read token,
/// another user, the owner. The document is the list, so a new route is in the matrix the day
/// it is added.
@Suite("Every route, every caller")
struct RouteMatrixTests {
    struct Route {
        var method: HTTPRequest.Method
        var path: String
        var access: String
        var takesBytes: Bool
        /// A body the route takes: each required member with a plain value of its schema.
        var example: String
    }

    /// A value of `schema`: the schema's minimum, one item, each required member; `filters`
    /// a real one, so that an edit gets as far as looking its asset up.
    static func example(_ schema: [String: Any], name: String = "", components: [String: Any]) -> Any {
        if let reference = schema["$ref"] as? String,
            let target = components[String(reference.split(separator: "/").last ?? "")] as? [String: Any]
        {
            return example(target, name: name, components: components)
        }
        if name == "filters" { return ["exposure=0.5"] }
        switch schema["type"] as? String {
        case "object":
            let properties = schema["properties"] as? [String: [String: Any]] ?? [:]
            var object: [String: Any] = [:]
            for key in schema["required"] as? [String] ?? [] {
                object[key] = example(properties[key] ?? [:], name: key, components: components)
            }
            return object
        case "array":
            return [example(schema["items"] as? [String: Any] ?? [:], components: components)]
        case "integer": return schema["minimum"] as? Int ?? 0
        case "number": return 0
        case "boolean": return true
        default: return (schema["enum"] as? [String])?.first ?? "x"
        }
    }

    static func routes(in document: [String: Any]) throws -> [Route] {
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        let components = (document["components"] as? [String: Any])?["schemas"] as? [String: Any] ?? [:]
        var routes: [Route] = []
        for (path, operations) in paths {
            for (method, operation) in operations {
                let operation = try #require(operation as? [String: Any])
                let body = (operation["requestBody"] as? [String: Any])?["content"] as? [String: Any]
                routes.append(
                    Route(
                        method: try #require(HTTPRequest.Method(method.uppercased())), path: path,
                        access: try #require(operation["x-lightbox-access"] as? String),
                        takesBytes: body?["application/octet-stream"] != nil,
                        example: String(
                            decoding: try JSONSerialization.data(
                                withJSONObject: example(
                                    ((body?["application/json"] as? [String: Any])?["schema"] as? [String: Any]) ?? [:],
                                    components: components), options: [.fragmentsAllowed]), as: UTF8.self)))
            }
        }
        return routes.sorted { ($0.path, $0.method.rawValue) < ($1.path, $1.method.rawValue) }
    }

    @Test(
        "No credentials: 401 but for the open routes; a read token: 403 for changes; another user: 404 for the owner's objects"
    )
    func matrix() async throws {
        let (folder, library, accounts, app) = try await AccessTests.makeServer()
        defer { withExtendedLifetime(folder) {} }
        let ann = try #require(try await accounts.user(named: "ann"))
        let (_, reader) = try await accounts.createToken(for: ann, name: "reader", scope: .read)
        let asset = try #require(try await library.assets(limit: 1).first?.localIdentifier)
        var made = ("", "")
        try await library.performChanges { changes in
            made = (
                changes.creationRequestForAssetCollection(withTitle: "Album").localIdentifier,
                changes.creationRequestForCollectionList(withTitle: "Folder").localIdentifier
            )
        }
        let (album, list) = made
        let upload = try UploadStaging(library: library).start(
            filename: "a.jpg", size: 10, sha256: nil, maximumSize: 100)
        let (token, _) = try await accounts.createToken(for: ann, name: "other", scope: .read)
        // Limited to an album that holds none of the assets the matrix names.
        let (_, limited) = try await accounts.createToken(for: ann, name: "limited", scope: .read, limitedTo: [album])
        let (session, _) = try await accounts.startSession(for: ann, userAgent: "t", address: "127.0.0.1")
        let shared = try await accounts.shareAlbum(album, of: ann, with: "bob", permission: .view)
        let link = try #require(try await accounts.createLink(to: album, of: ann, password: nil, expires: nil).linkKey)
        var other = ""
        try await library.performChanges { changes in
            other = changes.creationRequestForAssetCollection(withTitle: "Other").localIdentifier
        }
        let contributing = try await accounts.shareAlbum(other, of: ann, with: "bob", permission: .contribute)
        try await app.test(.router) { client in
            let document = try await client.execute(uri: "/api/openapi.json", method: .get) { response throws in
                #expect(response.status == .ok)
                return try #require(
                    JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any])
            }
            #expect(document["openapi"] as? String == "3.1.0")
            let routes = try Self.routes(in: document)
            #expect(routes.count >= 60)
            let bob = try await AccessTests.signIn(client, "bob", "bob's password")

            func uri(_ route: Route) -> String {
                let path = route.path
                let id: String =
                    switch route.path {
                    case let p where p.hasPrefix("/api/assets/"): asset
                    case let p where p.hasPrefix("/api/collections/"): album
                    case let p where p.hasPrefix("/api/lists/"): list
                    case let p where p.hasPrefix("/api/uploads/"): upload.id
                    case let p where p.hasPrefix("/api/sessions/"): session.id
                    case let p where p.hasPrefix("/api/tokens/"): token.id
                    case let p where p.hasPrefix("/web/"): "main.js"
                    default: "nobody"
                    }
                return path.replacingOccurrences(of: "{id}", with: id).replacingOccurrences(of: "{name}", with: id)
            }
            func call(_ route: Route, _ headers: HTTPFields, query: String? = nil) async throws -> HTTPResponse.Status {
                var headers = headers
                var body: ByteBuffer?
                if route.method != .get && route.method != .delete {
                    headers[.contentType] = route.takesBytes ? "application/octet-stream" : "application/json"
                    body = ByteBuffer(string: route.takesBytes ? "bytes" : route.example)
                    if route.takesBytes { headers[HTTPFields.headerName("Upload-Offset")] = "0" }
                }
                var target = uri(route)
                if let query { target += (target.contains("?") ? "&" : "?") + query }
                return try await client.execute(uri: target, method: route.method, headers: headers, body: body) {
                    $0.status
                }
            }
            let streams = "/api/changes/stream"
            // Signing in (or unlocking a link) with a wrong password is 401 whoever asks: the route
            // is open all the same.
            let passwords: Set = ["/api/session", "/api/links/unlock"]
            for route in routes {
                let name = "\(route.method) \(route.path)"
                // Nobody.
                let anonymous = try await call(route, [:])
                if route.access == "open" {
                    #expect(anonymous != .unauthorized || passwords.contains(route.path), "\(name)")
                } else {
                    #expect(anonymous == .unauthorized, "\(name)")
                }
                // A read token: changes and account routes refused; reads answered.
                if route.path != streams {
                    let read = try await call(route, [.authorization: "Bearer " + reader])
                    switch route.access {
                    case "write", "contribute", "person", "admin": #expect(read == .forbidden, "\(name)")
                    default:
                        #expect(
                            read != .forbidden && (read != .unauthorized || passwords.contains(route.path)),
                            "\(name) \(read)")
                    }
                }
                // A limited token: changes refused, and an asset outside its selection does not exist.
                if route.path != streams && route.path.contains("{id}") && route.path.hasPrefix("/api/assets/") {
                    let seen = try await call(route, [.authorization: "Bearer " + limited])
                    switch route.access {
                    case "write", "contribute", "person", "admin": #expect(seen == .forbidden, "\(name)")
                    default: #expect(seen == .notFound, "\(name) \(seen)")
                    }
                }
                // The album shared by link, and with bob: it holds none of the assets the matrix
                // names, and nothing but reads (a contributor's uploads) gets through.
                if route.path != streams && route.access != "open" {
                    let visitor = try await call(route, [.init("X-Lightbox-Link")!: link])
                    // Account routes are bob's own business, share or not (and one signs him out).
                    let person = route.access == "person"
                    let viewer =
                        person ? .forbidden : try await call(route, [.cookie: bob], query: "share=" + shared.id)
                    let contributor =
                        person ? .forbidden : try await call(route, [.cookie: bob], query: "share=" + contributing.id)
                    switch route.access {
                    case "write", "admin":
                        #expect(visitor == .forbidden && viewer == .forbidden, "\(name) \(visitor) \(viewer)")
                    case "person":
                        #expect(visitor == .forbidden, "\(name) \(visitor)")
                    case "contribute":
                        #expect(visitor == .forbidden && viewer == .forbidden, "\(name) \(visitor) \(viewer)")
                        #expect(contributor != .forbidden, "\(name)")
                    default:
                        if route.path.hasPrefix("/api/assets/{id}") {
                            #expect(visitor == .notFound && viewer == .notFound, "\(name) \(visitor) \(viewer)")
                        }
                    }
                }
                // Another user: the owner's objects do not exist for them; admin routes are admins'.
                if route.path != streams && route.path.contains("{") && route.access != "open" {
                    let other = try await call(route, [.cookie: bob])
                    if route.access == "admin" {
                        #expect(other == .forbidden, "\(name)")
                    } else {
                        #expect(other == .notFound, "\(name) \(other)")
                    }
                }
            }
        }
    }
}
