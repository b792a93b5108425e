import Foundation

/// The catalog's operations on one connection of either store, inside the transaction the
/// store opened for them: a read transaction (where only the reads are called) or the write
/// transaction. Every operation is the shared SQL of ``SQLDatabase``.
struct CatalogTransaction: StoreWriter {
    let db: any SQLDatabase
    /// How much history writes keep.
    let retention: HistoryRetention

    /// What every write transaction does last: the search's documents of what it changed made
    /// again (the first ``SearchDocuments/perTransaction`` of those out of date), the search job
    /// queued for the rest.
    func finishWrite() throws {
        if try db.refreshSearchDocuments(limit: SearchDocuments.perTransaction) {
            try db.enqueueJobAgain(.search, subject: "")
        }
    }

    /// Makes the documents of a job step's worth of stale assets again; answers whether some
    /// stay stale, and how many.
    func refreshSearchDocuments() throws -> (more: Bool, left: Int) {
        let more = try db.refreshSearchDocuments(limit: SearchDocuments.perJobStep)
        return (more, more ? try db.staleSearchDocuments() : 0)
    }

    // MARK: Reads

    func assetCount() throws -> Int {
        try db.assetCount()
    }

    func assets(limit: Int?, after: String?) throws -> [Asset] {
        try db.assets(limit: limit, after: after)
    }

    func asset(withLocalIdentifier localIdentifier: String) throws -> Asset? {
        try db.asset(withLocalIdentifier: localIdentifier)
    }

    func storedPath(of resource: AssetResource) throws -> String? {
        try db.storedPath(of: resource)
    }

    func timesAndPlaces() throws -> [AssetTimeAndPlace] {
        try db.timesAndPlaces()
    }

    func lastChangeTransaction() throws -> Int64 {
        try db.lastChangeTransaction()
    }

    func historyFloor() throws -> Int64 {
        try db.historyFloor()
    }

    func changes(after token: Int64, limit: Int?) throws -> [PersistentChange] {
        try db.changes(after: token, limit: limit)
    }

    func trashRetention() throws -> TimeInterval? {
        try db.trashRetention()
    }

    func trashedAssetIdentifiers(deletedBefore date: Date) throws -> [String] {
        try db.trashedAssetIdentifiers(deletedBefore: date)
    }

    func hasPendingRemovals() throws -> Bool {
        try db.hasPendingRemovals()
    }

    func pendingRemovals() throws -> [String] {
        try db.pendingRemovals()
    }

    func isReferenced(storedPath: String) throws -> Bool {
        try db.isReferenced(storedPath: storedPath)
    }

    func resourceCount(storedPath: String) throws -> Int {
        try db.resourceCount(storedPath: storedPath)
    }

    func integrityProblems() throws -> [String] {
        try db.integrityProblems()
    }

    func storedResources() throws -> [StoredResource] {
        try db.storedResources()
    }

    func allAssetIdentifiers() throws -> [String] {
        try db.allAssetIdentifiers()
    }

    func hasAssets() throws -> Bool {
        try db.hasAssets()
    }

    func captureDetailsBacklog(limit: Int) throws -> [CaptureDetailsBacklogItem] {
        try db.captureDetailsBacklog(limit: limit)
    }

    func captureDetailsBacklogCount() throws -> Int {
        try db.captureDetailsBacklogCount()
    }

    func faces(inAsset localIdentifier: String) throws -> [Face] {
        try db.faces(inAsset: localIdentifier)
    }

    func faces(ofPerson localIdentifier: String, offset: Int, limit: Int) throws -> [Face] {
        try db.faces(ofPerson: localIdentifier, offset: offset, limit: limit)
    }

    func faceModel(ofAsset localIdentifier: String) throws -> String? {
        try db.faceModel(ofAsset: localIdentifier)
    }

    func faceAnalysisBacklog(model: String, after rowID: Int64, limit: Int) throws -> [AnalysisBacklogItem] {
        try db.faceAnalysisBacklog(model: model, after: rowID, limit: limit)
    }

    func faceAnalysisBacklogCount(model: String) throws -> Int {
        try db.faceAnalysisBacklogCount(model: model)
    }

    func recordFaces(_ found: [FoundFace], inAsset localIdentifier: String, model: String) throws -> [Face] {
        try db.recordFaces(found, inAsset: localIdentifier, model: model, date: Date())
    }

    func faceAnalysisFailures(model: String, limit: Int) throws -> [AnalysisFailure] {
        try db.faceAnalysisFailures(model: model, limit: limit)
    }

    func facesForGrouping(model: String, after rowID: Int64, limit: Int) throws -> [GroupingFace] {
        try db.facesForGrouping(model: model, after: rowID, limit: limit)
    }

    func facesEnabled() throws -> Bool {
        try db.facesEnabled()
    }

    func setFacesEnabled(_ enabled: Bool) throws {
        try db.setFacesEnabled(enabled, retention: retention)
    }

    func applyGrouping(_ writes: [GroupingWrite], looked: [Int64]) throws -> [Int64?] {
        try db.applyGrouping(writes, looked: looked, retention: retention)
    }

    func recordFaceAnalysisFailure(inAsset localIdentifier: String, model: String, error: String) throws {
        try db.recordFaceAnalysisFailure(inAsset: localIdentifier, model: model, error: error, date: Date())
    }

    func placeBacklog(model: String, after rowID: Int64, limit: Int) throws -> [PlaceBacklogItem] {
        try db.placeBacklog(model: model, after: rowID, limit: limit)
    }

    func placeBacklogCount(model: String) throws -> Int {
        try db.placeBacklogCount(model: model)
    }

    func place(ofAsset localIdentifier: String) throws -> AssetPlace? {
        try db.place(ofAsset: localIdentifier)
    }

    func places(ofAssets identifiers: [String]) throws -> [String: AssetPlace] {
        try db.places(ofAssets: identifiers)
    }

    func placeCounts(among identifiers: Set<String>?) throws -> [PlaceCount] {
        try db.placeCounts(among: identifiers)
    }

    func mapCells(in area: MapArea, cellSize: Double, among identifiers: Set<String>?) throws -> [MapCell] {
        try db.mapCells(in: area, cellSize: cellSize, among: identifiers)
    }

    func recordPlaces(_ found: [FoundPlace], model: String) throws {
        try db.recordPlaces(found, model: model)
    }

    func placesEnabled() throws -> Bool {
        try db.placesEnabled()
    }

    func setPlacesEnabled(_ enabled: Bool) throws {
        try db.setPlacesEnabled(enabled)
    }

    func analysisBacklog(_ kind: PhotoAnalysisKind, model: String, after rowID: Int64, limit: Int) throws
        -> [AnalysisBacklogItem]
    {
        try db.analysisBacklog(kind, model: model, after: rowID, limit: limit)
    }

    func analysisBacklogCount(_ kind: PhotoAnalysisKind, model: String) throws -> Int {
        try db.analysisBacklogCount(kind, model: model)
    }

    func analysisFailures(_ kind: PhotoAnalysisKind, model: String, limit: Int) throws -> [AnalysisFailure] {
        try db.analysisFailures(kind, model: model, limit: limit)
    }

    func analysisEnabled(_ kind: PhotoAnalysisKind) throws -> Bool {
        try db.analysisEnabled(kind)
    }

    func text(ofAsset localIdentifier: String) throws -> AssetText? {
        try db.text(ofAsset: localIdentifier)
    }

    func things(ofAsset localIdentifier: String) throws -> AssetThings? {
        try db.things(ofAsset: localIdentifier)
    }

    func recordText(_ lines: [TextLine], inAsset localIdentifier: String, model: String) throws {
        try db.recordText(lines, inAsset: localIdentifier, model: model, date: Date())
    }

    func recordThings(_ things: [AssetThing], inAsset localIdentifier: String, model: String) throws {
        try db.recordThings(things, inAsset: localIdentifier, model: model, date: Date())
    }

    func recordEmbedding(_ vector: [Float], inAsset localIdentifier: String, model: String) throws {
        try db.recordEmbedding(vector, inAsset: localIdentifier, model: model, date: Date())
    }

    func searchVocabulary() throws -> SearchVocabulary {
        try db.searchVocabulary()
    }

    func searchBacklogCount() throws -> Int {
        try db.staleSearchDocuments()
    }

    func embeddings(model: String, after rowID: Int64, limit: Int) throws -> [StoredEmbedding] {
        try db.embeddings(model: model, after: rowID, limit: limit)
    }

    func assetIdentifiers(ofRows ids: [Int64]) throws -> [Int64: String] {
        try db.assetIdentifiers(ofRows: ids)
    }

    func recordAnalysisFailure(_ kind: PhotoAnalysisKind, inAsset localIdentifier: String, model: String, error: String)
        throws
    {
        try db.recordAnalysisFailure(kind, inAsset: localIdentifier, model: model, error: error, date: Date())
    }

    func setAnalysisEnabled(_ kind: PhotoAnalysisKind, _ enabled: Bool) throws {
        try db.setAnalysisEnabled(kind, enabled)
    }

    func assetIdentifier(withOriginalHash sha256: String) throws -> String? {
        try db.assetIdentifier(withOriginalHash: sha256)
    }

    func journaledAsset(path: String, size: Int64, modificationDate: Date) throws -> String? {
        try db.journaledAsset(path: path, size: size, modificationDate: modificationDate)
    }

    // MARK: Writes

    func fillCaptureDetails(_ filled: [CaptureDetailsBacklogItem.Filled], through rowID: Int64) throws {
        try db.fillCaptureDetails(filled, through: rowID)
    }

    func setTrashRetention(seconds: Int) throws {
        try db.setTrashRetention(seconds: seconds)
    }

    func clearPendingRemovals() throws {
        try db.clearPendingRemovals()
    }

    func apply(_ operations: [ChangeOperation], prepared: PreparedChanges) throws -> AppliedChanges {
        var applier = ChangeApplier(db: db, retention: retention, prepared: prepared)
        return try applier.apply(operations)
    }

    func journal(_ file: JournaledFile) throws {
        try db.journal(file)
    }

    func pair(_ asset: NewAsset) throws -> Asset? {
        guard let partner = try asset.pair(db) else { return nil }
        return try written(partner)
    }

    func insert(_ asset: NewAsset, localIdentifier: String) throws -> Asset {
        try db.insert(asset, localIdentifier: localIdentifier)
        return try written(localIdentifier)
    }

    /// The asset this transaction just wrote, read in it.
    private func written(_ localIdentifier: String) throws -> Asset {
        guard let asset = try asset(withLocalIdentifier: localIdentifier) else {
            throw LibraryError(.storageFailed, "the asset \(localIdentifier) just written cannot be read")
        }
        return asset
    }

    func recordChanges(author: String, _ changes: [ObjectChangeRecord]) throws {
        try db.recordChangeTransaction(author: author, changes: changes, retention: retention)
    }
}

extension SQLDatabase {
    /// What the database's own checks find wrong, one line each: SQLite's integrity and
    /// foreign-key checks; on PostgreSQL, which enforces foreign keys as it writes, indexes a
    /// failed build left invalid.
    func integrityProblems() throws -> [String] {
        switch dialect {
        case .sqlite:
            let integrity = try texts("PRAGMA integrity_check").filter { $0 != "ok" }
            let foreignKeys = try rows("PRAGMA foreign_key_check").map { row in
                "row \(row.values[1].integer ?? 0) of \(row.values[0].text ?? "?") refers to a missing \(row.values[2].text ?? "?")"
            }
            return integrity + foreignKeys
        case .postgres:
            return try texts(
                "SELECT indexrelid::regclass::text FROM pg_index WHERE NOT indisvalid OR NOT indisready"
            ).map { "the index \($0) is not valid: rebuild it with REINDEX" }
        }
    }
}

extension LibraryStore {
    /// Runs raw statements in one write transaction of this store, SQLite or PostgreSQL: for the
    /// test suites, which make states no public call makes and read what none shows.
    func writeSQL<T>(_ body: (any SQLDatabase) throws -> T) throws -> T {
        try write { writer in
            guard let transaction = writer as? CatalogTransaction else {
                throw LibraryError(.storageFailed, "the store's writer is not a catalog transaction")
            }
            return try body(transaction.db)
        }
    }
}
