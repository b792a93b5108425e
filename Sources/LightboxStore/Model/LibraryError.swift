/// An error from the photo library: opening it, importing into it, reading from it.
public struct LibraryError: Error, Sendable, CustomStringConvertible {
    /// What kind of problem it was.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Wrapped: Hashable, Sendable {
            case notALibrary
            case newerLibraryVersion
            case unsupportedFormat
            case unreadableFile
            case corruptFile
            case assetNotFound
            case storageFailed
            case invalidRequest
            case invalidPredicate
            case collectionNotFound
            case persistentChangeTokenExpired
            case cancelled
            case outputRefused
            case busy
            case notShared
            case editorNotFound
        }
        private let wrapped: Wrapped
        private init(_ wrapped: Wrapped) { self.wrapped = wrapped }

        /// The folder exists but is not a Lightbox library.
        public static let notALibrary = Code(.notALibrary)
        /// A newer version of Lightbox created or upgraded the library; this one cannot open it.
        public static let newerLibraryVersion = Code(.newerLibraryVersion)
        /// The file is not a format Lightbox imports.
        public static let unsupportedFormat = Code(.unsupportedFormat)
        /// The file could not be read.
        public static let unreadableFile = Code(.unreadableFile)
        /// The file's format was recognised but its contents are damaged or truncated.
        public static let corruptFile = Code(.corruptFile)
        /// No asset has the given local identifier.
        public static let assetNotFound = Code(.assetNotFound)
        /// Writing to the library's storage failed (disk full, permissions, ...).
        public static let storageFailed = Code(.storageFailed)
        /// A request's arguments are out of range.
        public static let invalidRequest = Code(.invalidRequest)
        /// The change token is older than the history the library keeps: fetch everything again.
        public static let persistentChangeTokenExpired = Code(.persistentChangeTokenExpired)
        /// No asset collection has the given local identifier.
        public static let collectionNotFound = Code(.collectionNotFound)
        /// A predicate or sort is malformed, or names a key the fetched class does not have.
        public static let invalidPredicate = Code(.invalidPredicate)
        /// The request was cancelled before it finished.
        public static let cancelled = Code(.cancelled)
        /// A file sent through a share that the library holds already, out of the share's
        /// sight: nothing was changed, and nothing of the asset that holds it is told.
        public static let notShared = Code(.notShared)
        /// No installed editor has the given identifier.
        public static let editorNotFound = Code(.editorNotFound)
        /// A file would have been written over an input, over a file the run did not create, or
        /// into a library's own folder; nothing was written.
        public static let outputRefused = Code(.outputRefused)
        /// Too much work is waiting (renders past the image manager's bound); ask again later.
        public static let busy = Code(.busy)

        public var description: String {
            switch wrapped {
            case .notALibrary: "notALibrary"
            case .newerLibraryVersion: "newerLibraryVersion"
            case .unsupportedFormat: "unsupportedFormat"
            case .unreadableFile: "unreadableFile"
            case .corruptFile: "corruptFile"
            case .assetNotFound: "assetNotFound"
            case .storageFailed: "storageFailed"
            case .invalidRequest: "invalidRequest"
            case .invalidPredicate: "invalidPredicate"
            case .collectionNotFound: "collectionNotFound"
            case .cancelled: "cancelled"
            case .outputRefused: "outputRefused"
            case .busy: "busy"
            case .notShared: "notShared"
            case .editorNotFound: "editorNotFound"
            case .persistentChangeTokenExpired: "persistentChangeTokenExpired"
            }
        }
    }

    /// What kind of problem it was.
    public var code: Code
    /// A sentence a person can act on.
    public var message: String
    /// The file concerned, when there is one.
    public var path: String?
    /// The error underneath, when there is one.
    public var underlying: (any Error)?

    /// An error of the given kind, with a message a person can act on.
    public init(_ code: Code, _ message: String, path: String? = nil, underlying: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.path = path
        self.underlying = underlying
    }

    public var description: String {
        if let path { "\(path): \(message)" } else { message }
    }
}
