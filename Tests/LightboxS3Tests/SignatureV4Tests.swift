import Crypto
import Foundation
import LightboxTestSupport
import Testing

@testable import LightboxS3

@Suite("Signature Version 4")
struct SignatureV4Tests {
    /// The credentials of AWS's S3 examples ("Signature Calculations for the Authorization
    /// Header: Transferring Payload in a Single Chunk").
    static let s3Example = SignatureV4(
        credentials: S3Credentials(
            accessKeyID: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
        region: "us-east-1")
    static let exampleDate = "20130524T000000Z"
    static let emptyHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    static func signature(_ signer: SignatureV4, _ request: SignatureV4.Request, timestamp: String) -> String {
        let authorization = signer.authorization(for: request, timestamp: timestamp)
        return String(authorization.split(separator: "=").last!)
    }

    @Test("AWS's S3 example: GET an object's first 10 bytes, canonical request and signature")
    func getObjectExample() {
        let request = SignatureV4.Request(
            method: "GET", path: "/test.txt",
            headers: [
                ("Host", "examplebucket.s3.amazonaws.com"), ("Range", "bytes=0-9"),
                ("x-amz-content-sha256", Self.emptyHash), ("x-amz-date", Self.exampleDate),
            ], payloadHash: Self.emptyHash)
        let (canonical, signed) = SignatureV4.canonicalRequest(request)
        #expect(
            canonical == """
                GET
                /test.txt

                host:examplebucket.s3.amazonaws.com
                range:bytes=0-9
                x-amz-content-sha256:\(Self.emptyHash)
                x-amz-date:20130524T000000Z

                host;range;x-amz-content-sha256;x-amz-date
                \(Self.emptyHash)
                """)
        #expect(signed == "host;range;x-amz-content-sha256;x-amz-date")
        #expect(
            Self.s3Example.authorization(for: request, timestamp: Self.exampleDate)
                == "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
                + "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, "
                + "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
    }

    @Test("AWS's S3 example: PUT an object whose key needs encoding, with a storage class")
    func putObjectExample() {
        let body = "Welcome to Amazon S3."
        let hash = "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072"
        #expect(SignatureV4.hex(Array(body.utf8).sha256) == hash)
        let request = SignatureV4.Request(
            method: "PUT", path: SignatureV4.encodePath("/test$file.text"),
            headers: [
                ("Host", "examplebucket.s3.amazonaws.com"), ("Date", "Fri, 24 May 2013 00:00:00 GMT"),
                ("x-amz-date", Self.exampleDate), ("x-amz-storage-class", "REDUCED_REDUNDANCY"),
                ("x-amz-content-sha256", hash),
            ], payloadHash: hash)
        #expect(request.path == "/test%24file.text")
        #expect(
            Self.signature(Self.s3Example, request, timestamp: Self.exampleDate)
                == "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd")
    }

    @Test("AWS's S3 examples: a bucket's lifecycle and a listing, whose query parameters are sorted")
    func bucketExamples() {
        func request(_ query: [(name: String, value: String)]) -> SignatureV4.Request {
            SignatureV4.Request(
                method: "GET", path: "/", query: query,
                headers: [
                    ("Host", "examplebucket.s3.amazonaws.com"), ("x-amz-date", Self.exampleDate),
                    ("x-amz-content-sha256", Self.emptyHash),
                ], payloadHash: Self.emptyHash)
        }
        #expect(
            Self.signature(Self.s3Example, request([("lifecycle", "")]), timestamp: Self.exampleDate)
                == "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543")
        #expect(
            Self.signature(Self.s3Example, request([("prefix", "J"), ("max-keys", "2")]), timestamp: Self.exampleDate)
                == "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7")
    }

    @Test("AWS's signing test suite: get-vanilla, and sign() adds the date and the authorization")
    func getVanilla() {
        let signer = SignatureV4(
            credentials: S3Credentials(
                accessKeyID: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"),
            region: "us-east-1", service: "service")
        var request = SignatureV4.Request(
            method: "GET", path: "/", headers: [("Host", "example.amazonaws.com")], payloadHash: Self.emptyHash)
        signer.sign(&request, date: Date(timeIntervalSince1970: 1_440_938_160))
        #expect(request.headers.first { $0.name == "x-amz-date" }?.value == "20150830T123600Z")
        #expect(
            request.headers.last?.value
                == "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, "
                + "SignedHeaders=host;x-amz-date, "
                + "Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31")
    }

    @Test("Header values are trimmed and their runs of spaces made one; a name given twice is signed once")
    func canonicalHeaders() {
        let request = SignatureV4.Request(
            method: "GET", path: "/",
            headers: [("My-Header1", "  a   b   c  "), ("my-header1", "d"), ("HOST", "h")], payloadHash: "p")
        let (canonical, signed) = SignatureV4.canonicalRequest(request)
        #expect(canonical.contains("host:h\nmy-header1:a b c,d\n"))
        #expect(signed == "host;my-header1")
    }

    /// Keys and query values a library writes or a person types: spaces, Unicode, reserved
    /// characters.
    static let awkwardKeys = [
        "originals/ab/abcdef0123.heic", "a b/c+d=e&f", "photos/Été 2024/IMG_0001 (1).JPG", "~tilde/-._",
        "emoji/📷.jpg", "semi;colon,comma'quote\"", "percent%20already", "star*bang!paren()",
    ]

    @Test(
        "Signatures equal botocore's (AWS's own Python signer) for awkward keys, queries and headers",
        .enabled(if: Services.python != nil || Services.required))
    func matchesBotocore() throws {
        guard let python = Services.python else { throw Services.Missing(service: "botocore (scripts/services)") }
        let signer = SignatureV4(
            credentials: S3Credentials(accessKeyID: "AKIDTEST", secretAccessKey: "se/cr+et=="), region: "eu-west-3")
        var cases: [[String: Any]] = []
        var expected: [String] = []
        for (index, key) in Self.awkwardKeys.enumerated() {
            let host = index % 2 == 0 ? "bucket.s3.eu-west-3.amazonaws.com" : "127.0.0.1:9000"
            let path = SignatureV4.encodePath("/" + (index % 2 == 0 ? "" : "bucket/") + key)
            let query: [(name: String, value: String)] =
                index % 3 == 0 ? [] : [("prefix", key), ("list-type", "2"), ("continuation-token", "1/2+3=")]
            // botocore hashes the body itself.
            let payload = SignatureV4.hex(Array(key.utf8).sha256)
            let headers: [(name: String, value: String)] = [
                ("Host", host), ("X-Amz-Content-SHA256", payload), ("Content-Type", "image/jpeg"),
                ("Range", "bytes=\(index)-\(index * 100 + 99)"), ("X-Amz-Meta-Note", "  two  spaces "),
            ]
            let timestamp = "20261127T\(10 + index)0000Z"
            let request = SignatureV4.Request(
                method: index % 2 == 0 ? "GET" : "PUT", path: path, query: query,
                headers: headers + [("X-Amz-Date", timestamp)], payloadHash: payload)
            expected.append(signer.authorization(for: request, timestamp: timestamp))
            let queryString = query.map { "\(SignatureV4.encode($0.name))=\(SignatureV4.encode($0.value))" }
                .joined(separator: "&")
            cases.append([
                "method": request.method, "url": "http://\(host)\(path)" + (query.isEmpty ? "" : "?" + queryString),
                "headers": Dictionary(uniqueKeysWithValues: headers.map { ($0.name, $0.value) }),
                "timestamp": timestamp, "body": key,
            ])
        }
        let json = String(decoding: try JSONSerialization.data(withJSONObject: cases), as: UTF8.self)
        let script = """
            import datetime, json, sys
            from unittest import mock
            from botocore.auth import S3SigV4Auth
            from botocore.awsrequest import AWSRequest
            from botocore.credentials import Credentials
            for case in json.loads(sys.argv[1]):
                request = AWSRequest(
                    method=case["method"], url=case["url"], headers=case["headers"], data=case["body"].encode())
                when = datetime.datetime.strptime(case["timestamp"], "%Y%m%dT%H%M%SZ")
                with mock.patch("botocore.auth.get_current_datetime", return_value=when):
                    S3SigV4Auth(Credentials("AKIDTEST", "se/cr+et=="), "s3", "eu-west-3").add_auth(request)
                print(request.headers["Authorization"])
            """
        let theirs = try Python.output(script, [json], interpreter: python).split(separator: "\n").map(String.init)
        #expect(theirs.count == expected.count)
        for (ours, theirs) in zip(expected, theirs) {
            #expect(ours == theirs)
        }
    }
}

extension [UInt8] {
    var sha256: [UInt8] { Array(SHA256.hash(data: self)) }
}
