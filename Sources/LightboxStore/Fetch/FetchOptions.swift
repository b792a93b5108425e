/// What a fetch returns and in what order (PhotoKit's `PHFetchOptions`).
///
/// ```swift
/// var options = FetchOptions()
/// options.predicate = try FetchPredicate("favorite == true")
/// options.sortDescriptors = [FetchSortDescriptor(key: "creationDate", ascending: false)]
/// let favorites = try library.fetchAssets(options: options)
/// ```
public struct FetchOptions: Sendable, Hashable {
    /// Which objects; nil for all.
    public var predicate: FetchPredicate?
    /// The order; empty for the class's default (assets: creationDate, oldest first).
    public var sortDescriptors: [FetchSortDescriptor]
    /// Whether hidden assets are included. Off by default, except in fetches by identifier.
    public var includeHiddenAssets: Bool
    /// Whether every frame of a burst is included. Off by default: only each burst's
    /// representative.
    public var includeAllBurstAssets: Bool
    /// Which sources' assets are included; empty for all.
    public var includeAssetSourceTypes: AssetSourceType
    /// At most this many objects; 0 for no limit.
    public var fetchLimit: Int
    /// Whether change details for this fetch compute indexes (observation; see issue #3).
    public var wantsIncrementalChangeDetails: Bool

    /// The defaults: every visible, representative asset, oldest first.
    public init(
        predicate: FetchPredicate? = nil, sortDescriptors: [FetchSortDescriptor] = [],
        includeHiddenAssets: Bool = false, includeAllBurstAssets: Bool = false,
        includeAssetSourceTypes: AssetSourceType = [], fetchLimit: Int = 0, wantsIncrementalChangeDetails: Bool = true
    ) {
        self.predicate = predicate
        self.sortDescriptors = sortDescriptors
        self.includeHiddenAssets = includeHiddenAssets
        self.includeAllBurstAssets = includeAllBurstAssets
        self.includeAssetSourceTypes = includeAssetSourceTypes
        self.fetchLimit = fetchLimit
        self.wantsIncrementalChangeDetails = wantsIncrementalChangeDetails
    }
}
