import Crypto
import Foundation
import Lightbox
import Synchronization

/// Albums shared with other users of the server and by link, the way Apple's shared albums and
/// Immich's do.
///
/// - A user shares an album of their library with another user, to view or to contribute;
///   the recipient reaches it by naming the share (`?share=ID`), and nothing else of the
///   owner's library: the album's assets through ``PhotoLibrary/limited(to:)``.
/// - A link is a secret key in a URL that shows one album to whoever holds it, read-only,
///   until it expires or is removed. With a password, the key alone is not enough: the
///   password unlocks it for a while (``unlockLink(key:password:)``), and choosing another
///   password ends every unlocking made with the old one.
extension Accounts {
    /// How long a password unlocks a link in one browser, at most.
    static let linkUnlockLifetime: TimeInterval = 7 * 24 * 3600
    /// The most shares (with users and by link) one user keeps: what a list of shares reads,
    /// and what a recipient's list opens, stays bounded.
    static let maximumShares = 1000

    /// Refuses a new share past ``maximumShares``; sharing an album again with the same user
    /// replaces its share, and is always allowed.
    private func checkRoom(for owner: UserAccount, replacing album: String? = nil, with recipient: String? = nil)
        async throws
    {
        let made = try await store.shares(ownerID: owner.id)
        if let album, made.contains(where: { $0.albumIdentifier == album && $0.recipientID == recipient }) { return }
        guard made.count < Self.maximumShares else {
            throw LibraryError(
                .invalidRequest,
                "you share \(made.count) albums and links already: end some first (at most \(Self.maximumShares))")
        }
    }

    /// Shares `album` of `owner`'s library with the user called `name`; sharing it with them
    /// again changes what they may do.
    public func shareAlbum(
        _ album: String, of owner: UserAccount, with name: String, permission: AlbumShare.Permission
    ) async throws -> AlbumShare {
        guard let recipient = try await store.user(named: name) else {
            throw LibraryError(.invalidRequest, "no user is called \(name)")
        }
        guard recipient.id != owner.id else {
            throw LibraryError(.invalidRequest, "an album is shared with someone else: your albums are yours already")
        }
        try await checkRoom(for: owner, replacing: album, with: recipient.id)
        let share = AlbumShare(
            id: Self.randomIdentifier(), ownerID: owner.id, albumIdentifier: album, audience: .user(id: recipient.id),
            permission: permission, passwordHash: nil, expirationDate: nil, creationDate: Date())
        try await store.addShare(share)
        forgetCached()
        return share
    }

    /// Makes a link that shows `album` of `owner`'s library, read-only: its key is the secret
    /// in the URL.
    public func createLink(to album: String, of owner: UserAccount, password: String?, expires: Date?) async throws
        -> AlbumShare
    {
        if let expires, expires <= Date() {
            throw LibraryError(.invalidRequest, "a link's expiry must be in the future")
        }
        try await checkRoom(for: owner)
        var passwordHash: String?
        if let password {
            try Self.checkPassword(password)
            passwordHash = try await hashPassword(password)
        }
        let share = AlbumShare(
            id: Self.randomIdentifier(), ownerID: owner.id, albumIdentifier: album,
            audience: .link(key: Self.randomSecret()), permission: .view, passwordHash: passwordHash,
            expirationDate: expires, creationDate: Date())
        try await store.addShare(share)
        return share
    }

    /// The albums `user` shared, with users and by link.
    public func sharesMade(by user: UserAccount) async throws -> [AlbumShare] {
        try await store.shares(ownerID: user.id)
    }

    /// The albums shared with `user`.
    public func sharesReceived(by user: UserAccount) async throws -> [SharedAlbum] {
        try await store.shares(recipientID: user.id).map { SharedAlbum(share: $0.0, owner: $0.owner) }
    }

    /// Ends a share: its owner stops sharing, or its recipient leaves it. False when `user` is
    /// neither.
    public func endShare(id: String, by user: UserAccount) async throws -> Bool {
        defer { forgetCached() }
        return try await store.removeShare(id: id, userID: user.id)
    }

    /// The album the share `id` shares with `user`; nil when it names none of theirs (ended,
    /// someone else's, or never made).
    func sharedAlbum(id: String, with user: UserAccount) async throws -> SharedAlbum? {
        guard id.utf8.count <= 64 else { return nil }
        let key = id + ":" + user.id
        let now = Date()
        if let entry = cache.withLock({ $0.shared[key] }), entry.until > now { return entry.album }
        var album: SharedAlbum?
        if let (share, owner) = try await store.share(id: id), share.recipientID == user.id {
            album = SharedAlbum(share: share, owner: owner)
        }
        cache.withLock { cache in
            if cache.shared.count >= 10_000 { cache.shared.removeAll() }
            cache.shared[key] = (album, now.addingTimeInterval(Self.cacheLifetime))
        }
        return album
    }

    /// The caller a link's key makes; nil when no live link has it. A link with a password
    /// wants the proof ``unlockLink(key:password:)`` gave, which `unlock` finds for the link:
    /// without a valid one, ``LinkLocked``.
    func caller(linkKey key: String, unlock: (AlbumShare) -> String?) async throws -> Caller? {
        guard key.utf8.count <= 128 else { return nil }
        var caller = cachedCaller("link:" + key)
        if caller == nil {
            guard let (share, owner) = try await store.share(linkKey: key) else { return nil }
            if let expires = share.expirationDate, expires <= Date() { return nil }
            let made = Caller(user: nil, credential: .link(share), sharedAlbum: SharedAlbum(share: share, owner: owner))
            remember(made, as: "link:" + key)
            caller = made
        }
        guard let caller, case .link(let share) = caller.credential else { return nil }
        if share.passwordHash != nil, !Self.isValid(unlock: unlock(share), for: share) { throw LinkLocked() }
        return caller
    }

    /// Checks a link's password: the proof that unlocks the link (a cookie for a browser, a
    /// header for a program) and when it stops doing so; nil for a wrong password, or a link
    /// that is gone or has none.
    func unlockLink(key: String, password: String) async throws -> (share: AlbumShare, proof: String, expires: Date)? {
        guard key.utf8.count <= 128, let (share, _) = try await store.share(linkKey: key),
            let hash = share.passwordHash
        else { return nil }
        if let expires = share.expirationDate, expires <= Date() { return nil }
        guard try await PasswordWork.shared.run({ PasswordHasher.verify(password, against: hash) }) else { return nil }
        var expires = Date().addingTimeInterval(Self.linkUnlockLifetime)
        if let end = share.expirationDate { expires = min(expires, end) }
        return (share, Self.unlockProof(for: share, until: Int64(expires.timeIntervalSince1970)), expires)
    }

    /// `SECONDS.MAC`: the HMAC-SHA256 of the link's identifier and the second the proof ends,
    /// keyed by the link's password hash (a secret of the server's, salted): nothing to store,
    /// and a new password ends every proof made for the old.
    static func unlockProof(for share: AlbumShare, until seconds: Int64) -> String {
        let key = SymmetricKey(data: Data((share.passwordHash ?? "").utf8))
        let mac = HMAC<SHA256>.authenticationCode(for: Data("\(share.id).\(seconds)".utf8), using: key)
        return "\(seconds)." + mac.hexadecimal
    }

    /// Whether `unlock` is a live proof for `share`, compared in constant time.
    static func isValid(unlock: String?, for share: AlbumShare) -> Bool {
        guard let unlock, unlock.utf8.count <= 128,
            let dot = unlock.firstIndex(of: "."), let seconds = Int64(unlock[..<dot])
        else { return false }
        // Range-checked before it becomes a date: a proof lives at most its lifetime.
        let now = Int64(Date().timeIntervalSince1970)
        guard seconds > now, seconds <= now + Int64(linkUnlockLifetime) + 60 else { return false }
        let expected = Array(unlockProof(for: share, until: seconds).utf8)
        let given = Array(unlock.utf8)
        guard expected.count == given.count else { return false }
        return zip(expected, given).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}

/// A link with a password, reached without a valid unlocking.
struct LinkLocked: Error {}
