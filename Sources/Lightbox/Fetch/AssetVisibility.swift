/// Which assets a fetch shows unless its options say otherwise: no hidden assets, and one
/// frame per burst (its representative).
enum AssetVisibility {
    /// The SQL condition over `asset`. The partial index `asset_visible_on_creationDate`
    /// (schema step v7) has this very condition, so fetches that write it walk the index.
    static let defaultCondition =
        "(asset.isHidden = 0 AND (asset.burstIdentifier IS NULL OR asset.representsBurst = 1))"
    /// One frame per burst, hidden assets included (fetches with `includeHiddenAssets`).
    static let burstRepresentatives = "(asset.burstIdentifier IS NULL OR asset.representsBurst = 1)"
}
