import Crypto
import Foundation
import Hummingbird
import HummingbirdTesting
import Lightbox
import LightboxTestSupport
import Testing

@testable import LightboxServer

/// Files sent over HTTP: streamed to disk, checked, imported as from a folder, resumed.
@Suite("Uploads")
struct UploadTests {
    static func sha256(_ bytes: [UInt8]) -> String {
        SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
    }

    static func object(_ response: TestResponse) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any])
    }

    static func whole(
        _ client: some TestClientProtocol, _ bytes: [UInt8], name: String, sha256: String? = nil
    ) async throws -> TestResponse {
        let query = "filename=\(name)" + (sha256.map { "&sha256=" + $0 } ?? "")
        return try await client.execute(
            uri: "/api/uploads/whole?" + query, method: .post,
            headers: [.contentType: "application/octet-stream", .contentLength: String(bytes.count)],
            body: ByteBuffer(bytes: bytes)
        ) { $0 }
    }

    @Test("A whole file is imported with its name and bytes; the same bytes again are the same asset; check finds it")
    func wholeFiles() async throws {
        let folder = try TemporaryDirectory()
        let library = try folder.makeLibrary()
        let path = try #require(try Corpus.photoPaths().first)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let digest = Self.sha256(bytes)
        let name = (path as NSString).lastPathComponent
        try await Application(router: LightboxServer.router(library: library)).test(.router) { client in
            try await client.execute(
                uri: "/api/uploads/check", method: .post, headers: [.contentType: "application/json"],
                body: ByteBuffer(string: #"{"sha256": ["\#(digest)"]}"#)
            ) { response throws in
                #expect((try Self.object(response)["existing"] as? [String: String])?.isEmpty == true)
            }
            var response = try await Self.whole(client, bytes, name: name, sha256: digest)
            #expect(response.status == .created, "\(String(buffer: response.body))")
            let answer = try Self.object(response)
            #expect(answer["outcome"] as? String == "imported")
            let id = try #require((answer["asset"] as? [String: Any])?["localIdentifier"] as? String)
            let asset = try #require(try await library.asset(withLocalIdentifier: id))
            let photo = try #require(asset.resource(ofType: .photo))
            #expect(photo.sha256 == digest && photo.originalFilename == name)
            #expect(try Data(contentsOf: try await library.fileURL(for: photo)) == Data(bytes))
            #expect(response.headers[HTTPFields.headerName("X-Lightbox-Change-Token")] != nil)

            response = try await Self.whole(client, bytes, name: "copy.jpg")
            #expect(response.status == .ok)
            #expect(try Self.object(response)["outcome"] as? String == "duplicate")
            #expect((try Self.object(response)["asset"] as? [String: Any])?["localIdentifier"] as? String == id)
            #expect(try await library.assetCount() == 1)

            try await client.execute(
                uri: "/api/uploads/check", method: .post, headers: [.contentType: "application/json"],
                body: ByteBuffer(string: #"{"sha256": ["\#(digest)", "\#(String(repeating: "0", count: 64))"]}"#)
            ) { response throws in
                #expect(try Self.object(response)["existing"] as? [String: String] == [digest: id])
            }
            // Bytes that are not what the client said: refused, nothing imported, nothing left.
            var damaged = bytes
            damaged[damaged.count / 2] ^= 0xFF
            response = try await Self.whole(client, damaged, name: "damaged.jpg", sha256: digest)
            #expect(response.status == .unprocessableContent)
            #expect(try await library.assetCount() == 1)
            #expect(try FileManager.default.contentsOfDirectory(atPath: library.uploadsFolder.path).isEmpty)
        }
    }

    @Test("The digest taken while the bytes arrive checks the file; after a restart the file itself is hashed")
    func digests() async throws {
        let folder = try TemporaryDirectory()
        let library = try folder.makeLibrary()
        let paths = Array(try Corpus.photoPaths().prefix(2))
        func chunks(_ bytes: ArraySlice<UInt8>) -> AsyncThrowingStream<ByteBuffer, any Error> {
            AsyncThrowingStream { continuation in
                var rest = bytes
                while !rest.isEmpty {
                    continuation.yield(ByteBuffer(bytes: rest.prefix(100_000)))
                    rest = rest.dropFirst(100_000)
                }
                continuation.finish()
            }
        }
        for (index, path) in paths.enumerated() {
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            let cut = bytes.count * 6 / 10
            for claimed in [Self.sha256(Array(bytes.reversed())), Self.sha256(bytes)] {
                var staging = UploadStaging(library: library)
                let upload = try staging.start(
                    filename: "photo\(index).jpg", size: Int64(bytes.count), sha256: claimed, maximumSize: 1 << 30)
                _ = try await staging.append(upload.id, at: 0, chunks(bytes[..<cut]))
                // The first photo's upload goes on in a server started again: no digest kept.
                if index == 0 { staging = UploadStaging(library: library) }
                let status = try await staging.append(upload.id, at: Int64(cut), chunks(bytes[cut...]))
                #expect(status.offset == Int64(bytes.count))
                if claimed == Self.sha256(bytes) {
                    let result = try await staging.finish(upload.id)
                    #expect(result.outcome.localIdentifier != nil, "\(result.outcome)")
                } else {
                    await #expect(throws: UploadError.self) { try await staging.finish(upload.id) }
                }
            }
        }
        #expect(try await library.assets().count == 2)
    }

    @Test("Sizes declared by open uploads are the disk's already: a second upload the disk holds only once is 507")
    func declaredSizesReserved() async throws {
        let folder = try TemporaryDirectory()
        let library = try folder.makeLibrary()
        let staging = UploadStaging(library: library)
        try FileManager.default.createDirectory(at: library.uploadsFolder, withIntermediateDirectories: true)
        // Two thirds of what the disk has free, declared twice: each fits alone, not both.
        let free = UploadStaging.freeBytes(library.uploadsFolder.path) - UploadStaging.spareDisk
        let size = free / 3 * 2
        let first = try staging.start(filename: "a.mov", size: size, sha256: nil, maximumSize: .max)
        #expect(throws: UploadError.self) {
            _ = try staging.start(filename: "b.mov", size: size, sha256: nil, maximumSize: .max)
        }
        // Given up, its room is free again.
        try staging.cancel(first.id)
        _ = try staging.start(filename: "b.mov", size: size, sha256: nil, maximumSize: .max)
    }

    @Test("Sizes in messages read as people read them; a file too large is named with both sizes")
    func readableSizes() throws {
        #expect(UploadStaging.readable(1) == "1 byte")
        #expect(UploadStaging.readable(812) == "812 bytes")
        #expect(UploadStaging.readable(4_213_000) == "4.2 MB")
        #expect(UploadStaging.readable(10_737_418_240) == "11 GB")
        #expect(UploadStaging.readable(999_999) == "1.0 MB")
        #expect(UploadStaging.readable(.max).hasSuffix("EB"))
        let folder = try TemporaryDirectory()
        let staging = UploadStaging(library: try folder.makeLibrary())
        #expect {
            _ = try staging.start(
                filename: "IMG_0001.MOV", size: 3_500_000_000, sha256: nil, maximumSize: 2_000_000_000)
        } throws: { error in
            "\(error)".contains("IMG_0001.MOV is 3.5 GB: this server takes files of at most 2.0 GB")
        }
    }

    @Test("File names are made safe, in time linear in their length, keeping their end")
    func names() {
        #expect(UploadStaging.safeName("../../etc/passwd") == "passwd")
        #expect(UploadStaging.safeName("...hidden.jpg") == "hidden.jpg")
        #expect(UploadStaging.safeName("a\u{0}b\nc.jpg") == "abc.jpg")
        #expect(UploadStaging.safeName("data") == "upload" && UploadStaging.safeName("..") == "upload")
        // Names that stopped the server in Foundation's NSString (the request fuzz target's find).
        #expect(UploadStaging.safeName("//\u{88}") == "\u{88}")
        #expect(UploadStaging.safeName("x//été.jpg") == "été.jpg")
        #expect(UploadStaging.safeName("é/") == "é")
        // Cut to 200 bytes at a dot: the name still does not begin with one.
        let cut = UploadStaging.safeName("x" + String(repeating: ".", count: 150) + String(repeating: "y", count: 100))
        #expect(!cut.hasPrefix(".") && cut.utf8.count <= 200)
        let long = UploadStaging.safeName(String(repeating: "é", count: 4_000_000) + ".HEIC")
        #expect(long.utf8.count <= 200 && long.hasSuffix("é.HEIC"))
    }

    @Test("A Live Photo's halves uploaded movie first become one Live Photo")
    func livePhotoHalves() async throws {
        let folder = try TemporaryDirectory()
        let library = try folder.makeLibrary()
        let halves = try TemporaryDirectory()
        let (still, movie) = try Corpus.livePhotoPair(in: halves, identifier: "8A1B2C3D-0000-4000-8000-000000000042")
        try await Application(router: LightboxServer.router(library: library)).test(.router) { client in
            let movieBytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: movie)))
            var response = try await Self.whole(client, movieBytes, name: "IMG_0001.MOV")
            #expect(try Self.object(response)["outcome"] as? String == "imported")
            let stillBytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: still)))
            response = try await Self.whole(client, stillBytes, name: "IMG_0001.JPG")
            #expect(response.status == .ok)
            #expect(try Self.object(response)["outcome"] as? String == "paired")
        }
        let assets = try library.fetchAssets()
        #expect(assets.count == 1)
        #expect(assets.firstObject?.mediaSubtypes.contains(.photoLive) == true)
        #expect(assets.firstObject?.resource(ofType: .pairedVideo) != nil)
    }

    @Test("Two clients sending the same bytes at once make one asset")
    func simultaneous() async throws {
        let folder = try TemporaryDirectory()
        let library = try folder.makeLibrary()
        let paths = Array(try Corpus.photoPaths().prefix(3))
        let files = try paths.map { [UInt8](try Data(contentsOf: URL(fileURLWithPath: $0))) }
        var limits = ServerLimits()
        limits.uploadsPerUser = 6
        try await Application(router: LightboxServer.router(library: library, limits: limits)).test(.router) { client in
            let outcomes = try await withThrowingTaskGroup(of: String.self) { group in
                for (index, bytes) in files.enumerated() {
                    for copy in 0..<2 {
                        group.addTask {
                            let response = try await Self.whole(client, bytes, name: "photo\(index)-\(copy).jpg")
                            return try Self.object(response)["outcome"] as? String ?? "\(response.status)"
                        }
                    }
                }
                return try await group.reduce(into: [String]()) { $0.append($1) }
            }
            #expect(outcomes.filter { $0 == "imported" }.count == 3, "\(outcomes)")
            #expect(outcomes.filter { $0 == "duplicate" }.count == 3, "\(outcomes)")
        }
        #expect(try await library.assetCount() == 3)
    }

    @Test("An upload cut at 60% resumes from where the server says, and yields one asset with the right hash")
    func resumable() async throws {
        let folder = try TemporaryDirectory()
        let library = try folder.makeLibrary()
        let movie = [UInt8](try Data(contentsOf: URL(fileURLWithPath: try Corpus.path(Corpus.livePhotoMovie))))
        let digest = Self.sha256(movie)
        // Every request on its own socket with RawHTTP's patience: the test client's 20 s is
        // not enough while the whole suite shares two cores.
        try await Application(router: LightboxServer.router(library: library)).test(.live) { client in
            let port = try #require(client.port)
            func request(_ line: String, _ headers: [String] = [], _ bytes: [UInt8] = []) async throws -> (
                status: Int, object: [String: Any]
            ) {
                let (status, text) = try await RawHTTP.send(
                    port: port, head: [line, "Host: localhost"] + headers, bytes: bytes)
                let object =
                    (try? JSONSerialization.jsonObject(with: Data(RawHTTP.body(of: text).utf8)) as? [String: Any])
                    ?? [:]
                return (status, object)
            }
            let start = try await request(
                "POST /api/uploads HTTP/1.1", ["Content-Type: application/json"],
                Array(#"{"filename": "VID.mp4", "size": \#(movie.count), "sha256": "\#(digest)"}"#.utf8))
            #expect(start.status == 201)
            let id = try #require(start.object["id"] as? String)
            #expect(start.object["offset"] as? Int == 0)
            // The connection drops after 60% of the bytes.
            let cut = movie.count * 6 / 10
            try await RawHTTP.sendAndDrop(
                port: port,
                head: [
                    "PATCH /api/uploads/\(id) HTTP/1.1", "Host: localhost", "Upload-Offset: 0",
                    "Content-Type: application/octet-stream",
                ], body: Array(movie[..<cut]), total: movie.count)
            // The server notices the drop (within a minute, however loaded); then it says how far it got.
            var offset = -1
            for _ in 0..<1200 {
                let status = try await request("GET /api/uploads/\(id) HTTP/1.1").object
                if status["writing"] as? Bool == false, let at = status["offset"] as? Int, at > 0 {
                    offset = at
                    break
                }
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(offset > 0 && offset <= cut)
            #expect(try await library.assetCount() == 0)
            // A wrong offset is refused with the right one.
            let (conflict, text) = try await RawHTTP.send(
                port: port,
                head: [
                    "PATCH /api/uploads/\(id) HTTP/1.1", "Host: localhost", "Upload-Offset: 0",
                    "Content-Type: application/octet-stream",
                ], bytes: Array(movie[..<10]))
            #expect(conflict == 409)
            #expect(text.lowercased().contains("upload-offset: \(offset)"))
            let rest = try await request(
                "PATCH /api/uploads/\(id) HTTP/1.1",
                ["Upload-Offset: \(offset)", "Content-Type: application/octet-stream"], Array(movie[offset...]))
            #expect(rest.status == 201)
            #expect(rest.object["outcome"] as? String == "imported")
        }
        let assets = try library.fetchAssets()
        #expect(assets.count == 1)
        #expect(assets.firstObject?.resource(ofType: .video)?.sha256 == digest)
    }
}
