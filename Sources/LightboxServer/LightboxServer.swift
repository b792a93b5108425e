import Foundation
import Hummingbird
import HummingbirdCore
import Lightbox
import LightboxAnalysis
import LightboxImaging
import NIOCore

/// Builds Lightbox's HTTP application over a library: the web page and the JSON API.
///
/// ```swift
/// let app = LightboxServer.application(library: library, host: "127.0.0.1", port: 8080)
/// try await app.runService()
/// ```
///
/// Every route is a row of ``table(accounts:policy:limits:libraries:tiles:methods:)``: its method
/// and path, who may call it (``RouteAccess``), its handler in its resource's controller
/// (Routes/) and its operation, from which docs/API.md and `/api/openapi.json` are made.
///
/// Catalog reads suspend off the cooperative pool and libvips renders on Lightbox's blocking
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
    /// server runs at once while it lives; 0 leaves them to `lightbox worker` processes. With
    /// `analyzer`, its runners find faces too. The web app's map draws `tiles`.
    public static func router(
        library: PhotoLibrary, accounts: Accounts? = nil, policy: AccessPolicy = AccessPolicy(),
        limits: ServerLimits = ServerLimits(), jobs: Int = 0, analyzer: (any PhotoAnalyzing)? = nil,
        tiles: MapTiles = .openStreetMap
    ) -> Router<LightboxRequestContext> {
        let router = Router(context: LightboxRequestContext.self)
        let routes = Routes(router: router)
        // Outermost: every answer, errors included, in one form and with the security headers.
        router.add(
            middleware: ErrorMiddleware(
                methods: routes.table, securityPolicy: SecurityHeaders.policy(imageSource: tiles.imageSource)))
        let libraries = ServedLibraries(
            home: library, waitingRenders: limits.waitingRenders, jobs: jobs, analyzer: analyzer)
        router.add(middleware: AccessMiddleware(accounts: accounts, libraries: libraries, policy: policy))
        add(to: routes, accounts: accounts, policy: policy, limits: limits, libraries: libraries, tiles: tiles)
        return router
    }

    /// Every route, each under its section, with who may call it, its handler and its
    /// operation: the one table the router registers, and docs/API.md and the OpenAPI
    /// document are made from, in its order. Handlers live in their resource's controller
    /// (Routes/), each beside its operation.
    static func table(
        accounts: Accounts?, policy: AccessPolicy, limits: ServerLimits, libraries: ServedLibraries,
        tiles: MapTiles = .openStreetMap, methods: MethodTable
    ) -> [(section: String, routes: [Route])] {
        let account = AccountRoutes(accounts: accounts, policy: policy)
        let assets = AssetRoutes()
        let images = ImageRoutes()
        let movies = MovieRoutes()
        let edits = EditRoutes()
        let trash = TrashRoutes()
        let collections = CollectionRoutes()
        let people = PeopleRoutes()
        let places = PlaceRoutes(tiles: tiles)
        let search = SearchRoutes(analyzer: libraries.analyzer)
        let sharing = ShareRoutes(accounts: accounts, libraries: libraries)
        let uploads = UploadRoutes(limits: limits)
        let downloads = DownloadRoutes()
        let changes = ChangeRoutes()
        let jobs = JobRoutes()
        let capture = CaptureRoutes()
        let web = WebPage()
        let openAPI = OpenAPIDocument(table: methods)
        return [
            (
                "Signing in and accounts",
                [
                    Route(.get, "/signin", .open, account.signInPage, AccountRoutes.signInPageOperation),
                    Route(.post, "/api/session", .open, account.signIn, AccountRoutes.signInOperation),
                    Route(.delete, "/api/session", .person, account.signOut, AccountRoutes.signOutOperation),
                    Route(
                        .put, "/api/password", .person, account.changePassword, AccountRoutes.changePasswordOperation),
                    Route(
                        .get, "/api/authorization", .open, account.authorization, AccountRoutes.authorizationOperation),
                    Route(.get, "/api/sessions", .person, account.sessions, AccountRoutes.sessionsOperation),
                    Route(.delete, "/api/sessions/:id", .person, account.endSession, AccountRoutes.endSessionOperation),
                    Route(.get, "/api/tokens", .person, account.tokens, AccountRoutes.tokensOperation),
                    Route(.post, "/api/tokens", .person, account.makeToken, AccountRoutes.makeTokenOperation),
                    Route(.delete, "/api/tokens/:id", .person, account.revokeToken, AccountRoutes.revokeTokenOperation),
                    Route(.get, "/api/users", .admin, account.users, AccountRoutes.usersOperation),
                    Route(.post, "/api/users", .admin, account.addUser, AccountRoutes.addUserOperation),
                    Route(
                        .put, "/api/users/:name/password", .admin, account.resetPassword,
                        AccountRoutes.resetPasswordOperation),
                    Route(.delete, "/api/users/:name", .admin, account.removeUser, AccountRoutes.removeUserOperation),
                ]
            ),
            (
                "Assets",
                [
                    Route(.get, "/api/assets", .read, assets.assets, AssetRoutes.assetsOperation),
                    Route(.get, "/api/timeline", .read, assets.timeline, AssetRoutes.timelineOperation),
                    Route(.get, "/api/cameras", .read, assets.cameras, AssetRoutes.camerasOperation),
                    Route(.get, "/api/assets/:id", .read, assets.asset, AssetRoutes.assetOperation),
                    Route(.get, "/api/assets/:id/details", .read, assets.details, AssetRoutes.detailsOperation),
                    Route(.patch, "/api/assets/:id", .write, assets.update, AssetRoutes.updateOperation),
                    Route(.patch, "/api/assets", .write, assets.updateMany, AssetRoutes.updateManyOperation),
                    Route(.post, "/api/assets/delete", .write, assets.deleteMany, AssetRoutes.deleteManyOperation),
                    Route(.post, "/api/assets/restore", .write, assets.restoreMany, AssetRoutes.restoreManyOperation),
                    Route(.get, "/api/assets/:id/original", .read, assets.original, AssetRoutes.originalOperation),
                    Route(.get, "/api/assets/:id/download", .read, assets.download, AssetRoutes.downloadOperation),
                ]
            ),
            (
                "Images",
                [
                    Route(.get, "/api/assets/:id/image", .read, images.image, ImageRoutes.imageOperation),
                    Route(.get, "/api/assets/:id/data", .read, images.imageData, ImageRoutes.imageDataOperation),
                    Route(.post, "/api/cache", .read, images.cache, ImageRoutes.cacheOperation),
                ]
            ),
            (
                "Movies",
                [
                    Route(.get, "/api/assets/:id/movie", .read, movies.movie, MovieRoutes.movieOperation)
                ]
            ),
            (
                "Edits",
                [
                    Route(.get, "/api/assets/:id/edits", .read, edits.edit, EditRoutes.editOperation),
                    Route(.post, "/api/assets/:id/edits", .write, edits.applyEdit, EditRoutes.applyEditOperation),
                    Route(.get, "/api/editors", .read, edits.editors, EditRoutes.editorsOperation),
                    Route(
                        .get, "/api/assets/:id/editors", .read, edits.editorsOfAsset, EditRoutes.editorsOfAssetOperation
                    ),
                    Route(.delete, "/api/assets/:id/edits", .write, edits.revert, EditRoutes.revertOperation),
                    Route(.post, "/api/assets/:id/edits/preview", .read, edits.preview, EditRoutes.previewOperation),
                ]
            ),
            (
                "Recently Deleted",
                [
                    Route(.delete, "/api/assets/:id", .write, trash.trashAsset, TrashRoutes.trashAssetOperation),
                    Route(
                        .post, "/api/assets/:id/restore", .write, trash.restoreAsset, TrashRoutes.restoreAssetOperation),
                    Route(.get, "/api/trash", .read, trash.trash, TrashRoutes.trashOperation),
                    Route(.delete, "/api/trash", .write, trash.emptyTrash, TrashRoutes.emptyTrashOperation),
                ]
            ),
            (
                "Albums and folders",
                [
                    Route(
                        .get, "/api/collections", .read, collections.collections, CollectionRoutes.collectionsOperation),
                    Route(
                        .get, "/api/collections/:id", .read, collections.collection,
                        CollectionRoutes.collectionOperation),
                    Route(
                        .get, "/api/collections/:id/timeline", .read, collections.collectionTimeline,
                        CollectionRoutes.collectionTimelineOperation),
                    Route(
                        .get, "/api/collections/:id/assets", .read, collections.collectionAssets,
                        CollectionRoutes.collectionAssetsOperation),
                    Route(
                        .post, "/api/collections", .write, collections.makeAlbum, CollectionRoutes.makeAlbumOperation),
                    Route(
                        .patch, "/api/collections/:id", .write, collections.renameAlbum,
                        CollectionRoutes.renameAlbumOperation),
                    Route(
                        .delete, "/api/collections/:id", .write, collections.deleteAlbum,
                        CollectionRoutes.deleteAlbumOperation),
                    Route(
                        .post, "/api/collections/:id/assets", .write, collections.addAssets,
                        CollectionRoutes.addAssetsOperation),
                    Route(
                        .post, "/api/collections/:id/assets/remove", .write, collections.removeAssets,
                        CollectionRoutes.removeAssetsOperation),
                    Route(
                        .post, "/api/collections/:id/assets/move", .write, collections.moveAssets,
                        CollectionRoutes.moveAssetsOperation),
                    Route(.get, "/api/lists", .read, collections.folders, CollectionRoutes.foldersOperation),
                    Route(
                        .get, "/api/lists/:id/collections", .read, collections.folderContents,
                        CollectionRoutes.folderContentsOperation),
                    Route(.post, "/api/lists", .write, collections.makeFolder, CollectionRoutes.makeFolderOperation),
                    Route(
                        .patch, "/api/lists/:id", .write, collections.renameFolder,
                        CollectionRoutes.renameFolderOperation),
                    Route(
                        .delete, "/api/lists/:id", .write, collections.deleteFolder,
                        CollectionRoutes.deleteFolderOperation),
                    Route(
                        .post, "/api/lists/:id/collections", .write, collections.addToFolder,
                        CollectionRoutes.addToFolderOperation),
                    Route(
                        .post, "/api/lists/:id/collections/remove", .write, collections.removeFromFolder,
                        CollectionRoutes.removeFromFolderOperation),
                    Route(
                        .post, "/api/lists/:id/collections/move", .write, collections.moveInFolder,
                        CollectionRoutes.moveInFolderOperation),
                ]
            ),
            (
                "People",
                [
                    Route(.get, "/api/people", .read, people.people, PeopleRoutes.peopleOperation),
                    Route(.post, "/api/people", .write, people.makePerson, PeopleRoutes.makePersonOperation),
                    Route(.get, "/api/people/:id", .read, people.person, PeopleRoutes.personOperation),
                    Route(.patch, "/api/people/:id", .write, people.changePerson, PeopleRoutes.changePersonOperation),
                    Route(.get, "/api/people/:id/faces", .read, people.personFaces, PeopleRoutes.personFacesOperation),
                    Route(.post, "/api/people/:id/merge", .write, people.merge, PeopleRoutes.mergeOperation),
                    Route(.get, "/api/assets/:id/faces", .read, people.assetFaces, PeopleRoutes.assetFacesOperation),
                    Route(.post, "/api/faces/assign", .write, people.assign, PeopleRoutes.assignOperation),
                    Route(.post, "/api/faces/reject", .write, people.reject, PeopleRoutes.rejectOperation),
                    Route(.get, "/api/analysis", .read, people.analysis, PeopleRoutes.analysisOperation),
                    Route(
                        .patch, "/api/analysis", .person, people.changeAnalysis, PeopleRoutes.changeAnalysisOperation),
                ]
            ),
            (
                "Places",
                [
                    Route(.get, "/api/places", .read, places.places, PlaceRoutes.placesOperation),
                    Route(.get, "/api/assets/:id/place", .read, places.assetPlace, PlaceRoutes.assetPlaceOperation),
                    Route(.get, "/api/map", .read, places.map, PlaceRoutes.mapOperation),
                    Route(.get, "/api/map/tiles", .read, places.mapTiles, PlaceRoutes.mapTilesOperation),
                    Route(.get, "/api/assets/:id/text", .read, places.assetText, PlaceRoutes.assetTextOperation),
                    Route(.get, "/api/assets/:id/things", .read, places.assetThings, PlaceRoutes.assetThingsOperation),
                ]
            ),
            (
                "Search",
                [Route(.get, "/api/search", .read, search.search, SearchRoutes.searchOperation)]
            ),
            (
                "Sharing",
                [
                    Route(
                        .post, "/api/collections/:id/shares", .write, sharing.shareAlbum,
                        ShareRoutes.shareAlbumOperation),
                    Route(.post, "/api/collections/:id/links", .write, sharing.makeLink, ShareRoutes.makeLinkOperation),
                    Route(.get, "/api/shares", .read, sharing.shares, ShareRoutes.sharesOperation),
                    Route(.delete, "/api/shares/:id", .write, sharing.endShare, ShareRoutes.endShareOperation),
                    Route(.post, "/api/links/unlock", .open, sharing.unlockLink, ShareRoutes.unlockLinkOperation),
                    Route(.get, "/s/:key", .open, sharing.linkPage, ShareRoutes.linkPageOperation),
                    Route(.get, "/shared/:id", .open, sharing.sharedPage, ShareRoutes.sharedPageOperation),
                ]
            ),
            (
                "Uploads",
                [
                    Route(
                        .post, "/api/uploads/check", .contribute, uploads.checkUploads,
                        UploadRoutes.checkUploadsOperation),
                    Route(.post, "/api/uploads", .contribute, uploads.startUpload, UploadRoutes.startUploadOperation),
                    Route(
                        .get, "/api/uploads/:id", .contribute, uploads.uploadState, UploadRoutes.uploadStateOperation),
                    Route(
                        .delete, "/api/uploads/:id", .contribute, uploads.cancelUpload,
                        UploadRoutes.cancelUploadOperation),
                    Route(
                        .patch, "/api/uploads/:id", .contribute, uploads.continueUpload,
                        UploadRoutes.continueUploadOperation),
                    Route(
                        .post, "/api/uploads/whole", .contribute, uploads.uploadWhole, UploadRoutes.uploadWholeOperation
                    ),
                ]
            ),
            (
                "Downloads",
                [
                    Route(
                        .post, "/api/downloads", .read, downloads.prepareDownload,
                        DownloadRoutes.prepareDownloadOperation),
                    Route(.get, "/api/downloads/:id", .read, downloads.download, DownloadRoutes.downloadOperation),
                ]
            ),
            (
                "Changes",
                [
                    Route(.get, "/api/changes", .read, changes.changes, ChangeRoutes.changesOperation),
                    Route(.get, "/api/changes/stream", .read, changes.changeStream, ChangeRoutes.changeStreamOperation),
                ]
            ),
            (
                "Background jobs",
                [
                    Route(.get, "/api/jobs", .read, jobs.jobs, JobRoutes.jobsOperation),
                    Route(.post, "/api/jobs/retry", .write, jobs.retryJobs, JobRoutes.retryJobsOperation),
                ]
            ),
            (
                "Capture",
                [
                    Route(.get, "/api/capture/devices", .admin, capture.devices, CaptureRoutes.devicesOperation),
                    Route(.post, "/api/capture", .admin, capture.capture, CaptureRoutes.captureOperation),
                ]
            ),
            (
                "The web page",
                [
                    Route(.get, "/", .open, web.page, WebPage.pageOperation),
                    Route(.get, "/web/:name", .open, web.file, WebPage.fileOperation),
                    Route(.get, "/favicon.ico", .open, web.icon, WebPage.iconOperation),
                    Route(.get, "/api/openapi.json", .open, openAPI.document, OpenAPIDocument.documentOperation),
                ]
            ),
        ]
    }

    static func add(
        to routes: Routes, accounts: Accounts?, policy: AccessPolicy, limits: ServerLimits, libraries: ServedLibraries,
        tiles: MapTiles = .openStreetMap
    ) {
        let table = table(
            accounts: accounts, policy: policy, limits: limits, libraries: libraries, tiles: tiles,
            methods: routes.table)
        for (section, sectionRoutes) in table {
            for route in sectionRoutes { routes.add(route, section: section) }
        }
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
        analyzer: (any PhotoAnalyzing)? = nil, tiles: MapTiles = .openStreetMap,
        onServerRunning: @escaping @Sendable () async -> Void = {}
    ) -> some ApplicationProtocol {
        let perAddress = AddressConnections(
            limit: limits.connectionsPerAddress, exemptingLoopback: policy.trustProxy)
        let headerTimeout = limits.headerTimeout.timeAmount
        return Application(
            router: router(
                library: library, accounts: accounts, policy: policy, limits: limits, jobs: jobs,
                analyzer: analyzer, tiles: tiles),
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
