import Foundation

/// A person who signs in to a Lightbox server, with their own library.
public struct UserAccount: Sendable, Hashable, Codable {
    /// What a user may do beyond their own library.
    public enum Role: String, Sendable, Hashable, Codable, CaseIterable {
        /// Adds and removes users.
        case admin
        /// Their own library, and the albums shared with them.
        case member
    }

    /// A stable identifier (a UUID), never shown as a name.
    public var id: String
    /// The name they sign in with, unique regardless of case.
    public var name: String
    public var role: Role
    /// The password in PHC string form (`$scrypt$ln=...`): never the password itself.
    public var passwordHash: String
    /// Their library's folder relative to the server's library: empty for the user who owns the
    /// server's library itself (the first one), `users/ID` for every other.
    public var libraryFolder: String
    public var creationDate: Date

    /// Their library inside the server's at `home`: `home` itself for its owner. Throws for a
    /// folder the accounts name outside it (`..`, an absolute path): it is never opened.
    public func libraryURL(inside home: URL) throws -> URL {
        try Self.libraryURL(folder: libraryFolder, inside: home)
    }

    /// The library folder `folder` (a user's `libraryFolder`) names inside `home`; throws for one
    /// outside it.
    package static func libraryURL(folder: String, inside home: URL) throws -> URL {
        guard !folder.isEmpty else { return home }
        guard !folder.contains(".."), !folder.hasPrefix("/") else {
            throw LibraryError(
                .storageFailed, "the accounts name a library folder outside the server's library: \(folder)")
        }
        return home.appendingPathComponent(folder, isDirectory: true)
    }

    public init(
        id: String, name: String, role: Role, passwordHash: String, libraryFolder: String, creationDate: Date
    ) {
        self.id = id
        self.name = name
        self.role = role
        self.passwordHash = passwordHash
        self.libraryFolder = libraryFolder
        self.creationDate = creationDate
    }
}

/// A browser's signed-in session: the cookie's secret is kept only as its SHA-256.
public struct SignInSession: Sendable, Hashable, Codable {
    /// The public identifier a user names to revoke it (not the secret).
    public var id: String
    public var userID: String
    public var secretHash: String
    public var creationDate: Date
    public var lastSeenDate: Date
    public var expirationDate: Date
    /// The browser and address that signed in, shown in the list of sessions.
    public var userAgent: String
    public var address: String

    public init(
        id: String, userID: String, secretHash: String, creationDate: Date, lastSeenDate: Date,
        expirationDate: Date, userAgent: String, address: String
    ) {
        self.id = id
        self.userID = userID
        self.secretHash = secretHash
        self.creationDate = creationDate
        self.lastSeenDate = lastSeenDate
        self.expirationDate = expirationDate
        self.userAgent = userAgent
        self.address = address
    }
}

/// A bearer token an app or a script holds: the secret is kept only as its SHA-256.
public struct AccessToken: Sendable, Hashable, Codable {
    /// What a token lets its holder do.
    public enum Scope: String, Sendable, Hashable, Codable, CaseIterable {
        /// Fetches, images, movies, changes.
        case read
        /// Everything `read` does, and changes to the library.
        case write
    }

    public var id: String
    public var userID: String
    /// What the owner called it ("phone backup").
    public var name: String
    public var secretHash: String
    public var scope: Scope
    /// PhotoKit's limited access: the assets, and the albums whose assets, the token may see;
    /// nil for the whole library.
    public var limitedTo: [String]?
    public var creationDate: Date
    public var expirationDate: Date?
    public var lastUsedDate: Date?

    public init(
        id: String, userID: String, name: String, secretHash: String, scope: Scope, limitedTo: [String]?,
        creationDate: Date, expirationDate: Date?, lastUsedDate: Date?
    ) {
        self.id = id
        self.userID = userID
        self.name = name
        self.secretHash = secretHash
        self.scope = scope
        self.limitedTo = limitedTo
        self.creationDate = creationDate
        self.expirationDate = expirationDate
        self.lastUsedDate = lastUsedDate
    }
}

/// An album its owner shares: with another user of the server, who sees it (and, allowed to
/// contribute, adds to it), or with whoever holds a link, who sees it.
public struct AlbumShare: Sendable, Hashable, Codable {
    /// Who the album is shared with.
    public enum Audience: Sendable, Hashable, Codable {
        /// A user of the same server, by identifier.
        case user(id: String)
        /// Whoever holds the link whose key this is: the key is the secret in the URL.
        case link(key: String)
    }

    /// What the audience may do with the album.
    public enum Permission: String, Sendable, Hashable, Codable, CaseIterable {
        /// See its assets, their images and movies.
        case view
        /// See them, and add photos and movies to the album (into the owner's library).
        case contribute
    }

    public var id: String
    /// The user whose library holds the album.
    public var ownerID: String
    /// The album's local identifier in the owner's library.
    public var albumIdentifier: String
    public var audience: Audience
    public var permission: Permission
    /// A link's password in PHC string form; nil for none (and for users' shares).
    public var passwordHash: String?
    /// When a link stops working; nil for never.
    public var expirationDate: Date?
    public var creationDate: Date

    public init(
        id: String, ownerID: String, albumIdentifier: String, audience: Audience, permission: Permission,
        passwordHash: String?, expirationDate: Date?, creationDate: Date
    ) {
        self.id = id
        self.ownerID = ownerID
        self.albumIdentifier = albumIdentifier
        self.audience = audience
        self.permission = permission
        self.passwordHash = passwordHash
        self.expirationDate = expirationDate
        self.creationDate = creationDate
    }

    /// The user it is shared with, for a share with a user.
    public var recipientID: String? {
        if case .user(let id) = audience { return id }
        return nil
    }

    /// The link's key, for a share by link.
    public var linkKey: String? {
        if case .link(let key) = audience { return key }
        return nil
    }
}

/// The accounts of a Lightbox server: users, their sessions and their tokens, kept apart from
/// any library's catalog (`accounts.sqlite` beside the server library's own database).
/// ``SQLiteAccountStore`` implements it; policy (passwords, expiry, who may do what) is the
/// server's.
///
/// Every call suspends rather than blocks: servers call it on every request.
public protocol AccountStore: Sendable {
    func users() async throws -> [UserAccount]
    /// The user with this name, compared without case.
    func user(named name: String) async throws -> UserAccount?
    func user(id: String) async throws -> UserAccount?
    /// Whether any user exists: a library with none is served on loopback only.
    func hasUsers() async throws -> Bool
    /// Adds a user; ``LibraryError/Code-swift.struct/invalidRequest`` when the name is taken.
    func addUser(_ user: UserAccount) async throws
    /// Replaces the user's password hash and ends every session and token of theirs, in one
    /// transaction; false when no user has this identifier.
    func replacePasswordHash(userID: String, with hash: String, revokingSessions: Bool) async throws -> Bool
    /// Removes the user with their sessions and tokens; false when there is none.
    func removeUser(id: String) async throws -> Bool

    func addSession(_ session: SignInSession) async throws
    /// The session whose secret has this hash, with its user.
    func session(secretHash: String) async throws -> (SignInSession, UserAccount)?
    func sessions(userID: String) async throws -> [SignInSession]
    /// Records that the session was used, and moves its expiry.
    func touchSession(id: String, lastSeen: Date, expires: Date) async throws
    /// Ends one of the user's sessions; false when they have none with this identifier.
    func removeSession(id: String, userID: String) async throws -> Bool
    /// Drops sessions past their expiry.
    func removeExpiredSessions(before date: Date) async throws

    func addToken(_ token: AccessToken) async throws
    /// The token whose secret has this hash, with its user.
    func token(secretHash: String) async throws -> (AccessToken, UserAccount)?
    func tokens(userID: String) async throws -> [AccessToken]
    func touchToken(id: String, lastUsed: Date) async throws
    /// Revokes one of the user's tokens; false when they have none with this identifier.
    func removeToken(id: String, userID: String) async throws -> Bool

    /// Adds a share. A share of the same album with the same user replaces the one before.
    func addShare(_ share: AlbumShare) async throws
    /// The share with this identifier, with its owner.
    func share(id: String) async throws -> (AlbumShare, owner: UserAccount)?
    /// The share by link whose key this is, with its owner.
    func share(linkKey: String) async throws -> (AlbumShare, owner: UserAccount)?
    /// The shares a user made, oldest first.
    func shares(ownerID: String) async throws -> [AlbumShare]
    /// The shares made with a user, oldest first, with their owners.
    func shares(recipientID: String) async throws -> [(AlbumShare, owner: UserAccount)]
    /// Ends a share its owner or its recipient names; false when neither is `userID`.
    func removeShare(id: String, userID: String) async throws -> Bool
}
