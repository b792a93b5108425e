import Foundation
import Hummingbird
import HummingbirdCore
import Lightbox
import LightboxImaging
import NIOCore

/// Builds Lightbox's HTTP application over a library: the web page and the JSON API.
///
/// ```swift
/// let app = LightboxServer.application(library: library, host: "127.0.0.1", port: 8080)
/// try await app.runService()
/// ```
///
/// Routes (who may call each: ``RouteAccess``; sign-in, sessions, tokens and users:
/// ``AccountRoutes``):
/// - `GET /` and `GET /web/{file}`: the web page (see ``WebPage``);
/// - `GET /api/assets?limit=&after=&predicate=&sort=`: a page of assets, newest first
///   (keyset pagination), or those a predicate selects in the order a sort gives;
/// - `GET /api/assets/{id}`: one asset;
/// - `GET /api/changes?since=TOKEN&limit=`: persistent changes since a token, a page at a time
///   (`next` is the following page's `since`); 410 when expired, 400 for a token from the future;
/// - `GET /api/collections?predicate=&sort=`: albums; `GET /api/collections/{id}/assets`: an album's assets;
/// - `GET /api/assets/{id}/image?...` and `POST /api/cache`: the image manager (see ``ImageRoutes``);
/// - `GET`, `POST` and `DELETE /api/assets/{id}/edits`, `POST /api/assets/{id}/edits/preview`:
///   editing (see ``EditRoutes``).
/// - `GET /api/assets/{id}/movie?version=current|original`: a Live Photo's or a video's movie,
///   with byte ranges (see ``MovieRoutes``).
/// - `DELETE /api/assets/{id}` (`?permanently=true`), `POST /api/assets/{id}/restore`,
///   `GET` and `DELETE /api/trash`: Recently Deleted (see ``TrashRoutes``).
/// - `GET /api/capture/devices` and `POST /api/capture`: the server's cameras, and taking a
///   photo, Live Photo or burst with one into the library (see ``CaptureRoutes``).
///
/// SQLite reads suspend on GRDB's reader queue and libvips renders on Lightbox's blocking
/// pool: no handler ever blocks an event loop.
public enum LightboxServer {
    /// The page size of `/api/assets` when the client does not say.
    public static let defaultPageSize = 60
    /// The largest page `/api/assets` returns.
    public static let maximumPageSize = 500
    /// The most transactions one page of `/api/changes` holds.
    public static let maximumChangesPage = 1000

    /// The router with every route, for tests and for embedding in a larger application.
    ///
    /// With `accounts`, every route but the sign-in page and its call needs a session or a
    /// token, and each user reaches their own library (the first user owns `library`); a
    /// library whose accounts have no users is open to whoever reaches it only while
    /// `policy.loopbackOnly`. Without `accounts`, every request is the library's owner: for an
    /// application that authenticates in front of Lightbox.
    public static func router(
        library: PhotoLibrary, accounts: Accounts? = nil, policy: AccessPolicy = AccessPolicy(),
        limits: ServerLimits = ServerLimits()
    ) -> Router<LightboxRequestContext> {
        let router = Router(context: LightboxRequestContext.self)
        let routes = Routes(router: router)
        router.add(middleware: SecurityHeadersMiddleware())
        router.add(middleware: ErrorMiddleware(methods: routes.table))
        let libraries = ServedLibraries(home: library, waitingRenders: limits.waitingRenders)
        router.add(middleware: AccessMiddleware(accounts: accounts, libraries: libraries, policy: policy))
        ImageRoutes.add(to: routes)
        EditRoutes.add(to: routes)
        MovieRoutes.add(to: routes)
        TrashRoutes.add(to: routes)
        CaptureRoutes.add(to: routes)
        AccountRoutes.add(to: routes, accounts: accounts, policy: policy)
        WebPage.add(to: routes)
        routes.get("/api/assets") { request, context in
            let served = try context.library()
            let library = served.library
            let query = request.uri.formQuery
            let limit = try query.get("limit", as: Int.self).map { $0 } ?? defaultPageSize
            guard (1...maximumPageSize).contains(limit) else {
                throw HTTPError(.badRequest, message: "limit must be 1...\(maximumPageSize)")
            }
            let after = query.get("after").map { String($0) }
            let predicate = query.get("predicate").map { String($0) }
            let sort = query.get("sort").map { String($0) }
            let assets: [Asset]
            if predicate == nil && sort == nil {
                assets = try await library.assets(limit: limit + 1, after: after)
            } else {
                assets = try await page(of: library, predicate: predicate, sort: sort, after: after, limit: limit + 1)
            }
            let page = AssetPage(
                assets: Array(assets.prefix(limit)),
                next: assets.count > limit ? assets[limit - 1].localIdentifier : nil)
            return try jsonResponse(page)
        }
        routes.get("/api/changes") { request, context in
            let served = try context.library()
            let library = served.library
            let query = request.uri.formQuery
            guard let since = query.get("since").flatMap({ PersistentChangeToken(String($0)) }) else {
                throw HTTPError(.badRequest, message: "since must be a change token (a number)")
            }
            let limit = try query.get("limit", as: Int.self) ?? maximumChangesPage
            guard (1...maximumChangesPage).contains(limit) else {
                throw HTTPError(.badRequest, message: "limit must be 1...\(maximumChangesPage)")
            }
            let (current, changes) = try await library.read { library in
                (try library.currentChangeToken(), try library.fetchPersistentChanges(since: since, limit: limit + 1))
            }
            let page = Array(changes.prefix(limit))
            return try jsonResponse(
                ChangesPage(
                    currentToken: current, changes: page, next: changes.count > limit ? page.last?.changeToken : nil))
        }
        routes.get("/api/collections") { request, context in
            let served = try context.library()
            let library = served.library
            let query = request.uri.formQuery
            var options = FetchOptions()
            options.predicate = try query.get("predicate").map { try FetchPredicate(String($0)) }
            options.sortDescriptors = try query.get("sort").map { try FetchSortDescriptor.parse(String($0)) } ?? []
            let fetch = options
            let collections = try await library.read { library in
                Array(try library.fetchAssetCollections(with: .album, options: fetch))
            }
            return try jsonResponse(CollectionPage(collections: collections))
        }
        routes.get("/api/collections/:id/assets") { request, context in
            let served = try context.library()
            let library = served.library
            let id = try context.parameters.require("id")
            let query = request.uri.formQuery
            let limit = try query.get("limit", as: Int.self) ?? defaultPageSize
            guard (1...maximumPageSize).contains(limit) else {
                throw HTTPError(.badRequest, message: "limit must be 1...\(maximumPageSize)")
            }
            let after = query.get("after").map { String($0) }
            let assets = try await library.fetchAssets(
                inCollectionWithLocalIdentifier: id, options: FetchOptions(), after: after, limit: limit + 1)
            return try jsonResponse(
                AssetPage(
                    assets: Array(assets.prefix(limit)),
                    next: assets.count > limit ? assets[limit - 1].localIdentifier : nil))
        }
        routes.get("/api/assets/:id") { _, context in
            let served = try context.library()
            let library = served.library
            let id = try context.parameters.require("id")
            guard let asset = try await library.asset(withLocalIdentifier: id) else {
                throw HTTPError(.notFound, message: "no asset has the identifier \(id)")
            }
            return try jsonResponse(asset)
        }
        return router
    }

    /// The whole application, listening on `host:port` within `limits`; `onServerRunning` is
    /// called once it listens (a port in use makes `runService()` throw before).
    public static func application(
        library: PhotoLibrary, accounts: Accounts? = nil, policy: AccessPolicy = AccessPolicy(),
        host: String = "127.0.0.1", port: Int = 8080, limits: ServerLimits = ServerLimits(),
        onServerRunning: @escaping @Sendable () async -> Void = {}
    ) -> some ApplicationProtocol {
        let perAddress = AddressConnections(limit: limits.connectionsPerAddress)
        let headerTimeout = limits.headerTimeout.timeAmount
        return Application(
            router: router(library: library, accounts: accounts, policy: policy, limits: limits),
            server: .http1(
                configuration: .init(
                    additionalChannelHandlers: [perAddress.handler(), HeaderTimeoutHandler(timeout: headerTimeout)],
                    idleTimeout: limits.idleTimeout.timeAmount)),
            configuration: .init(
                address: .hostname(host, port: port), serverName: "Lightbox",
                availableConnectionsDelegate: MaximumAvailableConnections(limits.effectiveConnections)),
            onServerRunning: { _ in await onServerRunning() })
    }

    /// One page of a fetch with a text predicate and sort: the `limit` assets after the one
    /// named `after`. Fetches run on a snapshot, off the event loop.
    static func page(of library: PhotoLibrary, predicate: String?, sort: String?, after: String?, limit: Int)
        async throws -> [Asset]
    {
        var options = FetchOptions()
        options.predicate = try predicate.map { try FetchPredicate($0) }
        options.sortDescriptors = try sort.map { try FetchSortDescriptor.parse($0) } ?? []
        return try await library.fetchAssets(options: options, after: after, limit: limit)
    }

    static func jsonResponse(_ value: some Encodable) throws -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        let data = try JSONEncoder.lightbox.encode(value)
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}

/// The answer of `/api/changes`.
struct ChangesPage: Encodable {
    var currentToken: PersistentChangeToken
    var changes: [PersistentChange]
    /// The `since` value for the next page; absent on the last page.
    var next: PersistentChangeToken?
}

/// The answer of `/api/collections`.
struct CollectionPage: Encodable {
    var collections: [AssetCollection]
}

/// One page of `/api/assets`.
struct AssetPage: Encodable {
    var assets: [Asset]
    /// The `after` value for the next page; absent on the last page.
    var next: String?
}

extension Parameters {
    /// A parameter converted to `T`; a value that does not convert is a 400, not a silent default.
    fileprivate func get<T: LosslessStringConvertible>(_ key: String, as type: T.Type) throws -> T? {
        guard let text = self.get(key) else { return nil }
        guard let value = T(String(text)) else {
            throw HTTPError(.badRequest, message: "\(key) must be a \(T.self), not \(text)")
        }
        return value
    }
}
