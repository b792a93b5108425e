/// An error reading metadata from a file's bytes.
public struct MetadataError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of problem it was.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Wrapped: Hashable, Sendable {
            case truncated
            case malformed
            case unreadable
            case unsupported
        }
        private let wrapped: Wrapped
        private init(_ wrapped: Wrapped) { self.wrapped = wrapped }

        /// The data ends before a structure it declares.
        public static let truncated = Code(.truncated)
        /// A structure is invalid (a bad byte order mark, an offset that points nowhere).
        public static let malformed = Code(.malformed)
        /// The file cannot be opened or read.
        public static let unreadable = Code(.unreadable)
        /// The bytes are not a format Lightbox reads metadata from.
        public static let unsupported = Code(.unsupported)

        public var description: String {
            switch wrapped {
            case .truncated: "truncated"
            case .malformed: "malformed"
            case .unreadable: "unreadable"
            case .unsupported: "unsupported"
            }
        }
    }

    /// What kind of problem it was.
    public var code: Code
    /// A sentence a person can act on.
    public var message: String

    /// An error of the given kind, with a message a person can act on.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }
}
