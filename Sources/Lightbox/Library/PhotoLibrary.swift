import Foundation
import LightboxImaging
// The model's records (assets, collections, fetch options, errors) are the store's, and every
// program that imports Lightbox sees them.
@_exported import LightboxStore

/// A photo library on disk (PhotoKit's `PHPhotoLibrary`): a folder `NAME.lightbox/` holding
/// `library.sqlite`, `originals/` and `derivatives/`; or with its catalog on PostgreSQL and its
/// originals in a bucket, shared by the folders of several servers.
///
/// ```swift
/// let library = try PhotoLibrary(url: URL(filePath: "Photos.lightbox"))
/// let summary = await library.importItems(at: [URL(filePath: "DCIM")])
/// let newest = try library.assets(limit: 50)
/// ```
///
/// The library is the one mutable thing; the ``Asset`` values it returns are snapshots.
/// It is safe to use from any thread or task.
public final class PhotoLibrary: Sendable {
    /// The library folder.
    public let url: URL
    /// The catalog: SQLite through GRDB, or PostgreSQL, behind the store protocol.
    let store: any LibraryStore
    /// The originals: the library folder's `originals/`, or a bucket, behind the blob protocol.
    let originals: any OriginalStorage
    /// Rendered images: the library folder's `derivatives/`, or the originals' bucket, behind the blob protocol.
    let derivatives: any DerivativeStorage
    let changeMonitor = ChangeMonitor()
    /// Assets read lately, for ``recentAsset(withLocalIdentifier:)``.
    let recentAssets = RecentAssets()
    /// The photos' CLIP embeddings, for ``searchContent(_:with:limit:)``.
    let contentIndex = ContentIndex()
    /// The names the search box understands, for ``searchVocabulary()``.
    let searchVocabularyMemory = SearchVocabularyMemory()

    /// The name of the database file inside the library folder.
    public static let databaseFilename = "library.sqlite"

    /// Opens the library at `url`, creating it when the folder does not exist or is empty.
    ///
    /// Throws ``LibraryError/Code-swift.struct/notALibrary`` for a folder with other contents,
    /// and ``LibraryError/Code-swift.struct/newerLibraryVersion`` for a library a newer
    /// Lightbox wrote. An older library is migrated. `historyRetention` bounds the persistent
    /// history writes keep.
    ///
    /// `database` (`postgres://USER@HOST[:PORT]/DATABASE`, the password from `PGPASSWORD` or
    /// `PGPASSFILE`) keeps a new library's catalog on PostgreSQL instead of a SQLite file in the
    /// folder; several folders, on several machines, may open the same catalog. `originals`
    /// puts a new library's originals in object storage. Both are kept (in the folder, and the
    /// bucket in the catalog for every server of it), so later opens need not give them again;
    /// an existing library keeps its parts where they are, and throws
    /// ``LibraryError/Code-swift.struct/storageFailed`` when given another place. Credentials
    /// come from `environment`.
    public init(
        url: URL, historyRetention: HistoryRetention = HistoryRetention(),
        originals objectStorage: ObjectStorageSettings? = nil, database: String? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws {
        let path = url.standardizedFileURL.path
        let fileManager = FileManager.default
        let databasePath = path + "/" + Self.databaseFilename
        var isDirectory: ObjCBool = false
        let existed = fileManager.fileExists(atPath: path, isDirectory: &isDirectory)
        if existed {
            guard isDirectory.boolValue else {
                throw LibraryError(.notALibrary, "this is a file, not a library folder", path: path)
            }
            // Another process making this library may have written only its lock so far.
            let contents = ((try? fileManager.contentsOfDirectory(atPath: path)) ?? []).filter {
                $0 != Self.databaseFilename + CatalogStores.fileLockSuffix
            }
            // A `storage.json` of another program's is not ours to write over: only one naming a
            // catalog makes the folder a library without its database file.
            if !contents.isEmpty && !contents.contains(Self.databaseFilename) && !Self.isLibrary(path) {
                throw LibraryError(
                    .notALibrary, "this folder has other files and no \(Self.databaseFilename); not a Lightbox library",
                    path: path)
            }
        }
        try FileIO.makeDirectory(path)
        self.url = URL(fileURLWithPath: path, isDirectory: true)
        let kept = try LibraryPlacement.read(libraryFolder: path)
        var placement = kept
        // The same catalog, however its address is spelled (postgresql://, the default port).
        if let database, try kept.database.map(PostgresAddress.init) != PostgresAddress(database) {
            if let keptDatabase = kept.database {
                throw LibraryError(.storageFailed, "this library's catalog is at \(keptDatabase)", path: path)
            }
            if FileIO.fileExists(databasePath) {
                throw LibraryError(
                    .storageFailed,
                    "this library's catalog is its \(Self.databaseFilename); `lightbox migrate` moves a library to PostgreSQL",
                    path: path)
            }
            placement.database = database
        }
        do {
            store = try CatalogStores.open(
                database: placement.database, filePath: databasePath, historyRetention: historyRetention,
                environment: environment)
        } catch {
            // A folder made for a catalog that cannot be opened is not left behind (empty: a
            // folder holding anything stays).
            if !existed { rmdir(path) }
            if let error = error as? LibraryError { throw error }
            throw LibraryError(
                .storageFailed, "cannot open the library database: \(error)", path: databasePath, underlying: error)
        }
        // A shared catalog names its originals' bucket for every server of it.
        let keptOriginals = try store.sharedOriginals() ?? kept.originals
        if let objectStorage, objectStorage != keptOriginals {
            if let keptOriginals {
                throw LibraryError(
                    .storageFailed, "this library keeps its originals in \(keptOriginals.url)", path: path)
            }
            guard try !store.read({ try $0.hasAssets() }), !FileIO.fileExists(path + "/originals")
            else {
                throw LibraryError(
                    .storageFailed,
                    "this library keeps its originals in its folder; only a new library can be made with them elsewhere",
                    path: path)
            }
        }
        if let settings = keptOriginals ?? objectStorage {
            let (stored, rendered) = try settings.storages(libraryFolder: path, environment: environment)
            if keptOriginals == nil {
                // The bucket answers before the library is said to be in it.
                try stored.checkReachable(libraryFolder: path)
                if let agreed = try store.shareOriginals(settings), agreed != settings {
                    throw LibraryError(
                        .storageFailed, "another server made this library with its originals in \(agreed.url)",
                        path: path)
                }
            }
            placement.originals = settings
            originals = stored
            derivatives = rendered
        } else {
            originals = try OriginalFolder(root: path + "/originals")
            derivatives = try DerivativeFolder(root: path + "/derivatives")
        }
        if placement != kept { try placement.write(libraryFolder: path) }
        originals.removeLeftovers { staged in removeUnreferenced(staged) }
        ProcessFolder.removeScratchLeftovers()
        // What a process stopped before it finished: originals a commit let go, and assets
        // past the trash retention.
        if (try? store.read({ try $0.hasPendingRemovals() })) == true { removePendingOriginals() }
        _ = try? purgeExpiredTrash()
    }

    /// A library over these parts, opened already: a view of another (``limited(to:)``).
    init(url: URL, store: any LibraryStore, originals: any OriginalStorage, derivatives: any DerivativeStorage) {
        self.url = url
        self.store = store
        self.originals = originals
        self.derivatives = derivatives
    }

    /// Whether `folder` is a Lightbox library: it holds a library database, or says where its
    /// catalog is (a PostgreSQL address in its `storage.json`).
    public static func isLibrary(_ folder: String) -> Bool {
        var info = stat()
        if lstat(folder + "/" + databaseFilename, &info) == 0 { return true }
        guard let database = try? LibraryPlacement.read(libraryFolder: folder).database else { return false }
        return (try? PostgresAddress(database)) != nil
    }

    /// The Lightbox library that holds `path` (the path itself or a folder above it, links
    /// resolved), or nil.
    public static func enclosingLibrary(of path: String) -> String? {
        var current = URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath()
        while true {
            if isLibrary(current.path) { return current.path }
            let parent = current.deletingLastPathComponent().standardizedFileURL
            if current.path == "/" || parent.path == current.path { return nil }
            current = parent
        }
    }

    // MARK: Reading
    //
    // Each read has a blocking form, for command-line tools and tests, and an async form that
    // waits without holding a thread (GRDB runs it on its own reader queue), for servers.

    /// The number of assets in the library: hidden ones and burst frames included, not those
    /// in Recently Deleted.
    public func assetCount() throws -> Int {
        try store.read { try $0.assetCount() }
    }

    /// The number of assets in the library; see ``assetCount()-(Void)``.
    public func assetCount() async throws -> Int {
        try await store.read { try $0.assetCount() }
    }

    /// Assets newest first by the clock time where each was taken (`localCreationDate`, the
    /// timeline's order: a day's assets together whatever their zones), `limit` at a time,
    /// starting after the asset whose identifier is `after` (keyset pagination: stable while
    /// assets are added).
    /// Like a fetch with default options, hidden assets and burst frames other than each
    /// burst's representative are left out.
    public func assets(limit: Int? = nil, after: String? = nil) throws -> [Asset] {
        try store.read { try $0.assets(limit: limit, after: after) }
    }

    /// Assets newest first; see ``assets(limit:after:)-(Int?,String?)``.
    public func assets(limit: Int? = nil, after: String? = nil) async throws -> [Asset] {
        try await store.read { try $0.assets(limit: limit, after: after) }
    }

    /// The asset with this identifier, or nil.
    public func asset(withLocalIdentifier localIdentifier: String) throws -> Asset? {
        try store.read { try $0.asset(withLocalIdentifier: localIdentifier) }
    }

    /// The asset with this identifier, or nil.
    public func asset(withLocalIdentifier localIdentifier: String) async throws -> Asset? {
        try await store.read { try $0.asset(withLocalIdentifier: localIdentifier) }
    }

    /// The path of an asset resource's file inside the library. Read it, never write it.
    public func fileURL(for resource: AssetResource) throws -> URL {
        try fileURL(try store.read { try $0.storedPath(of: resource) }, resource)
    }

    /// The path of an asset resource's file inside the library. Read it, never write it.
    public func fileURL(for resource: AssetResource) async throws -> URL {
        try fileURL(try await store.read { try $0.storedPath(of: resource) }, resource)
    }

    private func fileURL(_ stored: String?, _ resource: AssetResource) throws -> URL {
        guard let stored else {
            throw LibraryError(
                .assetNotFound, "no \(resource.type) resource for asset \(resource.assetLocalIdentifier)")
        }
        return URL(fileURLWithPath: try originals.localPath(of: stored))
    }
}
