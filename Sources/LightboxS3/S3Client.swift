import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import NIOHTTP1

/// Objects in one bucket and prefix of an S3-compatible server: put (in parts for large files),
/// get (whole, to a file, or a byte range), head, delete, list, each request signed with
/// ``SignatureV4`` and its body's SHA-256, which the server checks.
///
/// Its methods block the calling thread until the server has answered (the requests run on
/// SwiftNIO's event loops): call them from threads of blocking work, never from an event loop.
/// Keys are relative to the location's prefix.
public final class S3Client: Sendable {
    public let location: S3Location
    private let signer: SignatureV4
    private let http: HTTPClient
    /// Objects larger than this are uploaded in parts of this size (or more, for S3's limit of
    /// 10,000 parts).
    public let partSize: Int
    /// Parts in flight at once.
    private let concurrentParts = 4

    public init(
        location: S3Location, credentials: S3Credentials, partSize: Int = 16 << 20, http: HTTPClient = S3Client.http
    ) {
        self.location = location
        self.signer = SignatureV4(credentials: credentials, region: location.region)
        self.http = http
        // S3's smallest part but the last is 5 MiB.
        self.partSize = max(partSize, 5 << 20)
    }

    /// An object as listed or read by its head.
    public struct Object: Sendable, Equatable {
        /// Relative to the location's prefix.
        public var key: String
        public var size: Int64
        public var eTag: String?
        public var lastModified: Date?
        /// The SHA-256 S3 keeps with the object (base64), when it was stored with one and the
        /// server gives it back.
        public var checksumSHA256: String?
    }

    // MARK: Objects

    /// Stores `bytes` under `key`, sent with their SHA-256 (signed, and kept as the object's
    /// `x-amz-checksum-sha256` where the server keeps checksums) and MD5 (`Content-MD5`), which
    /// the server checks; the entity tag it answers must be that MD5 (else
    /// ``S3Error/Code-swift.struct/checksumMismatch``).
    public func put(_ bytes: [UInt8], key: String, contentType: String = "application/octet-stream") throws {
        let digest = Array(SHA256.hash(data: bytes))
        let md5 = Array(Insecure.MD5.hash(data: bytes))
        let response = try send(
            "PUT", key: key,
            headers: [
                ("content-type", contentType), ("content-md5", Data(md5).base64EncodedString()),
                ("x-amz-checksum-sha256", Data(digest).base64EncodedString()),
            ],
            body: bytes, payloadHash: SignatureV4.hex(digest))
        try checkEntityTag(response.headers.first(name: "etag"), expected: SignatureV4.hex(md5), key: key)
    }

    /// An object's entity tag is the MD5 of its bytes (of its parts' MD5s, with their count,
    /// for an upload in parts) on every S3-compatible server but for objects AWS encrypts with
    /// KMS keys, whose tags are opaque: a tag of MD5's form that differs is a corruption.
    private func checkEntityTag(_ eTag: String?, expected: String, key: String) throws {
        guard let eTag else { return }
        let tag = eTag.trimmingCharacters(in: CharacterSet(charactersIn: "\" ")).lowercased()
        let looksLikeMD5 =
            tag.split(separator: "-").first.map {
                $0.count == 32 && $0.allSatisfy(\.isHexDigit)
            } ?? false
        guard !looksLikeMD5 || tag == expected else {
            throw S3Error(
                .checksumMismatch,
                "\(location)\(key): the server stored other bytes (entity tag \(tag), sent \(expected))",
                key: key)
        }
    }

    /// Stores the file at `path` under `key`: in one request up to ``partSize``, in parts
    /// beyond (a movie of gigabytes is never held in memory: one part per request in flight).
    /// Returns the object's size.
    /// With `sha256` (hex), the bytes read must have that SHA-256, else nothing is stored and
    /// it throws ``S3Error/Code-swift.struct/checksumMismatch`` (the file changed meanwhile).
    @discardableResult
    public func putFile(
        at path: String, key: String, contentType: String = "application/octet-stream", sha256: String? = nil
    ) throws -> Int64 {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw S3Error(.invalidLocation, "\(path) cannot be read", key: key)
        }
        defer { try? handle.close() }
        let size = Int64(try handle.seekToEnd())
        try handle.seek(toOffset: 0)
        if size <= Int64(partSize) {
            let bytes = [UInt8](try handle.readToEnd() ?? Data())
            guard Int64(bytes.count) == size, sha256.map({ $0 == SignatureV4.hex(SHA256.hash(data: bytes)) }) ?? true
            else {
                throw S3Error(.checksumMismatch, "\(path) changed while it was read", key: key)
            }
            try put(bytes, key: key, contentType: contentType)
            return size
        }
        try putInParts(handle, size: size, key: key, contentType: contentType, path: path, sha256: sha256)
        return size
    }

    /// The whole object, at most `maximumSize` bytes (else ``S3Error/Code-swift.struct/tooLarge``).
    public func get(_ key: String, maximumSize: Int = 64 << 20) throws -> [UInt8] {
        try send("GET", key: key, maximumBody: maximumSize).body
    }

    /// Bytes `range` of the object (fewer when it ends first).
    public func get(_ key: String, range: ClosedRange<Int64>) throws -> [UInt8] {
        // The difference first: `count` of 0...Int64.max would overflow.
        guard range.lowerBound >= 0, range.upperBound - range.lowerBound < 256 << 20 else {
            throw S3Error(
                .tooLarge, "a range from \(range.lowerBound) to \(range.upperBound) is more than one request reads",
                key: key)
        }
        return try send(
            "GET", key: key, headers: [("range", "bytes=\(range.lowerBound)-\(range.upperBound)")],
            maximumBody: Int(range.count)
        ).body
    }

    /// Writes the object to a new file at `path` as it arrives; returns its size. The file is
    /// removed when the transfer fails; a file already at `path` is never written over.
    @discardableResult
    public func download(_ key: String, to path: String) throws -> Int64 {
        guard !FileManager.default.fileExists(atPath: path) else {
            throw S3Error(.invalidLocation, "\(path) exists: a download writes a new file only", key: key)
        }
        let (host, encodedPath) = location.address(of: key)
        let headers = signedHeaders(
            "GET", host: host, path: encodedPath, query: [], headers: [], payloadHash: Self.emptyHash)
        let delegate = try FileDownloadDelegate(path: path)
        let progress: FileDownloadDelegate.Progress
        do {
            let ahc = try HTTPClient.Request(
                url: url(host: host, path: encodedPath, query: []), method: .GET, headers: headers)
            progress = try http.execute(request: ahc, delegate: delegate, deadline: .now() + .minutes(30))
                .futureResult.wait()
        } catch {
            try? FileManager.default.removeItem(atPath: path)
            throw S3Error(.transport, "\(location)\(key) could not be read: \(error)", key: key, underlying: error)
        }
        let status = Int(progress.head.status.code)
        guard (200..<300).contains(status) else {
            let answer = (try? [UInt8](Data(contentsOf: URL(fileURLWithPath: path)).prefix(64 << 10))) ?? []
            try? FileManager.default.removeItem(atPath: path)
            throw error(status: status, body: answer, method: "GET", key: key)
        }
        return Int64(progress.receivedBytes)
    }

    /// The object's size, entity tag and stored checksum; nil when there is none under `key`.
    public func head(_ key: String) throws -> Object? {
        do {
            let response = try send("HEAD", key: key, headers: [("x-amz-checksum-mode", "ENABLED")])
            guard let size = response.headers.first(name: "content-length").flatMap({ Int64($0) }), size >= 0 else {
                throw S3Error(.badResponse, "\(location)\(key): the server gave no size", key: key)
            }
            return Object(
                key: key, size: size, eTag: response.headers.first(name: "etag"),
                lastModified: response.headers.first(name: "last-modified").flatMap(Self.httpDate),
                checksumSHA256: response.headers.first(name: "x-amz-checksum-sha256"))
        } catch let error as S3Error where error.code == .notFound {
            return nil
        }
    }

    /// Makes the object's last-modified date now, its bytes unchanged (a copy onto itself, on the
    /// server): what an age-based sweep of unreferenced objects reads. Throws
    /// ``S3Error/Code-swift.struct/notFound`` when there is none.
    public func touch(_ key: String) throws {
        let source = "/\(location.bucket)/" + SignatureV4.encodePath(location.prefix + key)
        let response = try send(
            "PUT", key: key, headers: [("x-amz-copy-source", source), ("x-amz-metadata-directive", "REPLACE")],
            deadline: .now() + .minutes(10))
        // A copy may answer 200 with an error in its body.
        if let code = S3XML(response.body).elements("Error").first?.text("Code") {
            throw S3Error(
                .server, "\(location)\(key): the copy onto itself failed: \(code)", key: key, serverCode: code)
        }
    }

    /// Removes the object; nothing happens when there is none.
    public func delete(_ key: String) throws {
        do {
            _ = try send("DELETE", key: key)
        } catch let error as S3Error where error.code == .notFound {
        }
    }

    /// The objects whose keys start with `prefix` (relative to the location's), in key order,
    /// a page of at most 1,000 at a time handed to `page`; `page` returns false to stop.
    public func list(prefix: String = "", _ page: ([Object]) throws -> Bool) throws {
        var continuation: String?
        var emptyPages = 0
        repeat {
            var query = [("list-type", "2"), ("prefix", location.prefix + prefix)]
            if let continuation { query.append(("continuation-token", continuation)) }
            let xml = S3XML(try send("GET", key: nil, query: query, maximumBody: 8 << 20).body)
            let objects = try xml.elements("Contents").map { entry -> Object in
                guard let fullKey = entry.text("Key"), fullKey.hasPrefix(location.prefix),
                    let size = entry.text("Size").flatMap({ Int64($0) }), size >= 0
                else { throw S3Error(.badResponse, "\(location): a listing's entry has no key or size") }
                return Object(
                    key: String(fullKey.dropFirst(location.prefix.count)), size: size, eTag: entry.text("ETag"),
                    lastModified: entry.text("LastModified").flatMap(Self.isoDate), checksumSHA256: nil)
            }
            guard try page(objects) else { return }
            let previous = continuation
            continuation = xml.text("IsTruncated") == "true" ? xml.text("NextContinuationToken") : nil
            // A server answering the same page again, or empty pages without end, would keep the
            // listing going for ever.
            emptyPages = objects.isEmpty ? emptyPages + 1 : 0
            if let continuation, continuation == previous || emptyPages > 100 {
                throw S3Error(.badResponse, "\(location): the listing does not move on past \(continuation)")
            }
        } while continuation != nil
    }

    /// Every object whose key starts with `prefix`, in key order: ``list(prefix:_:)`` to the
    /// end, for listings known to be small or wanted whole (a sweep, a check).
    public func objects(prefix: String = "") throws -> [Object] {
        var found: [Object] = []
        try list(prefix: prefix) { page in
            found += page
            return true
        }
        return found
    }

    /// Creates the bucket (tests, and a first deployment); nothing happens when this account
    /// owns it already.
    public func createBucket() throws {
        do {
            _ = try send("PUT", key: nil)
        } catch let error as S3Error where error.serverCode == "BucketAlreadyOwnedByYou" {
        }
    }

    // MARK: Multipart uploads

    /// An upload in parts that was started and neither completed nor aborted.
    public struct Upload: Sendable, Equatable {
        public var key: String
        public var uploadID: String
        public var initiated: Date?
    }

    /// Uploads in parts under the prefix left unfinished (a process died mid-upload): their
    /// parts take space until aborted.
    public func unfinishedUploads() throws -> [Upload] {
        let xml = S3XML(
            try send("GET", key: nil, query: [("uploads", ""), ("prefix", location.prefix)], maximumBody: 8 << 20).body)
        return xml.elements("Upload").compactMap { upload in
            guard let key = upload.text("Key"), key.hasPrefix(location.prefix), let id = upload.text("UploadId") else {
                return nil
            }
            return Upload(
                key: String(key.dropFirst(location.prefix.count)), uploadID: id,
                initiated: upload.text("Initiated").flatMap(Self.isoDate))
        }
    }

    /// Aborts an unfinished upload, freeing its parts.
    public func abort(_ upload: Upload) throws {
        do {
            _ = try send("DELETE", key: upload.key, query: [("uploadId", upload.uploadID)])
        } catch let error as S3Error where error.code == .notFound {
        }
    }

    /// Starts an upload in parts.
    func startUpload(key: String, contentType: String) throws -> Upload {
        let created = S3XML(
            try send("POST", key: key, query: [("uploads", "")], headers: [("content-type", contentType)]).body)
        guard let uploadID = created.text("UploadId"), !uploadID.isEmpty else {
            throw S3Error(.badResponse, "\(location)\(key): the server started no upload", key: key)
        }
        return Upload(key: key, uploadID: uploadID, initiated: nil)
    }

    private func putInParts(
        _ handle: FileHandle, size: Int64, key: String, contentType: String, path: String, sha256: String?
    ) throws {
        // S3 allows 10,000 parts.
        let partSize = max(Int64(self.partSize), (size + 9_999) / 10_000)
        let upload = try startUpload(key: key, contentType: contentType)
        let uploadID = upload.uploadID
        do {
            let count = Int((size + partSize - 1) / partSize)
            var eTags = [String](repeating: "", count: count)
            var partMD5s = [[UInt8]](repeating: [], count: count)
            // Parts are read in order: the whole file's hash is made as they are.
            var whole = SHA256()
            var number = 0
            while number < count {
                // A few parts in flight, each read when its turn comes: memory is bounded by
                // `concurrentParts` parts whatever the file's size.
                var inFlight: [(Int, EventLoopFuture<Response>)] = []
                while number < count, inFlight.count < concurrentParts {
                    let length = Int(min(partSize, size - Int64(number) * partSize))
                    try handle.seek(toOffset: UInt64(Int64(number) * partSize))
                    let bytes = [UInt8](try handle.read(upToCount: length) ?? Data())
                    guard bytes.count == length else {
                        throw S3Error(.checksumMismatch, "\(path) changed while it was read", key: key)
                    }
                    let md5 = Array(Insecure.MD5.hash(data: bytes))
                    partMD5s[number] = md5
                    whole.update(data: bytes)
                    let future = start(
                        "PUT", key: key, query: [("partNumber", "\(number + 1)"), ("uploadId", uploadID)],
                        headers: [("content-md5", Data(md5).base64EncodedString())], body: bytes,
                        payloadHash: SignatureV4.hex(SHA256.hash(data: bytes)),
                        maximumBody: 64 << 10, deadline: .now() + .minutes(10))
                    inFlight.append((number, future))
                    number += 1
                }
                for (index, future) in inFlight {
                    let response = try finish(future, method: "PUT", key: key)
                    guard let eTag = response.headers.first(name: "etag") else {
                        throw S3Error(.badResponse, "\(location)\(key): part \(index + 1) has no entity tag", key: key)
                    }
                    try checkEntityTag(eTag, expected: SignatureV4.hex(partMD5s[index]), key: key)
                    eTags[index] = eTag
                }
            }
            if let sha256, SignatureV4.hex(whole.finalize()) != sha256 {
                throw S3Error(.checksumMismatch, "\(path) changed while it was read", key: key)
            }
            let parts = eTags.enumerated().map {
                "<Part><PartNumber>\($0.offset + 1)</PartNumber><ETag>\(Self.escape($0.element))</ETag></Part>"
            }
            let body = Array(
                ("<CompleteMultipartUpload xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
                    + parts.joined() + "</CompleteMultipartUpload>").utf8)
            let completed = try send(
                "POST", key: key, query: [("uploadId", uploadID)], headers: [("content-type", "application/xml")],
                body: body, payloadHash: SignatureV4.hex(SHA256.hash(data: body)), deadline: .now() + .minutes(10))
            // S3 may answer 200 with an error in the body when completing takes long.
            let answer = S3XML(completed.body)
            if let code = answer.elements("Error").first?.text("Code") {
                throw S3Error(
                    .server, "\(location)\(key): completing the upload failed: \(code)", key: key, serverCode: code)
            }
            let tag = SignatureV4.hex(Insecure.MD5.hash(data: partMD5s.flatMap { $0 })) + "-\(count)"
            try checkEntityTag(answer.text("ETag"), expected: tag, key: key)
        } catch {
            try? abort(upload)
            throw error
        }
    }

    // MARK: Requests

    /// The process's client for object storage: a connection refused fails the request at once
    /// (the shared client's default retries it until the request's deadline, minutes for a part).
    /// It lives as long as the process, as `HTTPClient.shared` does.
    public static let http: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.timeout = .init(connect: .seconds(10), read: .seconds(120))
        configuration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    struct Response {
        var status: Int
        var headers: HTTPHeaders
        var body: [UInt8]
    }

    static let emptyHash = SignatureV4.hex(SHA256.hash(data: [UInt8]()))

    private func send(
        _ method: String, key: String?, query: [(String, String)] = [], headers: [(String, String)] = [],
        body: [UInt8]? = nil, payloadHash: String = emptyHash, maximumBody: Int = 1 << 20,
        deadline: NIODeadline = .now() + .seconds(120)
    ) throws -> Response {
        // Answers S3 asks to be retried (503 Slow Down, 500) are, twice, after a pause.
        var attempt = 0
        while true {
            do {
                return try finish(
                    start(
                        method, key: key, query: query, headers: headers, body: body, payloadHash: payloadHash,
                        maximumBody: maximumBody, deadline: deadline), method: method, key: key)
            } catch let error as S3Error
                where attempt < 2 && (error.status.map { $0 >= 500 } ?? (error.code == .transport))
            {
                attempt += 1
                Thread.sleep(forTimeInterval: 0.2 * Double(attempt * attempt))
            }
        }
    }

    private func start(
        _ method: String, key: String?, query: [(String, String)], headers: [(String, String)], body: [UInt8]?,
        payloadHash: String, maximumBody: Int, deadline: NIODeadline
    ) -> EventLoopFuture<Response> {
        let (host, path) = location.address(of: key)
        var headers = headers
        if let body { headers.append(("content-length", "\(body.count)")) }
        let signed = signedHeaders(
            method, host: host, path: path, query: query, headers: headers, payloadHash: payloadHash)
        let eventLoop = http.eventLoopGroup.any()
        do {
            let request = try HTTPClient.Request(
                url: url(host: host, path: path, query: query), method: HTTPMethod(rawValue: method),
                headers: signed, body: body.map { .bytes($0) })
            let accumulator = ResponseAccumulator(request: request, maxBodySize: maximumBody)
            return http.execute(request: request, delegate: accumulator, deadline: deadline).futureResult.map {
                Response(
                    status: Int($0.status.code), headers: $0.headers,
                    body: $0.body.map { Array($0.readableBytesView) } ?? [])
            }
        } catch {
            return eventLoop.makeFailedFuture(error)
        }
    }

    private func finish(_ future: EventLoopFuture<Response>, method: String, key: String?) throws -> Response {
        let response: Response
        do {
            response = try future.wait()
        } catch let error as S3Error {
            throw error
        } catch is ResponseAccumulator.ResponseTooBigError {
            throw S3Error(
                .tooLarge, "\(location)\(key ?? ""): the answer to \(method) is larger than allowed", key: key)
        } catch {
            throw S3Error(
                .transport, "\(location.endpoint) did not answer \(method) \(location)\(key ?? ""): \(error)", key: key,
                underlying: error)
        }
        guard (200..<300).contains(response.status) else {
            throw self.error(status: response.status, body: response.body, method: method, key: key)
        }
        return response
    }

    private func error(status: Int, body: [UInt8], method: String, key: String?) -> S3Error {
        let xml = S3XML(body)
        let serverCode = xml.text("Code")
        let message = xml.text("Message").map { ": \($0)" } ?? ""
        let code: S3Error.Code
        switch (status, serverCode) {
        case (404, _): code = .notFound
        case (403, _), (_, "SignatureDoesNotMatch"), (_, "InvalidAccessKeyId"): code = .accessDenied
        case (_, "BadDigest"), (_, "XAmzContentSHA256Mismatch"), (_, "InvalidDigest"): code = .checksumMismatch
        default: code = .server
        }
        return S3Error(
            code,
            "\(method) \(location)\(key ?? "") failed with \(status) \(serverCode ?? "")\(message)".trimmingCharacters(
                in: .whitespaces), key: key, status: status, serverCode: serverCode)
    }

    private func signedHeaders(
        _ method: String, host: String, path: String, query: [(String, String)], headers: [(String, String)],
        payloadHash: String
    ) -> HTTPHeaders {
        var request = SignatureV4.Request(
            method: method, path: path, query: query.map { (name: $0.0, value: $0.1) },
            headers: [(name: "host", value: host), (name: "x-amz-content-sha256", value: payloadHash)]
                + headers.map { (name: $0.0, value: $0.1) }, payloadHash: payloadHash)
        signer.sign(&request, date: Date())
        return HTTPHeaders(request.headers.map { ($0.name, $0.value) })
    }

    private func url(host: String, path: String, query: [(String, String)]) throws -> URL {
        let scheme = location.endpoint.scheme!.lowercased()
        let queryString =
            query.isEmpty
            ? "" : "?" + query.map { "\(SignatureV4.encode($0.0))=\(SignatureV4.encode($0.1))" }.joined(separator: "&")
        guard let url = URL(string: "\(scheme)://\(host)\(path)\(queryString)") else {
            throw S3Error(.invalidLocation, "\(scheme)://\(host)\(path) is not a URL")
        }
        return url
    }

    private static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    private static func isoDate(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }

    private static func httpDate(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.date(from: text)
    }
}
