import Foundation
import Hummingbird
import Lightbox
import LightboxMetadata
import Synchronization

/// Downloads of many assets as one ZIP archive, streamed as it is made (nothing of it is kept
/// on the server, and its memory is a chunk of a file at a time).
///
/// - `POST /api/downloads` with `{"assets": [ids], "version": "current"|"original"}`: a download
///   of those assets (at most ``maximumAssets``; each must be one the caller sees) for the
///   caller alone, for an hour: `{"id", "path", "name", "count"}`. Two steps, so that the browser's
///   own downloads (with their progress, pause and resume of the connection) fetch the archive
///   with a plain GET, and the selection is not put in an address.
/// - `GET /api/downloads/{id}`: the archive, `Lightbox-DATE.zip`. Each asset's files as `lightbox
///   export` writes them: the current version by default (an edit's render, a Live Photo's
///   still and movie, paired by one content identifier), or the originals (a RAW + JPEG pair's
///   two files). Names are the files' own, a repeated one numbered (`IMG_0001-1.JPG`). An asset
///   deleted since is left out.
enum DownloadRoutes {
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
            var assets: [String]
            var version: ExportVersion
            var name: String
            var expires: Date
        }

        /// The most waiting at once: past it, the oldest goes.
        static let capacity = 1000
        private let downloads = Mutex<[String: Download]>([:])

        func add(_ download: Download) -> String {
            let id = UUID().uuidString.lowercased()
            downloads.withLock { downloads in
                let now = Date()
                downloads = downloads.filter { $0.value.expires > now }
                if downloads.count >= Self.capacity,
                    let oldest = downloads.min(by: { $0.value.expires < $1.value.expires })?.key
                {
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

    /// Who asked, so that no one else fetches it: the user, the credential, the shared album.
    static func callerKey(_ context: LightboxRequestContext) -> String {
        guard let caller = context.caller else { return "" }
        let credential: String =
            switch caller.credential {
            case .local: "local"
            case .session(let session): "session:" + session.id
            case .token(let token): "token:" + token.id
            case .link(let share): "link:" + share.id
            }
        return [caller.user?.id ?? "", credential, caller.sharedAlbum?.share.id ?? ""].joined(separator: "|")
    }

    static func add(to routes: Routes) {
        let pending = Pending()
        routes.post(
            "/api/downloads", access: .read,
            doc: APIOperation(
                "Prepares a ZIP archive of assets for the caller, fetched within the hour.",
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
        ) { request, context in
            let library = try context.library().library
            let body = try await request.decode(as: Body.self, context: context)
            guard (1...maximumAssets).contains(body.assets.count) else {
                throw HTTPError(.badRequest, message: "a download holds 1 to \(maximumAssets) assets")
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
            let id = pending.add(
                .init(
                    caller: callerKey(context), assets: assets, version: version, name: name,
                    expires: Date().addingTimeInterval(lifetime)))
            var response = try LightboxServer.jsonResponse(
                Made(id: id, path: "/api/downloads/" + id, name: name, count: assets.count))
            response.status = .created
            return response
        }
        routes.get(
            "/api/downloads/:id", access: .read,
            doc: APIOperation(
                "The ZIP archive of a download, streamed as it is made.",
                responses: [.media(200, "The archive.", ["application/zip"])])
        ) { _, context in
            let library = try context.library().library
            let id = try context.parameters.require("id")
            guard let download = pending.download(id, for: callerKey(context)) else {
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
}

/// Writes assets' files as a ZIP archive to a stream of byte chunks.
struct ZipDownload {
    let library: PhotoLibrary
    let version: ExportVersion
    let chunkSize = 1 << 20

    func write(_ identifiers: [String], to send: ([UInt8]) async throws -> Void) async throws {
        var zip = ZipArchiveWriter()
        var names = Set<String>()
        let reader = AssetResourceManager(library: library)
        for identifier in identifiers {
            // Read now, through the caller's view: deleted since, it is left out.
            guard let asset = try await library.asset(withLocalIdentifier: identifier) else { continue }
            let resources = PhotoLibrary.exportResources(of: asset, version: version)
            let paired = version == .current ? try await library.pairedLivePhoto(asset, resources) : [:]
            let modified = Self.clock(of: asset)
            for resource in resources {
                let name = Self.freeName(
                    ZipArchiveWriter.entryName(PhotoLibrary.exportName(resource, asset: asset)), in: &names)
                if let bytes = paired[resource.type] {
                    var crc = CRC32()
                    crc.update(bytes)
                    try await send(
                        zip.header(name: name, size: UInt64(bytes.count), crc32: crc.checksum, modified: modified))
                    var start = 0
                    while start < bytes.count {
                        let end = min(start + chunkSize, bytes.count)
                        try await send(Array(bytes[start..<end]))
                        start = end
                    }
                    continue
                }
                // The checksum first (the header carries it), then the bytes: read twice, the
                // second time mostly from the system's cache.
                var crc = CRC32()
                var size: UInt64 = 0
                for try await chunk in reader.requestData(for: resource, chunkSize: chunkSize) {
                    crc.update(chunk)
                    size += UInt64(chunk.count)
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
                    throw LibraryError(
                        .storageFailed, "the file \(name) changed while it was being downloaded")
                }
            }
        }
        try await send(zip.finish())
    }

    /// The clock where the asset was taken, for its files' dates in the archive.
    static func clock(of asset: Asset) -> DateComponents {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0)!
        let offset = abs(asset.creationTimeZoneOffset) <= 86_400 ? asset.creationTimeZoneOffset : 0
        return calendar.dateComponents(
            [.year, .month, .day, .hour, .minute, .second],
            from: asset.creationDate.addingTimeInterval(TimeInterval(offset)))
    }

    /// `name`, or the first of `NAME-1.EXT`, `NAME-2.EXT`... not yet taken (without case, as
    /// the file systems it is unpacked on may be).
    static func freeName(_ name: String, in taken: inout Set<String>) -> String {
        if taken.insert(name.lowercased()).inserted { return name }
        let stem = PathString.deletingPathExtension(name)
        let ext = PathString.pathExtension(name)
        let suffix = ext.isEmpty ? "" : "." + ext
        var number = 1
        while true {
            let candidate = ZipArchiveWriter.entryName("\(stem)-\(number)\(suffix)")
            if taken.insert(candidate.lowercased()).inserted { return candidate }
            number += 1
        }
    }
}
