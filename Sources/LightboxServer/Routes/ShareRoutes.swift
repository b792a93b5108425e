import Foundation
import Hummingbird
import Lightbox

/// Albums shared with other users and by link, over HTTP (``Accounts`` keeps them). A recipient
/// reaches a shared album by adding `share=ID` to any route's query, a link's holder by
/// `link=KEY`: the routes then see the album's assets alone (see ``AccessMiddleware``). Each
/// route's contract is its `APIOperation` (docs/API.md).
struct ShareRoutes: Sendable {
    struct ShareBody: Decodable {
        var user: String
        var permission: AlbumShare.Permission?
    }

    struct LinkBody: Decodable {
        var password: String?
        var expiresInDays: Int?
    }

    struct UnlockBody: Decodable {
        var link: String
        var password: String
    }

    /// A share as its owner sees it.
    struct MadeView: Encodable {
        var id: String
        var album: String
        var permission: AlbumShare.Permission
        var creationDate: Date
        /// The user it is shared with.
        var user: String?
        /// A link's key, and its page.
        var link: String?
        var path: String?
        var hasPassword: Bool?
        var expirationDate: Date?

        init(_ share: AlbumShare, user: String?) {
            (id, album, permission, creationDate) = (
                share.id, share.albumIdentifier, share.permission, share.creationDate
            )
            self.user = user
            if let key = share.linkKey {
                (link, path, hasPassword, expirationDate) = (
                    key, "/s/" + key, share.passwordHash != nil, share.expirationDate
                )
            }
        }
    }

    /// A share as its recipient sees it: the album, when it is still there.
    struct ReceivedView: Encodable {
        var id: String
        var owner: String
        var permission: AlbumShare.Permission
        var creationDate: Date
        var collection: CollectionRoutes.CollectionEntry?
    }

    struct Shares: Encodable {
        var made: [MadeView]
        var received: [ReceivedView]
    }

    struct Unlocked: Encodable {
        var unlock: String
        var expirationDate: Date
    }

    let accounts: Accounts?
    let libraries: ServedLibraries
    private let throttle = SignInThrottle()

    init(accounts: Accounts?, libraries: ServedLibraries) {
        self.accounts = accounts
        self.libraries = libraries
    }

    static let shareAlbumOperation = APIOperation(
        "Shares an album with another user, to view or to contribute.",
        details: """
            Sharing again with the same user changes what they may do. A contributor's uploads go into the
            album; bytes the owner holds where the album does not show them are refused (409), and nothing of
            the owner's changes.
            """,
        body: .json(
            Schema.object(
                ["user": Schema.string(length: 1...64), "permission": Schema.string(["view", "contribute"])],
                required: ["user"])),
        responses: [.json(201, "The share.", Schema.ref("Share"))])

    @Sendable
    func shareAlbum(_ request: Request, _ context: LightboxRequestContext) async throws -> Response {
        let (accounts, owner) = try Self.sharer(accounts, context)
        let album = try await Self.albumToShare(context)
        let body = try await request.decode(as: ShareBody.self, context: context)
        let share = try await accounts.shareAlbum(
            album, of: owner, with: body.user, permission: body.permission ?? .view)
        var response = try LightboxServer.jsonResponse(MadeView(share, user: body.user))
        response.status = .created
        return response
    }

    static let makeLinkOperation = APIOperation(
        "Makes a link that shows an album to whoever holds it, read-only.",
        details: """
            Both fields optional. The answer's key makes the page's path, `/s/KEY`; programs send it as
            `link=KEY` or `X-Lightbox-Link`.
            """,
        body: .json(
            Schema.object(
                [
                    "password": Schema.string(length: 8...1024),
                    "expiresInDays": Schema.integer(1...AccountRoutes.maximumTokenDays),
                ], required: [])),
        responses: [.json(201, "The link, with its key.", Schema.ref("Share"))])

    @Sendable
    func makeLink(_ request: Request, _ context: LightboxRequestContext) async throws -> Response {
        let (accounts, owner) = try Self.sharer(accounts, context)
        let album = try await Self.albumToShare(context)
        let body = try await request.decode(as: LinkBody.self, context: context)
        var expires: Date?
        if let days = body.expiresInDays {
            guard (1...AccountRoutes.maximumTokenDays).contains(days) else {
                throw HTTPError(.badRequest, message: "expiresInDays must be 1...\(AccountRoutes.maximumTokenDays)")
            }
            expires = Date().addingTimeInterval(Double(days) * 86400)
        }
        let share = try await accounts.createLink(
            to: album, of: owner, password: body.password, expires: expires)
        var response = try LightboxServer.jsonResponse(MadeView(share, user: nil))
        response.status = .created
        response.headers[.cacheControl] = "no-store"
        return response
    }

    static let sharesOperation = APIOperation(
        "The albums the caller shares, and those shared with them.",
        details: """
            `made`: what the caller shares (at most 1,000 shares and links); `received`: the albums shared with
            them, each as they see it (count, key asset).
            """,
        responses: [
            .json(
                200, "The shares.",
                Schema.object(
                    [
                        "made": Schema.array(Schema.ref("Share")),
                        "received": Schema.array(Schema.ref("SharedAlbum")),
                    ], required: ["made", "received"]))
        ])

    @Sendable
    func shares(_ _: Request, _ context: LightboxRequestContext) async throws -> Response {
        let (accounts, user) = try Self.sharer(accounts, context)
        var names: [String: String] = [:]
        var made: [MadeView] = []
        for share in try await accounts.sharesMade(by: user) {
            var name: String?
            if let id = share.recipientID {
                if names[id] == nil { names[id] = try await accounts.store.user(id: id)?.name }
                name = names[id]
            }
            made.append(MadeView(share, user: name))
        }
        var received: [ReceivedView] = []
        for shared in try await accounts.sharesReceived(by: user) {
            let library = try libraries.library(for: shared).library
            let album = shared.share.albumIdentifier
            let collection = try? await library.read { try CollectionRoutes.entry(album, in: $0) }
            received.append(
                ReceivedView(
                    id: shared.share.id, owner: shared.owner.name, permission: shared.share.permission,
                    creationDate: shared.share.creationDate, collection: collection))
        }
        var response = try LightboxServer.jsonResponse(Shares(made: made, received: received))
        response.headers[.cacheControl] = "no-store"
        return response
    }

    static let endShareOperation = APIOperation(
        "Stops sharing an album, or leaves one shared with the caller.", responses: [.empty(204, "Ended.")])

    @Sendable
    func endShare(_ _: Request, _ context: LightboxRequestContext) async throws -> Response {
        let (accounts, user) = try Self.sharer(accounts, context)
        let id = try context.parameters.require("id")
        guard try await accounts.endShare(id: id, by: user) else {
            throw HTTPError(.notFound, message: "you share nothing as \(id), and nothing is shared with you so")
        }
        return Response(status: .noContent)
    }

    static let unlockLinkOperation = APIOperation(
        "Unlocks a link that has a password, for a while.",
        details: """
            For up to 7 days: a cookie for the browser, and `unlock` for programs, sent as
            `X-Lightbox-Link-Unlock`. A locked link's routes answer 401 `linkLocked`; a wrong password is 401
            and slowed as sign-ins are.
            """,
        body: .json(
            Schema.object(
                ["link": Schema.string, "password": Schema.string], required: ["link", "password"])),
        responses: [
            .json(
                200, "Unlocked: the proof, also set as a cookie.",
                Schema.object(
                    ["unlock": Schema.string, "expirationDate": Schema.date],
                    required: ["unlock", "expirationDate"]))
        ])

    @Sendable
    func unlockLink(_ request: Request, _ context: LightboxRequestContext) async throws -> Response {
        guard let accounts else { throw HTTPError(.notFound, message: "this link does not exist, or no longer") }
        let body = try await request.decode(as: UnlockBody.self, context: context)
        guard body.link.utf8.count <= 128, body.password.utf8.count <= PasswordHasher.maximumPasswordLength else {
            throw HTTPError(.badRequest, message: "a link's key has at most 128 characters, a password 1024 bytes")
        }
        let keys = ["link:" + body.link, "address:" + context.remoteAddress]
        try throttle.begin(keys, "wrong passwords")
        guard let (share, proof, expires) = try await accounts.unlockLink(key: body.link, password: body.password)
        else {
            throw HTTPError(.unauthorized, message: "wrong password, or no such link")
        }
        throttle.recordSuccess(keys)
        var response = try LightboxServer.jsonResponse(Unlocked(unlock: proof, expirationDate: expires))
        let seconds = max(1, Int(expires.timeIntervalSinceNow))
        response.headers[.setCookie] =
            "\(AccessMiddleware.linkCookieName(share))=\(proof); Path=/; Max-Age=\(seconds); HttpOnly; SameSite=Strict"
            + (context.isSecure ? "; Secure" : "")
        response.headers[.cacheControl] = "no-store"
        return response
    }

    static let linkPageOperation = APIOperation(
        "A shared album's page, for whoever holds its link.",
        responses: [.init(status: 200, description: "The page.", content: .html)])

    @Sendable
    func linkPage(_ request: Request, _ _: LightboxRequestContext) async throws -> Response {
        var response = WebPage.shared.response(to: request)
        // The key is in this page's URL: no other site is told it.
        response.headers[.init("Referrer-Policy")!] = "no-referrer"
        return response
    }

    static let sharedPageOperation = APIOperation(
        """
        An album shared with the signed-in user (the share's identifier), as its own page; the \
        sign-in page for whoever has not signed in.
        """,
        responses: [
            .init(status: 200, description: "The page.", content: .html), .empty(303, "Sign in first."),
        ])

    @Sendable
    func sharedPage(_ request: Request, _ context: LightboxRequestContext) async throws -> Response {
        WebPage.shared.response(to: request, signedIn: context)
    }

    /// The accounts and the user who shares or is shared with: 400 for a library without users,
    /// 403 for a link's holder or a request inside a shared album.
    private static func sharer(_ accounts: Accounts?, _ context: LightboxRequestContext) throws -> (
        Accounts, UserAccount
    ) {
        guard let accounts, let caller = context.caller, let user = caller.user else {
            if context.caller.map({ if case .link = $0.credential { true } else { false } }) == true {
                throw HTTPError(.forbidden, message: "a shared link shows its album, nothing else")
            }
            throw HTTPError(
                .badRequest, message: "this library has no users: `lightbox user add NAME` makes the first")
        }
        guard caller.sharedAlbum == nil, caller.limitedTo == nil else {
            throw HTTPError(.forbidden, message: "shares are managed from your own library, with full access")
        }
        return (accounts, user)
    }

    /// The album of the caller's library the route names: 404 when there is none, 400 for a
    /// smart album or a moment (an album is shared, not a query).
    private static func albumToShare(_ context: LightboxRequestContext) async throws -> String {
        let id = try context.parameters.require("id")
        let library = try context.library().library
        let entry = try await library.read { try CollectionRoutes.entry(id, in: $0) }
        guard entry.collection.assetCollectionType == .album else {
            throw HTTPError(.badRequest, message: "only an album is shared: \(id) is a smart album or a moment")
        }
        return id
    }
}
