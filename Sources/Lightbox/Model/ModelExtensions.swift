import Foundation
import LightboxStore

extension AssetCollection {
    /// A collection made in memory from the assets of a fetch result.
    public static func transientAssetCollection(withAssetFetchResult result: FetchResult<Asset>, title: String?)
        -> AssetCollection
    {
        transientAssetCollection(with: Array(result), title: title)
    }
}
