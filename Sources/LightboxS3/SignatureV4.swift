import Crypto
import Foundation

/// Signs requests with AWS Signature Version 4, as S3 and the servers compatible with it
/// require: a canonical form of the request is hashed, and the hash signed with a key derived
/// from the secret, the day, the region and the service.
///
/// The canonical form is S3's: the path is used as sent (each key segment percent-encoded
/// once by ``encodePath(_:)``), not normalised; query names and values are percent-encoded and
/// sorted; every header given is signed.
public struct SignatureV4: Sendable {
    public var credentials: S3Credentials
    public var region: String
    public var service: String

    public init(credentials: S3Credentials, region: String, service: String = "s3") {
        self.credentials = credentials
        self.region = region
        self.service = service
    }

    /// What is signed: the request's method, path (percent-encoded as sent), query (not
    /// encoded), headers (the host among them) and the hex SHA-256 of its body (or
    /// `UNSIGNED-PAYLOAD`).
    public struct Request: Sendable {
        public var method: String
        public var path: String
        public var query: [(name: String, value: String)]
        public var headers: [(name: String, value: String)]
        public var payloadHash: String

        public init(
            method: String, path: String, query: [(name: String, value: String)] = [],
            headers: [(name: String, value: String)], payloadHash: String
        ) {
            self.method = method
            self.path = path
            self.query = query
            self.headers = headers
            self.payloadHash = payloadHash
        }
    }

    /// Signs `request` as of `date`: adds `x-amz-date` (and `x-amz-security-token` for
    /// temporary credentials), then `authorization`, to its headers.
    public func sign(_ request: inout Request, date: Date) {
        let stamp = Self.timestamp(date)
        request.headers.append((name: "x-amz-date", value: stamp))
        if let token = credentials.sessionToken {
            request.headers.append((name: "x-amz-security-token", value: token))
        }
        request.headers.append((name: "authorization", value: authorization(for: request, timestamp: stamp)))
    }

    /// The `Authorization` header's value for a request whose headers already carry
    /// `x-amz-date` equal to `timestamp` (`yyyyMMdd'T'HHmmss'Z'`).
    public func authorization(for request: Request, timestamp: String) -> String {
        let (canonical, signedHeaders) = Self.canonicalRequest(request)
        let day = String(timestamp.prefix(8))
        let scope = "\(day)/\(region)/\(service)/aws4_request"
        let stringToSign = [
            "AWS4-HMAC-SHA256", timestamp, scope, Self.hex(SHA256.hash(data: Data(canonical.utf8))),
        ].joined(separator: "\n")
        var key = SymmetricKey(data: Data("AWS4\(credentials.secretAccessKey)".utf8))
        for part in [day, region, service, "aws4_request"] {
            key = SymmetricKey(data: Data(HMAC<SHA256>.authenticationCode(for: Data(part.utf8), using: key)))
        }
        let signature = Self.hex(HMAC<SHA256>.authenticationCode(for: Data(stringToSign.utf8), using: key))
        return "AWS4-HMAC-SHA256 Credential=\(credentials.accessKeyID)/\(scope), "
            + "SignedHeaders=\(signedHeaders), Signature=\(signature)"
    }

    /// The canonical request and the signed headers' names, as AWS defines them.
    static func canonicalRequest(_ request: Request) -> (String, String) {
        let encoded: [(name: String, value: String)] = request.query.map { (encode($0.name), encode($0.value)) }
        let sorted = encoded.sorted { (a, b) -> Bool in a.name != b.name ? a.name < b.name : a.value < b.value }
        let query = sorted.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
        // Names lowercased and sorted; a name given twice is signed once, its values joined.
        var headers: [String: [String]] = [:]
        for (name, value) in request.headers {
            headers[name.lowercased(), default: []].append(collapsingSpaces(value))
        }
        let names = headers.keys.sorted()
        let canonicalHeaders = names.map { "\($0):\(headers[$0]!.joined(separator: ","))\n" }.joined()
        let signedHeaders = names.joined(separator: ";")
        let canonical = [
            request.method, request.path.isEmpty ? "/" : request.path, query, canonicalHeaders, signedHeaders,
            request.payloadHash,
        ].joined(separator: "\n")
        return (canonical, signedHeaders)
    }

    /// `yyyyMMdd'T'HHmmss'Z'` in UTC.
    public static func timestamp(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        func two(_ n: Int?) -> String { n.map { $0 < 10 ? "0\($0)" : "\($0)" } ?? "00" }
        let year = String(c.year ?? 1970)
        return "\(year)\(two(c.month))\(two(c.day))T\(two(c.hour))\(two(c.minute))\(two(c.second))Z"
    }

    /// An object key as a path: each byte but the unreserved ones and `/` percent-encoded.
    public static func encodePath(_ key: String) -> String {
        encode(key, keepingSlash: true)
    }

    /// RFC 3986 percent-encoding of everything but `A-Z a-z 0-9 - . _ ~` (and `/` when kept),
    /// with upper-case hex digits, as Signature Version 4 requires.
    static func encode(_ text: String, keepingSlash: Bool = false) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: "/") where keepingSlash:
                out.append("/")
            default:
                out.append("%")
                out.append(hexDigits[Int(byte >> 4)])
                out.append(hexDigits[Int(byte & 15)])
            }
        }
        return out
    }

    /// A header value trimmed, with each run of spaces made one.
    static func collapsingSpaces(_ value: String) -> String {
        value.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
            .trimmingCharacters(in: .whitespaces)
    }

    static func hex<D: Sequence>(_ digest: D) -> String where D.Element == UInt8 {
        var out = ""
        for byte in digest {
            out.append(lowerHexDigits[Int(byte >> 4)])
            out.append(lowerHexDigits[Int(byte & 15)])
        }
        return out
    }

    private static let hexDigits: [Character] = Array("0123456789ABCDEF")
    private static let lowerHexDigits: [Character] = Array("0123456789abcdef")
}

/// The keys a request is signed with: from the environment or a file, never a command line.
public struct S3Credentials: Sendable, Equatable {
    public var accessKeyID: String
    public var secretAccessKey: String
    /// For temporary credentials.
    public var sessionToken: String?

    public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
    }
}
