import Crypto
import Foundation
import LightboxTestSupport
import Testing

@testable import LightboxS3

/// The client against a real S3-compatible server (moto's, started by scripts/services), with
/// real photos and a movie-sized file made of them.
@Suite("S3 client", .enabled(if: Services.s3Enabled))
struct S3ClientTests {
    static let credentials = S3Credentials(accessKeyID: "lightbox-test", secretAccessKey: "lightbox-test-secret")

    /// A client on a new bucket of its own, under `prefix`.
    static func client(prefix: String = "library/", partSize: Int = 5 << 20) throws -> S3Client {
        let bucket = "lightbox-" + UUID().uuidString.lowercased().prefix(18)
        let location = try S3Location("s3://\(bucket)/\(prefix)", endpoint: try Services.requireS3())
        let client = S3Client(location: location, credentials: credentials, partSize: partSize)
        try client.createBucket()
        return client
    }

    static func photo(_ path: String) throws -> [UInt8] {
        try [UInt8](Data(contentsOf: URL(fileURLWithPath: Corpus.path(path))))
    }

    @Test("A photo put is got back whole and by ranges; its head has its size and SHA-256; delete removes it")
    func putGetHeadDelete() throws {
        let client = try Self.client()
        let photo = try Self.photo("forensics/original-files/pic2/IMG_20191224_234846.jpg")
        let key = "originals/ab/Été 2024/IMG 0001 (1)+x.jpg"
        try client.put(photo, key: key, contentType: "image/jpeg")

        #expect(try client.get(key) == photo)
        #expect(try client.get(key, range: 0...9) == Array(photo[0...9]))
        let middle = Int64(photo.count / 2)
        #expect(
            try client.get(key, range: middle...(middle + 65_535)) == Array(photo[Int(middle)...Int(middle) + 65_535]))
        // A range past the end gives what there is.
        #expect(try client.get(key, range: Int64(photo.count - 5)...Int64(photo.count + 100)) == Array(photo.suffix(5)))

        let head = try #require(try client.head(key))
        #expect(head.size == Int64(photo.count))
        // Kept where the server keeps checksums (moto does not).
        #expect(
            head.checksumSHA256 == nil || head.checksumSHA256 == Data(SHA256.hash(data: photo)).base64EncodedString())
        #expect(head.eTag == "\"\(md5(photo))\"")

        // A touch makes it newer and leaves its bytes.
        Thread.sleep(forTimeInterval: 1.1)
        try client.touch(key)
        let touched = try #require(try client.head(key))
        #expect(touched.lastModified! > head.lastModified!)
        #expect(try client.get(key) == photo)
        #expect(throws: S3Error.self) { try client.touch("absent") }

        try client.delete(key)
        #expect(try client.head(key) == nil)
        #expect(throws: S3Error.self) { try client.get(key) }
        let error = try #require(throws: S3Error.self) { try client.get(key) }
        #expect(error.code == .notFound)
        #expect(error.message.contains(key))
        // Deleting what is not there is not an error.
        try client.delete(key)
    }

    @Test("An answer larger than the caller allows is refused, not held")
    func boundedAnswers() throws {
        let client = try Self.client()
        let photo = try Self.photo("digikam/body-background.jpg")
        try client.put(photo, key: "big.jpg")
        let error = try #require(throws: S3Error.self) { try client.get("big.jpg", maximumSize: 1000) }
        #expect(error.code == .tooLarge)
        #expect(try client.get("big.jpg", maximumSize: photo.count) == photo)
    }

    @Test("A movie-sized file goes up in parts and comes down to a file equal to it; no upload is left")
    func multipart() throws {
        let client = try Self.client(partSize: 5 << 20)
        let folder = try TemporaryDirectory()
        defer { withExtendedLifetime(folder) {} }
        // 12 MB of real photos: three parts of 5, 5 and 2 MiB and a little.
        var bytes: [UInt8] = []
        let photos = [
            try Self.photo("forensics/original-files/pic2/IMG_20191224_234846.jpg"),
            try Self.photo("digikam/body-background.jpg"),
        ]
        while bytes.count < 12 << 20 { bytes += photos[bytes.count % 2] }
        bytes += [1, 2, 3]
        let source = folder.path("movie.mov")
        try Data(bytes).write(to: URL(fileURLWithPath: source))

        #expect(
            try client.putFile(at: source, key: "originals/movie.mov", contentType: "video/quicktime")
                == Int64(bytes.count))
        let head = try #require(try client.head("originals/movie.mov"))
        #expect(head.size == Int64(bytes.count))
        // An upload in parts: the MD5 of the parts' MD5s, and their count.
        let parts = [bytes[0..<(5 << 20)], bytes[(5 << 20)..<(10 << 20)], bytes[(10 << 20)...]]
        #expect(head.eTag == "\"\(md5(parts.flatMap { Insecure.MD5.hash(data: Array($0)) }))-3\"")
        // A part's boundary read as a range.
        let boundary = Int64(5 << 20)
        #expect(
            try client.get("originals/movie.mov", range: (boundary - 3)...(boundary + 3))
                == Array(bytes[Int(boundary - 3)...Int(boundary + 3)]))

        // A file that is not what the caller hashed is not stored.
        let changed = try #require(
            throws: S3Error.self,
            performing: {
                try client.putFile(at: source, key: "originals/changed.mov", sha256: String(repeating: "0", count: 64))
            })
        #expect(changed.code == .checksumMismatch)
        #expect(try client.head("originals/changed.mov") == nil)
        #expect(try client.unfinishedUploads().isEmpty)
        #expect(
            try client.putFile(
                at: source, key: "originals/same.mov", sha256: SignatureV4.hex(SHA256.hash(data: bytes)))
                == Int64(bytes.count))

        let copy = folder.path("copy.mov")
        #expect(try client.download("originals/movie.mov", to: copy) == Int64(bytes.count))
        #expect(try Data(contentsOf: URL(fileURLWithPath: copy)) == Data(bytes))
        #expect(try client.unfinishedUploads().isEmpty)

        // A file no larger than a part goes in one request.
        let photo = try Self.photo("forensics/original-files/pic1/IMG_1054.JPG")
        let small = folder.path("small.jpg")
        try Data(photo).write(to: URL(fileURLWithPath: small))
        try client.putFile(at: small, key: "small.jpg")
        #expect(try client.head("small.jpg")?.eTag == "\"\(md5(photo))\"")
    }

    @Test("A download that fails leaves no file behind")
    func failedDownload() throws {
        let client = try Self.client()
        let folder = try TemporaryDirectory()
        defer { withExtendedLifetime(folder) {} }
        let path = folder.path("absent")
        let error = try #require(throws: S3Error.self) { try client.download("nothing-here", to: path) }
        #expect(error.code == .notFound)
        #expect(!FileManager.default.fileExists(atPath: path))
        // A file it did not make is neither written over nor removed.
        let mine = folder.path("mine")
        try Data("mine".utf8).write(to: URL(fileURLWithPath: mine))
        try client.put([1, 2, 3], key: "there")
        #expect(throws: S3Error.self) { try client.download("there", to: mine) }
        #expect(throws: S3Error.self) { try client.download("nothing-here", to: mine) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: mine)) == Data("mine".utf8))
        // A range whose length would overflow is refused, not trapped on.
        #expect(throws: S3Error.self) { try client.get("there", range: 0...Int64.max) }
    }

    @Test("An upload a process left unfinished is listed, and aborting it frees it")
    func unfinishedUploads() throws {
        let client = try Self.client()
        let upload = try client.startUpload(key: "originals/crashed.mov", contentType: "video/quicktime")
        let listed = try client.unfinishedUploads()
        #expect(listed.map(\.key) == ["originals/crashed.mov"])
        #expect(listed.first?.uploadID == upload.uploadID)
        try client.abort(listed[0])
        #expect(try client.unfinishedUploads().isEmpty)
    }

    @Test("A listing gives the keys under the prefix only, in order, with sizes, page after page")
    func listing() throws {
        let client = try Self.client(prefix: "one/")
        let other = S3Client(
            location: try S3Location(
                "s3://\(client.location.bucket)/two", endpoint: try Services.requireS3()), credentials: Self.credentials
        )
        let keys = ["a/1.jpg", "a/2 two.jpg", "b/3.jpg", "b/Ü.jpg"]
        for (index, key) in keys.enumerated() {
            try client.put(Array(repeating: UInt8(index), count: index + 1), key: key)
        }
        try other.put([9], key: "a/elsewhere.jpg")

        let listed = try client.objects()
        #expect(listed.map(\.key) == keys)
        #expect(listed.map(\.size) == [1, 2, 3, 4])
        var underA: [String] = []
        try client.list(prefix: "a/") { page in
            underA += page.map(\.key)
            return true
        }
        #expect(underA == ["a/1.jpg", "a/2 two.jpg"])
    }

    @Test("A server that does not answer is a transport error naming it")
    func noServer() throws {
        // A port nothing listens on: bound, then closed.
        let location = try S3Location("s3://nobody-home", endpoint: URL(string: "http://127.0.0.1:9")!)
        let client = S3Client(location: location, credentials: Self.credentials)
        let error = try #require(throws: S3Error.self) { try client.head("x") }
        #expect(error.code == .transport)
        #expect(error.message.contains("127.0.0.1:9"))
    }
}

func md5<D: Sequence>(_ bytes: D) -> String where D.Element == UInt8 {
    Insecure.MD5.hash(data: Array(bytes)).map { String(format: "%02x", $0) }.joined()
}

@Suite("S3 locations and answers")
struct S3LocationTests {
    @Test("s3:// addresses are read, checked and addressed path-style or virtual-hosted")
    func locations() throws {
        let local = try S3Location("s3://photos/library/one/", endpoint: URL(string: "http://127.0.0.1:9000")!)
        #expect(local.bucket == "photos")
        #expect(local.prefix == "library/one/")
        #expect(local.pathStyle)
        #expect(local.address(of: "a b.jpg") == ("127.0.0.1:9000", "/photos/library/one/a%20b.jpg"))
        let aws = try S3Location("s3://photos", region: "eu-west-3")
        #expect(aws.prefix == "")
        #expect(!aws.pathStyle)
        #expect(aws.address(of: "x.jpg") == ("photos.s3.eu-west-3.amazonaws.com", "/x.jpg"))
        for bad in [
            "photos", "s3://", "s3://Photos", "s3://ph", "s3://-photos", "s3://a..b", "s3://photos/../x",
            "s3://photos/a//b", "s3://photos/\u{1}",
        ] {
            #expect(throws: S3Error.self, "\(bad)") { try S3Location(bad) }
        }
        #expect(throws: S3Error.self) { try S3Location("s3://photos", endpoint: URL(string: "ftp://host")!) }
        #expect(throws: S3Error.self) { try S3Location("s3://photos", region: "us east") }
    }

    @Test("S3's XML answers: elements, repeated elements, entities; hostile answers end the scan")
    func xml() {
        let answer = S3XML(
            Array(
                """
                <?xml version="1.0" encoding="UTF-8"?>
                <ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><IsTruncated>true</IsTruncated>
                <Contents><Key>a &amp; b&#233;&#x1F4F7;.jpg</Key><Size>12</Size></Contents>
                <Contents><Key>c&lt;d</Key><Size>3</Size><Owner/></Contents>
                <NextContinuationToken>t+1/2=</NextContinuationToken></ListBucketResult>
                """.utf8))
        #expect(answer.text("IsTruncated") == "true")
        #expect(answer.elements("Contents").compactMap { $0.text("Key") } == ["a & bé📷.jpg", "c<d"])
        #expect(answer.texts("Size") == ["12", "3"])
        #expect(answer.text("NextContinuationToken") == "t+1/2=")
        #expect(answer.text("Owner") == "")
        #expect(answer.text("Missing") == nil)
        // Unclosed, unknown entities, a reference past Unicode: no crash, what can be read.
        #expect(S3XML(Array("<Key>abc".utf8)).text("Key") == nil)
        #expect(S3XML(Array("<Key>&bogus; &#99999999; &</Key>".utf8)).text("Key") == "&bogus; &#99999999; &")
        #expect(S3XML(Array("<Key".utf8)).text("Key") == nil)
    }

    @Test("20,000 mutations of a real listing answer: every scan ends, nothing traps")
    func mutatedAnswers() {
        let listing = Array(
            """
            <?xml version="1.0" encoding="UTF-8"?><ListBucketResult><Name>b</Name><Prefix>p/</Prefix>\
            <IsTruncated>true</IsTruncated><Contents><Key>p/a&amp;b.jpg</Key><LastModified>2026-11-27T10:00:00.000Z\
            </LastModified><ETag>&quot;1ea98f960282358fae0aba6541145c96&quot;</ETag><Size>689275</Size></Contents>\
            <Contents><Key>p/&#x1F4F7;</Key><Size>3</Size><Owner/></Contents>\
            <NextContinuationToken>abc</NextContinuationToken></ListBucketResult>
            """.utf8)
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("<>/&;#x0123456789abcdefKeyContentsSize \"".utf8)
        for _ in 0..<20_000 {
            var bytes = listing
            for _ in 0..<Int.random(in: 1...8, using: &generator) {
                let at = Int.random(in: 0..<bytes.count, using: &generator)
                switch Int.random(in: 0..<4, using: &generator) {
                case 0: bytes[at] = alphabet.randomElement(using: &generator)!
                case 1: bytes.remove(at: at)
                case 2: bytes.insert(UInt8.random(in: 0...255, using: &generator), at: at)
                default: bytes = Array(bytes[..<at])
                }
                if bytes.isEmpty { bytes = [UInt8(ascii: "<")] }
            }
            let xml = S3XML(bytes)
            for entry in xml.elements("Contents") {
                _ = entry.text("Key")
                _ = entry.text("Size").flatMap { Int64($0) }
            }
            _ = xml.text("NextContinuationToken")
        }
    }

    @Test("Credentials from the environment, else from a credentials file's profile; none said clearly")
    func credentials() throws {
        let fromEnvironment = try S3Credentials.fromEnvironment([
            "AWS_ACCESS_KEY_ID": "AK", "AWS_SECRET_ACCESS_KEY": "SK", "AWS_SESSION_TOKEN": "T",
        ])
        #expect(fromEnvironment == S3Credentials(accessKeyID: "AK", secretAccessKey: "SK", sessionToken: "T"))
        let folder = try TemporaryDirectory()
        let file = folder.path("credentials")
        try Data(
            """
            # a comment
            [default]
            aws_access_key_id = DEFAULTKEY
            aws_secret_access_key = default/secret+=
            [photos]
            aws_access_key_id=PHOTOSKEY
            ; another comment
            aws_secret_access_key=photos secret
            """.utf8
        ).write(to: URL(fileURLWithPath: file))
        #expect(
            try S3Credentials.fromEnvironment(["AWS_SHARED_CREDENTIALS_FILE": file])
                == S3Credentials(accessKeyID: "DEFAULTKEY", secretAccessKey: "default/secret+="))
        #expect(
            try S3Credentials.fromEnvironment(["AWS_SHARED_CREDENTIALS_FILE": file, "AWS_PROFILE": "photos"])
                == S3Credentials(accessKeyID: "PHOTOSKEY", secretAccessKey: "photos secret"))
        let noProfile = try #require(throws: S3Error.self) {
            try S3Credentials.fromEnvironment(["AWS_SHARED_CREDENTIALS_FILE": file, "AWS_PROFILE": "other"])
        }
        #expect(noProfile.message.contains("[other]"))
        let none = try #require(throws: S3Error.self) {
            try S3Credentials.fromEnvironment(["HOME": folder.path("nobody")])
        }
        #expect(none.message.contains("AWS_ACCESS_KEY_ID"))
    }
}
