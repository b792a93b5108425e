/// An error decoding or encoding an image.
public struct ImagingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of problem it was.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Wrapped: Hashable, Sendable {
            case unreadable
            case corrupt
            case encodingFailed
            case libraryUnavailable
            case cancelled
            case tooLarge
            case invalidRecipe
            case timedOut
        }
        private let wrapped: Wrapped
        private init(_ wrapped: Wrapped) { self.wrapped = wrapped }

        /// No decoder recognised the file, or it could not be opened.
        public static let unreadable = Code(.unreadable)
        /// The file was recognised but its pixels are damaged or truncated.
        public static let corrupt = Code(.corrupt)
        /// Writing the output image failed.
        public static let encodingFailed = Code(.encodingFailed)
        /// libvips could not be started, or FFmpeg's libraries could not be loaded.
        public static let libraryUnavailable = Code(.libraryUnavailable)
        /// The caller stopped the work before it finished.
        public static let cancelled = Code(.cancelled)
        /// The image needs more memory than a render may use.
        public static let tooLarge = Code(.tooLarge)
        /// An edit recipe names an unknown filter, a value out of range, or a version this
        /// Lightbox does not read.
        public static let invalidRecipe = Code(.invalidRecipe)
        /// The render took longer than its monitor's time limit and was stopped.
        public static let timedOut = Code(.timedOut)

        public var description: String {
            switch wrapped {
            case .unreadable: "unreadable"
            case .corrupt: "corrupt"
            case .encodingFailed: "encoding failed"
            case .libraryUnavailable: "library unavailable"
            case .cancelled: "cancelled"
            case .tooLarge: "too large"
            case .invalidRecipe: "invalid recipe"
            case .timedOut: "timed out"
            }
        }
    }

    /// What kind of problem it was.
    public var code: Code
    /// A sentence a person can act on.
    public var message: String
    /// The file concerned, when there is one.
    public var path: String?

    /// An error of the given kind, with a message a person can act on.
    public init(_ code: Code, _ message: String, path: String? = nil) {
        self.code = code
        self.message = message
        self.path = path
    }

    public var description: String {
        if let path { "\(path): \(message)" } else { message }
    }
}
