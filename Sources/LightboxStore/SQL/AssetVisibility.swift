/// Which assets a fetch shows unless its options say otherwise: no hidden assets, and one
/// frame per burst (its representative). No fetch shows a deleted asset (one in Recently
/// Deleted) but that album's.
enum AssetVisibility {
    /// The SQL condition over `asset`. The partial index `asset_visible_on_creationDate`
    /// (schema steps v7, v15) has this very condition, so fetches that write it walk the index.
    static let defaultCondition =
        "(asset.isHidden = 0 AND (asset.burstIdentifier IS NULL OR asset.representsBurst = 1) AND asset.trashedDate IS NULL)"
    /// One frame per burst, hidden assets included (fetches with `includeHiddenAssets`).
    static let burstRepresentatives =
        "((asset.burstIdentifier IS NULL OR asset.representsBurst = 1) AND asset.trashedDate IS NULL)"
    /// Assets in the library, not deleted.
    static let notTrashed = "asset.trashedDate IS NULL"
    /// Assets in Recently Deleted.
    static let trashed = "asset.trashedDate IS NOT NULL"
}
