import Foundation
import LightboxStore

extension PhotoLibrary {
    /// Asset collections of a type and subtype (PhotoKit's `fetchAssetCollections(with:subtype:options:)`);
    /// `.any` for every subtype. Without sort descriptors, oldest first by when they were made.
    public func fetchAssetCollections(
        with type: AssetCollectionType, subtype: AssetCollectionSubtype = .any, options: FetchOptions = FetchOptions()
    ) throws -> FetchResult<AssetCollection> {
        // Moments are computed from the assets, not stored (see MomentGrouping).
        if type == .moment { return try fetchMoments() }
        return try fetched(options) { [store] in
            try store.fetchAssetCollections(.type(type, subtype), options: options)
        }
    }

    /// The collections with these identifiers.
    public func fetchAssetCollections(
        withLocalIdentifiers identifiers: [String], options: FetchOptions = FetchOptions()
    )
        throws -> FetchResult<AssetCollection>
    {
        try fetched(options) { [store] in try store.fetchAssetCollections(.identifiers(identifiers), options: options) }
    }

    /// The albums that contain an asset.
    public func fetchAssetCollectionsContaining(_ asset: Asset, options: FetchOptions = FetchOptions()) throws
        -> FetchResult<AssetCollection>
    {
        let identifier = asset.localIdentifier
        return try fetched(options) { [store] in
            try store.fetchAssetCollections(.containing(assetLocalIdentifier: identifier), options: options)
        }
    }
}
