import Foundation
import Hummingbird
import Lightbox
import LightboxMetadata
import Synchronization

/// Downloads of many assets as one ZIP archive, streamed as it is made (nothing of it is kept
/// on the server, and its memory is a chunk of a file at a time). Each route's contract is its
/// `APIOperation` (docs/API.md).
struct DownloadRoutes: Sendable {
    /// The most assets one archive holds.
    static let maximumAssets = 10_000
    /// How long a download waits to be fetched.
    static let lifetime: TimeInterval = 3600

    struct Body: Decodable {
        var assets: [String]
        var version: String?
    }

    struct Made: Encodable {
        var id: String
        var path: String
        var name: String
        var count: Int
    }

    /// The downloads asked for and not yet expired, by identifier.
    final class Pending: Sendable {
        struct Download {
            var caller: String
            /// Whose it is (the user, or the link): each has at most ``perOwner`` waiting.
            var owner: String
            var assets: [String]
            var version: ExportVersion
            var name: String
            var expires: Date
        }

        /// The most waiting at once, and for one owner (10,000 identifiers each): past either,
        /// the oldest goes, so that no one caller's asking holds the server's memory.
        static let capacity = 1000
        static let perOwner = 4
        private let downloads = Mutex<[String: Download]>([:])

        func add(_ download: Download) -> String {
            let id = UUID().uuidString.lowercased()
            downloads.withLock { downloads in
                let now = Date()
                downloads = downloads.filter { $0.value.expires > now }
                let owned = downloads.filter { $0.value.owner == download.owner }
                let crowd = owned.count >= Self.perOwner ? owned : downloads.count >= Self.capacity ? downloads : [:]
                if let oldest = crowd.min(by: { $0.value.expires < $1.value.expires })?.key {
                    downloads[oldest] = nil
                }
                downloads[id] = download
            }
            return id
        }

        func download(_ id: String, for caller: String) -> Download? {
            downloads.withLock { downloads in
                guard let download = downloads[id], download.expires > Date(), download.caller == caller else {
                    return nil
                }
                return download
            }
        }
    }

    /// Who asked, so that no one else fetches it: the user, the credential, the shared album;
    /// and whose it is (the user, else the credential) for the bound of ``Pending/perOwner``.
    static func callerKey(_ context: LightboxRequestContext) -> (caller: String, owner: String) {
        guard let caller = context.caller else { return ("", "") }
        let credential: String =
            switch caller.credential {
            case .local: "local"
            case .session(let session): "session:" + session.id
            case .token(let token): "token:" + token.id
            case .link(let share): "link:" + share.id
            }
        let key = [caller.user?.id ?? "", credential, caller.sharedAlbum?.share.id ?? ""].joined(separator: "|")
        return (key, caller.user.map { "user:" + $0.id } ?? credential)
    }

    private let pending = Pending()

    static let prepareDownloadOperation = APIOperation(
        "Prepares a ZIP archive of assets for the caller, fetched within the hour.",
        details: """
            Each asset must be one the caller sees. The download is the caller's alone, for an hour; four at
            most wait for one user (a fifth drops the oldest). Two steps, so that the browser's own downloads
            (progress, pause, resume) fetch the archive with a plain GET, and the selection is not put in an
            address.
            """,
        body: .json(
            Schema.object(
                [
                    "assets": Schema.array(Schema.string(length: 1...200), count: 1...maximumAssets),
                    "version": Schema.string(["current", "original"]),
                ], required: ["assets"])),
        responses: [
            .json(
                201, "The download.",
                Schema.object(
                    [
                        "id": Schema.string, "path": Schema.string, "name": Schema.string,
                        "count": Schema.integer,
                    ], required: ["id", "path", "name", "count"]))
        ])

    @Sendable
    func prepareDownload(_ request: Request, _ context: LightboxRequestContext) async throws -> Response {
        let library = try context.library().library
        let body = try await request.decode(as: Body.self, context: context)
        guard (1...Self.maximumAssets).contains(body.assets.count) else {
            throw HTTPError(.badRequest, message: "a download holds 1 to \(Self.maximumAssets) assets")
        }
        let version: ExportVersion
        switch body.version ?? "current" {
        case "current": version = .current
        case "original": version = .original
        case let other: throw HTTPError(.badRequest, message: "version must be current or original, not \(other)")
        }
        var seen = Set<String>()
        let assets = body.assets.filter { seen.insert($0).inserted }
        for identifier in assets where try await library.asset(withLocalIdentifier: identifier) == nil {
            throw HTTPError(.notFound, message: "no asset has the identifier \(identifier)")
        }
        let stamp = ISO8601DateFormatter.string(
            from: Date(), timeZone: TimeZone(identifier: "UTC")!, formatOptions: [.withFullDate])
        let name = "Lightbox-\(stamp)-\(assets.count).zip"
        let (caller, owner) = Self.callerKey(context)
        let id = pending.add(
            .init(
                caller: caller, owner: owner, assets: assets, version: version, name: name,
                expires: Date().addingTimeInterval(Self.lifetime)))
        var response = try LightboxServer.jsonResponse(
            Made(id: id, path: "/api/downloads/" + id, name: name, count: assets.count))
        response.status = .created
        return response
    }

    static let downloadOperation = APIOperation(
        "The ZIP archive of a download, streamed as it is made.",
        details: """
            `Lightbox-DATE.zip`, stored and streamed (ZIP64 when large): each asset's files as `lightbox export`
            writes them, the current version by default (an edit's render; a Live Photo's still and movie,
            paired) or the originals (a RAW + JPEG pair's two files). A repeated name is numbered
            (`IMG_0001-1.JPG`); an asset deleted since, or a file that cannot be read, is left out and named in
            `Not included.txt`.
            """,
        responses: [.media(200, "The archive.", ["application/zip"])])

    @Sendable
    func download(_ _: Request, _ context: LightboxRequestContext) async throws -> Response {
        let library = try context.library().library
        let id = try context.parameters.require("id")
        guard let download = pending.download(id, for: Self.callerKey(context).caller) else {
            throw HTTPError(.notFound, message: "no download \(id) waits for you: ask for it again")
        }
        var headers: HTTPFields = [:]
        headers[.contentType] = "application/zip"
        headers[.contentDisposition] = ResourceFile.disposition(download.name)
        headers[.cacheControl] = "no-store"
        let body = ResponseBody { writer in
            try await ZipDownload(library: library, version: download.version).write(download.assets) {
                try await writer.write(ByteBuffer(bytes: $0))
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: headers, body: body)
    }
}

/// Writes assets' files as a ZIP archive to a stream of byte chunks.
///
/// A file that cannot be read is left out and the rest goes on: the archive ends with
/// `Not included.txt`, each such file with the reason. A Live Photo whose still and movie cannot
/// be paired in memory (past the memory budget, a file that does not parse) goes as stored.
struct ZipDownload {
    let library: PhotoLibrary
    let version: ExportVersion
    let chunkSize = 1 << 20

    /// The name of the entry that lists what could not be included.
    static let notIncluded = "Not included.txt"

    func write(_ identifiers: [String], to send: ([UInt8]) async throws -> Void) async throws {
        var zip = ZipArchiveWriter()
        var names = FreeNames()
        names.insert(Self.notIncluded)
        var problems: [String] = []
        let reader = AssetResourceManager(library: library)
        for identifier in identifiers {
            // Read now, through the caller's view: deleted since, it is left out.
            guard let asset = try await library.asset(withLocalIdentifier: identifier) else { continue }
            let resources = PhotoLibrary.exportResources(of: asset, version: version)
            var paired: [AssetResourceType: [UInt8]] = [:]
            if version == .current {
                do {
                    paired = try await library.pairedLivePhoto(asset, resources)
                } catch {
                    problems.append(
                        "\(PhotoLibrary.exportName(resources[0], asset: asset)): as stored, not paired again (\(error))"
                    )
                }
            }
            let modified = Self.clock(of: asset)
            for resource in resources {
                let name = names.claim(ZipArchiveWriter.entryName(PhotoLibrary.exportName(resource, asset: asset)))
                if let bytes = paired[resource.type] {
                    var crc = CRC32()
                    crc.update(bytes)
                    try await send(
                        zip.header(name: name, size: UInt64(bytes.count), crc32: crc.checksum, modified: modified))
                    for start in stride(from: 0, to: bytes.count, by: chunkSize) {
                        try await send(Array(bytes[start..<min(start + chunkSize, bytes.count)]))
                    }
                    continue
                }
                // The checksum first (the header carries it), then the bytes: read twice, the
                // second time mostly from the system's cache. A file that cannot be read the
                // first time is left out, said at the end.
                var crc = CRC32()
                var size: UInt64 = 0
                do {
                    for try await chunk in reader.requestData(for: resource, chunkSize: chunkSize) {
                        crc.update(chunk)
                        size += UInt64(chunk.count)
                    }
                } catch {
                    problems.append("\(name): cannot be read (\(error))")
                    continue
                }
                try await send(zip.header(name: name, size: size, crc32: crc.checksum, modified: modified))
                var sent: UInt64 = 0
                var check = CRC32()
                for try await chunk in reader.requestData(for: resource, chunkSize: chunkSize) {
                    let part = Array(chunk.prefix(Int(min(UInt64(chunk.count), size - sent))))
                    check.update(part)
                    sent += UInt64(part.count)
                    try await send(part)
                    if sent == size { break }
                }
                // A file that changed between the two readings would make a broken archive:
                // the stream ends in error, and the browser says the download failed.
                guard sent == size, check.checksum == crc.checksum else {
                    throw LibraryError(.storageFailed, "the file \(name) changed while it was being downloaded")
                }
            }
        }
        if !problems.isEmpty {
            let text = Array(("Lightbox could not include these:\n" + problems.joined(separator: "\n") + "\n").utf8)
            var crc = CRC32()
            crc.update(text)
            try await send(
                zip.header(
                    name: Self.notIncluded, size: UInt64(text.count), crc32: crc.checksum,
                    modified: Self.clock(of: Date(), offset: 0)))
            try await send(text)
        }
        try await send(zip.finish())
    }

    /// The clock where the asset was taken, for its files' dates in the archive.
    static func clock(of asset: Asset) -> DateComponents {
        clock(of: asset.creationDate, offset: asset.creationTimeZoneOffset)
    }

    static func clock(of date: Date, offset: Int) -> DateComponents {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0)!
        return calendar.dateComponents(
            [.year, .month, .day, .hour, .minute, .second],
            from: date.addingTimeInterval(TimeInterval(offset.magnitude <= 86_400 ? offset : 0)))
    }
}
