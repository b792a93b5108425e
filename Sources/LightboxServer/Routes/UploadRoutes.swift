import Foundation
import Hummingbird
import Lightbox
import Synchronization

/// Putting files into the library over HTTP, as a phone's backup or another app does: whole, or
/// resumable for large movies on unsteady connections. Each route's contract is its
/// `APIOperation` (docs/API.md).
struct UploadRoutes: Sendable {
    struct Check: Decodable {
        var sha256: [String]
    }

    struct Start: Decodable {
        var filename: String
        var size: Int64
        var sha256: String?
    }

    struct Finished: Encodable {
        var id: String?
        var outcome: String
        var asset: Asset
        var changeToken: PersistentChangeToken
    }

    static let maximumCheck = 10_000
    static let offsetHeader = HTTPFields.Element.Name("Upload-Offset")!

    let limits: ServerLimits
    private let streams: UploadStreams

    init(limits: ServerLimits) {
        self.limits = limits
        streams = UploadStreams(perUser: limits.uploadsPerUser)
    }

    static let checkUploadsOperation = APIOperation(
        "Which of these SHA-256 digests the library holds as originals.",
        details: "Up to 10,000 digests: what need not be sent.",
        body: .json(
            Schema.object(
                ["sha256": Schema.array(Schema.sha256, count: 0...maximumCheck)], required: ["sha256"])),
        responses: [
            .json(
                200, "The digests held, with their assets.",
                Schema.object(["existing": Schema.map(Schema.string)], required: ["existing"]))
        ])

    @Sendable
    func checkUploads(_ request: Request, _ context: LightboxRequestContext) async throws -> Response {
        let library = try context.library().library
        let body = try await request.decode(as: Check.self, context: context)
        guard body.sha256.count <= Self.maximumCheck else {
            throw HTTPError(.badRequest, message: "check at most \(Self.maximumCheck) digests at once")
        }
        guard body.sha256.allSatisfy({ $0.count == 64 && $0.allSatisfy { $0.isHexDigit && !$0.isUppercase } })
        else {
            throw HTTPError(.badRequest, message: "each digest is 64 lowercase hexadecimal digits")
        }
        return try LightboxServer.jsonResponse(
            ["existing": try await library.assetIdentifiers(withOriginalHashes: body.sha256)])
    }

    static let startUploadOperation = APIOperation(
        "Starts a resumable upload.",
        details: """
            Resumable, for large movies on unsteady connections: then `PATCH` the bytes. A contributor keeps at
            most 100 uploads open, and every upload's declared size is held on the disk until it ends (507 when
            the disk cannot hold it).
            """,
        body: .json(
            Schema.object(
                ["filename": Schema.string, "size": Schema.integer(1...Int.max), "sha256": Schema.sha256],
                required: ["filename", "size"])),
        responses: [.json(201, "The upload, at offset 0.", Schema.ref("Upload"))])

    @Sendable
    func startUpload(_ request: Request, _ context: LightboxRequestContext) async throws -> Response {
        let staging = try context.library().uploads
        let body = try await request.decode(as: Start.self, context: context)
        let status = try Self.mapped {
            try staging.start(
                filename: body.filename, size: body.size, sha256: body.sha256,
                maximumSize: limits.maximumUploadSize,
                uploader: UploadStaging.uploader(context.caller))
        }
        var response = try LightboxServer.jsonResponse(status)
        response.status = .created
        response.headers[.location] = "/api/uploads/" + status.id
        return response
    }

    // Only who may upload follows an upload: a shared album's viewer sees none of its owner's.
    static let uploadStateOperation = APIOperation(
        "Where an upload stands: the offset to resume from.",
        details: "After a dropped connection: where to resume.",
        responses: [.json(200, "The upload.", Schema.ref("Upload"))])

    @Sendable
    func uploadState(_ _: Request, _ context: LightboxRequestContext) async throws -> Response {
        let staging = try context.library().uploads
        let id = try context.parameters.require("id")
        let uploader = UploadStaging.uploader(context.caller)
        var response = try LightboxServer.jsonResponse(try Self.mapped { try staging.status(id, uploader: uploader) })
        response.headers[.cacheControl] = "no-store"
        return response
    }

    static let cancelUploadOperation = APIOperation("Gives an upload up.", responses: [.empty(204, "Removed.")])

    @Sendable
    func cancelUpload(_ _: Request, _ context: LightboxRequestContext) async throws -> Response {
        let staging = try context.library().uploads
        let id = try context.parameters.require("id")
        try Self.mapped { try staging.cancel(id, uploader: UploadStaging.uploader(context.caller)) }
        return Response(status: .noContent)
    }

    static let continueUploadOperation = APIOperation(
        "Appends bytes at Upload-Offset; the last ones import the file.",
        details: """
            The bytes from `Upload-Offset: N` on; when the last byte arrives the file is checked and imported as
            `POST /api/uploads/whole` does. A wrong offset is 409, with the right one in `Upload-Offset`.
            """,
        parameters: [.header("Upload-Offset", Schema.string, required: true, "Where these bytes start.")],
        body: .bytes,
        responses: [
            .json(
                200, "The upload so far, or the file imported (paired, duplicate).",
                ["oneOf": [Schema.ref("Upload"), Schema.ref("UploadResult")]], changeToken: false),
            .json(201, "The file imported as a new asset.", Schema.ref("UploadResult"), changeToken: true),
        ])

    @Sendable
    func continueUpload(_ request: Request, _ context: LightboxRequestContext) async throws -> Response {
        let served = try context.library()
        let id = try context.parameters.require("id")
        guard let text = request.headers[Self.offsetHeader], let offset = Int64(text), offset >= 0 else {
            throw HTTPError(.badRequest, message: "Upload-Offset must say where these bytes start")
        }
        let status = try await streams.run(for: context.caller) {
            try await Self.mappedAsync {
                try await served.uploads.append(
                    id, at: offset, request.body, uploader: UploadStaging.uploader(context.caller))
            }
        }
        guard status.offset == status.size else {
            var response = try LightboxServer.jsonResponse(status)
            response.headers[Self.offsetHeader] = String(status.offset)
            return response
        }
        return try await Self.finish(id, in: served, for: context.caller)
    }

    static let uploadWholeOperation = APIOperation(
        "A whole file in one request, streamed to disk, checked and imported.",
        details: """
            The body is streamed to disk, its SHA-256 checked when given (422, and nothing kept, when it
            differs), then imported as from a folder: `imported` (201) with the new asset, `paired` when it
            completed an asset (a Live Photo's other half, in either order), `duplicate` with the asset that
            holds the same bytes. Two clients sending the same bytes at once make one asset. At most 4 bodies at
            once per user (429).
            """,
        parameters: [
            .query("filename", Schema.string, required: true, "The file's name."),
            .query("sha256", Schema.sha256, "The file's digest, checked."),
        ],
        body: .bytes,
        responses: [
            .json(201, "Imported as a new asset.", Schema.ref("UploadResult"), changeToken: true),
            .json(
                200, "Paired with an asset, or a duplicate of one.", Schema.ref("UploadResult"),
                changeToken: true),
        ])

    @Sendable
    func uploadWhole(_ request: Request, _ context: LightboxRequestContext) async throws -> Response {
        let served = try context.library()
        let query = request.uri.formQuery
        guard let filename = query.get("filename").map({ String($0) }) else {
            throw HTTPError(.badRequest, message: "filename names the file")
        }
        guard let length = request.headers[.contentLength].flatMap({ Int64($0) }) else {
            throw HTTPError(
                .lengthRequired, message: "a whole upload states its Content-Length (resumable uploads need not)")
        }
        let start = try Self.mapped {
            try served.uploads.start(
                filename: filename, size: length, sha256: query.get("sha256").map { String($0) },
                maximumSize: limits.maximumUploadSize, uploader: UploadStaging.uploader(context.caller))
        }
        do {
            let status = try await streams.run(for: context.caller) {
                try await Self.mappedAsync {
                    try await served.uploads.append(
                        start.id, at: 0, request.body, uploader: UploadStaging.uploader(context.caller))
                }
            }
            guard status.offset == status.size else {
                throw HTTPError(.badRequest, message: "the body ended at \(status.offset) of \(status.size) bytes")
            }
        } catch {
            try? served.uploads.cancel(start.id, uploader: UploadStaging.uploader(context.caller))
            throw error
        }
        return try await Self.finish(start.id, in: served, for: context.caller)
    }

    /// Imports a whole upload and answers what became of it. Into an album shared to contribute
    /// to, the file goes into the owner's library and its asset into the album, by the model's
    /// rules for contributions (``ImportOptions/contributingTo``).
    private static func finish(_ id: String, in served: ServedLibrary, for caller: Caller?) async throws -> Response {
        let result = try await mappedAsync {
            try await served.uploads.finish(
                id, uploader: UploadStaging.uploader(caller), contributingTo: caller?.sharedAlbum?.share.albumIdentifier
            )
        }
        let library = served.library
        // The library's token now: the album's addition, for a contribution, is committed.
        let token = try await LightboxServer.token(nil, in: library)
        switch result.outcome {
        case .imported(let asset):
            return try await LightboxServer.written(
                Finished(id: id, outcome: "imported", asset: asset, changeToken: token), token: token, in: library,
                status: .created)
        case .paired(let asset):
            return try await LightboxServer.written(
                Finished(id: id, outcome: "paired", asset: asset, changeToken: token), token: token, in: library)
        case .duplicate(let identifier):
            guard let asset = try await library.asset(withLocalIdentifier: identifier) else {
                throw HTTPError(.conflict, message: "the library held these bytes, but the asset is gone: send again")
            }
            return try await LightboxServer.written(
                Finished(id: id, outcome: "duplicate", asset: asset, changeToken: token), token: token, in: library)
        case .failed(let error):
            throw error
        case .skipped(let reason):
            throw HTTPError(.unsupportedMediaType, message: "this is no photo or movie: \(reason)")
        }
    }

    private static func mapped<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as UploadError {
            throw http(error)
        }
    }

    private static func mappedAsync<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as UploadError {
            throw http(error)
        }
    }

    static func http(_ error: UploadError) -> HTTPError {
        switch error {
        case .invalid(let message): HTTPError(.badRequest, message: message)
        case .notFound(let message): HTTPError(.notFound, message: message)
        case .conflict(let message, let offset):
            HTTPError(.conflict, headers: offset.map { [offsetHeader: String($0)] } ?? [:], message: message)
        case .tooMany(let message): HTTPError(.tooManyRequests, message: message)
        case .noSpace(let message): HTTPError(.init(code: 507, reasonPhrase: "Insufficient Storage"), message: message)
        case .hashMismatch(let message): HTTPError(.unprocessableContent, message: message)
        case .failed(let message): HTTPError(.internalServerError, message: message)
        }
    }
}

/// How many upload bodies each user is sending now, bounded.
final class UploadStreams: Sendable {
    private let counts = Mutex<[String: Int]>([:])
    let perUser: Int

    init(perUser: Int) {
        self.perUser = max(1, perUser)
    }

    func run<T>(for caller: Caller?, _ body: () async throws -> T) async throws -> T {
        let key = caller?.user?.id ?? ""
        let admitted = counts.withLock { counts in
            let count = counts[key, default: 0]
            guard count < perUser else { return false }
            counts[key] = count + 1
            return true
        }
        guard admitted else {
            throw HTTPError(
                .tooManyRequests, headers: [.retryAfter: "1"],
                message: "\(perUser) uploads of yours are being sent already: wait for one to end")
        }
        defer {
            counts.withLock { counts in
                let count = counts[key, default: 1] - 1
                counts[key] = count > 0 ? count : nil
            }
        }
        return try await body()
    }
}
