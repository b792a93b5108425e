import Foundation

/// Where a PostgreSQL catalog is: `postgres://USER@HOST[:PORT]/DATABASE`, or on a Unix socket,
/// `postgres://USER@/DATABASE?host=/run/postgresql`; `?schema=NAME` puts it in a schema of
/// the database (a server's members' libraries beside its own). The password is never in the address (it
/// would be on a command line, in a shell's history and in `ps`): it comes from `PGPASSWORD`
/// or the file `PGPASSFILE` names.
public struct PostgresAddress: Sendable, Equatable, CustomStringConvertible {
    public var user: String
    /// A host name or address; nil with ``socketFolder``.
    public var host: String?
    public var port: Int
    /// The folder holding the server's socket (`.s.PGSQL.PORT`).
    public var socketFolder: String?
    public var database: String
    /// Whether the connection must be encrypted (`sslmode=require`).
    public var requiresTLS: Bool
    /// The schema the catalog's tables are in; nil: the database's default (`public`).
    public var schema: String?

    public init(_ text: String) throws {
        guard let components = URLComponents(string: text),
            components.scheme == "postgres" || components.scheme == "postgresql"
        else {
            throw LibraryError(.storageFailed, "\(text) is not a postgres://USER@HOST/DATABASE address")
        }
        guard components.password == nil else {
            throw LibraryError(
                .storageFailed,
                "a database password does not belong in its address: set PGPASSWORD, or name a password file in PGPASSFILE"
            )
        }
        let database = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        guard let user = components.user, !user.isEmpty, !database.isEmpty, !database.contains("/") else {
            throw LibraryError(.storageFailed, "\(text) names no user or no database (postgres://USER@HOST/DATABASE)")
        }
        var socketFolder: String?
        var requiresTLS = false
        var schema: String?
        for item in components.queryItems ?? [] {
            switch (item.name, item.value) {
            case ("schema", let name?):
                guard Self.isSchemaName(name) else {
                    throw LibraryError(
                        .storageFailed,
                        "\(text): a schema is named by 1 to 40 of a-z, 0-9 and _ (not first a digit), not \(name)")
                }
                schema = name
            case ("host", let folder?) where folder.hasPrefix("/"): socketFolder = folder
            case ("sslmode", "require"), ("sslmode", "verify-full"), ("sslmode", "verify-ca"): requiresTLS = true
            case ("sslmode", _): break
            default:
                throw LibraryError(
                    .storageFailed, "\(text): \(item.name) is not a setting Lightbox reads (host, sslmode, schema)")
            }
        }
        let host = components.host.flatMap { $0.isEmpty ? nil : $0 }
        guard (host == nil) != (socketFolder == nil) else {
            throw LibraryError(.storageFailed, "\(text): give a host, or a socket folder as ?host=/PATH, not both")
        }
        let port = components.port ?? 5432
        guard (1...65535).contains(port) else { throw LibraryError(.storageFailed, "\(text): no such port") }
        self.user = user
        self.host = host
        self.port = port
        self.socketFolder = socketFolder
        self.database = database
        self.requiresTLS = requiresTLS
        self.schema = schema
    }

    /// Whether `name` may name a schema: lower-case letters, digits and `_`, not first a digit;
    /// at most 40, so that its commits' channel (``PostgresStore/changeChannel``, a colon and
    /// the schema) stays within PostgreSQL's 63 bytes.
    static func isSchemaName(_ name: String) -> Bool {
        (1...40).contains(name.utf8.count)
            && name.utf8.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x5F }
            && !(0x30...0x39).contains(name.utf8.first!)
    }

    /// The same database, another schema.
    public func schema(_ name: String) -> PostgresAddress {
        var other = self
        other.schema = name
        return other
    }

    /// The same server, another database (tests make one per library).
    public func database(_ name: String) -> PostgresAddress {
        var other = self
        other.database = name
        return other
    }

    /// The address as text, read back as the same address (a socket's port too, when not the
    /// default: it names the socket file).
    public var description: String {
        var settings: [String] = []
        if let socketFolder { settings.append("host=\(socketFolder)") }
        if requiresTLS { settings.append("sslmode=require") }
        if let schema { settings.append("schema=\(schema)") }
        let query = settings.isEmpty ? "" : "?" + settings.joined(separator: "&")
        if socketFolder != nil {
            let port = port == 5432 ? "" : ":\(port)"
            return "postgres://\(user)@\(port)/\(database)" + query
        }
        return "postgres://\(user)@\(host ?? ""):\(port)/\(database)" + query
    }

    /// The password the environment gives: `PGPASSWORD`, else the first line of `PGPASSFILE`
    /// that matches (`host:port:database:user:password`, `*` for any), as libpq reads it.
    func password(environment: [String: String]) -> String? {
        if let password = environment["PGPASSWORD"] { return password }
        guard let file = environment["PGPASSFILE"],
            let bytes = try? FileIO.contents(ofFileAt: file, limit: 1 << 20)
        else { return nil }
        let hostName = socketFolder ?? host ?? ""
        for line in String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isNewline) {
            let fields = line.split(separator: ":", maxSplits: 4, omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 5, !fields[0].hasPrefix("#") else { continue }
            let wanted = [hostName, String(port), database, user]
            if zip(fields.prefix(4), wanted).allSatisfy({ $0 == "*" || $0 == $1 }) { return fields[4] }
        }
        return nil
    }
}
