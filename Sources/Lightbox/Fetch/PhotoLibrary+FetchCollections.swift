import Foundation
import GRDB

extension PhotoLibrary {
    /// Asset collections of a type and subtype (PhotoKit's `fetchAssetCollections(with:subtype:options:)`);
    /// `.any` for every subtype. Without sort descriptors, oldest first by when they were made.
    public func fetchAssetCollections(
        with type: AssetCollectionType, subtype: AssetCollectionSubtype = .any, options: FetchOptions = FetchOptions()
    ) throws -> FetchResult<AssetCollection> {
        // Moments are computed from the assets, not stored (see MomentGrouping).
        if type == .moment { return try fetchMoments() }
        var condition = "assetCollection.type = \(type.rawValue)"
        if subtype != .any { condition += " AND assetCollection.subtype = \(subtype.rawValue)" }
        return try fetchCollections(condition: condition, arguments: [], options: options)
    }

    /// The collections with these identifiers.
    public func fetchAssetCollections(
        withLocalIdentifiers identifiers: [String], options: FetchOptions = FetchOptions()
    )
        throws -> FetchResult<AssetCollection>
    {
        let marks = Array(repeating: "?", count: identifiers.count).joined(separator: ",")
        return try fetchCollections(
            condition: identifiers.isEmpty ? "0" : "assetCollection.localIdentifier IN (\(marks))",
            arguments: StatementArguments(identifiers), options: options)
    }

    /// The albums that contain an asset.
    public func fetchAssetCollectionsContaining(_ asset: Asset, options: FetchOptions = FetchOptions()) throws
        -> FetchResult<AssetCollection>
    {
        try fetchCollections(
            condition: """
                assetCollection.id IN (SELECT collectionAsset.collectionId FROM collectionAsset
                JOIN asset ON asset.id = collectionAsset.assetId WHERE asset.localIdentifier = ?)
                """,
            arguments: [asset.localIdentifier], options: options)
    }

    private func fetchCollections(condition: String, arguments: StatementArguments, options: FetchOptions) throws
        -> FetchResult<AssetCollection>
    {
        try fetchStored(
            table: "assetCollection", keys: .assetCollection, condition: condition, arguments: arguments,
            options: options,
            loader: Self.loadAssetCollections)
    }

    /// The shared path of fetches of one stored class (albums, lists): the entry point's
    /// condition, the options' predicate, sort and limit, one query on a snapshot, objects
    /// loaded by `loader` in batches.
    func fetchStored<ObjectType: FetchableObject>(
        table: String, keys: FetchKeys, condition: String, arguments: StatementArguments, options: FetchOptions,
        loader: @escaping @Sendable (Database, [Int64]) throws -> [Int64: ObjectType]
    ) throws -> FetchResult<ObjectType> {
        let predicate = try (options.predicate ?? .constant(true)).sql(for: keys)
        var queryArguments = arguments
        queryArguments += predicate.arguments
        let query = RowIDQuery(
            select: SQLFragment(
                sql: "SELECT \(table).id FROM \(table) WHERE (\(condition)) AND \(predicate.sql)",
                arguments: queryArguments),
            orderBy: try FetchSortDescriptor.orderBy(options.sortDescriptors, keys: keys), limit: options.fetchLimit)
        return try FetchResult(
            query: query, snapshot: try snapshots.snapshot(of: store.writer), loader: loader,
            rowIDLookup: { db, localIdentifiers in try db.rowIDs("id", in: table, localIdentifiers: localIdentifiers) },
            refetch: { [self] in
                try self.fetchStored(
                    table: table, keys: keys, condition: condition, arguments: arguments, options: options,
                    loader: loader)
            },
            wantsIncrementalChangeDetails: options.wantsIncrementalChangeDetails)
    }

    static func loadAssetCollections(_ db: Database, _ ids: [Int64]) throws -> [Int64: AssetCollection] {
        guard !ids.isEmpty else { return [:] }
        let marks = Array(repeating: "?", count: ids.count).joined(separator: ",")
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT id, localIdentifier, type, subtype, title, \(AssetCollectionColumns.assetCount) AS count,
                \(AssetCollectionColumns.startDate) AS startDate, \(AssetCollectionColumns.endDate) AS endDate
                FROM assetCollection WHERE id IN (\(marks))
                """,
            arguments: StatementArguments(ids))
        var byID: [Int64: AssetCollection] = [:]
        for row in rows {
            byID[row["id"]] = AssetCollection(
                localIdentifier: row["localIdentifier"],
                assetCollectionType: AssetCollectionType(rawValue: row["type"]) ?? .album,
                assetCollectionSubtype: AssetCollectionSubtype(rawValue: row["subtype"]) ?? .albumRegular,
                localizedTitle: row["title"], estimatedAssetCount: row["count"],
                startDate: row["startDate"], endDate: row["endDate"])
        }
        return byID
    }
}
