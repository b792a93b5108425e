/// A request to object storage that failed: what was asked, of which key, and what the server
/// (or the network) answered.
public struct S3Error: Error, CustomStringConvertible, Sendable {
    /// What kind of failure: cases may be added.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Kind: Hashable, Sendable {
            case invalidLocation, notFound, accessDenied, checksumMismatch, server, transport, badResponse, tooLarge
        }
        private let kind: Kind
        private init(_ kind: Kind) { self.kind = kind }

        /// The address, a bucket name or a credential is not usable.
        public static let invalidLocation = Code(.invalidLocation)
        /// No such key, bucket or upload.
        public static let notFound = Code(.notFound)
        /// The credentials were refused (a wrong key or signature, no permission).
        public static let accessDenied = Code(.accessDenied)
        /// The stored bytes are not those sent.
        public static let checksumMismatch = Code(.checksumMismatch)
        /// The server answered with an error other than those above.
        public static let server = Code(.server)
        /// No answer: the connection failed or timed out.
        public static let transport = Code(.transport)
        /// An answer that is not what S3 answers.
        public static let badResponse = Code(.badResponse)
        /// An object or answer larger than the caller allows.
        public static let tooLarge = Code(.tooLarge)

        public var description: String { "\(kind)" }
    }

    public var code: Code
    public var message: String
    /// The key concerned, relative to the location's prefix, if any.
    public var key: String?
    /// The HTTP status, when the server answered.
    public var status: Int?
    /// S3's own error code (`NoSuchKey`, `SignatureDoesNotMatch`), when it gave one.
    public var serverCode: String?
    public var underlying: (any Error & Sendable)?

    public init(
        _ code: Code, _ message: String, key: String? = nil, status: Int? = nil, serverCode: String? = nil,
        underlying: (any Error & Sendable)? = nil
    ) {
        self.code = code
        self.message = message
        self.key = key
        self.status = status
        self.serverCode = serverCode
        self.underlying = underlying
    }

    public var description: String { message }
}
