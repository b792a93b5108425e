import Foundation

/// Why an analysis service gave no answer a library can use, naming the service.
public struct AnalysisError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure (a struct, so that kinds can be added).
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Kind: String {
            case unreachable, refused, busy, badAnswer, unsupportedProtocol, invalidImage
        }
        private let kind: Kind
        private init(_ kind: Kind) { self.kind = kind }

        /// No connection, or none in time.
        public static let unreachable = Code(.unreachable)
        /// The service answered an error.
        public static let refused = Code(.refused)
        /// Every slot of the service is taken: try again later, or another service.
        public static let busy = Code(.busy)
        /// The answer breaks the protocol (docs/ANALYSIS.md): nothing of it is used.
        public static let badAnswer = Code(.badAnswer)
        /// The service speaks another version of the protocol.
        public static let unsupportedProtocol = Code(.unsupportedProtocol)
        /// The image is not one the service takes (its size).
        public static let invalidImage = Code(.invalidImage)

        public var description: String { kind.rawValue }
    }

    public var code: Code
    public var message: String
    /// The service concerned.
    public var service: URL?

    public init(_ code: Code, _ message: String, service: URL? = nil) {
        self.code = code
        self.message = message
        self.service = service
    }

    /// Whether another try, later or at another service, may succeed.
    public var isTransient: Bool { code == .unreachable || code == .busy }

    public var description: String { message }
}
