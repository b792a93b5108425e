import Crypto
import Foundation
import Lightbox
import Synchronization

/// The server's users, sessions and tokens, and the rules around them: names and passwords
/// checked, secrets made and kept only as hashes, sessions that expire when unused, tokens
/// that expire when their owner said.
///
/// ```swift
/// let accounts = try Accounts(library: library)
/// let ann = try await accounts.addUser(name: "ann", password: "correct horse")
/// let (token, secret) = try await accounts.createToken(for: ann, name: "backup", scope: .write)
/// ```
public final class Accounts: Sendable {
    let store: any AccountStore
    let hasher: PasswordHasher
    private let decoy = Mutex<String?>(nil)
    /// Callers by their credential's hash, and whether any user exists, as read lately: a
    /// request is answered without a read of the accounts when the same credential came
    /// within ``cacheLifetime``. Whatever this process changes empties it at once; a change by
    /// another process (`lightbox token revoke`) holds after at most that long.
    let cache = Mutex<Cache>(Cache())
    static let cacheLifetime: TimeInterval = 2

    struct Cache {
        var callers: [String: (caller: Caller, until: Date)] = [:]
        var hasUsers: (value: Bool, until: Date)?
        /// Albums shared with users, by share and recipient.
        var shared: [String: (album: SharedAlbum?, until: Date)] = [:]
    }

    /// Forgets what was read: after any change to users, sessions or tokens.
    func forgetCached() {
        cache.withLock { $0 = Cache() }
    }

    func cachedCaller(_ key: String) -> Caller? {
        let now = Date()
        return cache.withLock { cache in
            guard let entry = cache.callers[key], entry.until > now else { return nil }
            // An expiry inside the window still ends the credential on time.
            switch entry.caller.credential {
            case .session(let session) where session.expirationDate <= now: return nil
            case .token(let token) where (token.expirationDate.map { $0 <= now } ?? false): return nil
            case .link(let share) where (share.expirationDate.map { $0 <= now } ?? false): return nil
            default: return entry.caller
            }
        }
    }

    func remember(_ caller: Caller, as key: String) {
        cache.withLock { cache in
            if cache.callers.count >= 10_000 { cache.callers.removeAll() }
            cache.callers[key] = (caller, Date().addingTimeInterval(Self.cacheLifetime))
        }
    }

    /// How long a session lasts without being used.
    public static let sessionLifetime: TimeInterval = 30 * 24 * 3600
    /// How long after its last recorded use a session or token is recorded as used again: not
    /// a write on every request.
    static let touchInterval: TimeInterval = 60
    /// The prefix of every bearer token's secret, so that a leaked one is recognisable (and
    /// secret scanners can be taught it).
    public static let tokenPrefix = "lbx_"

    /// The accounts of the library at `libraryURL`, hashing new passwords with `hasher`.
    public init(libraryURL: URL, hasher: PasswordHasher = .standard) throws {
        store = try SQLiteAccountStore(libraryURL: libraryURL)
        self.hasher = hasher
    }

    /// The accounts of the server serving `library`: with its catalog on PostgreSQL, those every
    /// server of the library shares; else `accounts.sqlite` in its folder.
    public init(library: PhotoLibrary, hasher: PasswordHasher = .standard) throws {
        store = try library.accountStore()
        self.hasher = hasher
    }

    public init(store: any AccountStore, hasher: PasswordHasher = .standard) {
        self.store = store
        self.hasher = hasher
    }

    // MARK: Users

    public func users() async throws -> [UserAccount] { try await store.users() }

    public func hasUsers() async throws -> Bool {
        let now = Date()
        if let cached = cache.withLock({ $0.hasUsers }), cached.until > now { return cached.value }
        let value = try await store.hasUsers()
        cache.withLock { $0.hasUsers = (value, now.addingTimeInterval(Self.cacheLifetime)) }
        return value
    }

    public func user(named name: String) async throws -> UserAccount? { try await store.user(named: name) }

    /// Adds a user. The first one owns the server's library and is an admin unless `role` says
    /// otherwise; every later one gets a library of their own (`users/ID`), a member by default.
    public func addUser(name: String, password: String, role: UserAccount.Role? = nil) async throws -> UserAccount {
        try Self.checkName(name)
        try Self.checkPassword(password)
        let first = try await !store.hasUsers()
        let id = UUID().uuidString.lowercased()
        let hash = try await hashPassword(password)
        let user = UserAccount(
            id: id, name: name, role: role ?? (first ? .admin : .member), passwordHash: hash,
            libraryFolder: first ? "" : "users/" + id, creationDate: Date())
        try await store.addUser(user)
        forgetCached()
        return user
    }

    /// Sets a user's password and signs them out everywhere.
    public func setPassword(name: String, password: String) async throws {
        try Self.checkPassword(password)
        guard let user = try await store.user(named: name) else {
            throw LibraryError(.invalidRequest, "no user is called \(name)")
        }
        let hash = try await hashPassword(password)
        _ = try await store.replacePasswordHash(userID: user.id, with: hash, revokingSessions: true)
        forgetCached()
    }

    /// Removes a user with their sessions and tokens; their library's folder stays on disk.
    /// The last admin cannot be removed while other users remain.
    public func removeUser(name: String) async throws -> UserAccount {
        guard let user = try await store.user(named: name) else {
            throw LibraryError(.invalidRequest, "no user is called \(name)")
        }
        let users = try await store.users()
        if user.role == .admin, users.count > 1, !users.contains(where: { $0.id != user.id && $0.role == .admin }) {
            throw LibraryError(
                .invalidRequest, "\(name) is the last admin: make another user an admin first, or remove the others")
        }
        _ = try await store.removeUser(id: user.id)
        forgetCached()
        return user
    }

    static func checkName(_ name: String) throws {
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "._-@"))
        guard (1...64).contains(name.count), name.unicodeScalars.allSatisfy({ allowed.contains($0) }),
            name.first != "-"
        else {
            throw LibraryError(
                .invalidRequest,
                "a user name is 1 to 64 letters, digits, '.', '_', '-' or '@' (not starting with '-'): \(name.debugDescription) is not"
            )
        }
    }

    static func checkPassword(_ password: String) throws {
        let length = password.utf8.count
        guard length >= PasswordHasher.minimumPasswordLength else {
            throw LibraryError(
                .invalidRequest, "a password needs at least \(PasswordHasher.minimumPasswordLength) characters")
        }
        guard length <= PasswordHasher.maximumPasswordLength else {
            throw LibraryError(
                .invalidRequest, "a password has at most \(PasswordHasher.maximumPasswordLength) bytes")
        }
    }

    func hashPassword(_ password: String) async throws -> String {
        try await PasswordWork.shared.run { [hasher] in try hasher.hash(password) }
    }

    // MARK: Signing in

    /// The user whose name and password these are, or nil. The hash is computed even for a
    /// name no one has, so the time taken does not tell which names exist.
    public func verify(name: String, password: String) async throws -> UserAccount? {
        let user = try await store.user(named: name)
        let stored: String
        if let user { stored = user.passwordHash } else { stored = try await decoyHash() }
        let matches = try await PasswordWork.shared.run {
            PasswordHasher.verify(password, against: stored)
        }
        return matches ? user : nil
    }

    /// A hash of no password anyone has, at this server's cost, for names that do not exist:
    /// made on the first sign-in, not at every start of a command.
    private func decoyHash() async throws -> String {
        if let hash = decoy.withLock({ $0 }) { return hash }
        let hash = try await PasswordWork.shared.run { [hasher] in try hasher.hash(UUID().uuidString) }
        decoy.withLock { $0 = hash }
        return hash
    }

    /// Starts a session for `user`: its secret (the cookie's value) and its record.
    public func startSession(for user: UserAccount, userAgent: String, address: String) async throws -> (
        SignInSession, secret: String
    ) {
        let secret = Self.randomSecret()
        let now = Date()
        let session = SignInSession(
            id: Self.randomIdentifier(), userID: user.id, secretHash: Self.hash(secret), creationDate: now,
            lastSeenDate: now, expirationDate: now.addingTimeInterval(Self.sessionLifetime),
            userAgent: String(userAgent.prefix(200)), address: String(address.prefix(64)))
        try await store.removeExpiredSessions(before: now)
        try await store.addSession(session)
        return (session, secret)
    }

    public func sessions(of user: UserAccount) async throws -> [SignInSession] {
        try await store.sessions(userID: user.id)
    }

    public func endSession(id: String, of user: UserAccount) async throws -> Bool {
        defer { forgetCached() }
        return try await store.removeSession(id: id, userID: user.id)
    }

    /// The caller a session cookie's secret names, or nil when it names no live session.
    public func caller(sessionSecret secret: String) async throws -> Caller? {
        guard secret.utf8.count <= 128 else { return nil }
        let hash = Self.hash(secret)
        if let cached = cachedCaller("session:" + hash) { return cached }
        guard let (session, user) = try await store.session(secretHash: hash) else { return nil }
        let now = Date()
        guard session.expirationDate > now else { return nil }
        if now.timeIntervalSince(session.lastSeenDate) > Self.touchInterval {
            try await store.touchSession(
                id: session.id, lastSeen: now, expires: now.addingTimeInterval(Self.sessionLifetime))
        }
        let caller = Caller(user: user, credential: .session(session))
        remember(caller, as: "session:" + hash)
        return caller
    }

    // MARK: Tokens

    /// Makes a bearer token for `user`: its record and its secret, shown once and never kept.
    public func createToken(
        for user: UserAccount, name: String, scope: AccessToken.Scope, limitedTo: [String]? = nil,
        expires: Date? = nil
    ) async throws -> (AccessToken, secret: String) {
        guard (1...100).contains(name.count), !name.contains(where: \.isNewline) else {
            throw LibraryError(.invalidRequest, "a token's name is 1 to 100 characters on one line")
        }
        if let limitedTo {
            guard (1...LimitedSelection.maximumIdentifiers).contains(limitedTo.count) else {
                throw LibraryError(
                    .invalidRequest,
                    "a limited token names 1 to \(LimitedSelection.maximumIdentifiers) assets or albums")
            }
            // PhotoKit's limited access lets an app add photos; Lightbox's reads.
            guard scope == .read else {
                throw LibraryError(.invalidRequest, "a token limited to some assets reads them: its scope is read")
            }
        }
        if let expires, expires <= Date() {
            throw LibraryError(.invalidRequest, "a token's expiry must be in the future")
        }
        let secret = Self.tokenPrefix + Self.randomSecret()
        let token = AccessToken(
            id: Self.randomIdentifier(), userID: user.id, name: name, secretHash: Self.hash(secret), scope: scope,
            limitedTo: limitedTo, creationDate: Date(), expirationDate: expires, lastUsedDate: nil)
        try await store.addToken(token)
        return (token, secret)
    }

    public func tokens(of user: UserAccount) async throws -> [AccessToken] {
        try await store.tokens(userID: user.id)
    }

    public func revokeToken(id: String, of user: UserAccount) async throws -> Bool {
        defer { forgetCached() }
        return try await store.removeToken(id: id, userID: user.id)
    }

    /// The caller a bearer token names, or nil when it names no live token.
    public func caller(bearer secret: String) async throws -> Caller? {
        guard secret.hasPrefix(Self.tokenPrefix), secret.utf8.count <= 128 else { return nil }
        let hash = Self.hash(secret)
        if let cached = cachedCaller("token:" + hash) { return cached }
        guard let (token, user) = try await store.token(secretHash: hash) else { return nil }
        let now = Date()
        if let expires = token.expirationDate, expires <= now { return nil }
        if token.lastUsedDate.map({ now.timeIntervalSince($0) > Self.touchInterval }) ?? true {
            try await store.touchToken(id: token.id, lastUsed: now)
        }
        let caller = Caller(user: user, credential: .token(token))
        remember(caller, as: "token:" + hash)
        return caller
    }

    // MARK: Secrets

    /// 32 random bytes in URL-safe base64: 256 bits, beyond guessing.
    static func randomSecret() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// A short public identifier for a session or token (not a secret).
    static func randomIdentifier() -> String {
        String(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16))
    }

    /// A high-entropy secret's hash: one SHA-256 suffices (nothing to guess), and lets a
    /// request's credential be found by an index.
    static func hash(_ secret: String) -> String {
        SHA256.hash(data: Data(secret.utf8)).hexadecimal
    }
}

/// Password hashing, at most two at once: each takes 128 MiB and a core for a few hundred
/// milliseconds, so sign-in attempts must not be able to take the server's memory. The rest
/// wait their turn in order, on threads of their own: on the lanes every read shares, two
/// hashes stalled each read until they ended.
enum PasswordWork {
    static let shared = WorkPool(label: "lightbox.passwords", lanes: 2)
}
