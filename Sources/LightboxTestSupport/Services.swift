import Foundation
import Lightbox
import Logging
import NIOPosix
import PostgresNIO
import Testing

/// The servers `scripts/services` starts for the tests (`make test` runs the tests under it).
public enum Services {
    /// The S3-compatible server's address; nil when the tests run without it.
    public static var s3: URL? {
        ProcessInfo.processInfo.environment["LIGHTBOX_TEST_S3"].flatMap(URL.init(string:))
    }

    /// The PostgreSQL server's address (`postgres://lightbox@/postgres?host=SOCKET_FOLDER`); nil
    /// when the tests run without it.
    public static var postgres: String? {
        ProcessInfo.processInfo.environment["LIGHTBOX_TEST_POSTGRES"]
    }

    /// Whether a test needing PostgreSQL runs (see ``s3Enabled``).
    public static var postgresEnabled: Bool { postgres != nil || required }

    /// The PostgreSQL server's address, or an error saying how to start it.
    public static func requirePostgres() throws -> String {
        guard let postgres else { throw Missing(service: "a PostgreSQL server") }
        return postgres
    }

    /// Whether a missing server fails the test rather than skipping it (under `make test`).
    public static var required: Bool {
        ProcessInfo.processInfo.environment["LIGHTBOX_TEST_SERVICES"] == "required"
    }

    /// Whether a test needing the S3 server runs: it does when the server is there, and when
    /// it is required (to fail, saying so).
    public static var s3Enabled: Bool { s3 != nil || required }

    /// The server's address, or an error saying how to start it.
    public static func requireS3() throws -> URL {
        guard let s3 else { throw Missing(service: "an S3 server") }
        return s3
    }

    /// The Python beside the services (its venv has boto3 and botocore, AWS's own client, the
    /// signer's oracle); nil without them.
    public static var python: String? {
        ProcessInfo.processInfo.environment["LIGHTBOX_TEST_SERVICES_PYTHON"]
    }

    /// The store the model's suites run against: `LIGHTBOX_TEST_CATALOG=postgres` runs them on
    /// PostgreSQL (`make test` runs them a second time so), else on SQLite.
    public static var catalogUnderTest: String {
        ProcessInfo.processInfo.environment["LIGHTBOX_TEST_CATALOG"] ?? "sqlite"
    }

    /// The catalog address for a new library under test: nil for SQLite (the library's file), or
    /// a new, empty database on the PostgreSQL server.
    public static func newCatalog() throws -> String? {
        recordSuiteMakingLibrary()
        guard catalogUnderTest == "postgres" else { return nil }
        return try makePostgresDatabase()
    }

    /// Adds the running test's suite to the file `LIGHTBOX_TEST_LIBRARY_SUITES` names, when it
    /// names one: the suites that make a library in one pass, which `make test` runs again on
    /// PostgreSQL (`scripts/library-suites`), and no other. A library made outside any test's
    /// task (a detached task) writes `*`: the second pass runs every suite.
    static func recordSuiteMakingLibrary() {
        guard let file = ProcessInfo.processInfo.environment["LIGHTBOX_TEST_LIBRARY_SUITES"], !file.isEmpty else {
            return
        }
        let suite = Test.current.flatMap { test in
            test.id.nameComponents.first.map { test.id.moduleName + "." + $0 }
        }
        let line = Array(((suite ?? "*") + "\n").utf8)
        // One short write with O_APPEND: the suites running at once never interleave a line.
        let descriptor = open(file, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        // Not written, the suite would be left out of the second pass without a word: said, loud.
        guard descriptor >= 0 else { fatalError("cannot record the suites making libraries in \(file)") }
        defer { close(descriptor) }
        _ = line.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    }

    /// A new, empty database on the PostgreSQL server; its address.
    public static func makePostgresDatabase() throws -> String {
        let server = try PostgresAddress(try requirePostgres())
        guard let folder = server.socketFolder else {
            throw Missing(service: "a PostgreSQL server on a Unix socket")
        }
        let name = "test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let configuration = PostgresConnection.Configuration(
            unixSocketPath: folder + "/.s.PGSQL.\(server.port)", username: server.user, password: nil,
            database: server.database)
        do {
            let connection = try PostgresConnection.connect(
                on: MultiThreadedEventLoopGroup.singleton.any(), configuration: configuration, id: 1,
                logger: Logger(label: "lightbox.tests")
            ).wait()
            defer { try? connection.close().wait() }
            _ = try connection.query("CREATE DATABASE \(unescaped: name)", logger: Logger(label: "lightbox.tests"))
                .wait()
        } catch {
            throw PostgresFailure(description: "cannot make a database on \(server): \(String(reflecting: error))")
        }
        return server.database(name).description
    }

    public struct PostgresFailure: Error, CustomStringConvertible {
        public var description: String
    }

    public struct Missing: Error, CustomStringConvertible {
        public var service: String
        public init(service: String) { self.service = service }
        public var description: String {
            "This test needs \(service): run it under scripts/services (make test does)."
        }
    }
}
