import Foundation
import LightboxMetadata

// What the features hand the store to write: plain records, made before the write transaction
// (files stored, photos decoded) and read by the store's SQL alone.

/// A file stored under `originals/`, as its resource row describes it.
package struct StoredFile: Sendable, Hashable {
    package var storedPath: String
    package var sha256: String
    package var size: Int64
    /// The size of its pixels as stored (0 for a file without pixels).
    package var pixelWidth: Int = 0
    package var pixelHeight: Int = 0
    package var originalFilename: String
    package var uniformTypeIdentifier: String

    package init(
        storedPath: String, sha256: String, size: Int64, pixelWidth: Int = 0, pixelHeight: Int = 0,
        originalFilename: String, uniformTypeIdentifier: String
    ) {
        self.storedPath = storedPath
        self.sha256 = sha256
        self.size = size
        self.pixelWidth = pixelWidth
        self.pixelHeight = pixelHeight
        self.originalFilename = originalFilename
        self.uniformTypeIdentifier = uniformTypeIdentifier
    }
}

/// A new asset, its file stored already: what its metadata says, and what pairs it with an
/// asset it may complete (``StoreWriter/pair(_:)``).
package struct NewAsset: Sendable {
    /// What the file's metadata (and its XMP sidecar) says of the asset.
    package var metadata: AssetMetadata
    package var kind: FileFormat.Kind
    /// Its photo or movie.
    package var file: StoredFile
    /// The displayed size: the stored size in its orientation.
    package var pixelWidth: Int
    package var pixelHeight: Int
    /// What pairs a RAW with the JPEG of the same shot: folder, base name, capture time, camera.
    package var captureKey: String?
    /// The orientation an XMP sidecar corrects a photo to; nil: the file's.
    package var orientationOverride: Int?
    /// The movie that makes the photo live, when it comes with it.
    package var pairedMovie: StoredFile?
    /// Whether browsers cannot play its movie (its own, or its paired one) as it is: a worker
    /// makes a playable copy ahead of the first ask.
    package var needsPlayableCopy: Bool = false
    /// The album whose shown assets alone it may pair with (a contribution's): nil, any asset.
    package var pairsWithin: String?

    package init(
        metadata: AssetMetadata, kind: FileFormat.Kind, file: StoredFile, pixelWidth: Int, pixelHeight: Int,
        captureKey: String? = nil, orientationOverride: Int? = nil, pairedMovie: StoredFile? = nil,
        needsPlayableCopy: Bool = false, pairsWithin: String? = nil
    ) {
        self.metadata = metadata
        self.kind = kind
        self.file = file
        self.pixelWidth = pixelWidth
        self.pixelHeight = pixelHeight
        self.captureKey = captureKey
        self.orientationOverride = orientationOverride
        self.pairedMovie = pairedMovie
        self.needsPlayableCopy = needsPlayableCopy
        self.pairsWithin = pairsWithin
    }

    /// The rating to store: XMP's 0 means unrated, and values outside -1...5 are ignored.
    package var rating: Int? { metadata.rating.flatMap { $0 != 0 && (-1...5).contains($0) ? $0 : nil } }
    /// The resource type the file becomes in a new asset.
    package var resourceType: AssetResourceType { kind == .video ? .video : .photo }
    /// The files this asset stored in `originals/`: its photo or movie, and a paired movie.
    package var storedPaths: [String] { [file.storedPath] + [pairedMovie?.storedPath].compactMap { $0 } }
}

/// A file the import journal records as in the library: a later import of the same path,
/// size and modification date is known without reading it.
package struct JournaledFile: Sendable {
    package var path: String
    package var size: Int64
    package var modificationDate: Date
    package var sha256: String

    package init(path: String, size: Int64, modificationDate: Date, sha256: String) {
        self.path = path
        self.size = size
        self.modificationDate = modificationDate
        self.sha256 = sha256
    }
}

/// An edit ready to land: its render and adjustment data stored in `originals/` already (the
/// slow, durable part, done before the transaction), and what the transaction checks.
package struct PreparedEdit: Sendable {
    package var render: StoredFile
    /// A Live Photo's edited movie; nil when the edit leaves the movie as it is.
    package var movie: StoredFile?
    package var adjustment: StoredFile
    /// A movie's edit: the render is a movie, and this its duration.
    package var movieDuration: Double?
    package var formatIdentifier: String
    package var base: EditBase
    /// The render the input was made from; the edit lands only if it is still the current one.
    package var expectedRenderSHA256: String?

    package init(
        render: StoredFile, movie: StoredFile? = nil, adjustment: StoredFile, movieDuration: Double? = nil,
        formatIdentifier: String, base: EditBase, expectedRenderSHA256: String? = nil
    ) {
        self.render = render
        self.movie = movie
        self.adjustment = adjustment
        self.movieDuration = movieDuration
        self.formatIdentifier = formatIdentifier
        self.base = base
        self.expectedRenderSHA256 = expectedRenderSHA256
    }
}

/// A revert ready to land: the unedited size the asset goes back to, and a movie's duration.
package struct PreparedRevert: Sendable {
    package var pixelWidth: Int
    package var pixelHeight: Int
    package var duration: Double?

    package init(pixelWidth: Int, pixelHeight: Int, duration: Double? = nil) {
        self.pixelWidth = pixelWidth
        self.pixelHeight = pixelHeight
        self.duration = duration
    }
}

/// What a change block prepared before its transaction, by asset.
package struct PreparedChanges: Sendable {
    package var assets: [String: NewAsset] = [:]
    package var edits: [String: PreparedEdit] = [:]
    package var reverts: [String: PreparedRevert] = [:]

    package init(
        assets: [String: NewAsset] = [:], edits: [String: PreparedEdit] = [:], reverts: [String: PreparedRevert] = [:]
    ) {
        self.assets = assets
        self.edits = edits
        self.reverts = reverts
    }

    /// The files stored in `originals/` for the block: new assets' and edits'.
    package var storedPaths: [String] {
        assets.values.flatMap(\.storedPaths)
            + edits.values.flatMap {
                [$0.render.storedPath, $0.adjustment.storedPath] + [$0.movie?.storedPath].compactMap { $0 }
            }
    }
}

/// What an edit's input image was.
package enum EditBase: Sendable, Hashable {
    /// The original photo.
    case original
    /// The adjustment base an earlier chained edit kept.
    case adjustmentBase
    /// The current render, which becomes the adjustment base.
    case render
}
