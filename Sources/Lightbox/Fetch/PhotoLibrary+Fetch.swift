import Foundation
import LightboxStore

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

    /// A page of a fetch: the `limit` assets from `start`, where the page begins in the fetch,
    /// and how many the whole fetch holds, all from one fetch result; for servers and tools
    /// that page through a fetch. Runs off the caller's executor.
    public func fetchAssetPage(options: FetchOptions, from start: FetchPageStart, limit: Int) async throws
        -> AssetFetchPage
    {
        try await read { library in
            try library.page(of: library.fetchAssets(options: options), from: start, limit: limit)
        }
    }

    /// A page of a collection's assets; see ``fetchAssetPage(options:from:limit:)``.
    public func fetchAssetPage(
        inCollectionWithLocalIdentifier localIdentifier: String, options: FetchOptions, from start: FetchPageStart,
        limit: Int
    ) async throws -> AssetFetchPage {
        try await read { library in
            try library.page(
                of: library.fetchAssets(inCollectionWithLocalIdentifier: localIdentifier, options: options),
                from: start, limit: limit)
        }
    }

    /// The `limit` assets of `result` from `start`, where they start, and the result's count.
    private func page(of result: FetchResult<Asset>, from start: FetchPageStart, limit: Int) throws
        -> AssetFetchPage
    {
        func index(of identifier: String) throws -> Int {
            guard let anchor = try asset(withLocalIdentifier: identifier), let index = result.index(of: anchor) else {
                throw LibraryError(.assetNotFound, "no asset \(identifier) in this fetch")
            }
            return index
        }
        let count = result.count
        let first: Int
        switch start {
        case .after(nil): first = 0
        case .after(let identifier?): first = try index(of: identifier) + 1
        case .offset(let offset): first = Swift.min(Swift.max(0, offset), count)
        case .at(let identifier): first = try index(of: identifier)
        }
        return AssetFetchPage(
            assets: result.objects(at: first..<Swift.min(count, first + Swift.min(Swift.max(0, limit), count))),
            offset: first, count: count)
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

    /// One burst's assets (PhotoKit's `fetchAssets(withBurstIdentifier:options:)`): as every
    /// fetch, only its representative (the user's pick, else the library's) unless the options'
    /// `includeAllBurstAssets` asks for every frame, and hidden ones only when
    /// `includeHiddenAssets` does.
    public func fetchAssets(withBurstIdentifier burstIdentifier: String, options: FetchOptions = FetchOptions()) throws
        -> FetchResult<Asset>
    {
        try fetchAssets(
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
        // A person's: the photo of their key face, while a fetch shows it.
        if let key = collection.person?.keyFace, options.predicate == nil {
            let keyAsset = try fetchAssets(
                matching: .comparison(key: "localIdentifier", .equal, .string(key.assetLocalIdentifier)),
                options: options)
            if keyAsset.count > 0 { return keyAsset }
        }
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

/// Where a page of a fetch starts.
public enum FetchPageStart: Sendable, Hashable {
    /// After the asset with this identifier, or at the first when nil (keyset paging: a page
    /// follows on from the last one seen whatever was added before it).
    case after(String?)
    /// At this index of the fetch (a timeline's position; past the end gives an empty page).
    case offset(Int)
    /// At the asset with this identifier (a link to one asset, and where it lies).
    case at(String)
}

/// A page of a fetch of assets: the assets asked for, the index of the first in the fetch,
/// and how many the whole fetch holds.
public struct AssetFetchPage: Sendable {
    public var assets: [Asset]
    public var offset: Int
    public var count: Int

    public init(assets: [Asset], offset: Int, count: Int) {
        self.assets = assets
        self.offset = offset
        self.count = count
    }
}
