import Foundation
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import PostgresNIO

/// One connection to a PostgreSQL server, used by one thread at a time: each call blocks its
/// caller until the server has answered (the protocol runs on SwiftNIO's event loops), so call
/// it from threads of blocking work, never from an event loop, as the SQLite store's are.
///
/// Statements are written with `?` placeholders, as for SQLite; they become `$1`, `$2`... here.
final class PostgresLink: Sendable {
    let address: PostgresAddress
    private let connection: PostgresConnection
    private static let logger = Logger(label: "lightbox.postgres")

    /// A statement the server refused: its SQLSTATE (`23505`: a unique constraint) and message.
    struct Failure: Error, CustomStringConvertible {
        var sqlState: String?
        var message: String
        var statement: String

        var description: String { "\(message) (\(sqlState ?? "no SQLSTATE")) in: \(statement.prefix(200))" }

        /// A unique or primary-key constraint stopped an insert.
        var isUniqueViolation: Bool { sqlState == "23505" }
        /// Repeatable read or serializable could not keep its promise: the transaction may be
        /// tried again.
        var isSerializationFailure: Bool { sqlState == "40001" || sqlState == "40P01" }
    }

    private init(address: PostgresAddress, connection: PostgresConnection) {
        self.address = address
        self.connection = connection
    }

    /// Connects, with the password from the environment; throws a ``LibraryError`` naming the
    /// server when it cannot.
    static func connect(
        to address: PostgresAddress, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> PostgresLink {
        let password = address.password(environment: environment)
        var configuration: PostgresConnection.Configuration
        if let folder = address.socketFolder {
            configuration = .init(
                unixSocketPath: folder + "/.s.PGSQL.\(address.port)", username: address.user, password: password,
                database: address.database)
        } else {
            let tls: PostgresConnection.Configuration.TLS
            if address.requiresTLS {
                do {
                    tls = .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
                } catch {
                    throw LibraryError(.storageFailed, "cannot set up TLS for \(address): \(error)", underlying: error)
                }
            } else {
                tls = .disable
            }
            configuration = .init(
                host: address.host ?? "localhost", port: address.port, username: address.user, password: password,
                database: address.database, tls: tls)
        }
        configuration.options.connectTimeout = .seconds(10)
        // No JIT compiling of the catalog's statements: they are short reads of a page, whose
        // estimates over a million rows pass jit_above_cost, and compiling took longer than
        // running (docs/BENCHMARKS.md, People).
        configuration.options.additionalStartupParameters = [("jit", "off")]
        do {
            let connection = try PostgresConnection.connect(
                on: MultiThreadedEventLoopGroup.singleton.any(), configuration: configuration,
                id: Int.random(in: 0..<Int.max), logger: logger
            ).wait()
            let link = PostgresLink(address: address, connection: connection)
            // The schema need not exist yet: the catalog's first step makes it.
            if let schema = address.schema { try link.execute("SET search_path TO \(identifier(schema))") }
            return link
        } catch {
            throw LibraryError(
                .storageFailed, "cannot connect to the catalog at \(address): \(Self.describe(error))",
                underlying: error)
        }
    }

    deinit {
        // The connection is kept until it has closed: PostgresNIO asserts it is never let go open.
        let connection = self.connection
        let closing: EventLoopFuture<Void> = connection.close()
        closing.whenComplete { _ in withExtendedLifetime(connection) {} }
    }

    /// Closes the connection now, without waiting: the server rolls back a transaction left
    /// open on it.
    func close() {
        let closing: EventLoopFuture<Void> = connection.close()
        _ = closing
    }

    /// Whether the connection has closed (the server went away, or the network): it can run
    /// nothing more.
    var isClosed: Bool { connection.isClosed }

    /// Runs a statement; answers how many rows it changed.
    @discardableResult
    func execute(_ sql: String, _ arguments: [SQLValue] = []) throws -> Int {
        try run(sql, arguments) { _ in }.rows ?? 0
    }

    /// Every row a query gives, each a list of its columns' values in order.
    func rows(_ sql: String, _ arguments: [SQLValue] = []) throws -> [[SQLValue]] {
        try namedRows(sql, arguments).1
    }

    /// The column names of a query's answer, and its rows (none: no names either).
    func namedRows(_ sql: String, _ arguments: [SQLValue] = []) throws -> ([String], [[SQLValue]]) {
        let answer = Answer<([String], [[SQLValue]])>(([], []))
        try run(sql, arguments) { row in
            if answer.value.1.isEmpty { answer.value.0 = row.map(\.columnName) }
            answer.value.1.append(row.map(Self.value))
        }
        return answer.value
    }

    /// The first column of every row as integers, NULLs left out: decoded straight from the
    /// cells, for fetch results' row ids.
    func integers(_ sql: String, _ arguments: [SQLValue] = []) throws -> [Int64] {
        let answer = Answer<[Int64]>([])
        try run(sql, arguments) { row in
            guard let cell = row.first, cell.bytes != nil, let value = try? cell.decode(Int64.self) else { return }
            answer.value.append(value)
        }
        return answer.value
    }

    /// The runs of rows taken on the same local day, from a query giving each row's stored
    /// `creationDate`, its `creationTimeZoneOffset`, `pixelWidth` and `pixelHeight` in order
    /// (the sizes kept when `aspectRatios`): read from the cells' bytes as they arrive (a
    /// timeline over a million assets reads them all).
    func creationDays(_ sql: String, _ arguments: [SQLValue], aspectRatios: Bool) throws -> [AssetDay] {
        let answer = Answer<(runs: AssetDay.Runs, unreadable: Bool)>((AssetDay.Runs(aspectRatios: aspectRatios), false))
        try run(sql, arguments) { row in
            var cells = row.makeIterator()
            guard let dateCell = cells.next(), let offsetCell = cells.next(), let widthCell = cells.next(),
                let heightCell = cells.next(), let bytes = dateCell.bytes,
                let date = StoredDate.parse(bytes: bytes.readableBytesView)
            else {
                answer.value.unreadable = true
                return
            }
            func integer(_ cell: PostgresCell) -> Int64 {
                cell.bytes == nil ? 0 : (try? cell.decode(Int64.self)) ?? 0
            }
            answer.value.runs.add(
                AssetDay.dayNumber(date, offsetSeconds: Int(clamping: integer(offsetCell))),
                width: integer(widthCell), height: integer(heightCell))
        }
        guard !answer.value.unreadable else {
            throw LibraryError(.storageFailed, "an asset's creationDate is not a stored date")
        }
        return answer.value.runs.finish()
    }

    /// The first column of the first row; nil when there is no row.
    func value(_ sql: String, _ arguments: [SQLValue] = []) throws -> SQLValue? {
        try rows(sql, arguments).first?.first
    }

    /// How a transaction sees what others commit meanwhile.
    enum Isolation: String {
        /// Each statement sees what was committed when it started: writes.
        case readCommitted = "READ COMMITTED"
        /// Every statement sees the state of the first one: reads of one state, snapshots of
        /// fetch results.
        case repeatableRead = "REPEATABLE READ"
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    @discardableResult
    func transaction<T>(_ isolation: Isolation = .readCommitted, readOnly: Bool = false, _ body: () throws -> T)
        throws -> T
    {
        try execute("BEGIN ISOLATION LEVEL \(isolation.rawValue)" + (readOnly ? " READ ONLY" : ""))
        let result: T
        do {
            result = try body()
        } catch {
            _ = try? execute("ROLLBACK")
            throw error
        }
        try execute("COMMIT")
        return result
    }

    /// Calls `handler` with the payload of every `NOTIFY` on `channel` (from any connection,
    /// on any machine), on an event loop: it must not block. Stops when the link goes.
    func listen(_ channel: String, _ handler: @escaping @Sendable (String) -> Void) throws {
        connection.addListener(channel: channel) { _, notification in handler(notification.payload) }
        try execute("LISTEN \(Self.identifier(channel))")
    }

    /// A name quoted as an identifier.
    static func identifier(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    // MARK: Statements

    /// What a statement's rows build, on the event loop that reads them, for the caller blocked
    /// until the statement ends: the future's completion orders the writes before its reads.
    private final class Answer<Value>: @unchecked Sendable {
        var value: Value
        init(_ value: Value) { self.value = value }
    }

    /// Runs a statement, handing each row to `each` as it arrives (on an event loop); answers
    /// its metadata once every row has. Rows are not gathered first: PostgresNIO gathers them
    /// by copying what it has gathered at each read, time growing with the square of the rows.
    @discardableResult
    private func run(
        _ sql: String, _ arguments: [SQLValue], each: @escaping @Sendable (PostgresRow) -> Void
    ) throws -> PostgresQueryMetadata {
        let text = Self.numberingPlaceholders(sql)
        var binds = PostgresBindings(capacity: arguments.count)
        do {
            for argument in arguments {
                switch argument {
                case .null: binds.appendNull()
                case .integer(let value): binds.append(value)
                case .real(let value): binds.append(value)
                case .text(let value): binds.append(value)
                case .blob(let value): binds.append(ByteBuffer(bytes: value))
                }
            }
            return try connection.query(PostgresQuery(unsafeSQL: text, binds: binds), logger: Self.logger, each).wait()
        } catch let error as PSQLError {
            throw Failure(sqlState: error.serverInfo?[.sqlState], message: Self.describe(error), statement: sql)
        } catch {
            throw Failure(sqlState: nil, message: Self.describe(error), statement: sql)
        }
    }

    /// `?` placeholders as `$1`, `$2`..., those in quoted strings and identifiers left alone.
    static func numberingPlaceholders(_ sql: String) -> String {
        var out = ""
        out.reserveCapacity(sql.utf8.count + 16)
        var number = 0
        var quote: Character?
        for character in sql {
            if let open = quote {
                if character == open { quote = nil }
                out.append(character)
            } else if character == "'" || character == "\"" {
                quote = character
                out.append(character)
            } else if character == "?" {
                number += 1
                out += "$\(number)"
            } else {
                out.append(character)
            }
        }
        return out
    }

    private static func value(_ cell: PostgresCell) -> SQLValue {
        guard cell.bytes != nil else { return .null }
        switch cell.dataType {
        case .int2, .int4, .int8, .oid:
            return (try? cell.decode(Int64.self)).map(SQLValue.integer) ?? .null
        case .float4, .float8:
            return (try? cell.decode(Double.self)).map(SQLValue.real) ?? .null
        case .numeric:
            // A sum of integers: an integer again while it is whole and fits.
            guard let decimal = try? cell.decode(Decimal.self) else { return .null }
            let text = "\(decimal)"
            if let integer = Int64(text) { return .integer(integer) }
            return Double(text).map(SQLValue.real) ?? .null
        case .bool:
            return (try? cell.decode(Bool.self)).map { .integer($0 ? 1 : 0) } ?? .null
        case .bytea:
            return (try? cell.decode(ByteBuffer.self)).map { .blob(Array($0.readableBytesView)) } ?? .null
        default:
            return (try? cell.decode(String.self)).map(SQLValue.text) ?? .null
        }
    }

    /// The server's own message for a statement it refused, else the error's description.
    static func describe(_ error: any Error) -> String {
        guard let error = error as? PSQLError else { return "\(error)" }
        if let message = error.serverInfo?[.message] { return message }
        return String(describing: error.code)
    }
}
