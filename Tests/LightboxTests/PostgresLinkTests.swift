import Foundation
import LightboxTestSupport
import Synchronization
import Testing

@testable import Lightbox
@testable import LightboxStore

@Suite("PostgreSQL addresses")
struct PostgresAddressTests {
    @Test("Addresses on a socket or a host are read; a password in one, or an unknown setting, is refused")
    func addresses() throws {
        let socket = try PostgresAddress("postgres://lightbox@/photos?host=/run/postgresql")
        #expect(socket.socketFolder == "/run/postgresql" && socket.host == nil && socket.database == "photos")
        #expect(socket.port == 5432 && socket.user == "lightbox")
        let host = try PostgresAddress("postgresql://app@db.example.net:6543/library?sslmode=require")
        #expect(host.host == "db.example.net" && host.port == 6543 && host.requiresTLS)
        #expect(host.database("other").database == "other")
        // Written out and read back, a socket's port and all.
        let otherPort = try PostgresAddress("postgres://lightbox@:5433/photos?host=/run/postgresql")
        #expect(otherPort.port == 5433 && otherPort.socketFolder == "/run/postgresql")
        // A schema of the database: a member's library beside the server's own.
        let member = try PostgresAddress("postgres://lightbox@/photos?host=/run/postgresql&schema=m_0af3")
        #expect(member.schema == "m_0af3" && member != socket && member == socket.schema("m_0af3"))
        #expect(
            host.schema("m_1").description == "postgres://app@db.example.net:6543/library?sslmode=require&schema=m_1")
        for address in [socket, host, otherPort, member, host.schema("m_1")] {
            #expect(try PostgresAddress(address.description) == address, "\(address)")
        }
        let password = try #require(throws: LibraryError.self) {
            try PostgresAddress("postgres://app:secret@db/library")
        }
        #expect(password.message.contains("PGPASSWORD") && !password.message.contains("secret"))
        for bad in [
            "mysql://app@db/library", "postgres://db/library", "postgres://app@db/", "postgres://app@db/a?port=1",
            "postgres://app@/library", "postgres://app@db/library?host=/socket", "postgres://app@db:70000/library",
            "postgres://app@db/library?schema=Public", "postgres://app@db/library?schema=1a",
            "postgres://app@db/library?schema=a;drop",
            "postgres://app@db/library?schema=" + String(repeating: "a", count: 41),
        ] {
            #expect(throws: LibraryError.self, "\(bad)") { try PostgresAddress(bad) }
        }
    }

    @Test("The password comes from PGPASSWORD, else the first matching line of PGPASSFILE")
    func passwords() throws {
        let address = try PostgresAddress("postgres://app@db.example.net/library")
        #expect(address.password(environment: ["PGPASSWORD": "one"]) == "one")
        let folder = try TemporaryDirectory()
        let file = folder.path("pgpass")
        try Data(
            """
            # host:port:database:user:password
            other.example.net:5432:library:app:wrong
            db.example.net:5432:*:app:right:with:colons
            *:*:*:*:fallback
            """.utf8
        ).write(to: URL(fileURLWithPath: file))
        #expect(address.password(environment: ["PGPASSFILE": file]) == "right:with:colons")
        #expect(address.database("x").password(environment: ["PGPASSFILE": file]) == "right:with:colons")
        #expect(try PostgresAddress("postgres://b@h/d").password(environment: ["PGPASSFILE": file]) == "fallback")
        #expect(address.password(environment: [:]) == nil)
    }

    @Test("? placeholders are numbered, those in quotes left alone")
    func placeholders() {
        #expect(
            PostgresLink.numberingPlaceholders("SELECT ? , '?', \"a?\" FROM t WHERE x = ? AND y = 'it''s ?' AND z = ?")
                == "SELECT $1 , '?', \"a?\" FROM t WHERE x = $2 AND y = 'it''s ?' AND z = $3")
    }
}

/// The connection the PostgreSQL catalog is built on, against a real server (scripts/services).
@Suite("PostgreSQL connections", .enabled(if: Services.postgresEnabled))
struct PostgresLinkTests {
    /// A new database of its own on the test server, and a link to it.
    static func database() throws -> (PostgresAddress, PostgresLink) {
        let address = try PostgresAddress(try Services.makePostgresDatabase())
        return (address, try PostgresLink.connect(to: address))
    }

    @Test("Values go in and come back as they were: integers, reals, text, bytes, nulls")
    func values() throws {
        let (_, link) = try Self.database()
        try link.execute("CREATE TABLE t (i BIGINT, r DOUBLE PRECISION, s TEXT, b BYTEA, n TEXT)")
        let values: [SQLValue] = [
            .integer(Int64.max), .real(-1.5e300), .text("Été 📷 '?' \"x\""), .blob([0, 255, 1, 2]), .null,
        ]
        #expect(try link.execute("INSERT INTO t VALUES (?, ?, ?, ?, ?)", values) == 1)
        #expect(try link.rows("SELECT i, r, s, b, n FROM t") == [values])
        #expect(try link.value("SELECT count(*) FROM t WHERE s = ?", [.text("Été 📷 '?' \"x\"")]) == .integer(1))
        #expect(try link.value("SELECT 1 = 1") == .integer(1))
        #expect(try link.value("SELECT s FROM t WHERE i = 0") == nil)
    }

    @Test("A transaction that throws leaves nothing; a refused statement names its SQLSTATE")
    func transactions() throws {
        let (_, link) = try Self.database()
        try link.execute("CREATE TABLE t (k TEXT PRIMARY KEY)")
        struct Stop: Error {}
        #expect(throws: Stop.self) {
            try link.transaction {
                try link.execute("INSERT INTO t VALUES ('a')")
                throw Stop()
            }
        }
        #expect(try link.value("SELECT count(*) FROM t") == .integer(0))
        try link.transaction { try link.execute("INSERT INTO t VALUES ('a')") }
        let duplicate = try #require(throws: PostgresLink.Failure.self) {
            try link.execute("INSERT INTO t VALUES ('a')")
        }
        #expect(duplicate.isUniqueViolation)
        // The link is usable after a refusal.
        #expect(try link.value("SELECT count(*) FROM t") == .integer(1))
    }

    @Test("A repeatable-read transaction reads one state while another connection commits")
    func snapshots() throws {
        let (address, link) = try Self.database()
        try link.execute("CREATE TABLE t (k BIGINT)")
        try link.execute("INSERT INTO t VALUES (1)")
        let other = try PostgresLink.connect(to: address)
        try link.transaction(.repeatableRead, readOnly: true) {
            #expect(try link.value("SELECT count(*) FROM t") == .integer(1))
            try other.execute("INSERT INTO t VALUES (2)")
            #expect(try link.value("SELECT count(*) FROM t") == .integer(1), "the same state")
        }
        #expect(try link.value("SELECT count(*) FROM t") == .integer(2))
    }

    @Test("NOTIFY reaches a listener on another connection once its transaction commits")
    func notifications() throws {
        let (address, listener) = try Self.database()
        let received = Mutex<[String]>([])
        try listener.listen("lightbox changes") { payload in received.withLock { $0.append(payload) } }
        let sender = try PostgresLink.connect(to: address)
        try sender.transaction {
            try sender.execute("SELECT pg_notify(?, ?)", [.text("lightbox changes"), .text("token 7")])
            // Not before the commit.
            Thread.sleep(forTimeInterval: 0.3)
            #expect(received.withLock { $0 }.isEmpty)
        }
        // Delivered as the listener's connection reads; a query makes it read.
        var waited = 0
        while received.withLock({ $0 }).isEmpty && waited < 100 {
            _ = try listener.value("SELECT 1")
            Thread.sleep(forTimeInterval: 0.05)
            waited += 1
        }
        #expect(received.withLock { $0 } == ["token 7"])
    }

    @Test("FOR UPDATE SKIP LOCKED: two connections taking a job each take a different one")
    func skipLocked() throws {
        let (address, first) = try Self.database()
        try first.execute("CREATE TABLE job (id BIGINT PRIMARY KEY)")
        try first.execute("INSERT INTO job SELECT generate_series(1, 3)")
        let second = try PostgresLink.connect(to: address)
        let take = "SELECT id FROM job ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED"
        try first.transaction {
            let one = try first.value(take)
            let two = try second.transaction { try second.value(take) }
            #expect(one == .integer(1))
            #expect(two == .integer(2), "the first's row is locked: the second skips it")
        }
    }
}
