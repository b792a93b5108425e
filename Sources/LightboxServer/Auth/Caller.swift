import Foundation
import Lightbox

/// Who sent a request, and what they may do: the outcome of authentication, carried by the
/// request's context to every route.
public struct Caller: Sendable {
    /// How the caller proved who they are.
    public enum Credential: Sendable {
        /// A library with no users, served on loopback only: whoever reaches it owns it.
        case local
        /// A browser's session cookie.
        case session(SignInSession)
        /// An app's or a script's bearer token.
        case token(AccessToken)
        /// Whoever holds a shared album's link (and its password, when it has one).
        case link(AlbumShare)
    }

    /// The signed-in user; nil for ``Credential/local``.
    public let user: UserAccount?
    public let credential: Credential
    /// The album shared with the caller that this request reaches instead of their own
    /// library: by a link, or named by a user's request (`?share=ID`).
    public internal(set) var sharedAlbum: SharedAlbum?

    public init(user: UserAccount?, credential: Credential, sharedAlbum: SharedAlbum? = nil) {
        self.user = user
        self.credential = credential
        self.sharedAlbum = sharedAlbum
    }

    /// Whether the credential lets its holder change what it reaches: a session, the local
    /// owner, a write token.
    private var credentialWrites: Bool {
        switch credential {
        case .local, .session: true
        case .token(let token): token.scope == .write
        case .link: false
        }
    }

    /// Whether the caller may change the library: a session, the local owner, a write token,
    /// in their own library (a shared album's is its owner's to change).
    public var canWrite: Bool { sharedAlbum == nil && credentialWrites }

    /// Whether the caller may add photos and movies: wherever they may write, and to an album
    /// shared with them to contribute to.
    public var canContribute: Bool {
        guard let sharedAlbum else { return credentialWrites }
        return sharedAlbum.share.permission == .contribute && credentialWrites
    }

    /// Whether the caller may manage users: an admin's session, or the local owner.
    public var isAdmin: Bool {
        switch credential {
        case .local: true
        case .session: user?.role == .admin
        case .token, .link: false
        }
    }

    /// The assets and albums a limited token may see; nil for the whole library.
    public var limitedTo: [String]? {
        if case .token(let token) = credential { return token.limitedTo }
        return nil
    }

    /// The session's identifier, when the caller signed in with one.
    var sessionID: String? {
        if case .session(let session) = credential { return session.id }
        return nil
    }
}

/// An album shared with a caller, as they reach it: the share and the owner whose library
/// holds the album.
public struct SharedAlbum: Sendable {
    public let share: AlbumShare
    public let owner: UserAccount
}
