import Foundation
import GRDB

/// The server's accounts in a SQLite file of their own (`accounts.sqlite` in the server's
/// library folder): a sign-in or a token check never waits behind an import's write.
///
/// Names are unique without case and sessions and tokens go with their user, in the schema.
/// Dates are stored as seconds since 1970.
public struct SQLiteAccountStore: AccountStore {
    /// The file's name inside the library folder.
    public static let filename = "accounts.sqlite"

    private let pool: DatabasePool

    /// Opens (creating when missing) and migrates the accounts of the library at `libraryURL`.
    public init(libraryURL: URL) throws {
        let path = libraryURL.standardizedFileURL.path + "/" + Self.filename
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.label = "Lightbox accounts"
        configuration.busyMode = .timeout(10)
        do {
            let lock = try SQLiteStore.lockMigrations(path)
            defer { close(lock) }
            pool = try DatabasePool(path: path, configuration: configuration)
            try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
            let migrator = Self.migrator
            try pool.read { db in
                let unknown = try migrator.appliedIdentifiers(db).subtracting(Set(migrator.migrations))
                if !unknown.isEmpty {
                    throw LibraryError(
                        .newerLibraryVersion,
                        "the accounts were written by a newer version of Lightbox (\(unknown.sorted().joined(separator: ", ")))",
                        path: path)
                }
            }
            try migrator.migrate(pool)
        } catch let error as LibraryError {
            throw error
        } catch {
            throw LibraryError(
                .storageFailed, "cannot open the accounts database: \(error)", path: path, underlying: error)
        }
    }

    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: users, sessions, tokens") { db in
            try db.execute(
                sql: """
                    CREATE TABLE user (
                        id TEXT PRIMARY KEY NOT NULL,
                        name TEXT NOT NULL UNIQUE COLLATE NOCASE CHECK (length(name) BETWEEN 1 AND 64),
                        role TEXT NOT NULL CHECK (role IN ('admin', 'member')),
                        passwordHash TEXT NOT NULL,
                        libraryFolder TEXT NOT NULL UNIQUE,
                        creationDate REAL NOT NULL
                    );
                    CREATE TABLE session (
                        id TEXT PRIMARY KEY NOT NULL,
                        userId TEXT NOT NULL REFERENCES user(id) ON DELETE CASCADE,
                        secretHash TEXT NOT NULL UNIQUE,
                        creationDate REAL NOT NULL,
                        lastSeenDate REAL NOT NULL,
                        expirationDate REAL NOT NULL,
                        userAgent TEXT NOT NULL,
                        address TEXT NOT NULL
                    );
                    CREATE INDEX sessionByUser ON session(userId);
                    CREATE TABLE token (
                        id TEXT PRIMARY KEY NOT NULL,
                        userId TEXT NOT NULL REFERENCES user(id) ON DELETE CASCADE,
                        name TEXT NOT NULL,
                        secretHash TEXT NOT NULL UNIQUE,
                        scope TEXT NOT NULL CHECK (scope IN ('read', 'write')),
                        limitedTo TEXT,
                        creationDate REAL NOT NULL,
                        expirationDate REAL,
                        lastUsedDate REAL
                    );
                    CREATE INDEX tokenByUser ON token(userId);
                    """)
        }
        migrator.registerMigration("v2: shared albums and links") { db in
            try db.execute(
                sql: """
                    CREATE TABLE share (
                        id TEXT PRIMARY KEY NOT NULL,
                        ownerId TEXT NOT NULL REFERENCES user(id) ON DELETE CASCADE,
                        albumId TEXT NOT NULL,
                        recipientId TEXT REFERENCES user(id) ON DELETE CASCADE,
                        linkKey TEXT UNIQUE,
                        permission TEXT NOT NULL CHECK (permission IN ('view', 'contribute')),
                        passwordHash TEXT,
                        expirationDate REAL,
                        creationDate REAL NOT NULL,
                        CHECK ((recipientId IS NULL) != (linkKey IS NULL)),
                        CHECK (linkKey IS NULL OR permission = 'view'),
                        UNIQUE (albumId, ownerId, recipientId)
                    );
                    CREATE INDEX shareByOwner ON share(ownerId);
                    CREATE INDEX shareByRecipient ON share(recipientId);
                    """)
        }
        return migrator
    }

    // MARK: Users

    public func users() async throws -> [UserAccount] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM user ORDER BY creationDate, name").map(Self.user)
        }
    }

    public func user(named name: String) async throws -> UserAccount? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM user WHERE name = ?", arguments: [name]).map(Self.user)
        }
    }

    public func user(id: String) async throws -> UserAccount? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM user WHERE id = ?", arguments: [id]).map(Self.user)
        }
    }

    public func hasUsers() async throws -> Bool {
        try await pool.read { db in try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM user)") ?? false }
    }

    public func addUser(_ user: UserAccount) async throws {
        try await pool.write { db in
            if try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM user WHERE name = ?)", arguments: [user.name])
                == true
            {
                throw LibraryError(.invalidRequest, "a user is already called \(user.name)")
            }
            try db.execute(
                sql: """
                    INSERT INTO user (id, name, role, passwordHash, libraryFolder, creationDate)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    user.id, user.name, user.role.rawValue, user.passwordHash, user.libraryFolder,
                    user.creationDate.timeIntervalSince1970,
                ])
        }
    }

    public func replacePasswordHash(userID: String, with hash: String, revokingSessions: Bool) async throws -> Bool {
        try await pool.write { db in
            try db.execute(sql: "UPDATE user SET passwordHash = ? WHERE id = ?", arguments: [hash, userID])
            guard db.changesCount == 1 else { return false }
            if revokingSessions {
                try db.execute(sql: "DELETE FROM session WHERE userId = ?", arguments: [userID])
            }
            return true
        }
    }

    public func removeUser(id: String) async throws -> Bool {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM user WHERE id = ?", arguments: [id])
            return db.changesCount == 1
        }
    }

    // MARK: Sessions

    public func addSession(_ session: SignInSession) async throws {
        try await pool.write { db in
            try db.execute(
                sql: """
                    INSERT INTO session (id, userId, secretHash, creationDate, lastSeenDate, expirationDate, userAgent, address)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    session.id, session.userID, session.secretHash, session.creationDate.timeIntervalSince1970,
                    session.lastSeenDate.timeIntervalSince1970, session.expirationDate.timeIntervalSince1970,
                    session.userAgent, session.address,
                ])
        }
    }

    public func session(secretHash: String) async throws -> (SignInSession, UserAccount)? {
        try await pool.read { db in
            guard
                let row = try Row.fetchOne(
                    db, sql: "SELECT * FROM session WHERE secretHash = ?", arguments: [secretHash]),
                let user = try Row.fetchOne(db, sql: "SELECT * FROM user WHERE id = ?", arguments: [row["userId"]])
            else { return nil }
            return (Self.session(row), try Self.user(user))
        }
    }

    public func sessions(userID: String) async throws -> [SignInSession] {
        try await pool.read { db in
            try Row.fetchAll(
                db, sql: "SELECT * FROM session WHERE userId = ? ORDER BY lastSeenDate DESC", arguments: [userID]
            ).map(Self.session)
        }
    }

    public func touchSession(id: String, lastSeen: Date, expires: Date) async throws {
        try await pool.write { db in
            try db.execute(
                sql: "UPDATE session SET lastSeenDate = ?, expirationDate = ? WHERE id = ?",
                arguments: [lastSeen.timeIntervalSince1970, expires.timeIntervalSince1970, id])
        }
    }

    public func removeSession(id: String, userID: String) async throws -> Bool {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM session WHERE id = ? AND userId = ?", arguments: [id, userID])
            return db.changesCount == 1
        }
    }

    public func removeExpiredSessions(before date: Date) async throws {
        try await pool.write { db in
            try db.execute(
                sql: "DELETE FROM session WHERE expirationDate < ?", arguments: [date.timeIntervalSince1970])
        }
    }

    // MARK: Tokens

    public func addToken(_ token: AccessToken) async throws {
        let limitedTo = try token.limitedTo.map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) }
        try await pool.write { db in
            try db.execute(
                sql: """
                    INSERT INTO token (id, userId, name, secretHash, scope, limitedTo, creationDate, expirationDate, lastUsedDate)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    token.id, token.userID, token.name, token.secretHash, token.scope.rawValue, limitedTo,
                    token.creationDate.timeIntervalSince1970, token.expirationDate?.timeIntervalSince1970,
                    token.lastUsedDate?.timeIntervalSince1970,
                ])
        }
    }

    public func token(secretHash: String) async throws -> (AccessToken, UserAccount)? {
        try await pool.read { db in
            guard
                let row = try Row.fetchOne(
                    db, sql: "SELECT * FROM token WHERE secretHash = ?", arguments: [secretHash]),
                let user = try Row.fetchOne(db, sql: "SELECT * FROM user WHERE id = ?", arguments: [row["userId"]])
            else { return nil }
            return (try Self.token(row), try Self.user(user))
        }
    }

    public func tokens(userID: String) async throws -> [AccessToken] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM token WHERE userId = ? ORDER BY creationDate", arguments: [userID])
                .map(Self.token)
        }
    }

    public func touchToken(id: String, lastUsed: Date) async throws {
        try await pool.write { db in
            try db.execute(
                sql: "UPDATE token SET lastUsedDate = ? WHERE id = ?", arguments: [lastUsed.timeIntervalSince1970, id])
        }
    }

    public func removeToken(id: String, userID: String) async throws -> Bool {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM token WHERE id = ? AND userId = ?", arguments: [id, userID])
            return db.changesCount == 1
        }
    }

    // MARK: Shares

    public func addShare(_ share: AlbumShare) async throws {
        try await pool.write { db in
            if let recipient = share.recipientID {
                try db.execute(
                    sql: "DELETE FROM share WHERE albumId = ? AND ownerId = ? AND recipientId = ?",
                    arguments: [share.albumIdentifier, share.ownerID, recipient])
            }
            try db.execute(
                sql: """
                    INSERT INTO share (id, ownerId, albumId, recipientId, linkKey, permission, passwordHash,
                        expirationDate, creationDate)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
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
        try await pool.read { db in
            guard
                let row = try Row.fetchOne(db, sql: "SELECT * FROM share WHERE \(condition)", arguments: [value]),
                let owner = try Row.fetchOne(db, sql: "SELECT * FROM user WHERE id = ?", arguments: [row["ownerId"]])
            else { return nil }
            return (try Self.share(row), try Self.user(owner))
        }
    }

    public func shares(ownerID: String) async throws -> [AlbumShare] {
        try await pool.read { db in
            try Row.fetchAll(
                db, sql: "SELECT * FROM share WHERE ownerId = ? ORDER BY creationDate, id", arguments: [ownerID]
            ).map(Self.share)
        }
    }

    public func shares(recipientID: String) async throws -> [(AlbumShare, owner: UserAccount)] {
        try await pool.read { db in
            let rows = try Row.fetchAll(
                db, sql: "SELECT * FROM share WHERE recipientId = ? ORDER BY creationDate, id",
                arguments: [recipientID])
            return try rows.compactMap { row in
                guard
                    let owner = try Row.fetchOne(
                        db, sql: "SELECT * FROM user WHERE id = ?", arguments: [row["ownerId"]])
                else { return nil }
                return (try Self.share(row), try Self.user(owner))
            }
        }
    }

    public func removeShare(id: String, userID: String) async throws -> Bool {
        try await pool.write { db in
            try db.execute(
                sql: "DELETE FROM share WHERE id = ? AND (ownerId = ? OR recipientId = ?)",
                arguments: [id, userID, userID])
            return db.changesCount == 1
        }
    }

    // MARK: Rows

    private static func user(_ row: Row) throws -> UserAccount {
        let role: String = row["role"]
        guard let parsed = UserAccount.Role(rawValue: role) else {
            throw LibraryError(.storageFailed, "the accounts database names an unknown role \(role)")
        }
        return UserAccount(
            id: row["id"], name: row["name"], role: parsed, passwordHash: row["passwordHash"],
            libraryFolder: row["libraryFolder"], creationDate: Date(timeIntervalSince1970: row["creationDate"]))
    }

    private static func session(_ row: Row) -> SignInSession {
        SignInSession(
            id: row["id"], userID: row["userId"], secretHash: row["secretHash"],
            creationDate: Date(timeIntervalSince1970: row["creationDate"]),
            lastSeenDate: Date(timeIntervalSince1970: row["lastSeenDate"]),
            expirationDate: Date(timeIntervalSince1970: row["expirationDate"]), userAgent: row["userAgent"],
            address: row["address"])
    }

    private static func token(_ row: Row) throws -> AccessToken {
        let scope: String = row["scope"]
        guard let parsed = AccessToken.Scope(rawValue: scope) else {
            throw LibraryError(.storageFailed, "the accounts database names an unknown scope \(scope)")
        }
        let limitedTo = try (row["limitedTo"] as String?).map {
            try JSONDecoder().decode([String].self, from: Data($0.utf8))
        }
        return AccessToken(
            id: row["id"], userID: row["userId"], name: row["name"], secretHash: row["secretHash"], scope: parsed,
            limitedTo: limitedTo, creationDate: Date(timeIntervalSince1970: row["creationDate"]),
            expirationDate: (row["expirationDate"] as Double?).map(Date.init(timeIntervalSince1970:)),
            lastUsedDate: (row["lastUsedDate"] as Double?).map(Date.init(timeIntervalSince1970:)))
    }

    private static func share(_ row: Row) throws -> AlbumShare {
        let permission: String = row["permission"]
        guard let parsed = AlbumShare.Permission(rawValue: permission) else {
            throw LibraryError(.storageFailed, "the accounts database names an unknown permission \(permission)")
        }
        let audience: AlbumShare.Audience
        if let recipient = row["recipientId"] as String? {
            audience = .user(id: recipient)
        } else if let key = row["linkKey"] as String? {
            audience = .link(key: key)
        } else {
            throw LibraryError(.storageFailed, "the accounts database holds a share with no one")
        }
        return AlbumShare(
            id: row["id"], ownerID: row["ownerId"], albumIdentifier: row["albumId"], audience: audience,
            permission: parsed, passwordHash: row["passwordHash"],
            expirationDate: (row["expirationDate"] as Double?).map(Date.init(timeIntervalSince1970:)),
            creationDate: Date(timeIntervalSince1970: row["creationDate"]))
    }
}
