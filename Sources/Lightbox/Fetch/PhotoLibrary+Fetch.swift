import Foundation
import GRDB

extension PhotoLibrary {
    /// Every asset that `options` selects (PhotoKit's `PHAsset.fetchAssets(with:)`).
    ///
    /// Without sort descriptors, assets come oldest first. Hidden assets and the frames of a
    /// burst other than its representative are left out unless the options include them.
    public func fetchAssets(options: FetchOptions = FetchOptions()) throws -> FetchResult<Asset> {
        try fetchAssets(where: nil, options: options)
    }

    /// Runs blocking library work (a fetch, a history query) on Lightbox's blocking pool, so
    /// that a server's event loop or Swift's cooperative pool never waits on SQLite.
    public func read<T: Sendable>(_ body: @escaping @Sendable (PhotoLibrary) throws -> T) async throws -> T {
        try await BlockingWork.run { try body(self) }
    }

    /// A page of a fetch: the `limit` assets that follow the one whose identifier is `after`
    /// (from the start when nil), for servers and tools that page through a fetch.
    /// Runs off the caller's executor.
    public func fetchAssets(options: FetchOptions, after: String?, limit: Int) async throws -> [Asset] {
        try await read { library in
            try library.page(of: library.fetchAssets(options: options), after: after, limit: limit)
        }
    }

    /// A page of a collection's assets; see ``fetchAssets(options:after:limit:)``.
    public func fetchAssets(
        inCollectionWithLocalIdentifier localIdentifier: String, options: FetchOptions, after: String?, limit: Int
    ) async throws -> [Asset] {
        try await read { library in
            try library.page(
                of: library.fetchAssets(inCollectionWithLocalIdentifier: localIdentifier, options: options),
                after: after,
                limit: limit)
        }
    }

    /// The `limit` assets of `result` after the one named `after`.
    private func page(of result: FetchResult<Asset>, after: String?, limit: Int) throws -> [Asset] {
        var start = 0
        if let after {
            guard let anchor = try asset(withLocalIdentifier: after), let index = result.index(of: anchor) else {
                throw LibraryError(.assetNotFound, "no asset \(after) in this fetch")
            }
            start = index + 1
        }
        return result.objects(at: start..<Swift.min(result.count, start + Swift.max(0, limit)))
    }

    /// The assets of one media type.
    public func fetchAssets(with mediaType: AssetMediaType, options: FetchOptions = FetchOptions()) throws
        -> FetchResult<Asset>
    {
        try fetchAssets(where: .comparison(key: "mediaType", .equal, .int(mediaType.rawValue)), options: options)
    }

    /// The assets with these identifiers, hidden ones included (PhotoKit's
    /// `fetchAssets(withLocalIdentifiers:options:)`).
    public func fetchAssets(withLocalIdentifiers identifiers: [String], options: FetchOptions = FetchOptions()) throws
        -> FetchResult<Asset>
    {
        var options = options
        options.includeHiddenAssets = true
        options.includeAllBurstAssets = true
        return try fetchAssets(where: .isIn(key: "localIdentifier", identifiers.map { .string($0) }), options: options)
    }

    /// Every frame of one burst, hidden ones included.
    public func fetchAssets(withBurstIdentifier burstIdentifier: String, options: FetchOptions = FetchOptions()) throws
        -> FetchResult<Asset>
    {
        var options = options
        options.includeAllBurstAssets = true
        return try fetchAssets(
            where: .comparison(key: "burstIdentifier", .equal, .string(burstIdentifier)), options: options)
    }

    /// The assets of a collection: an album's in the album's order unless the options sort them.
    public func fetchAssets(in collection: AssetCollection, options: FetchOptions = FetchOptions()) throws
        -> FetchResult<Asset>
    {
        if let identifiers = collection.memberIdentifiers {
            // A collection made in memory (transient, or a moment): its assets as the library
            // holds them now, in its order unless the options sort them.
            let members = FetchPredicate.isIn(key: "localIdentifier", identifiers.map { .string($0) })
            guard options.sortDescriptors.isEmpty else { return try fetchAssets(where: members, options: options) }
            var unlimited = options
            unlimited.fetchLimit = 0
            let fetched = try fetchAssets(where: members, options: unlimited)
            let byIdentifier = Dictionary(uniqueKeysWithValues: fetched.map { ($0.localIdentifier, $0) })
            var ordered = identifiers.compactMap { byIdentifier[$0] }
            if options.fetchLimit > 0 { ordered = Array(ordered.prefix(options.fetchLimit)) }
            return FetchResult(objects: ordered)
        }
        return try fetchAssets(inCollectionWithLocalIdentifier: collection.localIdentifier, options: options)
    }

    /// A collection's key assets (PhotoKit's `fetchKeyAssets(in:options:)`): the assets that
    /// stand for it on a cover, the first in its order: `options.fetchLimit` of them, one
    /// when the options set no limit.
    public func fetchKeyAssets(in collection: AssetCollection, options: FetchOptions = FetchOptions()) throws
        -> FetchResult<Asset>
    {
        var options = options
        if options.fetchLimit == 0 { options.fetchLimit = 1 }
        return try fetchAssets(in: collection, options: options)
    }

    /// The assets of the collection with this identifier.
    public func fetchAssets(
        inCollectionWithLocalIdentifier localIdentifier: String, options: FetchOptions = FetchOptions()
    )
        throws -> FetchResult<Asset>
    {
        if localIdentifier.hasPrefix("moment-") {
            guard let moment = try fetchMoments().first(where: { $0.localIdentifier == localIdentifier }) else {
                throw LibraryError(.collectionNotFound, "no moment has the identifier \(localIdentifier)")
            }
            return try fetchAssets(in: moment, options: options)
        }
        guard
            let row = try store.writer.read({ db in
                try Row.fetchOne(
                    db, sql: "SELECT id, type, subtype FROM assetCollection WHERE localIdentifier = ?",
                    arguments: [localIdentifier])
            })
        else {
            throw LibraryError(.collectionNotFound, "no collection has the identifier \(localIdentifier)")
        }
        if row["type"] == AssetCollectionType.smartAlbum.rawValue,
            let rule = AssetCollectionSubtype(rawValue: row["subtype"]).flatMap(SmartAlbums.rule)
        {
            var options = options
            if rule.includesHidden { options.includeHiddenAssets = true }
            guard rule.isTrash else {
                return try fetchAssets(where: nil, options: options, extraCondition: rule.condition)
            }
            // Every deleted asset, the last deleted first unless the options sort them.
            options.includeHiddenAssets = true
            options.includeAllBurstAssets = true
            return try fetchAssets(
                where: nil, options: options, inTrash: true, defaultOrder: "asset.trashedDate DESC")
        }
        let rowID: Int64 = row["id"]
        let membership =
            "(SELECT position FROM collectionAsset WHERE collectionAsset.collectionId = \(rowID) AND collectionAsset.assetId = asset.id)"
        return try fetchAssets(
            where: nil, options: options, extraCondition: "\(membership) IS NOT NULL", defaultOrder: "\(membership) ASC"
        )
    }

    /// The shared path of every asset fetch: the entry point's condition, the options'
    /// predicate, visibility, order and limit, compiled to one query run on a snapshot.
    /// `extraCondition` and `defaultOrder` are SQL of Lightbox's own, never user text. Assets
    /// in Recently Deleted are left out, or are the only ones with `inTrash`.
    func fetchAssets(
        where condition: FetchPredicate?, options: FetchOptions, extraCondition: String? = nil, inTrash: Bool = false,
        defaultOrder: String? = nil
    ) throws -> FetchResult<Asset> {
        let keys = FetchKeys.asset
        var conditions: [FetchPredicate] = []
        if let condition { conditions.append(condition) }
        if let predicate = options.predicate { conditions.append(predicate) }
        let predicateSQL = try FetchPredicate.and(conditions).sql(for: keys)

        var clauses = [predicateSQL.sql]
        if let extraCondition { clauses.append(extraCondition) }
        var arguments = predicateSQL.arguments
        // Fetches without a condition of their own count from the tallies (schema step v9),
        // which tell apart exactly what the visibility options do.
        var tallyClauses = [inTrash ? "isTrashed = 1" : "isTrashed = 0"]
        var tallyArguments = StatementArguments()
        switch (inTrash, options.includeHiddenAssets, options.includeAllBurstAssets) {
        case (true, _, _):
            // Every deleted asset, hidden ones and burst frames included.
            clauses.append(AssetVisibility.trashed)
        case (false, false, false):
            clauses.append(AssetVisibility.defaultCondition)  // the partial index's own condition
            tallyClauses += ["isHidden = 0", "isBurstFrame = 0"]
        case (false, false, true):
            clauses += ["asset.isHidden = 0", AssetVisibility.notTrashed]
            tallyClauses.append("isHidden = 0")
        case (false, true, false):
            clauses.append(AssetVisibility.burstRepresentatives)
            tallyClauses.append("isBurstFrame = 0")
        case (false, true, true):
            clauses.append(AssetVisibility.notTrashed)
        }
        if !options.includeAssetSourceTypes.isEmpty {
            clauses.append("(asset.sourceType & ?) != 0")
            arguments += [options.includeAssetSourceTypes.rawValue]
            tallyClauses.append("(sourceType & ?) != 0")
            tallyArguments += [options.includeAssetSourceTypes.rawValue]
        }
        let order: String
        if options.sortDescriptors.isEmpty, let defaultOrder {
            order = defaultOrder + ", asset.id ASC"
        } else {
            let sorts =
                options.sortDescriptors.isEmpty ? [FetchSortDescriptor(key: "creationDate")] : options.sortDescriptors
            order = try FetchSortDescriptor.orderBy(sorts, keys: keys)
        }
        let whereSQL = clauses.joined(separator: " AND ")
        var query = RowIDQuery(
            select: SQLFragment(sql: "SELECT asset.id FROM asset WHERE \(whereSQL)", arguments: arguments),
            orderBy: order, limit: options.fetchLimit,
            mediaTypeCount: SQLFragment(
                sql: "SELECT COUNT(*) FROM asset WHERE \(whereSQL) AND asset.mediaType = ?", arguments: arguments))
        if conditions.isEmpty && extraCondition == nil {
            let tally = tallyClauses.joined(separator: " AND ")
            query.fastCount = SQLFragment(
                sql: "SELECT COALESCE(SUM(count), 0) FROM assetTally WHERE \(tally)", arguments: tallyArguments)
            query.mediaTypeCount = SQLFragment(
                sql: "SELECT COALESCE(SUM(count), 0) FROM assetTally WHERE \(tally) AND mediaType = ?",
                arguments: tallyArguments)
        }

        return try FetchResult(
            query: query, snapshot: try snapshots.snapshot(of: store.writer),
            loader: { db, ids in try AssetInfo.load(db, ids: ids) },
            rowIDLookup: { db, localIdentifiers in try db.rowIDs("id", in: "asset", localIdentifiers: localIdentifiers)
            },
            refetch: { [self] in
                try self.fetchAssets(
                    where: condition, options: options, extraCondition: extraCondition, defaultOrder: defaultOrder)
            },
            wantsIncrementalChangeDetails: options.wantsIncrementalChangeDetails)
    }
}
