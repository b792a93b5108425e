import Foundation

/// How an account store reaches its database: a transaction to read in and one to write in,
/// each suspending its caller.
protocol SQLTransactions: Sendable {
    func read<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) throws -> T) async throws -> T
    func write<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) throws -> T) async throws -> T
}

/// The accounts (users, sessions, tokens, shares) in SQL both databases read alike: SQLite's
/// `accounts.sqlite` in a server's folder (``SQLiteAccountStore``), or the tables beside a
/// PostgreSQL catalog that every server of the library shares (``PostgresAccountStore``).
///
/// Names are unique without case (SQLite's NOCASE column, PostgreSQL's index on `lower(name)`);
/// sessions, tokens and shares go with their user, in the schema. Dates are seconds since 1970.
/// `"user"` is quoted: PostgreSQL reserves the word.
protocol SQLAccountStore: AccountStore {
    var transactions: any SQLTransactions { get }
}

extension SQLAccountStore {
    // MARK: Users

    public func users() async throws -> [UserAccount] {
        try await transactions.read { db in
            try db.rows("SELECT * FROM \"user\" ORDER BY creationDate, name").map(SQLAccountRows.user)
        }
    }

    public func user(named name: String) async throws -> UserAccount? {
        try await transactions.read { db in
            try db.rows(
                "SELECT * FROM \"user\" WHERE \(db.dialect.caseless("name")) = \(db.dialect.caseless("?"))", [name]
            )
            .first.map(SQLAccountRows.user)
        }
    }

    public func user(id: String) async throws -> UserAccount? {
        try await transactions.read { db in try Self.user(id: id, db) }
    }

    static func user(id: String, _ db: any SQLDatabase) throws -> UserAccount? {
        try db.rows("SELECT * FROM \"user\" WHERE id = ?", [id]).first.map(SQLAccountRows.user)
    }

    public func hasUsers() async throws -> Bool {
        try await transactions.read { db in
            try db.integer("SELECT COUNT(*) FROM (SELECT 1 FROM \"user\" LIMIT 1) AS one") != 0
        }
    }

    public func addUser(_ user: UserAccount) async throws {
        try await transactions.write { db in
            let taken = try db.integer(
                "SELECT COUNT(*) FROM \"user\" WHERE \(db.dialect.caseless("name")) = \(db.dialect.caseless("?"))",
                [user.name])
            if taken != 0 { throw LibraryError(.invalidRequest, "a user is already called \(user.name)") }
            try db.execute(
                """
                INSERT INTO "user" (id, name, role, passwordHash, libraryFolder, creationDate)
                VALUES (?, ?, ?, ?, ?, ?)
                """,
                [
                    user.id, user.name, user.role.rawValue, user.passwordHash, user.libraryFolder,
                    user.creationDate.timeIntervalSince1970,
                ])
        }
    }

    public func replacePasswordHash(userID: String, with hash: String, revokingSessions: Bool) async throws -> Bool {
        try await transactions.write { db in
            guard
                try !db.rows("UPDATE \"user\" SET passwordHash = ? WHERE id = ? RETURNING id", [hash, userID]).isEmpty
            else { return false }
            if revokingSessions { try db.execute("DELETE FROM session WHERE userId = ?", [userID]) }
            return true
        }
    }

    public func removeUser(id: String) async throws -> Bool {
        try await transactions.write { db in
            try !db.rows("DELETE FROM \"user\" WHERE id = ? RETURNING id", [id]).isEmpty
        }
    }

    // MARK: Sessions

    public func addSession(_ session: SignInSession) async throws {
        try await transactions.write { db in
            try db.execute(
                """
                INSERT INTO session (id, userId, secretHash, creationDate, lastSeenDate, expirationDate, userAgent, address)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    session.id, session.userID, session.secretHash, session.creationDate.timeIntervalSince1970,
                    session.lastSeenDate.timeIntervalSince1970, session.expirationDate.timeIntervalSince1970,
                    session.userAgent, session.address,
                ])
        }
    }

    public func session(secretHash: String) async throws -> (SignInSession, UserAccount)? {
        try await withUser(in: "session", secretHash: secretHash, SQLAccountRows.session)
    }

    /// The row of `table` (sessions, tokens) whose secret has this hash, with its user.
    private func withUser<T: Sendable>(
        in table: String, secretHash: String, _ value: @escaping @Sendable (SQLRow) throws -> T
    ) async throws -> (T, UserAccount)? {
        try await transactions.read { db in
            guard let row = try db.rows("SELECT * FROM \(table) WHERE secretHash = ?", [secretHash]).first,
                let user = try Self.user(id: try row.text("userId"), db)
            else { return nil }
            return (try value(row), user)
        }
    }

    public func sessions(userID: String) async throws -> [SignInSession] {
        try await transactions.read { db in
            try db.rows("SELECT * FROM session WHERE userId = ? ORDER BY lastSeenDate DESC", [userID])
                .map(SQLAccountRows.session)
        }
    }

    public func touchSession(id: String, lastSeen: Date, expires: Date) async throws {
        try await transactions.write { db in
            try db.execute(
                "UPDATE session SET lastSeenDate = ?, expirationDate = ? WHERE id = ?",
                [lastSeen.timeIntervalSince1970, expires.timeIntervalSince1970, id])
        }
    }

    public func removeSession(id: String, userID: String) async throws -> Bool {
        try await transactions.write { db in
            try !db.rows("DELETE FROM session WHERE id = ? AND userId = ? RETURNING id", [id, userID]).isEmpty
        }
    }

    public func removeExpiredSessions(before date: Date) async throws {
        try await transactions.write { db in
            try db.execute("DELETE FROM session WHERE expirationDate < ?", [date.timeIntervalSince1970])
        }
    }

    // MARK: Tokens

    public func addToken(_ token: AccessToken) async throws {
        let limitedTo = try token.limitedTo.map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) }
        try await transactions.write { db in
            try db.execute(
                """
                INSERT INTO token (id, userId, name, secretHash, scope, limitedTo, creationDate, expirationDate, lastUsedDate)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    token.id, token.userID, token.name, token.secretHash, token.scope.rawValue, limitedTo,
                    token.creationDate.timeIntervalSince1970, token.expirationDate?.timeIntervalSince1970,
                    token.lastUsedDate?.timeIntervalSince1970,
                ])
        }
    }

    public func token(secretHash: String) async throws -> (AccessToken, UserAccount)? {
        try await withUser(in: "token", secretHash: secretHash, SQLAccountRows.token)
    }

    public func tokens(userID: String) async throws -> [AccessToken] {
        try await transactions.read { db in
            try db.rows("SELECT * FROM token WHERE userId = ? ORDER BY creationDate", [userID]).map(
                SQLAccountRows.token)
        }
    }

    public func touchToken(id: String, lastUsed: Date) async throws {
        try await transactions.write { db in
            try db.execute("UPDATE token SET lastUsedDate = ? WHERE id = ?", [lastUsed.timeIntervalSince1970, id])
        }
    }

    public func removeToken(id: String, userID: String) async throws -> Bool {
        try await transactions.write { db in
            try !db.rows("DELETE FROM token WHERE id = ? AND userId = ? RETURNING id", [id, userID]).isEmpty
        }
    }

    // MARK: Shares

    public func addShare(_ share: AlbumShare) async throws {
        try await transactions.write { db in
            if let recipient = share.recipientID {
                try db.execute(
                    "DELETE FROM share WHERE albumId = ? AND ownerId = ? AND recipientId = ?",
                    [share.albumIdentifier, share.ownerID, recipient])
            }
            try db.execute(
                """
                INSERT INTO share (id, ownerId, albumId, recipientId, linkKey, permission, passwordHash,
                    expirationDate, creationDate)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    share.id, share.ownerID, share.albumIdentifier, share.recipientID, share.linkKey,
                    share.permission.rawValue, share.passwordHash, share.expirationDate?.timeIntervalSince1970,
                    share.creationDate.timeIntervalSince1970,
                ])
        }
    }

    public func share(id: String) async throws -> (AlbumShare, owner: UserAccount)? {
        try await shareWithOwner(where: "share.id = ?", id)
    }

    public func share(linkKey: String) async throws -> (AlbumShare, owner: UserAccount)? {
        try await shareWithOwner(where: "share.linkKey = ?", linkKey)
    }

    private func shareWithOwner(where condition: String, _ value: String) async throws -> (
        AlbumShare, owner: UserAccount
    )? {
        try await transactions.read { db in
            guard let row = try db.rows("SELECT * FROM share WHERE \(condition)", [value]).first,
                let owner = try Self.user(id: try row.text("ownerId"), db)
            else { return nil }
            return (try SQLAccountRows.share(row), owner)
        }
    }

    public func shares(ownerID: String) async throws -> [AlbumShare] {
        try await transactions.read { db in
            try db.rows("SELECT * FROM share WHERE ownerId = ? ORDER BY creationDate, id", [ownerID])
                .map(SQLAccountRows.share)
        }
    }

    public func shares(recipientID: String) async throws -> [(AlbumShare, owner: UserAccount)] {
        try await transactions.read { db in
            try db.rows("SELECT * FROM share WHERE recipientId = ? ORDER BY creationDate, id", [recipientID])
                .compactMap { row in
                    guard let owner = try Self.user(id: try row.text("ownerId"), db) else { return nil }
                    return (try SQLAccountRows.share(row), owner)
                }
        }
    }

    public func removeShare(id: String, userID: String) async throws -> Bool {
        try await transactions.write { db in
            try !db.rows(
                "DELETE FROM share WHERE id = ? AND (ownerId = ? OR recipientId = ?) RETURNING id",
                [id, userID, userID]
            ).isEmpty
        }
    }
}

/// Account rows as values.
enum SQLAccountRows {
    static func user(_ row: SQLRow) throws -> UserAccount {
        let role = try row.text("role")
        guard let parsed = UserAccount.Role(rawValue: role) else {
            throw LibraryError(.storageFailed, "the accounts database names an unknown role \(role)")
        }
        return UserAccount(
            id: try row.text("id"), name: try row.text("name"), role: parsed,
            passwordHash: try row.text("passwordHash"),
            libraryFolder: try row.text("libraryFolder"), creationDate: try seconds(row, "creationDate"))
    }

    static func session(_ row: SQLRow) throws -> SignInSession {
        SignInSession(
            id: try row.text("id"), userID: try row.text("userId"), secretHash: try row.text("secretHash"),
            creationDate: try seconds(row, "creationDate"), lastSeenDate: try seconds(row, "lastSeenDate"),
            expirationDate: try seconds(row, "expirationDate"), userAgent: try row.text("userAgent"),
            address: try row.text("address"))
    }

    static func token(_ row: SQLRow) throws -> AccessToken {
        let scope = try row.text("scope")
        guard let parsed = AccessToken.Scope(rawValue: scope) else {
            throw LibraryError(.storageFailed, "the accounts database names an unknown scope \(scope)")
        }
        let limitedTo = try row["limitedTo"].text.map { try JSONDecoder().decode([String].self, from: Data($0.utf8)) }
        return AccessToken(
            id: try row.text("id"), userID: try row.text("userId"), name: try row.text("name"),
            secretHash: try row.text("secretHash"), scope: parsed, limitedTo: limitedTo,
            creationDate: try seconds(row, "creationDate"),
            expirationDate: row["expirationDate"].real.map(Date.init(timeIntervalSince1970:)),
            lastUsedDate: row["lastUsedDate"].real.map(Date.init(timeIntervalSince1970:)))
    }

    static func share(_ row: SQLRow) throws -> AlbumShare {
        let permission = try row.text("permission")
        guard let parsed = AlbumShare.Permission(rawValue: permission) else {
            throw LibraryError(.storageFailed, "the accounts database names an unknown permission \(permission)")
        }
        let audience: AlbumShare.Audience
        if let recipient = row["recipientId"].text {
            audience = .user(id: recipient)
        } else if let key = row["linkKey"].text {
            audience = .link(key: key)
        } else {
            throw LibraryError(.storageFailed, "the accounts database holds a share with no one")
        }
        return AlbumShare(
            id: try row.text("id"), ownerID: try row.text("ownerId"), albumIdentifier: try row.text("albumId"),
            audience: audience, permission: parsed, passwordHash: row["passwordHash"].text,
            expirationDate: row["expirationDate"].real.map(Date.init(timeIntervalSince1970:)),
            creationDate: try seconds(row, "creationDate"))
    }

    private static func seconds(_ row: SQLRow, _ column: String) throws -> Date {
        Date(timeIntervalSince1970: try row.real(column))
    }
}
