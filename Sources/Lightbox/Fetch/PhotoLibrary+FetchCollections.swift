import Foundation
import GRDB

extension PhotoLibrary {
    /// Asset collections of a type and subtype (PhotoKit's `fetchAssetCollections(with:subtype:options:)`);
    /// `.any` for every subtype. Without sort descriptors, oldest first by when they were made.
    public func fetchAssetCollections(
        with type: AssetCollectionType, subtype: AssetCollectionSubtype = .any, options: FetchOptions = FetchOptions()
    ) throws -> FetchResult<AssetCollection> {
        var condition = "assetCollection.type = \(type.rawValue)"
        if subtype != .any { condition += " AND assetCollection.subtype = \(subtype.rawValue)" }
        return try fetchCollections(condition: condition, arguments: [], options: options)
    }

    /// The collections with these identifiers.
    public func fetchAssetCollections(withLocalIdentifiers identifiers: [String], options: FetchOptions = FetchOptions())
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
        let keys = FetchKeys.assetCollection
        let predicate = try (options.predicate ?? .constant(true)).sql(for: keys)
        let entryArguments = arguments
        var arguments = arguments
        arguments += predicate.arguments
        let sorts = options.sortDescriptors
        var sql = """
            SELECT assetCollection.id FROM assetCollection
            WHERE (\(condition)) AND \(predicate.sql)
            ORDER BY \(try FetchSortDescriptor.orderBy(sorts, keys: keys))
            """
        if options.fetchLimit > 0 {
            sql += " LIMIT ?"
            arguments += [options.fetchLimit]
        }
        let snapshot = try snapshots.snapshot(of: database.writer)
        let rowIDs = try snapshot.read { db in try Int64.fetchAll(db, sql: sql, arguments: arguments) }
        return FetchResult(
            rowIDs: rowIDs, mediaTypes: [], snapshot: snapshot,
            loader: { db, ids in try Self.loadAssetCollections(db, ids) },
            rowIDLookup: { db, localIdentifier in
                try Int64.fetchOne(
                    db, sql: "SELECT id FROM assetCollection WHERE localIdentifier = ?", arguments: [localIdentifier])
            },
            refetch: { [self] in
                try self.fetchCollections(condition: condition, arguments: entryArguments, options: options)
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
