import Foundation
import LightboxStore

/// Recently Deleted: what `deleteAssets` does, as Apple's Photos, Immich and Google Photos do.
/// A deleted asset leaves every fetch and album but the smart album Recently Deleted
/// (``AssetCollectionSubtype/smartAlbumRecentlyDeleted``), where it keeps its files, edits,
/// albums and state with its ``Asset/trashedDate``; ``ChangeRequests/restoreAssets(_:)``
/// brings it back, and it is purged, its originals removed, after the library's trash
/// retention or by ``ChangeRequests/purgeAssets(_:)``.
///
/// ```swift
/// try await library.performChanges { $0.deleteAssets([id]) }    // to Recently Deleted
/// try await library.performChanges { $0.restoreAssets([id]) }   // back, in its albums
/// let purged = try library.emptyTrash()                         // gone for good
/// ```
extension PhotoLibrary {
    /// How long a deleted asset stays in Recently Deleted by default: 30 days, as in Apple's
    /// Photos and Immich.
    public static let defaultTrashRetention: TimeInterval = 30 * 24 * 3600

    /// How long a deleted asset stays in Recently Deleted before it is purged, in seconds.
    /// The library keeps it.
    public func trashRetention() throws -> TimeInterval {
        try store.read { try $0.trashRetention() } ?? Self.defaultTrashRetention
    }

    /// Sets how long deleted assets stay in Recently Deleted, 0 to 10 years (0: purged at the
    /// next open of the library); assets past it go at once.
    public func setTrashRetention(_ seconds: TimeInterval) throws {
        guard seconds.isFinite, (0...(3650 * 24 * 3600)).contains(seconds) else {
            throw LibraryError(.invalidRequest, "a trash retention is 0 to 3650 days, not \(seconds / 86400) days")
        }
        try store.write { try $0.setTrashRetention(seconds: Int(seconds)) }
        try purgeExpiredTrash()
    }

    /// The identifiers of the assets in Recently Deleted, the last deleted first; with
    /// `deletedBefore`, only those deleted before that date.
    public func trashedAssetIdentifiers(deletedBefore: Date? = nil) throws -> [String] {
        try store.read { try $0.trashedAssetIdentifiers(deletedBefore: deletedBefore ?? Date.distantFuture) }
    }

    /// Purges every asset in Recently Deleted; returns their identifiers.
    @discardableResult
    public func emptyTrash() throws -> [String] {
        let identifiers = try trashedAssetIdentifiers()
        if !identifiers.isEmpty { try performChangesAndWait { $0.purgeAssets(identifiers) } }
        return identifiers
    }

    /// Purges the assets that have been in Recently Deleted longer than the retention; returns
    /// their identifiers. Opening a library does it.
    @discardableResult
    public func purgeExpiredTrash() throws -> [String] {
        let identifiers = try trashedAssetIdentifiers(deletedBefore: Date().addingTimeInterval(-(try trashRetention())))
        if !identifiers.isEmpty { try performChangesAndWait { $0.purgeAssets(identifiers) } }
        return identifiers
    }
}
