import Foundation

/// A bucket and a prefix in it, on an S3-compatible server: where a library's objects are.
///
/// ```swift
/// let location = try S3Location(
///     "s3://photos/library-1", endpoint: URL(string: "https://s3.eu-west-1.amazonaws.com")!,
///     region: "eu-west-1")
/// ```
public struct S3Location: Sendable, Equatable, CustomStringConvertible {
    /// The bucket's name.
    public var bucket: String
    /// Prepended to every key: empty, or ending with `/`.
    public var prefix: String
    /// The server: scheme, host and port, no path.
    public var endpoint: URL
    /// The region requests are signed for (`us-east-1` for most servers other than AWS).
    public var region: String
    /// Whether the bucket is the path's first segment (`https://host/bucket/key`: MinIO,
    /// Garage, Ceph, moto) rather than the host's first label (`https://bucket.host/key`: AWS).
    public var pathStyle: Bool

    /// Reads `s3://BUCKET[/PREFIX]`. With no endpoint, AWS's for the region; path-style
    /// addressing unless the endpoint is AWS's.
    public init(_ url: String, endpoint: URL? = nil, region: String? = nil, pathStyle: Bool? = nil) throws {
        guard url.hasPrefix("s3://") else {
            throw S3Error(.invalidLocation, "\(url) is not an s3://BUCKET/PREFIX address")
        }
        let rest = url.dropFirst("s3://".count)
        let bucket = String(rest.prefix { $0 != "/" })
        guard Self.isValidBucketName(bucket) else {
            throw S3Error(
                .invalidLocation,
                "\(url): \"\(bucket)\" is not a bucket name (3 to 63 lower-case letters, digits, dots and hyphens)")
        }
        var prefix = String(rest.dropFirst(bucket.count)).trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        guard prefix.utf8.count <= 512, !prefix.split(separator: "/").contains(where: { $0 == ".." || $0 == "." }),
            !prefix.contains("//"), !prefix.unicodeScalars.contains(where: { $0.value < 32 || $0.value == 127 })
        else {
            throw S3Error(.invalidLocation, "\(url): the prefix must be plain path segments of at most 512 bytes")
        }
        if !prefix.isEmpty { prefix += "/" }
        let region = region ?? "us-east-1"
        guard !region.isEmpty, region.utf8.count <= 64,
            region.unicodeScalars.allSatisfy({ CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == "_" })
        else {
            throw S3Error(.invalidLocation, "\(region) is not a region name")
        }
        let endpoint = endpoint ?? URL(string: "https://s3.\(region).amazonaws.com")!
        guard let scheme = endpoint.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = endpoint.host, !host.isEmpty, endpoint.path.isEmpty || endpoint.path == "/",
            endpoint.query == nil
        else {
            throw S3Error(.invalidLocation, "\(endpoint) is not an http(s)://HOST[:PORT] endpoint")
        }
        self.bucket = bucket
        self.prefix = prefix
        self.endpoint = endpoint
        self.region = region
        // AWS's virtual-hosted names need a bucket without dots for TLS (its certificate
        // covers one label).
        self.pathStyle = pathStyle ?? !(host.hasSuffix(".amazonaws.com") && !bucket.contains("."))
    }

    public var description: String { "s3://\(bucket)/\(prefix)" }

    /// The host header and the encoded path of an object (or of the bucket, for `key` nil).
    func address(of key: String?) -> (host: String, path: String) {
        let host = endpoint.host!
        let port = endpoint.port.map { ":\($0)" } ?? ""
        let objectPath = key.map { "/" + SignatureV4.encodePath(prefix + $0) } ?? "/"
        if pathStyle {
            return ("\(host)\(port)", "/\(bucket)" + (key == nil ? "" : objectPath))
        }
        return ("\(bucket).\(host)\(port)", objectPath)
    }

    /// Bucket names as S3 allows them for new buckets.
    static func isValidBucketName(_ name: String) -> Bool {
        guard (3...63).contains(name.utf8.count), let first = name.utf8.first, let last = name.utf8.last else {
            return false
        }
        func isLetterOrDigit(_ c: UInt8) -> Bool {
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(c) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(c)
        }
        return isLetterOrDigit(first) && isLetterOrDigit(last) && !name.contains("..")
            && name.utf8.allSatisfy { isLetterOrDigit($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") }
    }
}
