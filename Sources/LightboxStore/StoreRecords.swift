import Foundation
import LightboxMetadata

// What the features hand the store to write: plain records, made before the write transaction
// (files stored, photos decoded) and read by the store's SQL alone.

/// A file stored under `originals/`, as its resource row describes it.
struct StoredFile: Sendable, Hashable {
    var storedPath: String
    var sha256: String
    var size: Int64
    /// The size of its pixels as stored (0 for a file without pixels).
    var pixelWidth = 0
    var pixelHeight = 0
    var originalFilename: String
    var uniformTypeIdentifier: String
}

/// A new asset, its file stored already: what its metadata says, and what pairs it with an
/// asset it may complete (``StoreWriter/pair(_:)``).
struct NewAsset: Sendable {
    /// What the file's metadata (and its XMP sidecar) says of the asset.
    var metadata: AssetMetadata
    var kind: FileFormat.Kind
    /// Its photo or movie.
    var file: StoredFile
    /// The displayed size: the stored size in its orientation.
    var pixelWidth: Int
    var pixelHeight: Int
    /// What pairs a RAW with the JPEG of the same shot: folder, base name, capture time, camera.
    var captureKey: String?
    /// The orientation an XMP sidecar corrects a photo to; nil: the file's.
    var orientationOverride: Int?
    /// The movie that makes the photo live, when it comes with it.
    var pairedMovie: StoredFile?
    /// Whether browsers cannot play its movie (its own, or its paired one) as it is: a worker
    /// makes a playable copy ahead of the first ask.
    var needsPlayableCopy = false
    /// The album whose shown assets alone it may pair with (a contribution's): nil, any asset.
    var pairsWithin: String?

    /// The rating to store: XMP's 0 means unrated, and values outside -1...5 are ignored.
    var rating: Int? { metadata.rating.flatMap { $0 != 0 && (-1...5).contains($0) ? $0 : nil } }
    /// The resource type the file becomes in a new asset.
    var resourceType: AssetResourceType { kind == .video ? .video : .photo }
    /// The files this asset stored in `originals/`: its photo or movie, and a paired movie.
    var storedPaths: [String] { [file.storedPath] + [pairedMovie?.storedPath].compactMap { $0 } }
}

/// A file the import journal records as in the library: a later import of the same path,
/// size and modification date is known without reading it.
struct JournaledFile: Sendable {
    var path: String
    var size: Int64
    var modificationDate: Date
    var sha256: String
}

/// An edit ready to land: its render and adjustment data stored in `originals/` already (the
/// slow, durable part, done before the transaction), and what the transaction checks.
struct PreparedEdit: Sendable {
    var render: StoredFile
    /// A Live Photo's edited movie; nil when the edit leaves the movie as it is.
    var movie: StoredFile?
    var adjustment: StoredFile
    /// A movie's edit: the render is a movie, and this its duration.
    var movieDuration: Double?
    var formatIdentifier: String
    var base: EditBase
    /// The render the input was made from; the edit lands only if it is still the current one.
    var expectedRenderSHA256: String?
}

/// A revert ready to land: the unedited size the asset goes back to, and a movie's duration.
struct PreparedRevert: Sendable {
    var pixelWidth: Int
    var pixelHeight: Int
    var duration: Double?
}

/// What a change block prepared before its transaction, by asset.
struct PreparedChanges: Sendable {
    var assets: [String: NewAsset] = [:]
    var edits: [String: PreparedEdit] = [:]
    var reverts: [String: PreparedRevert] = [:]

    /// The files stored in `originals/` for the block: new assets' and edits'.
    var storedPaths: [String] {
        assets.values.flatMap(\.storedPaths)
            + edits.values.flatMap {
                [$0.render.storedPath, $0.adjustment.storedPath] + [$0.movie?.storedPath].compactMap { $0 }
            }
    }
}
