import ArgumentParser
import Foundation
import Lightbox

/// `--library DIR`, shared by every subcommand.
struct LibraryOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The library folder (default: $LIGHTBOX_LIBRARY, else ./Photos.lightbox).", valueName: "DIR"))
    var library: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Keep a new library's originals in S3-compatible object storage, s3://BUCKET/PREFIX; the library remembers it. Credentials: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or ~/.aws/credentials.",
            valueName: "URL"))
    var originals: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Keep a new library's catalog on PostgreSQL, postgres://USER@HOST[:PORT]/DATABASE (a socket: postgres://USER@/DATABASE?host=/FOLDER; TLS: ?sslmode=require); the folder remembers it, and a server's own folder given an existing catalog joins it. The password: PGPASSWORD, or the file PGPASSFILE names.",
            valueName: "URL"))
    var database: String?

    @Option(
        name: .customLong("s3-endpoint"),
        help: ArgumentHelp(
            "The object storage server, http(s)://HOST[:PORT] (default: $AWS_ENDPOINT_URL, else AWS).",
            valueName: "URL"))
    var s3Endpoint: String?

    @Option(
        name: .customLong("s3-region"),
        help: ArgumentHelp(
            "The region requests are signed for (default: $AWS_REGION, else us-east-1).", valueName: "NAME"))
    var s3Region: String?

    /// The folder this command works on.
    var libraryPath: String {
        if let library { return library }
        if let fromEnvironment = ProcessInfo.processInfo.environment["LIGHTBOX_LIBRARY"], !fromEnvironment.isEmpty {
            return fromEnvironment
        }
        return "Photos.lightbox"
    }

    /// Opens the library, or exits with a message naming the folder. Only `creating` (the
    /// import, a capture) makes a library where there is none, and only `joining` (a server, a
    /// worker) makes a folder for a catalog given: any other command given a wrong path says
    /// so instead of leaving a library behind that remembers what it was given.
    func open(creating: Bool = false, joining: Bool = false) throws -> PhotoLibrary {
        if !creating && !(joining && database != nil) && !PhotoLibrary.isLibrary(libraryPath) {
            throw CommandError(
                "no library at \(libraryPath) ("
                    + (database == nil
                        ? "lightbox import creates one)"
                        : "lightbox import --database makes one with this catalog, lightbox serve --database joins it)")
            )
        }
        do {
            return try PhotoLibrary(
                url: URL(fileURLWithPath: libraryPath),
                originals: originals.map { ObjectStorageSettings(url: $0, endpoint: s3Endpoint, region: s3Region) },
                database: database)
        } catch let error as LibraryError {
            throw CommandError("cannot open the library: \(error)")
        }
    }
}

/// A failure while a command runs (not a usage mistake): printed as "Error: message", without
/// the usage text ArgumentParser adds to a `ValidationError`.
struct CommandError: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}

/// Where the commands write: JSON Lines to standard output, messages to standard error.
enum Output {
    static func jsonLine(_ value: some Encodable) {
        guard let data = try? JSONEncoder.lightbox.encode(value) else { return }
        FileHandle.standardOutput.write(data + Data("\n".utf8))
    }

    static func line(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    static func message(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}
