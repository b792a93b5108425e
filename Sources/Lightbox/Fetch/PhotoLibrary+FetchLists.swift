import Foundation
import LightboxStore

extension PhotoLibrary {
    /// Collection lists of a type and subtype (PhotoKit's `fetchCollectionLists(with:subtype:options:)`).
    public func fetchCollectionLists(
        with type: CollectionListType, subtype: CollectionListSubtype = .any, options: FetchOptions = FetchOptions()
    ) throws -> FetchResult<CollectionList> {
        if type == .momentList {
            return try fetchMomentLists(subtype == .momentListCluster ? .momentListCluster : .momentListYear)
        }
        return try fetched(options) { [store] in
            try store.fetchCollectionLists(.type(type, subtype), options: options)
        }
    }

    /// The lists with these identifiers.
    public func fetchCollectionLists(withLocalIdentifiers identifiers: [String], options: FetchOptions = FetchOptions())
        throws -> FetchResult<CollectionList>
    {
        try fetched(options) { [store] in try store.fetchCollectionLists(.identifiers(identifiers), options: options) }
    }

    /// The folders holding a collection (at most one).
    public func fetchCollectionListsContaining(_ collection: PhotoCollection, options: FetchOptions = FetchOptions())
        throws
        -> FetchResult<CollectionList>
    {
        let identifier = collection.localIdentifier
        return try fetched(options) { [store] in
            try store.fetchCollectionLists(.containing(collectionLocalIdentifier: identifier), options: options)
        }
    }

    /// The albums and folders a list holds, in its order unless the options sort them
    /// (PhotoKit's `PHCollection.fetchCollections(in:options:)`).
    public func fetchCollections(in list: CollectionList, options: FetchOptions = FetchOptions()) throws
        -> FetchResult<PhotoCollection>
    {
        if let children = list.transientCollections { return FetchResult(objects: children) }
        let identifier = list.localIdentifier
        return try fetched(options) { [store] in try store.fetchCollections(inList: identifier, options: options) }
    }

    /// The albums and folders in no folder (PhotoKit's `fetchTopLevelUserCollections(with:)`),
    /// in the order the user gave them (``ChangeRequests/changeRequestForTopLevelCollections()``;
    /// oldest first until then, and those made since at the end), unless the options sort them.
    public func fetchTopLevelUserCollections(options: FetchOptions = FetchOptions()) throws -> FetchResult<
        PhotoCollection
    > {
        try fetched(options) { [store] in try store.fetchCollections(inList: nil, options: options) }
    }
}
