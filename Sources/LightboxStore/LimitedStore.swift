import Foundation

/// A catalog seen through PhotoKit's limited access: only the assets a ``LimitedSelection``
/// names, directly or as the albums holding them, exist. Every read of the library goes
/// through it, so fetches, counts, smart albums, moments, history and the change feed all
/// see the same set, and a change to an asset outside it is no change at all.
///
/// It wraps any store; the set is read again at each operation, so an asset added to a
/// selected album is seen at once. Writes are refused: limited access reads.
package struct LimitedStore: LibraryStore {
    package let base: any LibraryStore
    package let selection: LimitedSelection

    package init(base: any LibraryStore, selection: LimitedSelection) {
        self.base = base
        self.selection = selection
    }

    /// The most assets a selection may make visible: the set travels as one SQL condition.
    package static let maximumVisible = 10_000

    /// The identifiers visible now: the selected assets and every asset of the selected albums.
    package func visible() throws -> Set<String> {
        var identifiers = Set(selection.assetIdentifiers)
        var everything = FetchOptions()
        everything.includeHiddenAssets = true
        everything.includeAllBurstAssets = true
        for album in selection.albumIdentifiers {
            guard let source = try? base.fetchAssets(inCollection: album, options: everything) else { continue }
            let rows = try source.rowIDs(offset: 0, count: Self.maximumVisible + 1)
            identifiers.formUnion(try source.objects(rows).values.map(\.localIdentifier))
            if identifiers.count > Self.maximumVisible { break }
        }
        return identifiers
    }

    /// The condition a fetch of assets adds: its asset is one of those visible.
    package func scope() throws -> FetchPredicate {
        .isIn(key: "localIdentifier", try visible().sorted().prefix(Self.maximumVisible).map(FetchValue.string))
    }

    /// The asset keys that name people, whom limited access does not see: a predicate naming
    /// one is refused, so that no one's name is learned from the photos it shows.
    static let peopleKeys: Set<String> = ["person", "personIdentifier", "people.@count"]

    private func refusePeople(_ predicate: FetchPredicate?) throws {
        guard let predicate, !Self.peopleKeys.isDisjoint(with: predicate.keys) else { return }
        throw LibraryError(
            .invalidPredicate,
            "limited access sees no people: a predicate cannot name person, personIdentifier or people.@count")
    }

    private func scoped(_ options: FetchOptions) throws -> FetchOptions {
        try refusePeople(options.predicate)
        var options = options
        let scope = try scope()
        // Its full text is read without the people's names: it sees no people.
        options.predicate =
            options.predicate.map { $0.renamingKey("words", to: "wordsWithoutPeople") && scope } ?? scope
        return options
    }

    // MARK: LibraryStore

    package func read<T>(_ body: (any StoreReader) throws -> T) throws -> T {
        let visible = try visible()
        return try base.read { try body(LimitedReader(base: $0, store: self, visible: visible)) }
    }

    package func read<T: Sendable>(_ body: @escaping @Sendable (any StoreReader) throws -> T) async throws -> T {
        let store = self
        let visible = try await BlockingWork.run { try store.visible() }
        return try await base.read { try body(LimitedReader(base: $0, store: store, visible: visible)) }
    }

    package func write<T>(_ body: (any StoreWriter) throws -> T) throws -> T {
        throw LibraryError(.invalidRequest, "limited access reads the library; it cannot change it")
    }

    package var localWrites: UInt64 { base.localWrites }

    // The queue is the whole library's: its subjects name assets outside the selection.

    package func enqueueJob(_ kind: JobKind, subject: String) throws {
        throw LibraryError(.invalidRequest, "limited access reads the library; it cannot change it")
    }

    package func takeJob(kinds: Set<JobKind>, worker: String) throws -> (any JobLease)? {
        throw LibraryError(.invalidRequest, "limited access runs no job of the library")
    }

    package func jobQueue() throws -> JobQueueState {
        throw LibraryError(.invalidRequest, "limited access does not see the library's jobs")
    }

    package func retryFailedJobs() throws -> Int {
        throw LibraryError(.invalidRequest, "limited access reads the library; it cannot change it")
    }

    package func waitForChanges() async {
        await base.waitForChanges()
    }

    package var isLimited: Bool { true }

    package var sharedAddress: String? { base.sharedAddress }

    package func sharedOriginals() throws -> ObjectStorageSettings? { try base.sharedOriginals() }

    package func shareOriginals(_ settings: ObjectStorageSettings) throws -> ObjectStorageSettings? {
        throw LibraryError(.invalidRequest, "limited access reads the library; it cannot change it")
    }

    package func accountStore(libraryFolder: URL) throws -> any AccountStore {
        try base.accountStore(libraryFolder: libraryFolder)
    }

    package func fetchAssets(matching condition: FetchPredicate?, options: FetchOptions) throws -> any FetchSource<
        Asset
    > {
        try refusePeople(condition)
        return try base.fetchAssets(
            matching: condition?.renamingKey("words", to: "wordsWithoutPeople"), options: try scoped(options))
    }

    package func rankedAssetIdentifiers(
        matching condition: FetchPredicate?, words: [String], options: FetchOptions, limit: Int,
        withPeople: Bool
    ) throws -> [String] {
        try refusePeople(condition)
        return try base.rankedAssetIdentifiers(
            matching: condition?.renamingKey("words", to: "wordsWithoutPeople"), words: words,
            options: try scoped(options), limit: limit, withPeople: false)
    }

    package func fetchAssets(inCollection localIdentifier: String, options: FetchOptions) throws -> any FetchSource<
        Asset
    > {
        guard try isVisible(collection: localIdentifier) else {
            throw LibraryError(.collectionNotFound, "no collection has the identifier \(localIdentifier)")
        }
        return try base.fetchAssets(inCollection: localIdentifier, options: try scoped(options))
    }

    /// Smart albums and the selected albums, each counting only the assets visible and dated
    /// by them: the owner's whole library gave a smart album's dates, which told a link's
    /// holder when a hidden photo outside the album was taken.
    package func fetchAssetCollections(_ selection: CollectionSelection, options: FetchOptions) throws
        -> any FetchSource<AssetCollection>
    {
        let source = try base.fetchAssetCollections(selection, options: options)
        let rows = try source.rowIDs(offset: 0, count: -1)
        let objects = try source.objects(rows)
        // The visible set read once for all the collections' counts, not once for each.
        var oldestFirst = try scoped(FetchOptions())
        oldestFirst.sortDescriptors = [FetchSortDescriptor(key: "creationDate", ascending: true)]
        var kept: [(Int64, AssetCollection)] = []
        for row in rows {
            guard var collection = objects[row], try isVisible(collection: collection.localIdentifier) else { continue }
            let members = try base.fetchAssets(inCollection: collection.localIdentifier, options: oldestFirst)
            collection.estimatedAssetCount = try members.count()
            let ends =
                try members.rowIDs(offset: 0, count: 1)
                + members.rowIDs(offset: max(0, collection.estimatedAssetCount - 1), count: 1)
            let dated = try members.objects(ends)
            collection.startDate = ends.first.flatMap { dated[$0]?.creationDate }
            collection.endDate = ends.last.flatMap { dated[$0]?.creationDate }
            kept.append((row, collection))
        }
        return ListedSource(rows: kept, limit: source.limit)
    }

    /// No folders: limited access sees assets and the albums chosen, not how the owner files them.
    package func fetchCollectionLists(_ selection: CollectionListSelection, options: FetchOptions) throws
        -> any FetchSource<CollectionList>
    {
        ListedSource<CollectionList>(rows: [], limit: 0)
    }

    /// At the top level, the selected albums; no folder holds anything.
    package func fetchCollections(inList localIdentifier: String?, options: FetchOptions) throws
        -> any FetchSource<PhotoCollection>
    {
        guard localIdentifier == nil else {
            throw LibraryError(.collectionNotFound, "no folder has the identifier \(localIdentifier!)")
        }
        let albums = try fetchAssetCollections(.identifiers(self.selection.albumIdentifiers), options: options)
        let rows = try albums.rowIDs(offset: 0, count: -1)
        let objects = try albums.objects(rows)
        return ListedSource(
            rows: rows.compactMap { row in objects[row].map { (row, PhotoCollection.assetCollection($0)) } }, limit: 0)
    }

    /// Whether the collection is one limited access sees: a smart album or a selected album.
    private func isVisible(collection localIdentifier: String) throws -> Bool {
        if selection.albumIdentifiers.contains(localIdentifier) { return true }
        let found = try base.fetchAssetCollections(.identifiers([localIdentifier]), options: FetchOptions())
        guard let row = try found.rowIDs(offset: 0, count: 1).first, let collection = try found.objects([row])[row]
        else { return false }
        return collection.assetCollectionType == .smartAlbum
    }
}

/// The reads of a ``LimitedStore``: what is outside the visible set does not exist.
package struct LimitedReader: StoreReader {
    package let base: any StoreReader
    package let store: LimitedStore
    package let visible: Set<String>

    /// The visible assets in the library, each read through the base (a store's fetch may not
    /// run inside its own read).
    private func existing() throws -> [Asset] {
        try visible.sorted().compactMap { try base.asset(withLocalIdentifier: $0) }.filter { $0.trashedDate == nil }
    }

    package func assetCount() throws -> Int { try existing().count }

    /// Newest first by the clock where each was taken, as the base orders them, with a fetch's
    /// default visibility.
    package func assets(limit: Int?, after: String?) throws -> [Asset] {
        var assets = try existing().filter { !$0.isHidden && ($0.burstIdentifier == nil || $0.representsBurst) }
            .sorted { ($0.localClockTime, $0.localIdentifier) > ($1.localClockTime, $1.localIdentifier) }
        if let after {
            guard let index = assets.firstIndex(where: { $0.localIdentifier == after }) else { return [] }
            assets = Array(assets[(index + 1)...])
        }
        return limit.map { Array(assets.prefix(max(0, $0))) } ?? assets
    }

    package func asset(withLocalIdentifier localIdentifier: String) throws -> Asset? {
        visible.contains(localIdentifier) ? try base.asset(withLocalIdentifier: localIdentifier) : nil
    }

    package func storedPath(of resource: AssetResource) throws -> String? {
        visible.contains(resource.assetLocalIdentifier) ? try base.storedPath(of: resource) : nil
    }

    package func timesAndPlaces() throws -> [AssetTimeAndPlace] {
        try base.timesAndPlaces().filter { visible.contains($0.localIdentifier) }
    }

    package func lastChangeTransaction() throws -> Int64 { try base.lastChangeTransaction() }
    package func historyFloor() throws -> Int64 { try base.historyFloor() }

    /// The transactions that touched what is visible, with only that in their details; the
    /// others are left out. Pages of the base history are read until `limit` are found.
    package func changes(after token: Int64, limit: Int?) throws -> [PersistentChange] {
        var found: [PersistentChange] = []
        var cursor = token
        while true {
            let page = try base.changes(after: cursor, limit: 1000)
            for change in page {
                if let kept = filtered(change) { found.append(kept) }
                if let limit, found.count >= limit { return found }
            }
            guard page.count == 1000, let last = page.last else { return found }
            cursor = last.changeToken.rawValue
        }
    }

    /// The change with what limited access may know of it, or nil when that is nothing: an
    /// asset counts when it is visible now (or, purged, was selected by name); an album when
    /// it is selected; folders never.
    private func filtered(_ change: PersistentChange) -> PersistentChange? {
        var details: [PersistentObjectType: PersistentObjectChangeDetails] = [:]
        if var assets = change.details[.asset] {
            assets.insertedLocalIdentifiers.formIntersection(visible)
            assets.updatedLocalIdentifiers.formIntersection(visible)
            assets.trashedLocalIdentifiers.formIntersection(visible)
            assets.restoredLocalIdentifiers.formIntersection(visible)
            assets.deletedLocalIdentifiers.formIntersection(store.selection.assetIdentifiers)
            if !assets.isEmpty { details[.asset] = assets }
        }
        if var albums = change.details[.assetCollection] {
            let selected = Set(store.selection.albumIdentifiers)
            albums.insertedLocalIdentifiers.formIntersection(selected)
            albums.updatedLocalIdentifiers.formIntersection(selected)
            albums.deletedLocalIdentifiers.formIntersection(selected)
            albums.trashedLocalIdentifiers = []
            albums.restoredLocalIdentifiers = []
            if !albums.isEmpty { details[.assetCollection] = albums }
        }
        guard !details.isEmpty else { return nil }
        var kept = change
        kept.details = details
        return kept
    }

    package func trashRetention() throws -> TimeInterval? { try base.trashRetention() }

    package func trashedAssetIdentifiers(deletedBefore date: Date) throws -> [String] {
        try base.trashedAssetIdentifiers(deletedBefore: date).filter(visible.contains)
    }

    package func hasPendingRemovals() throws -> Bool { try base.hasPendingRemovals() }
    package func pendingRemovals() throws -> [String] { try base.pendingRemovals() }
    package func isReferenced(storedPath: String) throws -> Bool { try base.isReferenced(storedPath: storedPath) }
    package func resourceCount(storedPath: String) throws -> Int { try base.resourceCount(storedPath: storedPath) }
    package func integrityProblems() throws -> [String] { try base.integrityProblems() }
    package func storedResources() throws -> [StoredResource] {
        try base.storedResources().filter { visible.contains($0.assetLocalIdentifier) }
    }
    package func allAssetIdentifiers() throws -> [String] { try base.allAssetIdentifiers().filter(visible.contains) }
    package func hasAssets() throws -> Bool { try base.allAssetIdentifiers().contains(where: visible.contains) }
    package func captureDetailsBacklog(limit: Int) throws -> [CaptureDetailsBacklogItem] { [] }
    package func captureDetailsBacklogCount() throws -> Int { 0 }

    // Faces of the assets it sees only, and whose they are not: it sees no person. The work of
    // analysing is not a limited view's.
    package func faces(inAsset localIdentifier: String) throws -> [Face] {
        guard visible.contains(localIdentifier) else { return [] }
        return try base.faces(inAsset: localIdentifier).map { face in
            var face = face
            face.personLocalIdentifier = nil
            face.isKeyFace = false
            return face
        }
    }

    // People are not a limited view's: it sees no person (``LimitedStore/fetchAssetCollections``).
    package func faces(ofPerson localIdentifier: String, offset: Int, limit: Int) throws -> [Face] { [] }

    package func faceModel(ofAsset localIdentifier: String) throws -> String? {
        visible.contains(localIdentifier) ? try base.faceModel(ofAsset: localIdentifier) : nil
    }

    package func faceAnalysisBacklog(model: String, after rowID: Int64, limit: Int) throws
        -> [AnalysisBacklogItem]
    { [] }

    package func faceAnalysisBacklogCount(model: String) throws -> Int { 0 }

    package func facesEnabled() throws -> Bool { try base.facesEnabled() }

    package func facesForGrouping(model: String, after rowID: Int64, limit: Int) throws -> [GroupingFace] { [] }

    package func faceAnalysisFailures(model: String, limit: Int) throws -> [AnalysisFailure] {
        []
    }

    // Places of the assets it sees only, counted over those; the work of finding them is not a
    // limited view's.
    package func placeBacklog(model: String, after rowID: Int64, limit: Int) throws -> [PlaceBacklogItem] { [] }
    package func placeBacklogCount(model: String) throws -> Int { 0 }
    package func placesEnabled() throws -> Bool { try base.placesEnabled() }

    package func place(ofAsset localIdentifier: String) throws -> AssetPlace? {
        visible.contains(localIdentifier) ? try base.place(ofAsset: localIdentifier) : nil
    }

    package func places(ofAssets identifiers: [String]) throws -> [String: AssetPlace] {
        try base.places(ofAssets: identifiers.filter(visible.contains))
    }

    package func placeCounts(among identifiers: Set<String>?) throws -> [PlaceCount] {
        try base.placeCounts(among: identifiers.map { $0.intersection(visible) } ?? visible)
    }

    package func mapCells(in area: MapArea, cellSize: Double, among identifiers: Set<String>?) throws -> [MapCell] {
        try base.mapCells(in: area, cellSize: cellSize, among: identifiers.map { $0.intersection(visible) } ?? visible)
    }

    // The text and things of the assets it sees only; the work of finding them is not a
    // limited view's.
    package func analysisBacklog(_ kind: PhotoAnalysisKind, model: String, after rowID: Int64, limit: Int) throws
        -> [AnalysisBacklogItem]
    { [] }
    package func analysisBacklogCount(_ kind: PhotoAnalysisKind, model: String) throws -> Int { 0 }
    package func analysisFailures(_ kind: PhotoAnalysisKind, model: String, limit: Int) throws -> [AnalysisFailure] {
        []
    }
    package func analysisEnabled(_ kind: PhotoAnalysisKind) throws -> Bool { try base.analysisEnabled(kind) }

    package func text(ofAsset localIdentifier: String) throws -> AssetText? {
        visible.contains(localIdentifier) ? try base.text(ofAsset: localIdentifier) : nil
    }

    package func things(ofAsset localIdentifier: String) throws -> AssetThings? {
        visible.contains(localIdentifier) ? try base.things(ofAsset: localIdentifier) : nil
    }

    package func searchBacklogCount() throws -> Int { 0 }

    // None: a limited view sees no people, and the library's places and cameras are not its own
    // to list. What it searches for is searched as words, among its own photos.
    package func searchVocabulary() throws -> SearchVocabulary { SearchVocabulary() }

    // The embeddings of the assets it sees alone, so that a limited view's search ranks its own
    // photos. A page may come back short, or empty before the end: the row to go on from is the
    // last row read, which `after` of the last one answered cannot tell, so the page is read
    // until one is seen or the rows end.
    package func embeddings(model: String, after rowID: Int64, limit: Int) throws -> [StoredEmbedding] {
        var after = rowID
        while true {
            let page = try base.embeddings(model: model, after: after, limit: limit)
            guard let last = page.last else { return [] }
            let seen = page.filter { visible.contains($0.localIdentifier) }
            if !seen.isEmpty { return seen }
            after = last.rowID
        }
    }

    package func assetIdentifiers(ofRows ids: [Int64]) throws -> [Int64: String] {
        try base.assetIdentifiers(ofRows: ids).filter { visible.contains($0.value) }
    }

    package func assetIdentifier(withOriginalHash sha256: String) throws -> String? {
        try base.assetIdentifier(withOriginalHash: sha256).flatMap { visible.contains($0) ? $0 : nil }
    }

    package func journaledAsset(path: String, size: Int64, modificationDate: Date) throws -> String? {
        try base.journaledAsset(path: path, size: size, modificationDate: modificationDate).flatMap {
            visible.contains($0) ? $0 : nil
        }
    }
}

extension PersistentObjectChangeDetails {
    /// Whether it names no object.
    package var isEmpty: Bool {
        insertedLocalIdentifiers.isEmpty && updatedLocalIdentifiers.isEmpty && deletedLocalIdentifiers.isEmpty
            && trashedLocalIdentifiers.isEmpty && restoredLocalIdentifiers.isEmpty
    }
}

/// A fetch source over objects already read, in order: what a ``LimitedStore`` kept.
package struct ListedSource<Object: Sendable>: FetchSource {
    package let rows: [(Int64, Object)]
    package let limit: Int
    package var countsMediaTypes: Bool { false }

    private var limited: ArraySlice<(Int64, Object)> { limit > 0 ? rows.prefix(limit) : rows[...] }

    package func rowIDs(offset: Int, count: Int) throws -> [Int64] {
        let all = limited.map(\.0)
        guard offset < all.count else { return [] }
        let end = count < 0 ? all.count : min(all.count, offset + count)
        return Array(all[offset..<end])
    }

    package func count() throws -> Int { limited.count }
    package func count(mediaType: Int) throws -> Int { 0 }

    package func objects(_ rowIDs: [Int64]) throws -> [Int64: Object] {
        let wanted = Set(rowIDs)
        return Dictionary(
            limited.filter { wanted.contains($0.0) }.map { ($0.0, $0.1) }, uniquingKeysWith: { a, _ in a })
    }

    package func rowIDs(forLocalIdentifiers identifiers: [String]) throws -> [Int64] {
        let wanted = Set(identifiers)
        return limited.compactMap { row, object in
            guard let fetchable = object as? any FetchableObject, wanted.contains(fetchable.localIdentifier) else {
                return nil
            }
            return row
        }
    }
}

extension Asset {
    /// The clock time where the asset was taken, as seconds since 1970 as if it were UTC: the
    /// order of the catalog's `localCreationDate`.
    fileprivate var localClockTime: TimeInterval {
        creationDate.timeIntervalSince1970 + Double(creationTimeZoneOffset)
    }
}
