import Foundation
import Hummingbird
import Lightbox

/// Signing in, sessions, tokens and users over HTTP. Each route's contract is its
/// `APIOperation` (docs/API.md).
struct AccountRoutes: Sendable {
    struct SignInBody: Decodable {
        var name: String
        var password: String
    }

    struct TokenBody: Decodable {
        var name: String
        var scope: AccessToken.Scope
        var expiresInDays: Int?
        /// Assets and albums of the user's library: the token sees those alone.
        var limitedTo: [String]?
    }

    struct PasswordChangeBody: Decodable {
        var currentPassword: String
        var newPassword: String
    }

    struct PasswordBody: Decodable {
        var password: String
    }

    struct UserBody: Decodable {
        var name: String
        var password: String
        var role: UserAccount.Role?
    }

    struct UserView: Encodable {
        var id: String
        var name: String
        var role: UserAccount.Role
        var creationDate: Date

        init(_ user: UserAccount) {
            (id, name, role, creationDate) = (user.id, user.name, user.role, user.creationDate)
        }
    }

    struct SessionView: Encodable {
        var id: String
        var creationDate: Date
        var lastSeenDate: Date
        var expirationDate: Date
        var userAgent: String
        var address: String
        var current: Bool
    }

    struct TokenView: Encodable {
        var id: String
        var name: String
        var scope: AccessToken.Scope
        var limitedTo: [String]?
        var creationDate: Date
        var expirationDate: Date?
        var lastUsedDate: Date?
        /// The secret, in the answer that made the token only.
        var secret: String?

        init(_ token: AccessToken, secret: String? = nil) {
            (id, name, scope, limitedTo) = (token.id, token.name, token.scope, token.limitedTo)
            (creationDate, expirationDate, lastUsedDate) = (
                token.creationDate, token.expirationDate, token.lastUsedDate
            )
            self.secret = secret
        }
    }

    /// PhotoKit's authorization status and access level.
    struct Authorization: Encodable {
        var status: String
        var accessLevel: String?
        var user: UserView?
        /// `session`, `token` or `local` (a library without users, on loopback).
        var credential: String?
        var expirationDate: Date?
        var limitedTo: [String]?
        /// The album shared with the caller that the request reached (a link, or `?share=`).
        var sharedAlbum: SharedAlbumView?
    }

    /// A shared album as its audience sees the share.
    struct SharedAlbumView: Encodable {
        var share: String
        var album: String
        var owner: String
        var permission: AlbumShare.Permission
    }

    /// The longest a token may be made to last, in days.
    static let maximumTokenDays = 3650

    let accounts: Accounts?
    let policy: AccessPolicy
    private let throttle = SignInThrottle()

    init(accounts: Accounts?, policy: AccessPolicy) {
        self.accounts = accounts
        self.policy = policy
    }

    static let signInPageOperation = APIOperation(
        "The sign-in page.", responses: [.init(status: 200, description: "The page.", content: .html)])

    @Sendable
    func signInPage(_ request: Request, _ _: LightboxRequestContext) async throws -> Response {
        WebPage.signIn.response(to: request)
    }

    static let signInOperation = APIOperation(
        "Signs in: sets the session cookie.",
        details: """
            The session cookie is HttpOnly and SameSite=Strict, Secure behind a TLS proxy (`--trust-proxy`,
            which also takes the client's address from `X-Forwarded-For`). 401 for a wrong name or password; 429
            with `Retry-After` while the name or the address must wait.
            """,
        body: .json(
            Schema.object(["name": Schema.string, "password": Schema.string], required: ["name", "password"])),
        responses: [.json(200, "Signed in.", Schema.ref("Authorization"))])

    @Sendable
    func signIn(_ request: Request, _ context: LightboxRequestContext) async throws -> Response {
        guard let accounts else {
            throw HTTPError(.notFound, message: "this server has no accounts to sign in to")
        }
        let body = try await request.decode(as: SignInBody.self, context: context)
        // Bounded before anything is kept: a name becomes a throttle key, remembered.
        guard body.name.utf8.count <= 256, body.password.utf8.count <= PasswordHasher.maximumPasswordLength else {
            throw HTTPError(.badRequest, message: "a name has at most 64 characters, a password 1024 bytes")
        }
        let keys = ["name:" + body.name.lowercased(), "address:" + context.remoteAddress]
        try throttle.begin(keys, "failed sign-ins")
        guard let user = try await accounts.verify(name: body.name, password: body.password)
        else {
            throw HTTPError(.unauthorized, message: "wrong name or password")
        }
        throttle.recordSuccess(keys)
        let (session, secret) = try await accounts.startSession(
            for: user, userAgent: request.headers[.userAgent] ?? "", address: context.remoteAddress)
        var response = try LightboxServer.jsonResponse(
            Authorization(
                status: "authorized", accessLevel: "readWrite", user: UserView(user), credential: "session",
                expirationDate: session.expirationDate))
        response.headers[.setCookie] = AccessMiddleware.sessionCookie(secret, secure: context.isSecure)
        response.headers[.cacheControl] = "no-store"
        return response
    }

    static let signOutOperation = APIOperation("Signs out.", responses: [.empty(204, "Signed out.")])

    @Sendable
    func signOut(_ _: Request, _ context: LightboxRequestContext) async throws -> Response {
        if let accounts, let user = context.caller?.user, let id = context.caller?.sessionID {
            _ = try await accounts.endSession(id: id, of: user)
        }
        var response = Response(status: .noContent)
        response.headers[.setCookie] = AccessMiddleware.clearedCookie
        return response
    }

    static let changePasswordOperation = APIOperation(
        "Changes the signed-in user's password: their other sessions end, this one goes on.",
        details: """
            403 for a wrong current password, throttled as a sign-in. The user's other sessions end; tokens go
            on.
            """,
        body: .json(
            Schema.object(
                [
                    "currentPassword": Schema.string,
                    "newPassword": Schema.string(
                        length: PasswordHasher.minimumPasswordLength...PasswordHasher.maximumPasswordLength),
                ], required: ["currentPassword", "newPassword"])),
        responses: [.empty(204, "Changed; a session's cookie is set anew.")])

    @Sendable
    func changePassword(_ request: Request, _ context: LightboxRequestContext) async throws -> Response {
        let (accounts, user) = try Self.signedIn(accounts, context)
        let body = try await request.decode(as: PasswordChangeBody.self, context: context)
        guard body.currentPassword.utf8.count <= PasswordHasher.maximumPasswordLength else {
            throw HTTPError(.badRequest, message: "a password has at most 1024 bytes")
        }
        // The current password is guessed like a sign-in's: a stolen session must not
        // find it (and lock the owner out) at the hasher's speed.
        let keys = ["name:" + user.name.lowercased(), "address:" + context.remoteAddress]
        try throttle.begin(keys, "wrong passwords")
        guard try await accounts.verify(name: user.name, password: body.currentPassword) != nil else {
            throw HTTPError(.forbidden, message: "the current password is wrong")
        }
        throttle.recordSuccess(keys)
        try await accounts.setPassword(name: user.name, password: body.newPassword)
        var response = Response(status: .noContent)
        response.headers[.cacheControl] = "no-store"
        if case .session = context.caller?.credential {
            let (_, secret) = try await accounts.startSession(
                for: user, userAgent: request.headers[.userAgent] ?? "", address: context.remoteAddress)
            response.headers[.setCookie] = AccessMiddleware.sessionCookie(secret, secure: context.isSecure)
        }
        return response
    }

    static let authorizationOperation = APIOperation(
        "What the caller may do, in PhotoKit's words.",
        details: """
            `status` is `notDetermined` (no credential), `authorized` or `limited`; `accessLevel` `readWrite` or
            `read`; with the user and the credential.
            """,
        responses: [.json(200, "The authorization.", Schema.ref("Authorization"))])

    @Sendable
    func authorization(_ _: Request, _ context: LightboxRequestContext) async throws -> Response {
        guard let caller = context.caller else {
            return try LightboxServer.jsonResponse(Authorization(status: "notDetermined"))
        }
        var answer = Authorization(
            status: caller.limitedTo == nil && caller.sharedAlbum == nil ? "authorized" : "limited",
            accessLevel: caller.canWrite ? "readWrite" : "read", user: caller.user.map(UserView.init))
        if let shared = caller.sharedAlbum {
            answer.sharedAlbum = SharedAlbumView(
                share: shared.share.id, album: shared.share.albumIdentifier, owner: shared.owner.name,
                permission: shared.share.permission)
        }
        switch caller.credential {
        case .local: answer.credential = "local"
        case .session(let session):
            answer.credential = "session"
            answer.expirationDate = session.expirationDate
        case .token(let token):
            answer.credential = "token"
            answer.expirationDate = token.expirationDate
            answer.limitedTo = token.limitedTo
        case .link(let share):
            answer.credential = "link"
            answer.expirationDate = share.expirationDate
        }
        return try LightboxServer.jsonResponse(answer)
    }

    static let sessionsOperation = APIOperation(
        "The signed-in user's sessions.",
        details: "Each with its browser, address, when last seen, and which is this one.",
        responses: [
            .json(
                200, "The sessions.",
                Schema.object(["sessions": Schema.array(Schema.ref("Session"))], required: ["sessions"]))
        ])

    @Sendable
    func sessions(_ _: Request, _ context: LightboxRequestContext) async throws -> Response {
        let (accounts, user) = try Self.signedIn(accounts, context)
        let current = context.caller?.sessionID
        let sessions = try await accounts.sessions(of: user).map {
            SessionView(
                id: $0.id, creationDate: $0.creationDate, lastSeenDate: $0.lastSeenDate,
                expirationDate: $0.expirationDate, userAgent: $0.userAgent, address: $0.address,
                current: $0.id == current)
        }
        return try LightboxServer.jsonResponse(["sessions": sessions])
    }

    static let endSessionOperation = APIOperation(
        "Ends one of the user's sessions.", responses: [.empty(204, "Ended.")])

    @Sendable
    func endSession(_ _: Request, _ context: LightboxRequestContext) async throws -> Response {
        let (accounts, user) = try Self.signedIn(accounts, context)
        let id = try context.parameters.require("id")
        guard try await accounts.endSession(id: id, of: user) else {
            throw HTTPError(.notFound, message: "you have no session \(id)")
        }
        return Response(status: .noContent)
    }

    static let tokensOperation = APIOperation(
        "The user's tokens, without their secrets.",
        responses: [
            .json(
                200, "The tokens.",
                Schema.object(["tokens": Schema.array(Schema.ref("Token"))], required: ["tokens"]))
        ])

    @Sendable
    func tokens(_ _: Request, _ context: LightboxRequestContext) async throws -> Response {
        let (accounts, user) = try Self.signedIn(accounts, context)
        return try LightboxServer.jsonResponse(["tokens": try await accounts.tokens(of: user).map { TokenView($0) }]
        )
    }

    static let makeTokenOperation = APIOperation(
        "Makes a token; its secret is in this answer only.",
        details: """
            A person signed in makes tokens, never a token. `scope` `read` fetches and sees images, `write`
            changes the library too; `limitedTo` (album or asset identifiers) makes a limited token that sees
            those assets alone.
            """,
        body: .json(
            Schema.object(
                [
                    "name": Schema.string(length: 1...100), "scope": Schema.string(["read", "write"]),
                    "expiresInDays": Schema.integer(1...maximumTokenDays),
                    "limitedTo": Schema.array(Schema.string, count: 1...LimitedSelection.maximumIdentifiers),
                ], required: ["name", "scope"])),
        responses: [.json(201, "The token, with its secret.", Schema.ref("Token"))])

    @Sendable
    func makeToken(_ request: Request, _ context: LightboxRequestContext) async throws -> Response {
        let (accounts, user) = try Self.signedIn(accounts, context)
        let body = try await request.decode(as: TokenBody.self, context: context)
        var expires: Date?
        if let days = body.expiresInDays {
            guard (1...Self.maximumTokenDays).contains(days) else {
                throw HTTPError(.badRequest, message: "expiresInDays must be 1...\(Self.maximumTokenDays)")
            }
            expires = Date().addingTimeInterval(Double(days) * 86400)
        }
        if let limitedTo = body.limitedTo {
            try await Self.checkSelection(limitedTo, in: try context.library().library)
        }
        let (token, secret) = try await accounts.createToken(
            for: user, name: body.name, scope: body.scope, limitedTo: body.limitedTo, expires: expires)
        var response = try LightboxServer.jsonResponse(TokenView(token, secret: secret))
        response.status = .created
        response.headers[.cacheControl] = "no-store"
        return response
    }

    static let revokeTokenOperation = APIOperation("Revokes a token.", responses: [.empty(204, "Revoked.")])

    @Sendable
    func revokeToken(_ _: Request, _ context: LightboxRequestContext) async throws -> Response {
        let (accounts, user) = try Self.signedIn(accounts, context)
        let id = try context.parameters.require("id")
        guard try await accounts.revokeToken(id: id, of: user) else {
            throw HTTPError(.notFound, message: "you have no token \(id)")
        }
        return Response(status: .noContent)
    }

    static let usersOperation = APIOperation(
        "The users (admins only).",
        responses: [
            .json(
                200, "The users.",
                Schema.object(["users": Schema.array(Schema.ref("User"))], required: ["users"]))
        ])

    @Sendable
    func users(_ _: Request, _ _: LightboxRequestContext) async throws -> Response {
        guard let accounts else { return try LightboxServer.jsonResponse(["users": [UserView]()]) }
        return try LightboxServer.jsonResponse(["users": try await accounts.users().map(UserView.init)])
    }

    static let addUserOperation = APIOperation(
        "Adds a user (admins only).",
        body: .json(
            Schema.object(
                [
                    "name": Schema.string(length: 1...64), "password": Schema.string(length: 8...1024),
                    "role": Schema.string(["admin", "member"]),
                ],
                required: ["name", "password"])),
        responses: [.json(201, "The user.", Schema.ref("User"))])

    @Sendable
    func addUser(_ request: Request, _ context: LightboxRequestContext) async throws -> Response {
        guard let accounts else { throw HTTPError(.notFound, message: "this server has no accounts") }
        let body = try await request.decode(as: UserBody.self, context: context)
        var response = try LightboxServer.jsonResponse(
            UserView(try await accounts.addUser(name: body.name, password: body.password, role: body.role)))
        response.status = .created
        return response
    }

    static let resetPasswordOperation = APIOperation(
        "Sets a user's password (admins only); it signs them out everywhere.",
        body: .json(
            Schema.object(
                [
                    "password": Schema.string(
                        length: PasswordHasher.minimumPasswordLength...PasswordHasher.maximumPasswordLength)
                ], required: ["password"])),
        responses: [.empty(204, "Set.")])

    @Sendable
    func resetPassword(_ request: Request, _ context: LightboxRequestContext) async throws -> Response {
        guard let accounts else { throw HTTPError(.notFound, message: "this server has no accounts") }
        let name = try context.parameters.require("name")
        let body = try await request.decode(as: PasswordBody.self, context: context)
        guard try await accounts.user(named: name) != nil else {
            throw HTTPError(.notFound, message: "no user is called \(name)")
        }
        try await accounts.setPassword(name: name, password: body.password)
        return Response(status: .noContent)
    }

    static let removeUserOperation = APIOperation(
        "Removes a user (admins only); their library's folder stays.", responses: [.empty(204, "Removed.")])

    @Sendable
    func removeUser(_ _: Request, _ context: LightboxRequestContext) async throws -> Response {
        guard let accounts else { throw HTTPError(.notFound, message: "this server has no accounts") }
        let name = try context.parameters.require("name")
        guard try await accounts.user(named: name) != nil else {
            throw HTTPError(.notFound, message: "no user is called \(name)")
        }
        if name.lowercased() == context.caller?.user?.name.lowercased() {
            throw HTTPError(.badRequest, message: "you cannot remove yourself")
        }
        _ = try await accounts.removeUser(name: name)
        return Response(status: .noContent)
    }

    /// Refuses a selection naming anything the library does not hold: a token must not be
    /// able to name (and later see) what is not its owner's.
    static func checkSelection(_ identifiers: [String], in library: PhotoLibrary) async throws {
        guard (1...LimitedSelection.maximumIdentifiers).contains(identifiers.count) else {
            throw HTTPError(
                .badRequest, message: "limitedTo names 1 to \(LimitedSelection.maximumIdentifiers) assets or albums")
        }
        let unknown = try await library.read { library -> [String] in
            let albums = try library.albumIdentifiers(among: identifiers)
            return try identifiers.filter { identifier in
                guard !albums.contains(identifier) else { return false }
                return try library.asset(withLocalIdentifier: identifier) == nil
            }
        }
        guard unknown.isEmpty else {
            throw HTTPError(
                .badRequest,
                message: "limitedTo names what the library does not hold: \(unknown.prefix(5).joined(separator: ", "))")
        }
    }

    /// The accounts and the signed-in user; 400 for the local owner of a library without users.
    private static func signedIn(_ accounts: Accounts?, _ context: LightboxRequestContext) throws -> (
        Accounts, UserAccount
    ) {
        guard let accounts, let user = context.caller?.user else {
            throw HTTPError(
                .badRequest, message: "this library has no users: `lightbox user add NAME` makes the first")
        }
        return (accounts, user)
    }
}
