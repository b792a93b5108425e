import Foundation

/// The kind of a collection list (PhotoKit's `PHCollectionListType`). Raw values are the framework's.
public enum CollectionListType: Int, Sendable, Hashable, CaseIterable {
    /// Years and clusters of moments, kept by the library.
    case momentList = 1
    /// A user's folder of albums and folders.
    case folder = 2
    /// A folder the library keeps.
    case smartFolder = 3
}

/// The finer kind of a collection list (PhotoKit's `PHCollectionListSubtype`). Raw values are the framework's.
public enum CollectionListSubtype: Int, Sendable, Hashable, CaseIterable {
    case momentListCluster = 1
    case momentListYear = 2
    case regularFolder = 100
    case smartFolderEvents = 200
    case smartFolderFaces = 201
    /// Any subtype, in fetches.
    case any = 9_223_372_036_854_775_807
}

/// A list of collections (PhotoKit's `PHCollectionList`): a folder of albums and folders, or
/// a level of the moment hierarchy. An immutable snapshot.
public struct CollectionList: Sendable, Hashable, Identifiable, FetchableObject {
    /// Stable identifier, unique in the library.
    public var localIdentifier: String
    /// Folder, moment list or smart folder.
    public var collectionListType: CollectionListType
    /// The finer kind.
    public var collectionListSubtype: CollectionListSubtype
    /// The title shown to people.
    public var localizedTitle: String?
    /// The names of the places its moments were taken in, the most photographed first (a
    /// moment list's: PhotoKit's `localizedLocationNames`); empty for other lists.
    public var localizedLocationNames: [String] = []

    /// The children of a transient list, in order; nil for a stored one.
    package var transientCollections: [PhotoCollection]?

    /// The local identifier, for `Identifiable`.
    public var id: String { localIdentifier }

    /// Whether the list was made in memory and is stored nowhere.
    public var isTransient: Bool { transientCollections != nil }

    /// A list made in memory from collections (PhotoKit's `transientCollectionList(with:title:)`),
    /// usable wherever a stored one is, e.g. `fetchCollections(in:)`.
    public static func transientCollectionList(with collections: [PhotoCollection], title: String?) -> CollectionList {
        var list = CollectionList(
            localIdentifier: "transient-" + UUID().uuidString, collectionListType: .folder,
            collectionListSubtype: .regularFolder, localizedTitle: title)
        list.transientCollections = collections
        return list
    }

    /// A list snapshot with every field given.
    public init(
        localIdentifier: String, collectionListType: CollectionListType, collectionListSubtype: CollectionListSubtype,
        localizedTitle: String?
    ) {
        self.localIdentifier = localIdentifier
        self.collectionListType = collectionListType
        self.collectionListSubtype = collectionListSubtype
        self.localizedTitle = localizedTitle
    }
}

/// Anything a collection list holds (PhotoKit's `PHCollection`; named so as not to hide Swift's
/// `Collection` protocol): an asset collection or
/// another list.
public enum PhotoCollection: Sendable, Hashable, FetchableObject {
    case assetCollection(AssetCollection)
    case collectionList(CollectionList)

    /// The identifier of the collection or list.
    public var localIdentifier: String {
        switch self {
        case .assetCollection(let collection): collection.localIdentifier
        case .collectionList(let list): list.localIdentifier
        }
    }

    /// The title shown to people.
    public var localizedTitle: String? {
        switch self {
        case .assetCollection(let collection): collection.localizedTitle
        case .collectionList(let list): list.localizedTitle
        }
    }
}
