import Foundation
import LightboxStore

/// How files are brought into the library.
public struct ImportOptions: Sendable {
    /// Move files instead of copying: each source file is deleted once the library holds its
    /// copy durably (fsynced file, committed row). PhotoKit's `shouldMoveFile`.
    public var shouldMoveFile: Bool
    /// How many files are imported at once; defaults to two more than there are processors,
    /// so that while files wait for fsync and for the write transaction, the processors still
    /// have a file to decode.
    public var maximumConcurrentFiles: Int

    /// The album a contributor sends the files into, through a share of it: each file's asset
    /// joins it, a file pairs only with an asset the album shows, and a file whose bytes the
    /// library holds out of the album's sight (hidden, deleted, in no shared album) is refused
    /// (``LibraryError/Code/notShared``), so that a share never restores, publishes or reveals
    /// what its audience cannot see. Nil for the library's owner.
    public var contributingTo: String?

    /// Copy (the default) or move, two more files at once than there are processors unless told.
    public init(shouldMoveFile: Bool = false, maximumConcurrentFiles: Int? = nil, contributingTo: String? = nil) {
        self.shouldMoveFile = shouldMoveFile
        self.maximumConcurrentFiles = max(1, maximumConcurrentFiles ?? ProcessInfo.processInfo.activeProcessorCount + 2)
        self.contributingTo = contributingTo
    }
}

/// What happened to one file.
public enum ImportOutcome: Sendable {
    /// A new asset was created.
    case imported(Asset)
    /// The file completed an asset the library held: a Live Photo's still or movie, the RAW
    /// or JPEG of the same shot. The asset is as it is now.
    case paired(Asset)
    /// The library already holds these bytes, as the asset with this identifier.
    case duplicate(localIdentifier: String)
    /// The file was not imported; the error names the file and the reason.
    case failed(LibraryError)
    /// A file found in a folder that is neither a photo nor a movie (a document, a note, an
    /// editor's project), passed over; the reason says what its bytes are not.
    case skipped(reason: String)
}

extension ImportOutcome {
    /// The asset that holds the file now: the one made, completed or holding the same bytes;
    /// nil when the file was not imported.
    public var localIdentifier: String? {
        switch self {
        case .imported(let asset), .paired(let asset): asset.localIdentifier
        case .duplicate(let localIdentifier): localIdentifier
        case .failed, .skipped: nil
        }
    }
}

/// The result for one file of an import.
public struct ImportItemResult: Sendable {
    /// The file, as found.
    public var path: String
    /// What happened to it.
    public var outcome: ImportOutcome
}

/// Counts so far, for progress reporting.
public struct ImportProgress: Sendable, Hashable {
    /// Files found so far (known in full before the first file is imported).
    public var total: Int
    /// Files done, whatever their outcome.
    public var completed: Int
    /// Files that became new assets.
    public var imported: Int
    /// Files that completed an existing asset (Live Photo halves, RAW + JPEG).
    public var paired: Int
    /// Files whose bytes the library already held.
    public var duplicates: Int
    /// Files that could not be imported.
    public var failed: Int
    /// Files in folders that are neither photos nor movies.
    public var skipped: Int
    /// Bytes of the files done.
    public var bytes: Int64

    /// Counts at the start of an import of `total` files.
    public init(total: Int = 0) {
        self.total = total
        self.completed = 0
        self.imported = 0
        self.paired = 0
        self.duplicates = 0
        self.failed = 0
        self.skipped = 0
        self.bytes = 0
    }
}

/// The result of a whole import.
public struct ImportSummary: Sendable {
    /// One result per file, in the order the files were found.
    public var results: [ImportItemResult]
    /// The final counts.
    public var progress: ImportProgress
}
