import Foundation
import LightboxS3

/// Where a library keeps its originals when not in its folder: a bucket and prefix of
/// S3-compatible object storage. Given when the library is made, then kept in the library folder
/// (`storage.json`, no secrets: credentials come from the environment each time), so that every
/// later open, by any command or server, finds the originals where they are.
///
/// ```swift
/// let library = try PhotoLibrary(
///     url: URL(filePath: "Photos.lightbox"),
///     originals: ObjectStorageSettings(url: "s3://photos/family", endpoint: "https://s3.example.net"))
/// ```
public struct ObjectStorageSettings: Codable, Sendable, Equatable {
    /// `s3://BUCKET[/PREFIX]`.
    public var url: String
    /// `http(s)://HOST[:PORT]`; nil: AWS's for the region, or `AWS_ENDPOINT_URL_S3` /
    /// `AWS_ENDPOINT_URL` when set.
    public var endpoint: String?
    /// The region requests are signed for; nil: `AWS_REGION`, else `us-east-1`.
    public var region: String?
    /// How long an object no row refers to is left to the transaction that may be about to
    /// refer to it before a sweep (`lightbox check --repair`) removes it; nil: a day.
    public var sweepGraceSeconds: Int?

    public init(url: String, endpoint: String? = nil, region: String? = nil, sweepGraceSeconds: Int? = nil) {
        self.url = url
        self.endpoint = endpoint
        self.region = region
        self.sweepGraceSeconds = sweepGraceSeconds
    }

    /// The location these settings name, the environment filling what they leave out.
    package func location(environment: [String: String]) throws -> S3Location {
        let endpoint = endpoint ?? environment["AWS_ENDPOINT_URL_S3"] ?? environment["AWS_ENDPOINT_URL"]
        var endpointURL: URL?
        if let endpoint {
            guard let parsed = URL(string: endpoint) else {
                throw LibraryError(.storageFailed, "\(endpoint) is not an endpoint address")
            }
            endpointURL = parsed
        }
        do {
            return try S3Location(
                url, endpoint: endpointURL,
                region: region ?? environment["AWS_REGION"] ?? environment["AWS_DEFAULT_REGION"])
        } catch {
            throw LibraryError(.storageFailed, "\(error)", underlying: error)
        }
    }

    /// The storage of originals and of derivatives these settings describe, with credentials
    /// from the environment: one bucket and prefix, one client.
    package func storages(libraryFolder: String, environment: [String: String]) throws -> (
        ObjectOriginalStorage, ObjectDerivativeStorage
    ) {
        let location = try location(environment: environment)
        let credentials: S3Credentials
        do {
            credentials = try S3Credentials.fromEnvironment(environment)
        } catch {
            throw LibraryError(.storageFailed, "the originals are in \(location): \(error)", underlying: error)
        }
        let client = S3Client(location: location, credentials: credentials)
        return (
            try ObjectOriginalStorage(
                client: client, libraryFolder: libraryFolder,
                graceInterval: TimeInterval(min(max(sweepGraceSeconds ?? 86_400, 0), 365 * 86_400))),
            try ObjectDerivativeStorage(client: client, libraryFolder: libraryFolder)
        )
    }
}

/// Where a library's parts are when not in its folder, kept in the folder (`storage.json`, no
/// secrets) so that every later open, by any command or server, finds them: the catalog on
/// PostgreSQL, the originals in a bucket. A folder library has no such file.
package struct LibraryPlacement: Codable, Sendable, Equatable {
    /// The originals' bucket; nil: the folder's `originals/`.
    package var originals: ObjectStorageSettings?
    /// The PostgreSQL catalog's address (`postgres://USER@HOST/DATABASE`, no password); nil:
    /// the folder's SQLite file.
    package var database: String?

    package init(originals: ObjectStorageSettings? = nil, database: String? = nil) {
        self.originals = originals
        self.database = database
    }

    /// The name of the file in the library folder.
    package static let filename = "storage.json"

    /// What a library folder keeps; empty when its parts are all in it.
    package static func read(libraryFolder: String) throws -> LibraryPlacement {
        let path = libraryFolder + "/" + filename
        guard FileIO.fileExists(path) else { return LibraryPlacement() }
        guard let bytes = try FileIO.contents(ofFileAt: path, limit: 64 << 10),
            let placement = try? JSONDecoder().decode(LibraryPlacement.self, from: Data(bytes))
        else {
            throw LibraryError(
                .notALibrary, "\(filename) is not a storage description of at most 64 KiB of JSON", path: path)
        }
        return placement
    }

    package func write(libraryFolder: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try FileIO.writeAtomically([UInt8](try encoder.encode(self)), to: libraryFolder + "/" + Self.filename)
    }
}
