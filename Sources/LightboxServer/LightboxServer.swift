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
/// - `/api/assets`: reading, changing and downloading assets (see ``AssetRoutes``);
/// - `GET /api/changes?since=TOKEN&limit=`: persistent changes since a token, a page at a time
///   (`next` is the following page's `since`); 410 when expired, 400 for a token from the future;
/// - `/api/collections` and `/api/lists`: albums, smart albums, moments, folders and years,
///   read and changed (see ``CollectionRoutes``);
/// - `GET /api/assets/{id}/image?...` and `POST /api/cache`: the image manager (see ``ImageRoutes``);
/// - `GET`, `POST` and `DELETE /api/assets/{id}/edits`, `POST /api/assets/{id}/edits/preview`:
///   editing (see ``EditRoutes``).
/// - `GET /api/assets/{id}/movie?version=current|original`: a Live Photo's or a video's movie,
///   with byte ranges (see ``MovieRoutes``).
/// - `DELETE /api/assets/{id}` (`?permanently=true`), `POST /api/assets/{id}/restore`,
///   `GET` and `DELETE /api/trash`: Recently Deleted (see ``TrashRoutes``).
/// - `GET /api/capture/devices` and `POST /api/capture`: the server's cameras, and taking a
///   photo, Live Photo or burst with one into the library (see ``CaptureRoutes``).
/// - `/api/shares`, `/api/collections/{id}/shares|links`, `/s/{key}`: albums shared with other
///   users and by link (see ``ShareRoutes``).
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
    ///
    /// `jobs` is how many of each library's jobs (``PhotoLibrary/runJobs(_:onEvent:)``) the
    /// server runs at once while it lives; 0 leaves them to `lightbox worker` processes.
    public static func router(
        library: PhotoLibrary, accounts: Accounts? = nil, policy: AccessPolicy = AccessPolicy(),
        limits: ServerLimits = ServerLimits(), jobs: Int = 0
    ) -> Router<LightboxRequestContext> {
        let router = Router(context: LightboxRequestContext.self)
        let routes = Routes(router: router)
        // Outermost: every answer, errors included, in one form and with the security headers.
        router.add(middleware: ErrorMiddleware(methods: routes.table))
        let libraries = ServedLibraries(home: library, waitingRenders: limits.waitingRenders, jobs: jobs)
        router.add(middleware: AccessMiddleware(accounts: accounts, libraries: libraries, policy: policy))
        add(to: routes, accounts: accounts, policy: policy, limits: limits, libraries: libraries)
        return router
    }

    /// Every route, each under its section: the one table docs/API.md and the OpenAPI
    /// document are made from, in its order.
    static func add(
        to routes: Routes, accounts: Accounts?, policy: AccessPolicy, limits: ServerLimits, libraries: ServedLibraries
    ) {
        AccountRoutes.add(to: routes.section("Signing in and accounts"), accounts: accounts, policy: policy)
        AssetRoutes.add(to: routes.section("Assets"))
        ImageRoutes.add(to: routes.section("Images"))
        MovieRoutes.add(to: routes.section("Movies"))
        EditRoutes.add(to: routes.section("Edits"))
        TrashRoutes.add(to: routes.section("Recently Deleted"))
        CollectionRoutes.add(to: routes.section("Albums and folders"))
        ShareRoutes.add(to: routes.section("Sharing"), accounts: accounts, libraries: libraries)
        UploadRoutes.add(to: routes.section("Uploads"), limits: limits)
        DownloadRoutes.add(to: routes.section("Downloads"))
        ChangeRoutes.add(to: routes.section("Changes"))
        JobRoutes.add(to: routes.section("Background jobs"))
        CaptureRoutes.add(to: routes.section("Capture"))
        WebPage.add(to: routes.section("The web page"))
        OpenAPIDocument.add(to: routes.section("The web page"))
    }

    /// The table of every route, as ``router(library:accounts:policy:limits:jobs:)`` registers
    /// them: what docs/API.md is made from.
    static func routeTable(library: PhotoLibrary) -> MethodTable {
        let routes = Routes(router: Router(context: LightboxRequestContext.self))
        let libraries = ServedLibraries(home: library, waitingRenders: 1, jobs: 0)
        add(to: routes, accounts: nil, policy: AccessPolicy(), limits: ServerLimits(), libraries: libraries)
        return routes.table
    }

    /// The whole application, listening on `host:port` within `limits`; `onServerRunning` is
    /// called once it listens (a port in use makes `runService()` throw before).
    public static func application(
        library: PhotoLibrary, accounts: Accounts? = nil, policy: AccessPolicy = AccessPolicy(),
        host: String = "127.0.0.1", port: Int = 8080, limits: ServerLimits = ServerLimits(), jobs: Int = 0,
        onServerRunning: @escaping @Sendable () async -> Void = {}
    ) -> some ApplicationProtocol {
        let perAddress = AddressConnections(
            limit: limits.connectionsPerAddress, exemptingLoopback: policy.trustProxy)
        let headerTimeout = limits.headerTimeout.timeAmount
        return Application(
            router: router(library: library, accounts: accounts, policy: policy, limits: limits, jobs: jobs),
            server: .http1(
                configuration: .init(
                    additionalChannelHandlers: [
                        perAddress.handler(), HeaderTimeoutHandler(timeout: headerTimeout),
                        BodyPaceHandler(minimumRate: limits.minimumBodyRate, span: headerTimeout),
                    ],
                    idleTimeout: limits.idleTimeout.timeAmount)),
            configuration: .init(
                address: .hostname(host, port: port), serverName: "Lightbox",
                availableConnectionsDelegate: MaximumAvailableConnections(limits.effectiveConnections)),
            onServerRunning: { _ in await onServerRunning() },
            logger: ServerLogHandler.logger(label: "Lightbox"))
    }

    /// The fetch options a text predicate and sort make (the fetch language); 400 for text that
    /// does not parse.
    static func fetchOptions(predicate: String?, sort: String?) throws -> FetchOptions {
        var options = FetchOptions()
        options.predicate = try predicate.map { try FetchPredicate($0) }
        options.sortDescriptors = try sort.map { try FetchSortDescriptor.parse($0) } ?? []
        return options
    }

    /// The header every change's answer carries: the transaction's change token.
    static let changeTokenHeader = HTTPFields.Element.Name("X-Lightbox-Change-Token")!

    /// A change's answer: `value` as JSON with `status`, and the change token in
    /// ``changeTokenHeader`` (the library's current one when the change changed nothing).
    static func written(
        _ value: some Encodable, token: PersistentChangeToken?, in library: PhotoLibrary,
        status: HTTPResponse.Status = .ok
    ) async throws -> Response {
        let token = try await self.token(token, in: library)
        var response = try jsonResponse(value)
        response.status = status
        response.headers[changeTokenHeader] = token.description
        return response
    }

    /// The answer of a change with nothing to show (a deletion, a reorder): 204 with the change
    /// token.
    static func noContent(token: PersistentChangeToken?, in library: PhotoLibrary) async throws -> Response {
        var response = Response(status: .noContent)
        response.headers[changeTokenHeader] = try await self.token(token, in: library).description
        return response
    }

    /// `token`, or the library's current token when a change made none.
    static func token(_ token: PersistentChangeToken?, in library: PhotoLibrary) async throws -> PersistentChangeToken {
        if let token { return token }
        return try await library.read { try $0.currentChangeToken() }
    }

    static func jsonResponse(_ value: some Encodable) throws -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        let data = try JSONEncoder.lightbox.encode(value)
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
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
    /// The index of the page's first asset in the whole fetch; absent on the pages after the
    /// first of the default order asked with `after`, which are read by the index from the
    /// last asset seen and never count what lies before it.
    var offset: Int?
    /// How many assets the whole fetch holds, every page together.
    var count: Int

    /// The page a request for `limit` assets answers with, from a page read with one asset
    /// more than asked (its presence says there is a next page).
    init(_ page: AssetFetchPage, limit: Int) {
        assets = Array(page.assets.prefix(limit))
        next = page.assets.count > limit ? page.assets[limit - 1].localIdentifier : nil
        offset = page.offset
        count = page.count
    }
}

extension Parameters {
    /// Where a page starts: `after` (the previous page's `next`), `offset` (an index of the
    /// whole fetch, from 0) or `at` (an asset's identifier: the page it begins), at most one.
    func pageStart() throws -> FetchPageStart {
        let after = get("after").map { String($0) }
        let offset = try get("offset", as: Int.self)
        let at = get("at").map { String($0) }
        guard [after != nil, offset != nil, at != nil].filter({ $0 }).count <= 1 else {
            throw HTTPError(.badRequest, message: "give one of after, offset and at, not several")
        }
        if let offset {
            guard (0...Int(Int32.max)).contains(offset) else {
                throw HTTPError(.badRequest, message: "offset must be 0...\(Int32.max), not \(offset)")
            }
            return .offset(offset)
        }
        return at.map { .at($0) } ?? .after(after)
    }

    /// The `limit` parameter: `fallback` when absent, else a number in 1...`maximum` (400 otherwise).
    func limit(default fallback: Int, maximum: Int) throws -> Int {
        let limit = try get("limit", as: Int.self) ?? fallback
        guard (1...maximum).contains(limit) else {
            throw HTTPError(.badRequest, message: "limit must be 1...\(maximum)")
        }
        return limit
    }

    /// A parameter converted to `T`; a value that does not convert is a 400, not a silent default.
    func get<T: LosslessStringConvertible>(_ key: String, as type: T.Type) throws -> T? {
        guard let text = self.get(key) else { return nil }
        guard let value = T(String(text)) else {
            throw HTTPError(.badRequest, message: "\(key) must be a \(T.self), not \(text)")
        }
        return value
    }
}
