import Foundation
import GRDB

extension PhotoLibrary {
    /// Collection lists of a type and subtype (PhotoKit's `fetchCollectionLists(with:subtype:options:)`).
    public func fetchCollectionLists(
        with type: CollectionListType, subtype: CollectionListSubtype = .any, options: FetchOptions = FetchOptions()
    ) throws -> FetchResult<CollectionList> {
        if type == .momentList {
            return try fetchMomentLists(subtype == .momentListCluster ? .momentListCluster : .momentListYear)
        }
        var condition = "collectionList.type = \(type.rawValue)"
        if subtype != .any { condition += " AND collectionList.subtype = \(subtype.rawValue)" }
        return try fetchLists(condition: condition, arguments: [], options: options)
    }

    /// The lists with these identifiers.
    public func fetchCollectionLists(withLocalIdentifiers identifiers: [String], options: FetchOptions = FetchOptions())
        throws -> FetchResult<CollectionList>
    {
        let marks = Array(repeating: "?", count: identifiers.count).joined(separator: ",")
        return try fetchLists(
            condition: identifiers.isEmpty ? "0" : "collectionList.localIdentifier IN (\(marks))",
            arguments: StatementArguments(identifiers), options: options)
    }

    /// The folders holding a collection (at most one).
    public func fetchCollectionListsContaining(_ collection: PhotoCollection, options: FetchOptions = FetchOptions())
        throws
        -> FetchResult<CollectionList>
    {
        try fetchLists(
            condition: """
                collectionList.id IN (SELECT listId FROM collectionListChild
                LEFT JOIN assetCollection ON assetCollection.id = collectionListChild.collectionId
                LEFT JOIN collectionList AS child ON child.id = collectionListChild.childListId
                WHERE assetCollection.localIdentifier = ? OR child.localIdentifier = ?)
                """,
            arguments: [collection.localIdentifier, collection.localIdentifier], options: options)
    }

    /// The albums and folders a list holds, in its order unless the options sort them
    /// (PhotoKit's `PHCollection.fetchCollections(in:options:)`).
    public func fetchCollections(in list: CollectionList, options: FetchOptions = FetchOptions()) throws
        -> FetchResult<PhotoCollection>
    {
        if let children = list.transientCollections { return FetchResult(objects: children) }
        guard
            let rowID = try store.writer.read({ db in
                try Int64.fetchOne(
                    db, sql: "SELECT id FROM collectionList WHERE localIdentifier = ?",
                    arguments: [list.localIdentifier])
            })
        else {
            throw LibraryError(.collectionNotFound, "no folder has the identifier \(list.localIdentifier)")
        }
        let position = """
            (SELECT position FROM collectionListChild WHERE listId = \(rowID) AND \
            (collectionId = collection.rid OR childListId = -collection.rid))
            """
        return try fetchMixed(
            albums: "1", lists: "1", extra: "\(position) IS NOT NULL", defaultOrder: "\(position) ASC", options: options
        )
    }

    /// The albums and folders in no folder (PhotoKit's `fetchTopLevelUserCollections(with:)`),
    /// oldest first unless the options sort them.
    public func fetchTopLevelUserCollections(options: FetchOptions = FetchOptions()) throws -> FetchResult<
        PhotoCollection
    > {
        try fetchMixed(
            albums:
                "assetCollection.id NOT IN (SELECT collectionId FROM collectionListChild WHERE collectionId IS NOT NULL)",
            lists:
                "collectionList.id NOT IN (SELECT childListId FROM collectionListChild WHERE childListId IS NOT NULL)",
            extra: nil, defaultOrder: nil, options: options)
    }

    /// A fetch over user albums and folders together. Row ids are the album's id, or minus
    /// the folder's, so one result can hold both.
    private func fetchMixed(albums: String, lists: String, extra: String?, defaultOrder: String?, options: FetchOptions)
        throws -> FetchResult<PhotoCollection>
    {
        let keys = FetchKeys.collection
        let predicate = try (options.predicate ?? .constant(true)).sql(for: keys)
        let order: String
        if options.sortDescriptors.isEmpty, let defaultOrder {
            order = defaultOrder + ", collection.rid ASC"
        } else {
            order = try FetchSortDescriptor.orderBy(
                options.sortDescriptors.isEmpty ? [FetchSortDescriptor(key: "creationDate")] : options.sortDescriptors,
                keys: keys.adding(creationDate: "collection.creationDate"))
        }
        let sql = """
            SELECT collection.rid FROM (
                SELECT assetCollection.id AS rid, assetCollection.localIdentifier, assetCollection.title,
                assetCollection.creationDate, \(AssetCollectionColumns.startDate) AS startDate,
                \(AssetCollectionColumns.endDate) AS endDate FROM assetCollection
                WHERE assetCollection.type = \(AssetCollectionType.album.rawValue) AND \(albums)
                UNION ALL
                SELECT -collectionList.id, collectionList.localIdentifier, collectionList.title,
                collectionList.creationDate, NULL, NULL FROM collectionList
                WHERE collectionList.type = \(CollectionListType.folder.rawValue) AND \(lists)
            ) AS collection
            WHERE \(predicate.sql)\(extra.map { " AND " + $0 } ?? "")
            """
        return try FetchResult(
            query: RowIDQuery(
                select: SQLFragment(sql: sql, arguments: predicate.arguments), orderBy: order, limit: options.fetchLimit
            ),
            snapshot: try snapshots.snapshot(of: store.writer),
            loader: { db, ids in
                var byID: [Int64: PhotoCollection] = [:]
                let albums = try Self.loadAssetCollections(db, ids.filter { $0 > 0 })
                for (id, album) in albums { byID[id] = .assetCollection(album) }
                let lists = try Self.loadCollectionLists(db, ids.filter { $0 < 0 }.map { -$0 })
                for (id, list) in lists { byID[-id] = .collectionList(list) }
                return byID
            },
            rowIDLookup: { db, localIdentifiers in
                try db.rowIDs("id", in: "assetCollection", localIdentifiers: localIdentifiers)
                    + db.rowIDs("-id", in: "collectionList", localIdentifiers: localIdentifiers)
            },
            refetch: { [self] in
                try self.fetchMixed(
                    albums: albums, lists: lists, extra: extra, defaultOrder: defaultOrder, options: options)
            },
            wantsIncrementalChangeDetails: options.wantsIncrementalChangeDetails)
    }

    private func fetchLists(condition: String, arguments: StatementArguments, options: FetchOptions) throws
        -> FetchResult<CollectionList>
    {
        try fetchStored(
            table: "collectionList", keys: .collectionList, condition: condition, arguments: arguments,
            options: options,
            loader: Self.loadCollectionLists)
    }

    static func loadCollectionLists(_ db: Database, _ ids: [Int64]) throws -> [Int64: CollectionList] {
        guard !ids.isEmpty else { return [:] }
        let marks = Array(repeating: "?", count: ids.count).joined(separator: ",")
        var byID: [Int64: CollectionList] = [:]
        for row in try Row.fetchAll(
            db, sql: "SELECT id, localIdentifier, type, subtype, title FROM collectionList WHERE id IN (\(marks))",
            arguments: StatementArguments(ids))
        {
            byID[row["id"]] = CollectionList(
                localIdentifier: row["localIdentifier"],
                collectionListType: CollectionListType(rawValue: row["type"]) ?? .folder,
                collectionListSubtype: CollectionListSubtype(rawValue: row["subtype"]) ?? .regularFolder,
                localizedTitle: row["title"])
        }
        return byID
    }
}

extension FetchKeys {
    /// The same keys, plus `creationDate` (for the default order of mixed fetches).
    func adding(creationDate column: String) -> FetchKeys {
        var keys = self.keys
        keys["creationDate"] = Key(column: column, kind: .date)
        return FetchKeys(className: className, keys: keys, tiebreaker: tiebreaker)
    }
}
