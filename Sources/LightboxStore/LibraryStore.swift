import Foundation

/// The library's catalog as the features see it: named operations that take and give the
/// model's records, never SQL. ``SQLiteStore`` implements it with GRDB over the library's
/// SQLite file; another database (PostgreSQL) implements the same protocols, and no feature
/// changes.
///
/// Reads run in a transaction of their own: whatever ``StoreReader`` operations one `read`
/// body calls see one state of the library.
package protocol LibraryStore: Sendable {
    /// Runs `body` on one state of the catalog, blocking the caller: for command-line tools,
    /// tests, and work already on a thread of its own.
    func read<T>(_ body: (any StoreReader) throws -> T) throws -> T

    /// Runs `body` on one state of the catalog, suspending the caller without holding one of
    /// the cooperative pool's threads: for servers.
    func read<T: Sendable>(_ body: @escaping @Sendable (any StoreReader) throws -> T) async throws -> T

    /// Runs `body` in the write transaction, blocking the caller; what it writes commits when
    /// it returns, or none of it when it throws. While it runs no other write commits, so a
    /// file no row refers to stays unreferenced until it returns: stored files are removed
    /// inside it.
    func write<T>(_ body: (any StoreWriter) throws -> T) throws -> T

    /// How many write transactions this process has run through the store (and the stores
    /// over it): what was read is still true while this has not moved, as far as this process
    /// goes. Another process's commits show in ``StoreReader/lastChangeTransaction()``.
    var localWrites: UInt64 { get }

    /// Returns when a transaction may have committed since the last call, from this process
    /// or another: what observers wait on between looks at the history. SQLite can only be
    /// looked at again, so its store waits a tenth of a second; PostgreSQL's is woken by the
    /// commit's notification.
    func waitForChanges() async

    // MARK: Where the catalog is

    /// The PostgreSQL address of a catalog that servers share; nil for one in the library's
    /// own folder (its SQLite file).
    var sharedAddress: String? { get }

    /// Whether this store sees a part of the library alone (``LimitedStore``).
    var isLimited: Bool { get }

    /// Where a shared catalog's originals are, kept in the catalog so that every server of it
    /// finds them; nil when it keeps none, or for a catalog in a folder (whose `storage.json`
    /// says).
    func sharedOriginals() throws -> ObjectStorageSettings?

    /// Keeps where a shared catalog's originals are, unless another server kept a place first;
    /// answers the place the catalog keeps (nil for a catalog in a folder).
    func shareOriginals(_ settings: ObjectStorageSettings) throws -> ObjectStorageSettings?

    /// The accounts (users, sessions, tokens, shares) beside this catalog: tables in a shared
    /// catalog's database, else `accounts.sqlite` in the library's folder.
    func accountStore(libraryFolder: URL) throws -> any AccountStore

    // MARK: Jobs
    //
    // The queue lives in the catalog but outside its history: taking, ending and retrying jobs
    // are not change transactions, and no observer hears of them.

    /// Adds a job unless the same one is queued already.
    func enqueueJob(_ kind: JobKind, subject: String) throws

    /// Takes the oldest due job of `kinds` that no live worker holds and records a run of it by
    /// `worker`; nil when none waits. A run whose worker died ends as failed when its job is
    /// taken again; a job whose runs failed ``JobRules/maximumRuns`` times becomes failed
    /// instead of being taken.
    func takeJob(kinds: Set<JobKind>, worker: String) throws -> (any JobLease)?

    /// What waits, what runs (runs whose worker died count as waiting) and what failed.
    func jobQueue() throws -> JobQueueState

    /// Makes failed jobs wait again; answers how many.
    func retryFailedJobs() throws -> Int

    // MARK: Fetching
    //
    // Each fetch reads one state of the catalog that later commits do not change (shared by
    // the fetches made while nothing commits); its rows are read as the result is walked.

    /// The assets in the library that `condition` (nil: all) and `options` select.
    func fetchAssets(matching condition: FetchPredicate?, options: FetchOptions) throws -> any FetchSource<Asset>

    /// The assets `condition` and `options` select, those `words` find best first (the search's
    /// full text rank), then the newest, at most `limit`.
    func rankedAssetIdentifiers(
        matching condition: FetchPredicate?, words: [String], options: FetchOptions, limit: Int,
        withPeople: Bool
    ) throws -> [String]

    /// The assets of the album or smart album with this identifier: an album's in its order,
    /// Recently Deleted's the last deleted first, unless the options sort them. Throws
    /// ``LibraryError/Code-swift.struct/collectionNotFound`` for another identifier.
    func fetchAssets(inCollection localIdentifier: String, options: FetchOptions) throws -> any FetchSource<Asset>

    /// The albums and smart albums `selection` and `options` select.
    func fetchAssetCollections(_ selection: CollectionSelection, options: FetchOptions) throws
        -> any FetchSource<AssetCollection>

    /// The folders `selection` and `options` select.
    func fetchCollectionLists(_ selection: CollectionListSelection, options: FetchOptions) throws
        -> any FetchSource<CollectionList>

    /// The albums and folders of the folder with this identifier, in its order unless the
    /// options sort them; with nil, those in no folder, oldest first.
    func fetchCollections(inList localIdentifier: String?, options: FetchOptions) throws
        -> any FetchSource<PhotoCollection>
}

/// A job one worker holds: no other takes it until the lease ends, or the worker dies (its
/// process, or its connection to the catalog). Exactly one of ``finish()``, ``fail(_:retryAfter:)``
/// and ``giveBack()`` ends it.
package protocol JobLease: Sendable {
    var job: QueuedJob { get }

    /// Records how far the run got; best effort (a catalog out of reach fails no job).
    func progress(done: Int, total: Int)

    /// The job is done: it leaves the queue.
    func finish() throws

    /// The run failed with `error`: the job waits `retryAfter` seconds before it is taken
    /// again, or is failed once its runs failed too often. Answers whether it will be retried.
    func fail(_ error: String, retryAfter: TimeInterval) throws -> Bool

    /// Gives the job back unfinished, no failure counted (the worker is stopping).
    func giveBack()
}

/// Which albums a fetch of them selects.
package enum CollectionSelection: Sendable {
    /// Of a type and subtype (`.any`: every subtype).
    case type(AssetCollectionType, AssetCollectionSubtype)
    case identifiers([String])
    /// The albums that hold an asset.
    case containing(assetLocalIdentifier: String)
}

/// Which folders a fetch of them selects.
package enum CollectionListSelection: Sendable {
    /// Of a type and subtype (`.any`: every subtype).
    case type(CollectionListType, CollectionListSubtype)
    case identifiers([String])
    /// The folder that holds an album or folder.
    case containing(collectionLocalIdentifier: String)
}

/// The reads of a catalog, inside one ``LibraryStore/read(_:)-(_)`` transaction.
package protocol StoreReader {
    // MARK: Assets

    /// Assets in the library, hidden ones and burst frames included; not those in Recently
    /// Deleted.
    func assetCount() throws -> Int

    /// Visible assets newest first, `limit` of them after the asset `after` (keyset paging).
    /// Throws ``LibraryError/Code-swift.struct/assetNotFound`` for an unknown `after`.
    func assets(limit: Int?, after: String?) throws -> [Asset]

    /// The asset with this identifier, in Recently Deleted or not, or nil.
    func asset(withLocalIdentifier localIdentifier: String) throws -> Asset?

    /// Where a resource's file is, relative to the originals folder; nil when the asset has no
    /// such resource.
    func storedPath(of resource: AssetResource) throws -> String?

    /// Each visible asset's identifier, time and place, oldest first: what moments group.
    func timesAndPlaces() throws -> [AssetTimeAndPlace]

    // MARK: History

    /// The token of the last committed change transaction (0 for a library never written).
    func lastChangeTransaction() throws -> Int64

    /// The last token history was pruned at: it is complete after it.
    func historyFloor() throws -> Int64

    /// The transactions after `token`, oldest first, at most `limit` of them (nil: all),
    /// each with the objects it changed.
    func changes(after token: Int64, limit: Int?) throws -> [PersistentChange]

    // MARK: Recently Deleted and removals

    /// The trash retention the library keeps, in seconds; nil when it keeps none.
    func trashRetention() throws -> TimeInterval?

    /// The assets in Recently Deleted that were deleted before `date`, the last deleted first.
    func trashedAssetIdentifiers(deletedBefore date: Date) throws -> [String]

    /// Whether a commit let go of originals whose files are not yet removed.
    func hasPendingRemovals() throws -> Bool

    /// The stored paths commits let go of whose files are not yet removed.
    func pendingRemovals() throws -> [String]

    /// Whether a resource, or the pending removals, refer to a stored path.
    func isReferenced(storedPath: String) throws -> Bool

    /// How many resources refer to a stored path (resources with the same bytes share one).
    func resourceCount(storedPath: String) throws -> Int

    // MARK: Checking

    /// What the database's own checks find wrong (integrity, foreign keys), one line each.
    func integrityProblems() throws -> [String]

    /// Every resource's stored file, by stored path.
    func storedResources() throws -> [StoredResource]

    /// Every asset's identifier, those in Recently Deleted included.
    func allAssetIdentifiers() throws -> [String]

    /// Whether the library holds any asset, in Recently Deleted or not (without reading them).
    func hasAssets() throws -> Bool

    // MARK: Cameras read after import

    /// Assets imported before the catalog kept cameras and lenses whose originals are still to
    /// be read, in id order, at most `limit`; empty when none is left.
    func captureDetailsBacklog(limit: Int) throws -> [CaptureDetailsBacklogItem]

    /// How many assets ``captureDetailsBacklog(limit:)`` has left, at most.
    func captureDetailsBacklogCount() throws -> Int

    // MARK: Faces

    /// The faces found in an asset, those marked as no face too, the surest first; none for
    /// an asset not analysed (or not seen).
    func faces(inAsset localIdentifier: String) throws -> [Face]

    /// A person's faces (in photos not deleted), the surest first: `limit` of them after
    /// `offset`.
    func faces(ofPerson localIdentifier: String, offset: Int, limit: Int) throws -> [Face]

    /// The model that last analysed an asset's faces; nil when none has.
    func faceModel(ofAsset localIdentifier: String) throws -> String?

    /// The photos not in Recently Deleted whose faces `model` has not analysed, after row
    /// `rowID`, in the order they were added, at most `limit`.
    func faceAnalysisBacklog(model: String, after rowID: Int64, limit: Int) throws -> [AnalysisBacklogItem]

    /// How many photos ``faceAnalysisBacklog(model:after:limit:)`` has in all.
    func faceAnalysisBacklogCount(model: String) throws -> Int

    /// The photos `model` could not analyse, with why, at most `limit`, the last tried first.
    func faceAnalysisFailures(model: String, limit: Int) throws -> [AnalysisFailure]

    /// Whether the library finds faces (``StoreWriter/setFacesEnabled(_:)``).
    func facesEnabled() throws -> Bool

    /// The faces `model` found (not those marked as no face) after row `rowID`, in row order,
    /// at most `limit`, as grouping reads them.
    func facesForGrouping(model: String, after rowID: Int64, limit: Int) throws -> [GroupingFace]

    // MARK: Places

    /// The assets, in Recently Deleted or not, with a location `model` has not named (none
    /// has, another model did, or the location changed since), after row `rowID`, in the order
    /// they were added, at most `limit`.
    func placeBacklog(model: String, after rowID: Int64, limit: Int) throws -> [PlaceBacklogItem]

    /// How many assets ``placeBacklog(model:after:limit:)`` has in all.
    func placeBacklogCount(model: String) throws -> Int

    /// An asset's place; nil without a location, before it is found, or far from any place.
    func place(ofAsset localIdentifier: String) throws -> AssetPlace?

    /// The places of these assets (those with one), by identifier.
    func places(ofAssets identifiers: [String]) throws -> [String: AssetPlace]

    /// How many visible assets each place has, by country, region and city, the most first;
    /// among `identifiers` only, when given.
    func placeCounts(among identifiers: Set<String>?) throws -> [PlaceCount]

    /// The visible located assets in `area` by cells of the map's grid, `cellSize` degrees
    /// square; among `identifiers` only, when given. Refuses a grid of too many cells.
    func mapCells(in area: MapArea, cellSize: Double, among identifiers: Set<String>?) throws -> [MapCell]

    /// Whether the library names places (``StoreWriter/setPlacesEnabled(_:)``).
    func placesEnabled() throws -> Bool

    // MARK: Text and things

    /// The photos not in Recently Deleted that `model` has not looked at for `kind`, after row
    /// `rowID`, in the order they were added, at most `limit`.
    func analysisBacklog(_ kind: PhotoAnalysisKind, model: String, after rowID: Int64, limit: Int) throws
        -> [AnalysisBacklogItem]

    /// How many photos ``analysisBacklog(_:model:after:limit:)`` has in all.
    func analysisBacklogCount(_ kind: PhotoAnalysisKind, model: String) throws -> Int

    /// The photos `model` could not look at for `kind`, with why, at most `limit`, the last
    /// tried first.
    func analysisFailures(_ kind: PhotoAnalysisKind, model: String, limit: Int) throws -> [AnalysisFailure]

    /// Whether the library analyses its photos for `kind` (``StoreWriter/setAnalysisEnabled(_:_:)``).
    func analysisEnabled(_ kind: PhotoAnalysisKind) throws -> Bool

    /// The text read in an asset; nil before a model read it, or when it could not.
    func text(ofAsset localIdentifier: String) throws -> AssetText?

    /// The things found in an asset; nil before a model looked, or when it could not.
    func things(ofAsset localIdentifier: String) throws -> AssetThings?

    /// The names a search box understands: people's, places', cameras'.
    func searchVocabulary() throws -> SearchVocabulary

    /// How many assets' search documents are out of date (``StoreWriter/refreshSearchDocuments()``).
    func searchBacklogCount() throws -> Int

    /// The CLIP embeddings `model` gave, written after row `rowID`, in that order, at most `limit`.
    func embeddings(model: String, after rowID: Int64, limit: Int) throws -> [StoredEmbedding]

    /// The identifiers of the assets of these rows (at most 1,000), those still there.
    func assetIdentifiers(ofRows ids: [Int64]) throws -> [Int64: String]

    // MARK: Import

    /// The asset holding these bytes as an original (a photo, a movie, a RAW, a paired movie).
    func assetIdentifier(withOriginalHash sha256: String) throws -> String?

    /// The asset the file last imported from `path`, when it had this size and modification
    /// date, became; nil when none or the library no longer holds it.
    func journaledAsset(path: String, size: Int64, modificationDate: Date) throws -> String?
}

/// The writes of a catalog, inside one ``LibraryStore/write(_:)`` transaction.
package protocol StoreWriter: StoreReader {
    /// Keeps the library's trash retention, in whole seconds.
    func setTrashRetention(seconds: Int) throws

    /// Empties the list of pending removals, once their files are gone.
    func clearPendingRemovals() throws

    /// Checks and applies the requests of one change block, with the files `prepared` for
    /// them, and records the transaction in the history. Throws a ``LibraryError`` naming the
    /// first request that cannot be applied (the caller's transaction then writes nothing).
    func apply(_ operations: [ChangeOperation], prepared: PreparedChanges) throws -> AppliedChanges

    /// Writes the cameras and lenses read for backlog items (an asset that has any already
    /// keeps them) and moves the backlog past `rowID`, forgetting it once it is all read.
    func fillCaptureDetails(_ filled: [CaptureDetailsBacklogItem.Filled], through rowID: Int64) throws

    /// Records what `model` found in an asset's displayed image, in place of an earlier
    /// analysis: a face that covers an earlier one keeps its identifier and whose it is (a
    /// person's choice outlives analysing again). Answers the asset's faces; none, and nothing
    /// recorded, for an asset deleted meanwhile.
    func recordFaces(_ found: [FoundFace], inAsset localIdentifier: String, model: String) throws -> [Face]

    /// Records that `model` could not analyse an asset, and why: the photo leaves the backlog
    /// until another model comes, and its earlier faces stay.
    func recordFaceAnalysisFailure(inAsset localIdentifier: String, model: String, error: String) throws

    /// Switches finding faces on or off; off deletes every face, embedding and person, and
    /// records the people deleted in the history.
    func setFacesEnabled(_ enabled: Bool) throws

    /// Records the places a model found, each for the location it was asked for (not history:
    /// a place is found again from the location, as a thumbnail is rendered again).
    func recordPlaces(_ found: [FoundPlace], model: String) throws

    /// Switches naming places on or off; off deletes every place named.
    func setPlacesEnabled(_ enabled: Bool) throws

    /// Records the lines `model` read in an asset, in place of those read before; nothing for
    /// an asset deleted meanwhile, or while text is switched off.
    func recordText(_ lines: [TextLine], inAsset localIdentifier: String, model: String) throws

    /// Records the things `model` found in an asset, as ``recordText(_:inAsset:model:)`` does.
    func recordThings(_ things: [AssetThing], inAsset localIdentifier: String, model: String) throws

    /// Makes the search's documents of a job step's worth of assets again (those out of date);
    /// answers whether some stay out of date, and how many.
    func refreshSearchDocuments() throws -> (more: Bool, left: Int)

    /// Records the CLIP embedding `model` gave an asset, in place of an earlier one; nothing for
    /// an asset deleted meanwhile, or while embedding is switched off.
    func recordEmbedding(_ vector: [Float], inAsset localIdentifier: String, model: String) throws

    /// Records that `model` could not look at an asset for `kind`, and why.
    func recordAnalysisFailure(_ kind: PhotoAnalysisKind, inAsset localIdentifier: String, model: String, error: String)
        throws

    /// Switches `kind` on or off; off deletes everything it found, in this transaction.
    func setAnalysisEnabled(_ kind: PhotoAnalysisKind, _ enabled: Bool) throws

    /// Writes what grouping decided for waiting faces, recorded in the history by "faces": a
    /// face someone placed meanwhile, or whose person went, stays as it is; and marks the faces
    /// `looked` as placed, so that later runs do not place them again. Answers, for each write,
    /// the person its faces joined (nil where none did).
    func applyGrouping(_ writes: [GroupingWrite], looked: [Int64]) throws -> [Int64?]

    /// Records in the import journal that the file at `file.path` is in the library.
    func journal(_ file: JournaledFile) throws

    /// Joins the asset a new one completes (a Live Photo's other half, a RAW's JPEG) and
    /// answers it as it now is; nil when there is none and the file makes its own asset.
    func pair(_ asset: NewAsset) throws -> Asset?

    /// Inserts a new asset with its resources and answers it as written. Throws
    /// ``DuplicateOriginal`` when another asset holds its bytes (another import committed them
    /// first).
    func insert(_ asset: NewAsset, localIdentifier: String) throws -> Asset

    /// Records the transaction in the history, with the objects it changed; called once, last.
    func recordChanges(author: String, _ changes: [ObjectChangeRecord]) throws
}

/// An asset whose camera and lens are still to be read from its original: its row, and the
/// original photo (a movie's for a movie) to read, if it has one.
package struct CaptureDetailsBacklogItem: Sendable {
    package var rowID: Int64
    package var storedPath: String?
    package var originalFilename: String?

    /// What the original names, for ``StoreWriter/fillCaptureDetails(_:through:)``.
    package struct Filled: Sendable {
        package var rowID: Int64
        package var make: String?
        package var model: String?
        package var lens: String?
        /// The photo's own orientation (schema step v20).
        package var orientation: Int?

        package init(
            rowID: Int64, make: String? = nil, model: String? = nil, lens: String? = nil, orientation: Int? = nil
        ) {
            (self.rowID, self.make, self.model, self.lens) = (rowID, make, model, lens)
            self.orientation = orientation
        }
    }
}

/// An asset's original bytes are already another asset's.
package struct DuplicateOriginal: Error {}

/// What a change block did that the files must follow once it commits.
package struct AppliedChanges: Sendable {
    /// Stored paths (relative to `originals/`) that no resource refers to after the commit.
    package var unreferencedOriginals: [String] = []
    /// Assets the transaction deleted.
    package var deletedAssets: [String] = []
    /// Renders that edits and reverts replaced, by asset: their cached images go.
    package var replacedRenders: [String: String] = [:]
    /// The transaction's change token; nil when it changed nothing.
    package var changeToken: PersistentChangeToken?
}

/// A resource's stored file, as a check reads it.
package struct StoredResource: Sendable {
    package var assetLocalIdentifier: String
    package var type: AssetResourceType
    /// Relative to the originals folder.
    package var storedPath: String
    package var sha256: String
    package var fileSize: Int64
}

/// What moments are made of: an asset's identifier, when and where it was taken.
package struct AssetTimeAndPlace: Sendable {
    package var localIdentifier: String
    package var creationDate: Date
    /// The offset from UTC, in seconds, of the time zone it was taken in.
    package var timeZoneOffset: Int
    package var latitude: Double?
    package var longitude: Double?
    /// Its place's title (``AssetPlace/title``: its city, else the nearest place, region or
    /// country), once the places job named it.
    package var placeTitle: String? = nil
}

extension LibraryStore {
    package var isLimited: Bool { false }

    /// The address of a member's catalog beside a shared one: the same database, a schema of
    /// its own; nil for a catalog in a folder (a member's is then a file in its own folder).
    package func memberAddress(schema: String) throws -> String? {
        try sharedAddress.map { try PostgresAddress($0).schema(schema).description }
    }
}
