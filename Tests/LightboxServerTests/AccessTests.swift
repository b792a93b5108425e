import Foundation
import Hummingbird
import HummingbirdTesting
import Lightbox
import LightboxTestSupport
import Testing

@testable import LightboxServer

/// Who may reach the server and what they may do: users, sessions, tokens, and the defences
/// every request passes (Host, Origin, body type).
@Suite("Access: users, sessions, tokens")
struct AccessTests {
    /// A cheap cost: the tests hash many passwords; the cost is read back from each hash.
    static let hasher = PasswordHasher(logRounds: 10)
    static let json: HTTPFields = [.contentType: "application/json"]

    /// A library with two photos, its accounts with the admin `ann` (owner of the library) and
    /// the member `bob`, and the app over them.
    static func makeServer(policy: AccessPolicy = AccessPolicy()) async throws -> (
        TemporaryDirectory, PhotoLibrary, Accounts, some ApplicationProtocol
    ) {
        let folder = try TemporaryDirectory()
        let library = try folder.makeLibrary()
        let paths = Array(try Corpus.photoPaths().prefix(2))
        let summary = await library.importItems(at: paths.map { URL(fileURLWithPath: $0) })
        try #require(summary.progress.imported == 2)
        let accounts = try Accounts(library: library, hasher: hasher)
        _ = try await accounts.addUser(name: "ann", password: "ann's password")
        _ = try await accounts.addUser(name: "bob", password: "bob's password")
        let app = Application(router: LightboxServer.router(library: library, accounts: accounts, policy: policy))
        return (folder, library, accounts, app)
    }

    static func body(_ response: TestResponse) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any])
    }

    static func errorCode(_ response: TestResponse) -> String? {
        ((try? body(response))?["error"] as? [String: Any])?["code"] as? String
    }

    /// Signs in and answers the session cookie's `name=value`.
    static func signIn(_ client: some TestClientProtocol, _ name: String, _ password: String) async throws -> String {
        try await client.execute(
            uri: "/api/session", method: .post, headers: json,
            body: ByteBuffer(string: #"{"name": "\#(name)", "password": "\#(password)"}"#)
        ) { response in
            try #require(response.status == .ok)
            let cookie = try #require(response.headers[.setCookie])
            return String(cookie.prefix { $0 != ";" })
        }
    }

    @Test("The first user owns the library and is an admin; names are unique without case; passwords checked")
    func users() async throws {
        let folder = try TemporaryDirectory()
        let library = try folder.makeLibrary()
        let accounts = try Accounts(library: library, hasher: Self.hasher)
        #expect(try await !accounts.hasUsers())
        let ann = try await accounts.addUser(name: "Ann", password: "a long password")
        #expect(ann.role == .admin && ann.libraryFolder.isEmpty)
        let bob = try await accounts.addUser(name: "bob", password: "another password")
        #expect(bob.role == .member && bob.libraryFolder == "users/" + bob.id)
        await #expect(throws: LibraryError.self) { try await accounts.addUser(name: "ANN", password: "whatever123") }
        await #expect(throws: LibraryError.self) { try await accounts.addUser(name: "carl", password: "short") }
        await #expect(throws: LibraryError.self) { try await accounts.addUser(name: "-x", password: "long enough") }
        #expect(ann.passwordHash.hasPrefix("$scrypt$ln=10,r=8,p=1$") && !ann.passwordHash.contains("a long password"))
        #expect(try await accounts.verify(name: "ann", password: "a long password")?.id == ann.id)
        #expect(try await accounts.verify(name: "ann", password: "a long passwore") == nil)
        #expect(try await accounts.verify(name: "nobody", password: "a long password") == nil)
        // The last admin stays while others remain; a member goes.
        await #expect(throws: LibraryError.self) { try await accounts.removeUser(name: "ann") }
        #expect(try await accounts.removeUser(name: "bob").id == bob.id)
        #expect(try await accounts.users().map(\.name) == ["Ann"])
        // A new password ends the sessions.
        let (session, secret) = try await accounts.startSession(for: ann, userAgent: "test", address: "127.0.0.1")
        #expect(try await accounts.caller(sessionSecret: secret)?.sessionID == session.id)
        try await accounts.setPassword(name: "ann", password: "a new long password")
        #expect(try await accounts.caller(sessionSecret: secret) == nil)
        #expect(try await accounts.verify(name: "ann", password: "a new long password") != nil)
    }

    @Test("Password hashes are scrypt as Python's hashlib computes it; malformed hashes never match")
    func passwordHashes() throws {
        let stored = try PasswordHasher(logRounds: 12).hash("correct horse battery staple")
        #expect(PasswordHasher.verify("correct horse battery staple", against: stored))
        #expect(!PasswordHasher.verify("correct horse battery stapler", against: stored))
        // The oracle: CPython's hashlib.scrypt (OpenSSL's) of the same password and salt.
        let fields = stored.split(separator: "$")
        let script = """
            import base64, hashlib, sys
            pad = lambda s: s + '=' * (-len(s) % 4)
            salt = base64.b64decode(pad(sys.argv[1]))
            key = hashlib.scrypt(b'correct horse battery staple', salt=salt, n=2**12, r=8, p=1, dklen=32)
            print(base64.b64encode(key).decode().rstrip('='))
            """
        #expect(try Python.output(script, [String(fields[2])]) == String(fields[3]))
        for bad in [
            "", "$scrypt$", "$bcrypt$ln=10,r=8,p=1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
            "$scrypt$ln=99,r=8,p=1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
            "$scrypt$ln=10,r=999999,p=1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
            // 4 GiB of scrypt: within each parameter's range, past the memory bound together.
            "$scrypt$ln=20,r=32,p=1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
            "$scrypt$ln=10,r=8,p=1$!!$AAAA", "$scrypt$ln=x$A$A",
        ] {
            #expect(!PasswordHasher.verify("anything", against: bad), "\(bad)")
        }
    }

    @Test("Without credentials only the sign-in page and its call answer; a session opens the library")
    func signingIn() async throws {
        let (folder, library, _, app) = try await Self.makeServer()
        defer { withExtendedLifetime(folder) {} }
        try await app.test(.router) { client in
            for (uri, method) in [
                ("/api/assets", HTTPRequest.Method.get), ("/api/collections", .get), ("/api/changes?since=0", .get),
                ("/api/trash", .get), ("/api/capture/devices", .get), ("/api/sessions", .get), ("/api/tokens", .get),
                ("/api/users", .get), ("/api/trash", .delete),
            ] {
                try await client.execute(uri: uri, method: method) { response in
                    #expect(response.status == .unauthorized, "\(method) \(uri)")
                    #expect(Self.errorCode(response) == "unauthorized", "\(uri)")
                    #expect(response.headers[.wwwAuthenticate]?.hasPrefix("Bearer") == true)
                }
            }
            let id = try #require(try await library.assets(limit: 1).first?.localIdentifier)
            try await client.execute(uri: "/api/assets/\(id)/image?w=64", method: .get) { response in
                #expect(response.status == .unauthorized)
            }
            try await client.execute(uri: "/", method: .get) { response in
                #expect(response.status == .seeOther)
                #expect(response.headers[.location] == "/signin")
            }
            try await client.execute(uri: "/signin", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentSecurityPolicy]?.contains("frame-ancestors 'none'") == true)
                #expect(response.headers[.xContentTypeOptions] == "nosniff")
            }
            try await client.execute(uri: "/api/authorization", method: .get) { response throws in
                #expect(try Self.body(response)["status"] as? String == "notDetermined")
            }
            try await client.execute(
                uri: "/api/session", method: .post, headers: Self.json,
                body: ByteBuffer(string: #"{"name": "ann", "password": "wrong password"}"#)
            ) { response in
                #expect(response.status == .unauthorized)
                #expect(response.headers[.setCookie] == nil)
            }
            // The cookie is HttpOnly and SameSite=Strict, not Secure over plain HTTP.
            try await client.execute(
                uri: "/api/session", method: .post, headers: Self.json,
                body: ByteBuffer(string: #"{"name": "ANN", "password": "ann's password"}"#)
            ) { response in
                #expect(response.status == .ok)
                let cookie = try #require(response.headers[.setCookie])
                #expect(cookie.hasPrefix("lightbox_session=") && cookie.contains("HttpOnly"))
                #expect(cookie.contains("SameSite=Strict") && !cookie.contains("Secure"))
            }
            let cookie = try await Self.signIn(client, "ann", "ann's password")
            try await client.execute(uri: "/api/assets", method: .get, headers: [.cookie: cookie]) { response throws in
                #expect(response.status == .ok)
                #expect((try Self.body(response)["assets"] as? [Any])?.count == 2)
            }
            try await client.execute(uri: "/", method: .get, headers: [.cookie: cookie]) { response in
                #expect(response.status == .ok)
            }
            try await client.execute(uri: "/api/authorization", method: .get, headers: [.cookie: cookie]) { response in
                let body = try Self.body(response)
                #expect(body["status"] as? String == "authorized" && body["accessLevel"] as? String == "readWrite")
                #expect((body["user"] as? [String: Any])?["name"] as? String == "ann")
                #expect(body["credential"] as? String == "session")
            }
            // Two sessions listed, the other one revoked, this one signed out.
            var other = ""
            try await client.execute(uri: "/api/sessions", method: .get, headers: [.cookie: cookie]) { response in
                let sessions = try #require(try Self.body(response)["sessions"] as? [[String: Any]])
                #expect(sessions.count == 2)
                #expect(sessions.filter { $0["current"] as? Bool == true }.count == 1)
                other = try #require(sessions.first { $0["current"] as? Bool == false }?["id"] as? String)
            }
            try await client.execute(uri: "/api/sessions/\(other)", method: .delete, headers: [.cookie: cookie]) {
                #expect($0.status == .noContent)
            }
            try await client.execute(uri: "/api/sessions/\(other)", method: .delete, headers: [.cookie: cookie]) {
                #expect($0.status == .notFound)
            }
            try await client.execute(uri: "/api/session", method: .delete, headers: [.cookie: cookie]) { response in
                #expect(response.status == .noContent)
                #expect(response.headers[.setCookie]?.contains("Max-Age=0") == true)
            }
            try await client.execute(uri: "/api/assets", method: .get, headers: [.cookie: cookie]) { response in
                #expect(response.status == .unauthorized)
            }
        }
    }

    @Test("Behind a trusted proxy: Secure cookies over TLS, the client's own address; untrusted, neither")
    func proxy() async throws {
        for trusted in [true, false] {
            var policy = AccessPolicy()
            policy.trustProxy = trusted
            let (folder, _, _, app) = try await Self.makeServer(policy: policy)
            defer { withExtendedLifetime(folder) {} }
            try await app.test(.router) { client in
                let forwarded: HTTPFields = [
                    .contentType: "application/json", HTTPFields.headerName("X-Forwarded-Proto"): "https",
                    HTTPFields.headerName("X-Forwarded-For"): "203.0.113.9, 198.51.100.7",
                ]
                let cookie = try await client.execute(
                    uri: "/api/session", method: .post, headers: forwarded,
                    body: ByteBuffer(string: #"{"name": "ann", "password": "ann's password"}"#)
                ) { response in
                    #expect(response.status == .ok)
                    let cookie = response.headers[.setCookie] ?? ""
                    #expect(cookie.contains("; Secure") == trusted)
                    return String(cookie.prefix { $0 != ";" })
                }
                try await client.execute(uri: "/api/sessions", method: .get, headers: [.cookie: cookie]) {
                    response throws in
                    let sessions = try #require(try Self.body(response)["sessions"] as? [[String: Any]])
                    #expect((sessions.first?["address"] as? String == "198.51.100.7") == trusted)
                }
            }
        }
    }

    @Test("Failed sign-ins are slowed per account and per address: 429 with Retry-After, even for the password")
    func throttling() async throws {
        let (folder, _, _, app) = try await Self.makeServer()
        defer { withExtendedLifetime(folder) {} }
        try await app.test(.router) { client in
            // When the last failure was sent: the server records it as the request begins (before
            // the password's hash, which a loaded machine once took 1.2 s over), never sooner.
            var lastFailure = Date()
            for _ in 0..<SignInThrottle.freeFailures {
                lastFailure = Date()
                try await client.execute(
                    uri: "/api/session", method: .post, headers: Self.json,
                    body: ByteBuffer(string: #"{"name": "bob", "password": "guess guess"}"#)
                ) { #expect($0.status == .unauthorized) }
            }
            try await client.execute(
                uri: "/api/session", method: .post, headers: Self.json,
                body: ByteBuffer(string: #"{"name": "bob", "password": "bob's password"}"#)
            ) { response in
                // The first wait is 2 s from the last failure: a machine so loaded that the request
                // came later (a CI run's PostgreSQL pass) may sign in; any sooner, it must not.
                if response.status == .ok {
                    #expect(Date().timeIntervalSince(lastFailure) >= 2, "signed in within the wait")
                } else {
                    #expect(response.status == .tooManyRequests)
                    #expect(Int(response.headers[.retryAfter] ?? "") ?? 0 >= 1)
                }
            }
        }
        // A name of megabytes is refused before it becomes a throttle key; the account is untouched.
        try await app.test(.router) { client in
            let huge = String(repeating: "a", count: 1 << 20)
            try await client.execute(
                uri: "/api/session", method: .post, headers: Self.json,
                body: ByteBuffer(string: #"{"name": "\#(huge)", "password": "x"}"#)
            ) { #expect($0.status == .badRequest) }
        }
        // The schedule itself: free failures, then doubling waits, forgotten after quiet.
        let throttle = SignInThrottle()
        let start = Date()
        for _ in 0..<5 { throttle.recordFailure(["k"], now: start) }
        #expect(throttle.wait(for: ["k"], now: start).map { $0 > 1.9 && $0 <= 2 } == true)
        #expect(throttle.wait(for: ["k"], now: start.addingTimeInterval(2.5)) == nil)
        throttle.recordFailure(["k"], now: start.addingTimeInterval(3))
        #expect(throttle.wait(for: ["k"], now: start.addingTimeInterval(3)).map { $0 > 3.9 && $0 <= 4 } == true)
        #expect(throttle.wait(for: ["other"], now: start) == nil)
        throttle.recordSuccess(["k"])
        #expect(throttle.wait(for: ["k"], now: start.addingTimeInterval(3)) == nil)
    }

    @Test("Wrong passwords sent all at once are heard five at a time: the rest wait, sign-in and link alike")
    func throttlingAtOnce() async throws {
        let (folder, _, _, app) = try await Self.makeServer()
        defer { withExtendedLifetime(folder) {} }
        try await app.test(.router) { client in
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for _ in 0..<20 {
                    group.addTask {
                        try await client.execute(
                            uri: "/api/session", method: .post, headers: Self.json,
                            body: ByteBuffer(string: #"{"name": "bob", "password": "guess guess"}"#)
                        ) { $0.status }
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            // Sent together, but on a loaded machine they may arrive over seconds, and one that
            // comes after its wait is heard: before the mend, all twenty were.
            let heard = statuses.filter { $0 == .unauthorized }.count
            let refused = statuses.filter { $0 == .tooManyRequests }.count
            #expect(heard + refused == 20, "\(statuses)")
            #expect(heard >= SignInThrottle.freeFailures && refused > 0, "\(statuses)")
        }
        // The throttle itself: an attempt counts from the moment it is let through.
        let throttle = SignInThrottle()
        var heard = 0
        for _ in 0..<20 where (try? throttle.begin(["k"], "guesses")) != nil { heard += 1 }
        #expect(heard == SignInThrottle.freeFailures)
        throttle.recordSuccess(["k"])
        #expect((try? throttle.begin(["k"], "guesses")) != nil, "a success forgets the failures")
    }

    @Test("A password changed by its owner ends their other sessions, not this one; an admin sets a member's")
    func passwordChange() async throws {
        let (folder, _, accounts, app) = try await Self.makeServer()
        defer { withExtendedLifetime(folder) {} }
        let bob = try #require(try await accounts.user(named: "bob"))
        let (_, token) = try await accounts.createToken(for: bob, name: "script", scope: .read)
        try await app.test(.router) { client in
            let here = try await Self.signIn(client, "bob", "bob's password")
            let elsewhere = try await Self.signIn(client, "bob", "bob's password")
            func change(_ cookie: String, _ body: String) async throws -> TestResponse {
                try await client.execute(
                    uri: "/api/password", method: .put, headers: [.cookie: cookie, .contentType: "application/json"],
                    body: ByteBuffer(string: body)
                ) { $0 }
            }
            func status(_ headers: HTTPFields) async throws -> HTTPResponse.Status {
                try await client.execute(uri: "/api/assets", method: .get, headers: headers) { $0.status }
            }
            // A wrong current password: refused, nothing changes.
            let wrong = try await change(here, #"{"currentPassword": "a guess", "newPassword": "bob's new password"}"#)
            #expect(wrong.status == .forbidden)
            #expect(try await status([.cookie: elsewhere]) == .ok)
            // Too short a new one: refused with the rule.
            let short = try await change(here, #"{"currentPassword": "bob's password", "newPassword": "short"}"#)
            #expect(short.status == .badRequest)
            #expect(String(buffer: short.body).contains("at least"))
            // A token never changes a password.
            let byToken = try await client.execute(
                uri: "/api/password", method: .put,
                headers: [.authorization: "Bearer " + token, .contentType: "application/json"],
                body: ByteBuffer(string: #"{"currentPassword": "bob's password", "newPassword": "by a token!"}"#)
            ) { $0.status }
            #expect(byToken == .forbidden)
            let changed = try await change(
                here, #"{"currentPassword": "bob's password", "newPassword": "bob's new password"}"#)
            #expect(changed.status == .noContent)
            let renewed = String(try #require(changed.headers[.setCookie]).prefix { $0 != ";" })
            #expect(renewed != here)
            #expect(try await status([.cookie: elsewhere]) == .unauthorized)
            #expect(try await status([.cookie: here]) == .unauthorized)
            #expect(try await status([.cookie: renewed]) == .ok)
            #expect(try await status([.authorization: "Bearer " + token]) == .ok, "tokens go on")
            #expect(try await accounts.verify(name: "bob", password: "bob's new password") != nil)
            #expect(try await accounts.verify(name: "bob", password: "bob's password") == nil)

            // An admin sets a member's password, which signs the member out; a member may not.
            let ann = try await Self.signIn(client, "ann", "ann's password")
            let byMember = try await client.execute(
                uri: "/api/users/ann/password", method: .put,
                headers: [.cookie: renewed, .contentType: "application/json"],
                body: ByteBuffer(string: #"{"password": "taken over"}"#)
            ) { $0.status }
            #expect(byMember == .forbidden)
            let byAdmin = try await client.execute(
                uri: "/api/users/bob/password", method: .put,
                headers: [.cookie: ann, .contentType: "application/json"],
                body: ByteBuffer(string: #"{"password": "set by ann"}"#)
            ) { $0.status }
            #expect(byAdmin == .noContent)
            #expect(try await status([.cookie: renewed]) == .unauthorized)
            #expect(try await accounts.verify(name: "bob", password: "set by ann") != nil)
            let nobody = try await client.execute(
                uri: "/api/users/nobody/password", method: .put,
                headers: [.cookie: ann, .contentType: "application/json"],
                body: ByteBuffer(string: #"{"password": "set by ann"}"#)
            ) { $0.status }
            #expect(nobody == .notFound)
        }
    }

    @Test("A read token reads and cannot change; a write token changes; neither manages tokens; revoked is 401")
    func tokens() async throws {
        let (folder, library, accounts, app) = try await Self.makeServer()
        defer { withExtendedLifetime(folder) {} }
        let ann = try #require(try await accounts.user(named: "ann"))
        let (_, reader) = try await accounts.createToken(for: ann, name: "viewer", scope: .read)
        let (writerToken, writer) = try await accounts.createToken(for: ann, name: "backup", scope: .write)
        #expect(reader.hasPrefix("lbx_") && reader.count > 40)
        let ids = try await library.assets().map(\.localIdentifier)
        try await app.test(.router) { client in
            let read: HTTPFields = [.authorization: "Bearer " + reader]
            let write: HTTPFields = [.authorization: "Bearer " + writer]
            try await client.execute(uri: "/api/assets", method: .get, headers: read) { #expect($0.status == .ok) }
            try await client.execute(uri: "/api/assets/\(ids[0])/image?w=64", method: .get, headers: read) {
                #expect($0.status == .ok, "\(String(buffer: $0.body))")
            }
            try await client.execute(uri: "/api/authorization", method: .get, headers: read) { response in
                let body = try Self.body(response)
                #expect(body["accessLevel"] as? String == "read" && body["credential"] as? String == "token")
            }
            try await client.execute(uri: "/api/assets/\(ids[0])", method: .delete, headers: read) { response in
                #expect(response.status == .forbidden)
                #expect(Self.errorCode(response) == "forbidden")
            }
            try await client.execute(uri: "/api/tokens", method: .get, headers: write) {
                #expect($0.status == .forbidden)
            }
            try await client.execute(uri: "/api/assets/\(ids[0])", method: .delete, headers: write) {
                #expect($0.status == .ok)
            }
            #expect(try await library.assetCount() == 1)
            try await client.execute(uri: "/api/assets", method: .get, headers: [.authorization: "Bearer lbx_nothing"])
            {
                response in
                #expect(response.status == .unauthorized)
                #expect(response.headers[.wwwAuthenticate]?.contains("invalid_token") == true)
            }
            // Listed for its owner through a session, secrets never; revoked, it stops at once.
            let cookie = try await Self.signIn(client, "ann", "ann's password")
            try await client.execute(uri: "/api/tokens", method: .get, headers: [.cookie: cookie]) { response in
                let tokens = try #require(try Self.body(response)["tokens"] as? [[String: Any]])
                #expect(Set(tokens.compactMap { $0["name"] as? String }) == ["viewer", "backup"])
                #expect(tokens.allSatisfy { $0["secret"] == nil })
                #expect(!String(buffer: response.body).contains(writerToken.secretHash))
            }
            try await client.execute(
                uri: "/api/tokens/\(writerToken.id)", method: .delete, headers: [.cookie: cookie]
            ) { #expect($0.status == .noContent) }
            try await client.execute(uri: "/api/assets", method: .get, headers: write) {
                #expect($0.status == .unauthorized)
            }
            // Made from the web: the secret once, and it works.
            var secret = ""
            try await client.execute(
                uri: "/api/tokens", method: .post, headers: [.cookie: cookie, .contentType: "application/json"],
                body: ByteBuffer(string: #"{"name": "script", "scope": "read", "expiresInDays": 30}"#)
            ) { response in
                #expect(response.status == .created)
                secret = try #require(try Self.body(response)["secret"] as? String)
            }
            try await client.execute(uri: "/api/assets", method: .get, headers: [.authorization: "Bearer " + secret]) {
                #expect($0.status == .ok)
            }
        }
        // An expired token names no one.
        let expired = AccessToken(
            id: "expired", userID: ann.id, name: "old", secretHash: Accounts.hash("lbx_old"), scope: .write,
            limitedTo: nil, creationDate: Date(timeIntervalSinceNow: -7200),
            expirationDate: Date(timeIntervalSinceNow: -3600), lastUsedDate: nil)
        try await accounts.store.addToken(expired)
        #expect(try await accounts.caller(bearer: "lbx_old") == nil)
    }

    @Test("A limited token sees its album's assets alone: counts, images, smart albums, history, hashes")
    func limitedToken() async throws {
        let (folder, library, accounts, app) = try await Self.makeServer()
        defer { withExtendedLifetime(folder) {} }
        let ids = try await library.assets().map(\.localIdentifier)
        let (shown, kept) = (ids[0], ids[1])
        var made = ""
        try await library.performChanges { changes in
            let album = changes.creationRequestForAssetCollection(withTitle: "For the frame")
            album.addAssets([shown])
            made = album.localIdentifier
        }
        let album = made
        let ann = try #require(try await accounts.user(named: "ann"))
        await #expect(throws: LibraryError.self) {
            try await accounts.createToken(for: ann, name: "frame", scope: .write, limitedTo: [album])
        }
        let (_, secret) = try await accounts.createToken(for: ann, name: "frame", scope: .read, limitedTo: [album])
        let start = try library.currentChangeToken()
        try await library.performChanges { changes in
            changes.changeRequest(forAssetWithLocalIdentifier: kept).isFavorite = true
            changes.changeRequest(forAssetWithLocalIdentifier: shown).isFavorite = true
        }
        try await library.performChanges { $0.changeRequest(forAssetWithLocalIdentifier: kept).isHidden = true }
        let hiddenHash = try #require(try await library.asset(withLocalIdentifier: kept)?.resources.first?.sha256)
        try await app.test(.router) { client in
            let limited: HTTPFields = [.authorization: "Bearer " + secret]
            try await client.execute(uri: "/api/authorization", method: .get, headers: limited) { response throws in
                #expect(try Self.body(response)["status"] as? String == "limited")
            }
            try await client.execute(uri: "/api/assets", method: .get, headers: limited) { response throws in
                let assets = try #require(try Self.body(response)["assets"] as? [[String: Any]])
                #expect(assets.compactMap { $0["localIdentifier"] as? String } == [shown])
            }
            for uri in [
                "/api/assets/\(kept)", "/api/assets/\(kept)/image?w=64", "/api/assets/\(kept)/original",
                "/api/assets/\(kept)/edits",
            ] {
                try await client.execute(uri: uri, method: .get, headers: limited) {
                    #expect($0.status == .notFound, "\(uri)")
                }
            }
            try await client.execute(uri: "/api/assets/\(shown)/image?w=64", method: .get, headers: limited) {
                #expect($0.status == .ok)
            }
            try await client.execute(uri: "/api/collections?type=smartAlbum", method: .get, headers: limited) {
                response throws in
                let collections = try #require(try Self.body(response)["collections"] as? [[String: Any]])
                let favorites = collections.first {
                    $0["assetCollectionSubtype"] as? Int == AssetCollectionSubtype.smartAlbumFavorites.rawValue
                }
                #expect(favorites?["estimatedAssetCount"] as? Int == 1)
                #expect(favorites?["keyAssetIdentifier"] as? String == shown)
            }
            try await client.execute(uri: "/api/changes?since=\(start)", method: .get, headers: limited) {
                response throws in
                let changes = try #require(try Self.body(response)["changes"] as? [[String: Any]])
                #expect(changes.count == 1, "the change to the other asset alone is no change")
                #expect(!String(buffer: response.body).contains(kept))
            }
            try await client.execute(
                uri: "/api/uploads/check", method: .post,
                headers: [.authorization: "Bearer " + secret, .contentType: "application/json"],
                body: ByteBuffer(string: #"{"sha256": ["\#(hiddenHash)"]}"#)
            ) { #expect($0.status == .forbidden) }
            try await client.execute(uri: "/api/assets/\(shown)", method: .delete, headers: limited) {
                #expect($0.status == .forbidden)
            }
        }
    }

    @Test("Each user has their own library: another's assets are 404, not 403; admin routes are admins'")
    func ownLibraries() async throws {
        let (folder, library, _, app) = try await Self.makeServer()
        let annID = try #require(try await library.assets(limit: 1).first?.localIdentifier)
        try await app.test(.router) { client in
            let bob = try await Self.signIn(client, "bob", "bob's password")
            try await client.execute(uri: "/api/assets", method: .get, headers: [.cookie: bob]) { response throws in
                #expect(response.status == .ok)
                #expect((try Self.body(response)["assets"] as? [Any])?.isEmpty == true)
            }
            for uri in ["/api/assets/\(annID)", "/api/assets/\(annID)/image?w=64", "/api/assets/\(annID)/edits"] {
                try await client.execute(uri: uri, method: .get, headers: [.cookie: bob]) { response in
                    #expect(response.status == .notFound, "\(uri)")
                }
            }
            try await client.execute(uri: "/api/assets/\(annID)", method: .delete, headers: [.cookie: bob]) {
                #expect($0.status == .notFound)
            }
            try await client.execute(uri: "/api/users", method: .get, headers: [.cookie: bob]) {
                #expect($0.status == .forbidden)
            }
            let ann = try await Self.signIn(client, "ann", "ann's password")
            try await client.execute(uri: "/api/users", method: .get, headers: [.cookie: ann]) { response in
                let users = try #require(try Self.body(response)["users"] as? [[String: Any]])
                #expect(users.compactMap { $0["name"] as? String } == ["ann", "bob"])
                #expect(!String(buffer: response.body).contains("scrypt"))
            }
            try await client.execute(
                uri: "/api/users", method: .post, headers: [.cookie: ann, .contentType: "application/json"],
                body: ByteBuffer(string: #"{"name": "carl", "password": "carl's password"}"#)
            ) { #expect($0.status == .created) }
        }
        #expect(try await library.assetCount() == 2)
        let bobFolder = try FileManager.default.contentsOfDirectory(atPath: folder.path("Test.lightbox/users"))
        #expect(bobFolder.count == 1)
    }

    @Test("Cross-site changes are refused (Origin, Sec-Fetch-Site, non-JSON bodies); so is a foreign Host")
    func forgeryAndRebinding() async throws {
        var policy = AccessPolicy()
        policy.hostNames = ["photos.example.org"]
        let (folder, library, _, app) = try await Self.makeServer(policy: policy)
        defer { withExtendedLifetime(folder) {} }
        let id = try #require(try await library.assets(limit: 1).first?.localIdentifier)
        try await app.test(.router) { client in
            let ann = try await Self.signIn(client, "ann", "ann's password")
            let edit = ByteBuffer(string: #"{"filters": ["exposure=0.5"]}"#)
            // The attack the issue saw succeed: a form's text/plain POST from another site.
            try await client.execute(
                uri: "/api/assets/\(id)/edits", method: .post,
                headers: [.cookie: ann, .contentType: "text/plain", .origin: "http://evil.example"], body: edit
            ) { response in
                #expect(response.status == .forbidden)
                #expect(response.headers[.xContentTypeOptions] == "nosniff")
            }
            try await client.execute(
                uri: "/api/assets/\(id)/edits", method: .post, headers: [.cookie: ann, .contentType: "text/plain"],
                body: edit
            ) { #expect($0.status == .unsupportedMediaType) }
            try await client.execute(
                uri: "/api/assets/\(id)", method: .delete,
                headers: [.cookie: ann, HTTPFields.headerName("Sec-Fetch-Site"): "cross-site"]
            ) { #expect($0.status == .forbidden) }
            #expect(try await library.asset(withLocalIdentifier: id)?.hasAdjustments == false)
            #expect(try await library.assetCount() == 2)
        }
    }

    @Test("Over real HTTP, a Host the server was not given is 421 (DNS rebinding); its own names pass")
    func rebinding() async throws {
        var policy = AccessPolicy()
        policy.hostNames = ["photos.example.org"]
        let (folder, library, accounts, app) = try await Self.makeServer(policy: policy)
        defer { withExtendedLifetime(folder) {} }
        let id = try #require(try await library.assets(limit: 1).first?.localIdentifier)
        let user = try #require(try await accounts.user(named: "ann"))
        let (_, secret) = try await accounts.startSession(for: user, userAgent: "test", address: "127.0.0.1")
        // Raw sockets alone, with a minute's patience: the test client's 20 s is not enough
        // while the whole suite shares two cores.
        try await app.test(.live) { client in
            let ann = "lightbox_session=" + secret
            let port = try #require(client.port)
            // Rebinding: a name the server was not given.
            for host in ["evil.example", "evil.example:8080", "photos.example.org.evil.example", "localhost.evil"] {
                let (status, _) = try await RawHTTP.send(
                    port: port, head: ["GET /api/assets HTTP/1.1", "Host: \(host)", "Cookie: \(ann)"])
                #expect(status == 421, "\(host)")
            }
            for host in ["localhost:\(port)", "127.0.0.1", "[::1]:\(port)", "192.168.1.20:8080", "Photos.Example.org"] {
                let (status, _) = try await RawHTTP.send(
                    port: port, head: ["GET /api/assets HTTP/1.1", "Host: \(host)", "Cookie: \(ann)"])
                #expect(status == 200, "\(host)")
            }
            // The same site's page may change things; another's may not.
            let delete = "DELETE /api/assets/\(id) HTTP/1.1"
            let foreign = try await RawHTTP.send(
                port: port, head: [delete, "Host: localhost:\(port)", "Cookie: \(ann)", "Origin: http://localhost:1"])
            #expect(foreign.status == 403)
            let own = try await RawHTTP.send(
                port: port,
                head: [delete, "Host: localhost:\(port)", "Cookie: \(ann)", "Origin: http://localhost:\(port)"])
            #expect(own.status == 200)
        }
    }

    @Test("A library without users is its local owner's on loopback only")
    func withoutUsers() async throws {
        let folder = try TemporaryDirectory()
        let library = try folder.makeLibrary()
        let accounts = try Accounts(library: library, hasher: Self.hasher)
        try await Application(router: LightboxServer.router(library: library, accounts: accounts)).test(.router) {
            client in
            try await client.execute(uri: "/api/assets", method: .get) { #expect($0.status == .ok) }
            try await client.execute(uri: "/api/authorization", method: .get) { response throws in
                #expect(try Self.body(response)["credential"] as? String == "local")
            }
        }
        var exposed = AccessPolicy()
        exposed.loopbackOnly = false
        let app = Application(router: LightboxServer.router(library: library, accounts: accounts, policy: exposed))
        try await app.test(.router) { client in
            try await client.execute(uri: "/api/assets", method: .get) { #expect($0.status == .unauthorized) }
        }
        #expect(AccessPolicy.isLoopback("127.0.0.1") && AccessPolicy.isLoopback("::1"))
        #expect(!AccessPolicy.isLoopback("0.0.0.0") && !AccessPolicy.isLoopback("192.168.1.2"))
    }
}
