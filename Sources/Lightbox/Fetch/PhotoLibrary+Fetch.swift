import Foundation

extension PhotoLibrary {
    /// Every asset that `options` selects (PhotoKit's `PHAsset.fetchAssets(with:)`).
    ///
    /// Without sort descriptors, assets come oldest first. Hidden assets and the frames of a
    /// burst other than its representative are left out unless the options include them.
    public func fetchAssets(options: FetchOptions = FetchOptions()) throws -> FetchResult<Asset> {
        try fetchAssets(matching: nil, options: options)
    }

    /// Runs blocking library work (a fetch, a history query) on Lightbox's blocking pool, so
    /// that a server's event loop or Swift's cooperative pool never waits on SQLite.
    public func read<T: Sendable>(_ body: @escaping @Sendable (PhotoLibrary) throws -> T) async throws -> T {
        try await BlockingWork.run { try body(self) }
    }

    /// A page of a fetch: the `limit` assets that follow the one whose identifier is `after`
    /// (from the start when nil), and how many the whole fetch holds, both from one fetch
    /// result; for servers and tools that page through a fetch. Runs off the caller's executor.
    public func fetchAssetPage(options: FetchOptions, after: String?, limit: Int) async throws -> AssetFetchPage {
        try await read { library in
            try library.page(of: library.fetchAssets(options: options), after: after, limit: limit)
        }
    }

    /// A page of a collection's assets; see ``fetchAssetPage(options:after:limit:)``.
    public func fetchAssetPage(
        inCollectionWithLocalIdentifier localIdentifier: String, options: FetchOptions, after: String?, limit: Int
    ) async throws -> AssetFetchPage {
        try await read { library in
            try library.page(
                of: library.fetchAssets(inCollectionWithLocalIdentifier: localIdentifier, options: options),
                after: after,
                limit: limit)
        }
    }

    /// The `limit` assets of `result` after the one named `after`, and the result's count.
    private func page(of result: FetchResult<Asset>, after: String?, limit: Int) throws -> AssetFetchPage {
        var start = 0
        if let after {
            guard let anchor = try asset(withLocalIdentifier: after), let index = result.index(of: anchor) else {
                throw LibraryError(.assetNotFound, "no asset \(after) in this fetch")
            }
            start = index + 1
        }
        return AssetFetchPage(
            assets: result.objects(at: start..<Swift.min(result.count, start + Swift.max(0, limit))),
            count: result.count)
    }

    /// The assets of one media type.
    public func fetchAssets(with mediaType: AssetMediaType, options: FetchOptions = FetchOptions()) throws
        -> FetchResult<Asset>
    {
        try fetchAssets(matching: .comparison(key: "mediaType", .equal, .int(mediaType.rawValue)), options: options)
    }

    /// The assets with these identifiers, hidden ones included (PhotoKit's
    /// `fetchAssets(withLocalIdentifiers:options:)`).
    public func fetchAssets(withLocalIdentifiers identifiers: [String], options: FetchOptions = FetchOptions()) throws
        -> FetchResult<Asset>
    {
        var options = options
        options.includeHiddenAssets = true
        options.includeAllBurstAssets = true
        return try fetchAssets(
            matching: .isIn(key: "localIdentifier", identifiers.map { .string($0) }), options: options)
    }

    /// Every frame of one burst, hidden ones included.
    public func fetchAssets(withBurstIdentifier burstIdentifier: String, options: FetchOptions = FetchOptions()) throws
        -> FetchResult<Asset>
    {
        var options = options
        options.includeAllBurstAssets = true
        return try fetchAssets(
            matching: .comparison(key: "burstIdentifier", .equal, .string(burstIdentifier)), options: options)
    }

    /// The assets of a collection: an album's in the album's order unless the options sort them.
    public func fetchAssets(in collection: AssetCollection, options: FetchOptions = FetchOptions()) throws
        -> FetchResult<Asset>
    {
        if let identifiers = collection.memberIdentifiers {
            // A collection made in memory (transient, or a moment): its assets as the library
            // holds them now, in its order unless the options sort them.
            let members = FetchPredicate.isIn(key: "localIdentifier", identifiers.map { .string($0) })
            guard options.sortDescriptors.isEmpty else { return try fetchAssets(matching: members, options: options) }
            var unlimited = options
            unlimited.fetchLimit = 0
            let fetched = try fetchAssets(matching: members, options: unlimited)
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
        return try fetched(options) { [store] in try store.fetchAssets(inCollection: localIdentifier, options: options)
        }
    }

    /// The assets in the library that `condition` and `options` select.
    func fetchAssets(matching condition: FetchPredicate?, options: FetchOptions) throws -> FetchResult<Asset> {
        try fetched(options) { [store] in try store.fetchAssets(matching: condition, options: options) }
    }

    /// A result read from the source `make` gives; change details run `make` again to see the
    /// library as it is then.
    func fetched<Object: FetchableObject>(
        _ options: FetchOptions, _ make: @escaping @Sendable () throws -> any FetchSource<Object>
    ) throws -> FetchResult<Object> {
        try FetchResult(
            source: make(), refetch: { [self] in try self.fetched(options, make) },
            wantsIncrementalChangeDetails: options.wantsIncrementalChangeDetails)
    }
}

/// A page of a fetch of assets: the assets asked for, and how many the whole fetch holds.
public struct AssetFetchPage: Sendable {
    public var assets: [Asset]
    public var count: Int
}
