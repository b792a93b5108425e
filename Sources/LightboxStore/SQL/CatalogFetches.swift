import Foundation

/// A store whose fetches are SQL run on a snapshot of its catalog: SQLite's and PostgreSQL's,
/// which share the compiled queries below and differ only in their snapshots and dialect.
protocol CatalogFetching {
    var dialect: SQLDialect { get }

    /// A snapshot of the catalog's current state, shared by the fetches made while nothing
    /// commits.
    func fetchSnapshot() throws -> any CatalogSnapshot
}

/// The fetches, compiled to one query each and run on a snapshot: the entry point's
/// selection, the options' predicate, visibility, order and limit. The collection a fetch
/// names is looked up in the snapshot its result reads.
extension CatalogFetching {
    func fetchAssets(matching condition: FetchPredicate?, options: FetchOptions) throws -> any FetchSource<Asset> {
        try assets(matching: condition, options: options)
    }

    /// The assets `condition` and `options` select, the best found by `words` first (their
    /// document's rank: SQLite's BM25, PostgreSQL's ts_rank), then the newest; at most `limit`.
    func rankedAssetIdentifiers(
        matching condition: FetchPredicate?, words: [String], options: FetchOptions, limit: Int,
        withPeople: Bool
    ) throws -> [String] {
        let source = try assets(matching: condition, options: options)
        let select = source.query.select
        // A limited view's ranks its words alone: each phrase filtered to that column.
        let query = words.map { (withPeople ? "" : "words : ") + "\"\($0)\"*" }.joined(separator: " OR ")
        let tsquery = words.map { "'\($0)':*" }.joined(separator: " | ")
        let rank: String
        let rankArguments: [SQLValue]
        switch dialect {
        case .sqlite:
            rank = """
                SELECT rowid AS id, bm25(assetSearchWords) AS score FROM assetSearchWords
                WHERE assetSearchWords MATCH ?
                """
            rankArguments = [.text(query)]
        case .postgres:
            // The people's names rank nothing (a name is understood as a person before it gets here).
            rank = """
                SELECT assetId AS id, -ts_rank(to_tsvector('english', words), to_tsquery('english', ?)) AS score
                FROM assetSearch WHERE to_tsvector('english', words) @@ to_tsquery('english', ?)
                """
            rankArguments = [.text(tsquery), .text(tsquery)]
        }
        let sql = """
            SELECT asset.localIdentifier FROM asset JOIN (\(select.sql)) AS matched ON matched.id = asset.id
            \(words.isEmpty ? "" : "LEFT JOIN (\(rank)) AS hit ON hit.id = asset.id")
            ORDER BY \(words.isEmpty ? "" : "COALESCE(hit.score, 0), ")asset.localCreationDate DESC, asset.id DESC LIMIT ?
            """
        let arguments = select.arguments + (words.isEmpty ? [] : rankArguments) + [SQLValue.integer(Int64(limit))]
        return try source.snapshot.read { db in
            try db.rows(sql, arguments).map { try $0.text("localIdentifier") }
        }
    }

    func fetchAssets(inCollection localIdentifier: String, options: FetchOptions) throws -> any FetchSource<Asset> {
        let snapshot = try fetchSnapshot()
        guard
            let row = try snapshot.read({ db in
                try db.rows(
                    "SELECT id, type, subtype FROM assetCollection WHERE localIdentifier = ?", [localIdentifier]
                ).first
            })
        else {
            guard
                let person = try snapshot.read({ db in
                    try db.integer("SELECT id FROM person WHERE localIdentifier = ?", [localIdentifier])
                })
            else {
                throw LibraryError(.collectionNotFound, "no collection has the identifier \(localIdentifier)")
            }
            // A person's assets: those their faces are in, oldest first unless the options sort.
            return try assets(
                matching: nil, options: options, extraCondition: PersonColumns.assets(of: "\(person)"),
                snapshot: snapshot)
        }
        if Int(try row.integer("type")) == AssetCollectionType.smartAlbum.rawValue,
            let rule = AssetCollectionSubtype(rawValue: Int(try row.integer("subtype"))).flatMap(SmartAlbums.rule)
        {
            var options = options
            if rule.includesHidden { options.includeHiddenAssets = true }
            guard rule.isTrash else {
                return try assets(matching: nil, options: options, extraCondition: rule.condition, snapshot: snapshot)
            }
            // Every deleted asset, the last deleted first unless the options sort them.
            options.includeHiddenAssets = true
            options.includeAllBurstAssets = true
            return try assets(
                matching: nil, options: options, inTrash: true, defaultOrder: "asset.trashedDate DESC",
                snapshot: snapshot)
        }
        let rowID = try row.integer("id")
        let membership =
            "(SELECT position FROM collectionAsset WHERE collectionAsset.collectionId = \(rowID) AND collectionAsset.assetId = asset.id)"
        return try assets(
            matching: nil, options: options, extraCondition: "\(membership) IS NOT NULL",
            defaultOrder: "\(membership) ASC", snapshot: snapshot)
    }

    func fetchAssetCollections(_ selection: CollectionSelection, options: FetchOptions) throws
        -> any FetchSource<AssetCollection>
    {
        let condition: String
        var arguments: [SQLValue] = []
        switch selection {
        case .type(.person, _):
            return try people(options: options, loader: CatalogCollections.loadPeople)
        case .type(let type, let subtype):
            condition = Self.typeCondition("assetCollection", type.rawValue, subtype == .any ? nil : subtype.rawValue)
        case .identifiers(let identifiers):
            let (people, peopleArguments) = Self.identifierCondition("person", identifiers)
            let snapshot = try fetchSnapshot()
            if !identifiers.isEmpty,
                try snapshot.read({ db in try db.integer("SELECT 1 FROM person WHERE \(people)", peopleArguments) })
                    != nil
            {
                return try albumsAndPeople(identifiers, options: options, snapshot: snapshot)
            }
            (condition, arguments) = Self.identifierCondition("assetCollection", identifiers)
        case .containing(let asset):
            condition = """
                assetCollection.id IN (SELECT collectionAsset.collectionId FROM collectionAsset
                JOIN asset ON asset.id = collectionAsset.assetId WHERE asset.localIdentifier = ?)
                """
            arguments = [.text(asset)]
        }
        return try stored(
            table: "assetCollection", keys: .assetCollection, condition: condition, arguments: arguments,
            options: options, loader: CatalogCollections.loadAssetCollections)
    }

    func fetchCollectionLists(_ selection: CollectionListSelection, options: FetchOptions) throws
        -> any FetchSource<CollectionList>
    {
        let condition: String
        var arguments: [SQLValue] = []
        switch selection {
        case .type(let type, let subtype):
            condition = Self.typeCondition("collectionList", type.rawValue, subtype == .any ? nil : subtype.rawValue)
        case .identifiers(let identifiers):
            (condition, arguments) = Self.identifierCondition("collectionList", identifiers)
        case .containing(let collection):
            condition = """
                collectionList.id IN (SELECT listId FROM collectionListChild
                LEFT JOIN assetCollection ON assetCollection.id = collectionListChild.collectionId
                LEFT JOIN collectionList AS child ON child.id = collectionListChild.childListId
                WHERE assetCollection.localIdentifier = ? OR child.localIdentifier = ?)
                """
            arguments = [.text(collection), .text(collection)]
        }
        return try stored(
            table: "collectionList", keys: .collectionList, condition: condition, arguments: arguments,
            options: options, loader: CatalogCollections.loadCollectionLists)
    }

    func fetchCollections(inList localIdentifier: String?, options: FetchOptions) throws
        -> any FetchSource<PhotoCollection>
    {
        guard let localIdentifier else {
            return try mixed(
                albums:
                    "assetCollection.id NOT IN (SELECT collectionId FROM collectionListChild WHERE collectionId IS NOT NULL)",
                lists:
                    "collectionList.id NOT IN (SELECT childListId FROM collectionListChild WHERE childListId IS NOT NULL)",
                extra: nil, defaultOrder: CatalogCollections.topLevelOrder, options: options)
        }
        let snapshot = try fetchSnapshot()
        guard
            let list = try snapshot.read({ db in
                try db.rows("SELECT id, type, subtype FROM collectionList WHERE localIdentifier = ?", [localIdentifier])
                    .first
            })
        else {
            throw LibraryError(.collectionNotFound, "no folder has the identifier \(localIdentifier)")
        }
        let rowID = try list.integer("id")
        if try list.integer("type") == CollectionListType.smartFolder.rawValue,
            try list.integer("subtype") == CollectionListSubtype.smartFolderFaces.rawValue
        {
            // The People list's children: the people.
            return try people(options: options) { db, ids in
                try CatalogCollections.loadPeople(db, ids).mapValues(PhotoCollection.assetCollection)
            }
        }
        let position = """
            (SELECT position FROM collectionListChild WHERE listId = \(rowID) AND \
            (collectionId = collection.rid OR childListId = -collection.rid))
            """
        return try mixed(
            albums: "TRUE", lists: "TRUE", extra: "\(position) IS NOT NULL", defaultOrder: "\(position) ASC",
            options: options, snapshot: snapshot)
    }

    /// Rows of `table` of a type, and of a subtype unless nil.
    private static func typeCondition(_ table: String, _ type: Int, _ subtype: Int?) -> String {
        "\(table).type = \(type)" + (subtype.map { " AND \(table).subtype = \($0)" } ?? "")
    }

    /// Rows of `table` with these identifiers (none for an empty list).
    private static func identifierCondition(_ table: String, _ identifiers: [String]) -> (String, [SQLValue]) {
        let marks = Array(repeating: "?", count: identifiers.count).joined(separator: ",")
        return (
            identifiers.isEmpty ? "FALSE" : "\(table).localIdentifier IN (\(marks))", identifiers.map(\.sqlValue)
        )
    }

    /// The shared path of every asset fetch. `extraCondition` and `defaultOrder` are SQL of
    /// Lightbox's own, never user text. Assets in Recently Deleted are left out, or are the
    /// only ones with `inTrash`.
    private func assets(
        matching condition: FetchPredicate?, options: FetchOptions, extraCondition: String? = nil,
        inTrash: Bool = false, defaultOrder: String? = nil, snapshot: (any CatalogSnapshot)? = nil
    ) throws -> CatalogFetchSource<Asset> {
        let keys = FetchKeys.asset
        var conditions: [FetchPredicate] = []
        if let condition { conditions.append(condition) }
        if let predicate = options.predicate { conditions.append(predicate) }
        let predicateSQL = try FetchPredicate.and(conditions).sql(for: keys, dialect)

        var clauses = [predicateSQL.sql]
        if let extraCondition { clauses.append(extraCondition) }
        var arguments = predicateSQL.arguments
        // Fetches without a condition of their own count from the tallies (schema step v9),
        // which tell apart exactly what the visibility options do.
        var tallyClauses = [inTrash ? "isTrashed = 1" : "isTrashed = 0"]
        var tallyArguments: [SQLValue] = []
        switch (inTrash, options.includeHiddenAssets, options.includeAllBurstAssets) {
        case (true, _, _):
            // Every deleted asset, hidden ones and burst frames included.
            clauses.append(AssetVisibility.trashed)
        case (false, false, false):
            clauses.append(AssetVisibility.defaultCondition)  // the partial index's own condition
            tallyClauses += ["isHidden = 0", "isBurstFrame = 0"]
        case (false, false, true):
            clauses += ["asset.isHidden = 0", AssetVisibility.notTrashed]
            tallyClauses.append("isHidden = 0")
        case (false, true, false):
            clauses.append(AssetVisibility.burstRepresentatives)
            tallyClauses.append("isBurstFrame = 0")
        case (false, true, true):
            clauses.append(AssetVisibility.notTrashed)
        }
        if !options.includeAssetSourceTypes.isEmpty {
            clauses.append("(asset.sourceType & ?) != 0")
            arguments.append(options.includeAssetSourceTypes.rawValue.sqlValue)
            tallyClauses.append("(sourceType & ?) != 0")
            tallyArguments.append(options.includeAssetSourceTypes.rawValue.sqlValue)
        }
        let order: String
        if options.sortDescriptors.isEmpty, let defaultOrder {
            order = defaultOrder + ", asset.id ASC"
        } else {
            let sorts =
                options.sortDescriptors.isEmpty ? [FetchSortDescriptor(key: "creationDate")] : options.sortDescriptors
            order = try FetchSortDescriptor.orderBy(sorts, keys: keys, dialect)
        }
        let whereSQL = clauses.joined(separator: " AND ")
        var query = RowIDQuery(
            select: SQLFragment(sql: "SELECT asset.id FROM asset WHERE \(whereSQL)", arguments: arguments),
            orderBy: order, limit: options.fetchLimit,
            mediaTypeCount: SQLFragment(
                sql: "SELECT COUNT(*) FROM asset WHERE \(whereSQL) AND asset.mediaType = ?", arguments: arguments),
            creationDays: SQLFragment(
                sql: """
                    FROM asset WHERE \(whereSQL) ORDER BY \(order)
                    """,
                arguments: arguments),
            cameras: SQLFragment(
                sql: """
                    SELECT asset.cameraMake, asset.cameraModel, asset.lensModel, COUNT(*) FROM asset \
                    WHERE \(whereSQL) GROUP BY 1, 2, 3
                    """,
                arguments: arguments))
        if conditions.isEmpty && extraCondition == nil {
            let tally = tallyClauses.joined(separator: " AND ")
            // In the timeline's order, a day's rows come together: its runs are the tally's days.
            if options.sortDescriptors.count == 1, let sort = options.sortDescriptors.first,
                sort.key == "localCreationDate"
            {
                query.creationDayCounts = SQLFragment(
                    sql: """
                        SELECT day, CAST(SUM(count) AS BIGINT) FROM assetDayTally WHERE \(tally) \
                        GROUP BY day HAVING SUM(count) > 0 ORDER BY day \(sort.ascending ? "ASC" : "DESC")
                        """,
                    arguments: tallyArguments)
                query.creationDaysAscending = sort.ascending
            }
            query.fastCount = SQLFragment(
                sql: "SELECT COALESCE(SUM(count), 0) FROM assetTally WHERE \(tally)", arguments: tallyArguments)
            query.mediaTypeCount = SQLFragment(
                sql: "SELECT COALESCE(SUM(count), 0) FROM assetTally WHERE \(tally) AND mediaType = ?",
                arguments: tallyArguments)
        }
        return CatalogFetchSource(
            query: query, snapshot: try snapshot ?? fetchSnapshot(),
            loader: { db, ids in try AssetInfo.load(db, ids: ids) },
            lookup: { db, localIdentifiers in try db.rowIDs("id", in: "asset", localIdentifiers: localIdentifiers) })
    }

    /// The shared path of fetches of one stored class (albums, lists): the selection, the
    /// options' predicate, sort and limit, objects loaded by `loader` in batches.
    private func stored<Object: Sendable>(
        table: String, keys: FetchKeys, condition: String, arguments: [SQLValue], options: FetchOptions,
        loader: @escaping @Sendable (any SQLDatabase, [Int64]) throws -> [Int64: Object]
    ) throws -> CatalogFetchSource<Object> {
        let predicate = try (options.predicate ?? .constant(true)).sql(for: keys, dialect)
        let queryArguments = arguments + predicate.arguments
        let query = RowIDQuery(
            select: SQLFragment(
                sql: "SELECT \(table).id FROM \(table) WHERE (\(condition)) AND \(predicate.sql)",
                arguments: queryArguments),
            orderBy: try FetchSortDescriptor.orderBy(options.sortDescriptors, keys: keys, dialect),
            limit: options.fetchLimit)
        return CatalogFetchSource(
            query: query, snapshot: try fetchSnapshot(), loader: loader,
            lookup: { db, localIdentifiers in try db.rowIDs("id", in: table, localIdentifiers: localIdentifiers) })
    }

    /// The people, hidden ones only when the options include hidden assets, loaded as `loader`
    /// makes them (persons, or the People list's children).
    private func people<Object: Sendable>(
        options: FetchOptions, loader: @escaping @Sendable (any SQLDatabase, [Int64]) throws -> [Int64: Object]
    ) throws -> CatalogFetchSource<Object> {
        try stored(
            table: "person", keys: .person, condition: options.includeHiddenAssets ? "TRUE" : "person.isHidden = 0",
            arguments: [], options: options, loader: loader)
    }

    /// Albums and people by identifier, in one fetch. Row ids are the album's id, or minus the
    /// person's; the predicate and sorts take the keys both have (``FetchKeys/collection``).
    private func albumsAndPeople(_ identifiers: [String], options: FetchOptions, snapshot: any CatalogSnapshot)
        throws -> CatalogFetchSource<AssetCollection>
    {
        let keys = FetchKeys.collection
        let predicate = try (options.predicate ?? .constant(true)).sql(for: keys, dialect)
        let (albums, albumArguments) = Self.identifierCondition("assetCollection", identifiers)
        let (people, peopleArguments) = Self.identifierCondition("person", identifiers)
        let sql = """
            SELECT collection.rid FROM (
                SELECT assetCollection.id AS rid, assetCollection.localIdentifier, assetCollection.title,
                assetCollection.creationDate, \(AssetCollectionColumns.startDate) AS startDate,
                \(AssetCollectionColumns.endDate) AS endDate FROM assetCollection WHERE \(albums)
                UNION ALL
                SELECT -person.id, person.localIdentifier, person.name, person.creationDate,
                \(PersonColumns.startDate), \(PersonColumns.endDate) FROM person WHERE \(people)
            ) AS collection
            WHERE \(predicate.sql)
            """
        let order = try FetchSortDescriptor.orderBy(
            options.sortDescriptors, keys: keys.adding(creationDate: "collection.creationDate"), dialect)
        return CatalogFetchSource(
            query: RowIDQuery(
                select: SQLFragment(sql: sql, arguments: albumArguments + peopleArguments + predicate.arguments),
                orderBy: order, limit: options.fetchLimit),
            snapshot: snapshot,
            loader: { db, ids in
                var byID = try CatalogCollections.loadAssetCollections(db, ids.filter { $0 > 0 })
                for (id, person) in try CatalogCollections.loadPeople(db, ids.filter { $0 < 0 }.map { -$0 }) {
                    byID[-id] = person
                }
                return byID
            },
            lookup: { db, localIdentifiers in
                try db.rowIDs("id", in: "assetCollection", localIdentifiers: localIdentifiers)
                    + db.rowIDs("-id", in: "person", localIdentifiers: localIdentifiers)
            })
    }

    /// A fetch over user albums and folders together. Row ids are the album's id, or minus
    /// the folder's, so one result can hold both.
    private func mixed(
        albums: String, lists: String, extra: String?, defaultOrder: String?, options: FetchOptions,
        snapshot: (any CatalogSnapshot)? = nil
    ) throws -> CatalogFetchSource<PhotoCollection> {
        let keys = FetchKeys.collection
        let predicate = try (options.predicate ?? .constant(true)).sql(for: keys, dialect)
        let order: String
        if options.sortDescriptors.isEmpty, let defaultOrder {
            order = defaultOrder + ", collection.rid ASC"
        } else {
            order = try FetchSortDescriptor.orderBy(
                options.sortDescriptors.isEmpty ? [FetchSortDescriptor(key: "creationDate")] : options.sortDescriptors,
                keys: keys.adding(creationDate: "collection.creationDate"), dialect)
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
        return CatalogFetchSource(
            query: RowIDQuery(
                select: SQLFragment(sql: sql, arguments: predicate.arguments), orderBy: order, limit: options.fetchLimit
            ),
            snapshot: try snapshot ?? fetchSnapshot(),
            loader: { db, ids in
                var byID: [Int64: PhotoCollection] = [:]
                let albums = try CatalogCollections.loadAssetCollections(db, ids.filter { $0 > 0 })
                for (id, album) in albums { byID[id] = .assetCollection(album) }
                let lists = try CatalogCollections.loadCollectionLists(db, ids.filter { $0 < 0 }.map { -$0 })
                for (id, list) in lists { byID[-id] = .collectionList(list) }
                return byID
            },
            lookup: { db, localIdentifiers in
                try db.rowIDs("id", in: "assetCollection", localIdentifiers: localIdentifiers)
                    + db.rowIDs("-id", in: "collectionList", localIdentifiers: localIdentifiers)
            })
    }

}

/// Albums and folders read from their rows, and the top level's order: for fetches and for
/// the change applier.
enum CatalogCollections {
    /// The order of the top level: where the user put each (schema step v18), then those
    /// without a place oldest first.
    static let topLevelOrder = """
        (SELECT position FROM topLevelPosition WHERE collectionId = collection.rid OR childListId = -collection.rid) \
        ASC NULLS LAST, collection.creationDate ASC
        """

    static func loadAssetCollections(_ db: any SQLDatabase, _ ids: [Int64]) throws -> [Int64: AssetCollection] {
        guard !ids.isEmpty else { return [:] }
        let marks = Array(repeating: "?", count: ids.count).joined(separator: ",")
        // Smart albums' figures come from one pass over the assets for all of them (below); the
        // others' from their memberships.
        let smart = AssetCollectionType.smartAlbum.rawValue
        let rows = try db.rows(
            """
            SELECT id, localIdentifier, type, subtype, title,
            CASE WHEN type = \(smart) THEN NULL ELSE \(AssetCollectionColumns.assetCount) END AS count,
            CASE WHEN type = \(smart) THEN NULL ELSE \(AssetCollectionColumns.startDate) END AS startDate,
            CASE WHEN type = \(smart) THEN NULL ELSE \(AssetCollectionColumns.endDate) END AS endDate
            FROM assetCollection WHERE id IN (\(marks))
            """, ids)
        var smartSubtypes = Set<Int>()
        for row in rows where Int(try row.integer("type")) == smart {
            smartSubtypes.insert(Int(try row.integer("subtype")))
        }
        let figures = try SmartAlbums.aggregates(db, subtypes: smartSubtypes)
        var byID: [Int64: AssetCollection] = [:]
        for row in rows {
            let subtype = Int(try row.integer("subtype"))
            let type = Int(try row.integer("type"))
            let isSmart = type == smart
            let smartFigures = isSmart ? figures[subtype] : nil
            byID[try row.integer("id")] = AssetCollection(
                localIdentifier: try row.text("localIdentifier"),
                assetCollectionType: AssetCollectionType(rawValue: type) ?? .album,
                assetCollectionSubtype: AssetCollectionSubtype(rawValue: subtype) ?? .albumRegular,
                localizedTitle: row["title"].text,
                estimatedAssetCount: isSmart ? smartFigures?.count ?? 0 : Int(row["count"].integer ?? 0),
                startDate: isSmart ? smartFigures?.start : row["startDate"].date,
                endDate: isSmart ? smartFigures?.end : row["endDate"].date)
        }
        return byID
    }

    /// People read from their rows: their names, counts and dates as fetches show their
    /// assets, and their key faces.
    static func loadPeople(_ db: any SQLDatabase, _ ids: [Int64]) throws -> [Int64: AssetCollection] {
        guard !ids.isEmpty else { return [:] }
        let marks = Array(repeating: "?", count: ids.count).joined(separator: ",")
        let keyFaces = try db.keyFaces(ofPeople: ids)
        var byID: [Int64: AssetCollection] = [:]
        for row in try db.rows(
            """
            SELECT id, localIdentifier, name, isHidden, \(PersonColumns.assetCount) AS count,
            \(PersonColumns.startDate) AS startDate, \(PersonColumns.endDate) AS endDate,
            \(PersonColumns.faceCount) AS faceCount FROM person WHERE id IN (\(marks))
            """, ids)
        {
            let id = try row.integer("id")
            var person = AssetCollection(
                localIdentifier: try row.text("localIdentifier"), assetCollectionType: .person,
                assetCollectionSubtype: .person, localizedTitle: row["name"].text,
                estimatedAssetCount: Int(row["count"].integer ?? 0), startDate: row["startDate"].date,
                endDate: row["endDate"].date)
            person.person = PersonDetails(
                isHidden: try row.integer("isHidden") != 0, faceCount: Int(row["faceCount"].integer ?? 0),
                keyFace: keyFaces[id])
            byID[id] = person
        }
        return byID
    }

    static func loadCollectionLists(_ db: any SQLDatabase, _ ids: [Int64]) throws -> [Int64: CollectionList] {
        guard !ids.isEmpty else { return [:] }
        let marks = Array(repeating: "?", count: ids.count).joined(separator: ",")
        var byID: [Int64: CollectionList] = [:]
        for row in try db.rows(
            "SELECT id, localIdentifier, type, subtype, title FROM collectionList WHERE id IN (\(marks))", ids)
        {
            byID[try row.integer("id")] = CollectionList(
                localIdentifier: try row.text("localIdentifier"),
                collectionListType: CollectionListType(rawValue: Int(try row.integer("type"))) ?? .folder,
                collectionListSubtype: CollectionListSubtype(rawValue: Int(try row.integer("subtype")))
                    ?? .regularFolder,
                localizedTitle: row["title"].text)
        }
        return byID
    }
}

extension FetchSortDescriptor {
    /// The ORDER BY clause of `descriptors` over `keys`, with the row id breaking ties in the
    /// direction of the last descriptor; a nullable key's NULLs first ascending on both stores
    /// (``SQLDialect/order(ascending:nullable:)``).
    static func orderBy(_ descriptors: [FetchSortDescriptor], keys: FetchKeys, _ dialect: SQLDialect) throws -> String {
        var terms: [String] = []
        for descriptor in descriptors {
            let key = try keys.key(descriptor.key)
            terms.append("\(key.column) \(dialect.order(ascending: descriptor.ascending, nullable: key.nullable))")
        }
        let lastAscending = descriptors.last?.ascending ?? true
        terms.append("\(keys.tiebreaker) \(lastAscending ? "ASC" : "DESC")")
        return terms.joined(separator: ", ")
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
