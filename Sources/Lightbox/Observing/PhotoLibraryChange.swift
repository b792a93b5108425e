import Foundation
import LightboxStore

/// How one object changed (PhotoKit's `PHObjectChangeDetails`).
public struct ObjectChangeDetails<ObjectType: FetchableObject>: Sendable {
    /// The object as the caller had it.
    public let objectBeforeChanges: ObjectType
    /// The object now; nil when it was deleted (an asset: to Recently Deleted, or for good).
    public let objectAfterChanges: ObjectType?
    /// True when the asset's pixels or movie changed (an edit or a revert), not only its properties.
    public let assetContentChanged: Bool
    /// True when the object was deleted: an asset moved to Recently Deleted as well as one
    /// purged, as PhotoKit's observers hear a deletion in Photos (the asset leaves every fetch).
    public let objectWasDeleted: Bool
    /// True when the deletion was to Recently Deleted (``objectWasDeleted`` is true too): the
    /// asset can come back, and Recently Deleted's fetch has it. Lightbox's.
    public var objectWasTrashed = false
    /// True when the asset came back from Recently Deleted. Lightbox's.
    public var objectWasRestored = false
}

/// The changes of one committed transaction, as an observer hears of them (PhotoKit's `PHChange`).
/// Ask it how an object or a fetch result you hold changed; nil means untouched.
public struct PhotoLibraryChange: Sendable {
    /// The transaction, with what it inserted, updated and deleted.
    public let persistentChange: PersistentChange
    let library: PhotoLibrary

    /// The token after the transaction.
    public var changeToken: PersistentChangeToken { persistentChange.changeToken }

    /// How `object` changed, or nil when the transaction did not touch it.
    public func details<ObjectType: FetchableObject>(for object: ObjectType) -> ObjectChangeDetails<ObjectType>? {
        let touched = touchedObjects(ObjectType.self)
        let id = object.localIdentifier
        if touched.deletedLocalIdentifiers.contains(id) {
            return ObjectChangeDetails(
                objectBeforeChanges: object, objectAfterChanges: nil, assetContentChanged: false, objectWasDeleted: true
            )
        }
        if touched.trashedLocalIdentifiers.contains(id) {
            var details = ObjectChangeDetails(
                objectBeforeChanges: object, objectAfterChanges: nil, assetContentChanged: false, objectWasDeleted: true
            )
            details.objectWasTrashed = true
            return details
        }
        let restored = touched.restoredLocalIdentifiers.contains(id)
        guard touched.updatedLocalIdentifiers.contains(id) || restored else { return nil }
        let after = try? ObjectType.fetch(localIdentifier: id, in: library)
        // An asset's content is the files it shows: an edit or a revert changes them.
        let contentChanged =
            (object as? Asset).map { before in
                (after as? Asset).map { Self.contentFiles(before) != Self.contentFiles($0) } ?? false
            } ?? false
        var details = ObjectChangeDetails(
            objectBeforeChanges: object, objectAfterChanges: after, assetContentChanged: contentChanged,
            objectWasDeleted: after == nil)
        details.objectWasRestored = restored
        return details
    }

    /// How a fetch result changed, or nil when the transaction changed nothing in it. The
    /// result after is the same fetch run again now.
    public func details<ObjectType: FetchableObject>(for fetchResult: FetchResult<ObjectType>)
        -> FetchResultChangeDetails<ObjectType>?
    {
        guard let refetch = fetchResult.refetch, let after = try? refetch() else { return nil }
        let touched = touchedObjects(ObjectType.self)
        let details = FetchResultChangeDetails(
            from: fetchResult, to: after, changedIdentifiers: touched.updatedLocalIdentifiers,
            incremental: fetchResult.wantsIncrementalChangeDetails)
        if details.removedIndexes.isEmpty && details.insertedIndexes.isEmpty && details.changedIndexes.isEmpty
            && !details.hasMoves
        {
            return nil
        }
        return details
    }
}

extension PhotoLibraryChange {
    /// What the transaction did to objects of a class (albums and folders together for
    /// `PhotoCollection`).
    func touchedObjects<ObjectType: FetchableObject>(_ type: ObjectType.Type) -> PersistentObjectChangeDetails {
        var union = PersistentObjectChangeDetails(objectType: type.persistentObjectTypes[0])
        for kind in type.persistentObjectTypes {
            let details = persistentChange.changeDetails(for: kind)
            union.insertedLocalIdentifiers.formUnion(details.insertedLocalIdentifiers)
            union.updatedLocalIdentifiers.formUnion(details.updatedLocalIdentifiers)
            union.deletedLocalIdentifiers.formUnion(details.deletedLocalIdentifiers)
            union.trashedLocalIdentifiers.formUnion(details.trashedLocalIdentifiers)
            union.restoredLocalIdentifiers.formUnion(details.restoredLocalIdentifiers)
        }
        return union
    }
}

extension FetchableObject {
    /// The kinds persistent history files this class under.
    static var persistentObjectTypes: [PersistentObjectType] {
        switch self {
        case is AssetCollection.Type: [.assetCollection]
        case is CollectionList.Type: [.collectionList]
        case is PhotoCollection.Type: [.assetCollection, .collectionList]
        default: [.asset]
        }
    }

    /// The object with this identifier as the library holds it now, or nil.
    static func fetch(localIdentifier: String, in library: PhotoLibrary) throws -> Self? {
        switch self {
        case is Asset.Type: return try library.asset(withLocalIdentifier: localIdentifier) as? Self
        case is AssetCollection.Type:
            return try library.fetchAssetCollections(withLocalIdentifiers: [localIdentifier]).firstObject as? Self
        case is CollectionList.Type:
            return try library.fetchCollectionLists(withLocalIdentifiers: [localIdentifier]).firstObject as? Self
        case is PhotoCollection.Type:
            if let album = try library.fetchAssetCollections(withLocalIdentifiers: [localIdentifier]).firstObject {
                return PhotoCollection.assetCollection(album) as? Self
            }
            return try library.fetchCollectionLists(withLocalIdentifiers: [localIdentifier]).firstObject
                .map { PhotoCollection.collectionList($0) as? Self } ?? nil
        default: return nil
        }
    }
}

/// Hears of every transaction committed to a library, by this process or another
/// (PhotoKit's `PHPhotoLibraryChangeObserver`).
public protocol PhotoLibraryChangeObserver: AnyObject, Sendable {
    /// Called once per committed transaction, on a background task, in commit order.
    func photoLibraryDidChange(_ change: PhotoLibraryChange)
}

extension PhotoLibraryChange {
    /// The hashes of the files that make what an asset shows, by type.
    static func contentFiles(_ asset: Asset) -> [AssetResourceType: String] {
        let types: Set<AssetResourceType> = [
            .photo, .video, .pairedVideo, .fullSizePhoto, .fullSizeVideo, .fullSizePairedVideo,
        ]
        return Dictionary(
            asset.resources.filter { types.contains($0.type) }.map { ($0.type, $0.sha256) },
            uniquingKeysWith: { a, _ in a })
    }
}
