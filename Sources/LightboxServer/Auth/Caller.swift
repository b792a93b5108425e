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
    }

    /// The signed-in user; nil for ``Credential/local``.
    public let user: UserAccount?
    public let credential: Credential

    /// Whether the caller may change the library: a session, the local owner, a write token.
    public var canWrite: Bool {
        switch credential {
        case .local, .session: true
        case .token(let token): token.scope == .write
        }
    }

    /// Whether the caller may manage users: an admin's session, or the local owner.
    public var isAdmin: Bool {
        switch credential {
        case .local: true
        case .session: user?.role == .admin
        case .token: false
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
