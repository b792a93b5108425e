import Foundation

/// The catalog's schema on PostgreSQL, in versioned steps as the SQLite store's migrations are:
/// the same tables, columns, constraints and indexes, so that the shared statements
/// (``SQLDatabase``) read both alike. Where the two differ:
///
/// - Names are unquoted, so PostgreSQL folds them to lower case; statements name them in
///   either case, and ``SQLRow`` finds a column whatever its case.
/// - Text a machine wrote (dates, identifiers, hashes, paths) is `COLLATE "C"`: compared byte by
///   byte, as SQLite's `BINARY` compares it, whatever the database's locale; people's text
///   (titles, file names, cameras) sorts by the database's locale.
/// - SQLite's `datetime('now', modifier)`, which the Recently Added rule uses, is a SQL function
///   here.
/// - SQLite's `BOOLEAN` and `DATETIME` are what it stores: integers 0 and 1, and GRDB's text
///   dates; here they are `SMALLINT` and `TEXT`, so `isHidden = 0` and date comparisons keep
///   their meaning.
/// - `AUTOINCREMENT` is an identity column, which never hands an id out twice either.
/// - The tally's triggers are PL/pgSQL functions, run once per statement (step v22.1).
///
/// A step only PostgreSQL takes is numbered after the last shared one with a point (v22.1), so
/// that the next shared step keeps the number SQLite gives it.
///
/// Several servers may start at once: the steps run under an advisory lock, each once.
enum PostgresSchema {
    /// The steps, oldest first: a name and its statements. A step, once released, never
    /// changes: a change to the schema is a new step, here and in the SQLite migrator.
    static let steps: [(name: String, statements: [String], seed: (@Sendable (PostgresLink) throws -> Void)?)] = [
        ("v20: the catalog", catalog, seedSmartAlbums),
        ("v21: jobs", JobSchema.postgres, nil),
        ("v22: accounts", PostgresAccountStore.schema, nil),
        ("v22.1: the tally kept per statement", tallyPerStatement, nil),
        ("v23: local creation dates", localCreationDates, nil),
        ("v24: the timeline's shapes", timelineShapes, nil),
        ("v25: photos have no duration", photosHaveNoDuration, nil),
        ("v26: days counted", dayTally, nil),
        ("v26.1: both tallies kept by one trigger", talliesTogether, nil),
        ("v27: faces and people", FaceSchema.postgres, nil),
        (
            "v28: people as collections", PeopleSchema.statements + PeopleSchema.postgresTriggers,
            { link in
                _ = try link.execute(PeopleSchema.seedList, PeopleSchema.seedArguments)
            }
        ),
        ("v29: faces grouping has looked at", PlacedSchema.statements, nil),
        ("v30: places", PlaceSchema.postgres, nil),
        ("v31: the map's cells", MapSchema.statements, nil),
        ("v32: the places' counts", PlaceSchema.counting, nil),
        ("v33: text in photos", TextSchema.postgres, nil),
        ("v34: things in photos", ThingSchema.postgres, nil),
        ("v35: photos' CLIP embeddings", ClipSchema.postgres, nil),
        ("v36: the search's full text", SearchSchema.postgres, nil),
    ]

    /// One row per smart album, so that each has a stable identifier (its assets come from its
    /// rule at every fetch), as SQLite's steps v6 and after write them.
    static func seedSmartAlbums(_ link: PostgresLink) throws {
        for rule in SmartAlbums.rules {
            try link.execute(
                "INSERT INTO assetCollection (localIdentifier, type, subtype, title, creationDate) VALUES (?, ?, ?, ?, ?)",
                [
                    .text(UUID().uuidString), .integer(Int64(AssetCollectionType.smartAlbum.rawValue)),
                    .integer(Int64(rule.subtype.rawValue)), .text(rule.title), Date().sqlValue,
                ])
        }
    }

    /// The advisory lock's key: openers take turns on it.
    static let migrationLock: Int64 = 0x4C49_4748_5442_4F58  // "LIGHTBOX"

    /// Applies the steps the database lacks, under the lock. Throws
    /// ``LibraryError/Code-swift.struct/newerLibraryVersion`` when the database has steps this
    /// build does not know: a newer Lightbox wrote it.
    static func migrate(_ link: PostgresLink) throws {
        try link.execute("SELECT pg_advisory_lock(?)", [.integer(migrationLock)])
        defer { _ = try? link.execute("SELECT pg_advisory_unlock(?)", [.integer(migrationLock)]) }
        if let schema = link.address.schema {
            try link.execute("CREATE SCHEMA IF NOT EXISTS \(PostgresLink.identifier(schema))")
        }
        try link.execute("CREATE TABLE IF NOT EXISTS schemaStep (name TEXT PRIMARY KEY, appliedDate TEXT NOT NULL)")
        let applied = Set(try link.rows("SELECT name FROM schemaStep").compactMap { $0.first?.text })
        let unknown = applied.subtracting(steps.map(\.name))
        guard unknown.isEmpty else {
            throw LibraryError(
                .newerLibraryVersion,
                "the catalog at \(link.address) was written by a newer version of Lightbox (schema steps \(unknown.sorted().joined(separator: ", "))); upgrade Lightbox to open it"
            )
        }
        for step in steps where !applied.contains(step.name) {
            try link.transaction {
                for statement in step.statements { try link.execute(statement) }
                try step.seed?(link)
                try link.execute(
                    "INSERT INTO schemaStep (name, appliedDate) VALUES (?, ?)", [.text(step.name), Date().sqlValue])
            }
        }
    }

    /// The catalog as the SQLite migrations leave it at v20.
    static let catalog = [
        """
        CREATE TABLE asset (
            id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            localIdentifier TEXT COLLATE "C" NOT NULL UNIQUE,
            mediaType BIGINT NOT NULL CHECK (mediaType BETWEEN 0 AND 3),
            mediaSubtypes BIGINT NOT NULL DEFAULT 0,
            pixelWidth BIGINT NOT NULL CHECK (pixelWidth >= 0),
            pixelHeight BIGINT NOT NULL CHECK (pixelHeight >= 0),
            creationDate TEXT COLLATE "C" NOT NULL,
            creationTimeZoneOffset BIGINT NOT NULL DEFAULT 0,
            modificationDate TEXT COLLATE "C" NOT NULL,
            addedDate TEXT COLLATE "C" NOT NULL,
            duration DOUBLE PRECISION NOT NULL DEFAULT 0,
            isFavorite SMALLINT NOT NULL DEFAULT 0,
            isHidden SMALLINT NOT NULL DEFAULT 0,
            playbackStyle BIGINT NOT NULL DEFAULT 1,
            sourceType BIGINT NOT NULL DEFAULT 1,
            latitude DOUBLE PRECISION CHECK (latitude IS NULL OR (latitude >= -90 AND latitude <= 90)),
            longitude DOUBLE PRECISION CHECK (longitude IS NULL OR (longitude >= -180 AND longitude <= 180)),
            altitude DOUBLE PRECISION,
            locationTimestamp TEXT COLLATE "C",
            burstIdentifier TEXT COLLATE "C",
            burstSelectionTypes BIGINT NOT NULL DEFAULT 0,
            representsBurst SMALLINT NOT NULL DEFAULT 0,
            hasAdjustments SMALLINT NOT NULL DEFAULT 0,
            adjustmentFormatIdentifier TEXT,
            isSelfPortrait SMALLINT NOT NULL DEFAULT 0,
            contentIdentifier TEXT COLLATE "C",
            captureKey TEXT COLLATE "C",
            orientationOverride BIGINT CHECK (orientationOverride IS NULL OR orientationOverride BETWEEN 1 AND 8),
            rating BIGINT CHECK (rating IS NULL OR (rating BETWEEN -1 AND 5 AND rating <> 0)),
            trashedDate TEXT COLLATE "C",
            cameraMake TEXT,
            cameraModel TEXT,
            lensModel TEXT,
            fileOrientation BIGINT
        )
        """,
        "CREATE INDEX asset_on_creationDate ON asset (creationDate, id)",
        "CREATE INDEX asset_on_burstIdentifier ON asset (burstIdentifier)",
        "CREATE INDEX asset_on_isFavorite_creationDate ON asset (isFavorite, creationDate)",
        "CREATE INDEX asset_on_contentIdentifier ON asset (contentIdentifier)",
        "CREATE INDEX asset_on_captureKey ON asset (captureKey)",
        "CREATE INDEX asset_on_trashedDate ON asset (trashedDate) WHERE trashedDate IS NOT NULL",
        """
        CREATE INDEX asset_visible_on_creationDate ON asset (creationDate, id, mediaType, creationTimeZoneOffset)
        WHERE isHidden = 0 AND (burstIdentifier IS NULL OR representsBurst = 1) AND trashedDate IS NULL
        """,
        """
        CREATE INDEX asset_visible_on_camera ON asset (cameraMake, cameraModel, lensModel)
        WHERE isHidden = 0 AND (burstIdentifier IS NULL OR representsBurst = 1) AND trashedDate IS NULL
        """,
        """
        CREATE INDEX asset_visible_on_cameraModel ON asset (cameraModel, creationDate, id, creationTimeZoneOffset)
        WHERE isHidden = 0 AND (burstIdentifier IS NULL OR representsBurst = 1) AND trashedDate IS NULL
        """,
        """
        CREATE INDEX asset_visible_on_lensModel ON asset (lensModel, creationDate, id, creationTimeZoneOffset)
        WHERE isHidden = 0 AND (burstIdentifier IS NULL OR representsBurst = 1) AND trashedDate IS NULL
        """,
        """
        CREATE TABLE resource (
            id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            assetId BIGINT NOT NULL REFERENCES asset (id) ON DELETE CASCADE,
            type BIGINT NOT NULL CHECK (type BETWEEN 1 AND 12),
            originalFilename TEXT NOT NULL,
            uniformTypeIdentifier TEXT NOT NULL,
            fileSize BIGINT NOT NULL CHECK (fileSize >= 0),
            pixelWidth BIGINT NOT NULL DEFAULT 0,
            pixelHeight BIGINT NOT NULL DEFAULT 0,
            sha256 TEXT COLLATE "C" NOT NULL CHECK (length(sha256) = 64),
            storedPath TEXT COLLATE "C" NOT NULL,
            UNIQUE (assetId, type)
        )
        """,
        "CREATE INDEX resource_on_assetId ON resource (assetId)",
        "CREATE UNIQUE INDEX resource_unique_photo ON resource (sha256) WHERE type = 1",
        "CREATE INDEX resource_on_sha256 ON resource (sha256)",
        // Two nodes importing the same bytes at once make one asset: the second insert fails.
        "CREATE UNIQUE INDEX resource_unique_original ON resource (sha256) WHERE type IN (1, 2, 4, 9)",
        """
        CREATE TABLE changeTransaction (
            id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, date TEXT COLLATE "C" NOT NULL, author TEXT)
        """,
        "CREATE INDEX changeTransaction_on_date ON changeTransaction (date)",
        """
        CREATE TABLE changeRecord (
            transactionId BIGINT NOT NULL REFERENCES changeTransaction (id) ON DELETE CASCADE,
            objectType TEXT NOT NULL,
            localIdentifier TEXT COLLATE "C" NOT NULL,
            kind BIGINT NOT NULL CHECK (kind BETWEEN 1 AND 5)
        )
        """,
        "CREATE INDEX changeRecord_on_transactionId ON changeRecord (transactionId)",
        """
        CREATE TABLE assetCollection (
            id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            localIdentifier TEXT COLLATE "C" NOT NULL UNIQUE,
            type BIGINT NOT NULL CHECK (type BETWEEN 1 AND 3),
            subtype BIGINT NOT NULL,
            title TEXT,
            creationDate TEXT COLLATE "C" NOT NULL
        )
        """,
        """
        CREATE TABLE collectionAsset (
            collectionId BIGINT NOT NULL REFERENCES assetCollection (id) ON DELETE CASCADE,
            assetId BIGINT NOT NULL REFERENCES asset (id) ON DELETE CASCADE,
            position BIGINT NOT NULL,
            PRIMARY KEY (collectionId, assetId)
        )
        """,
        "CREATE INDEX collectionAsset_on_collectionId ON collectionAsset (collectionId)",
        "CREATE INDEX collectionAsset_on_assetId ON collectionAsset (assetId)",
        "CREATE INDEX collectionAsset_on_position ON collectionAsset (collectionId, position)",
        """
        CREATE TABLE trashedMembership (
            collectionId BIGINT NOT NULL REFERENCES assetCollection (id) ON DELETE CASCADE,
            assetId BIGINT NOT NULL REFERENCES asset (id) ON DELETE CASCADE,
            position BIGINT NOT NULL,
            PRIMARY KEY (collectionId, assetId)
        )
        """,
        "CREATE INDEX trashedMembership_on_collectionId ON trashedMembership (collectionId)",
        "CREATE INDEX trashedMembership_on_assetId ON trashedMembership (assetId)",
        """
        CREATE TABLE collectionList (
            id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            localIdentifier TEXT COLLATE "C" NOT NULL UNIQUE,
            type BIGINT NOT NULL CHECK (type BETWEEN 1 AND 3),
            subtype BIGINT NOT NULL,
            title TEXT,
            creationDate TEXT COLLATE "C" NOT NULL
        )
        """,
        """
        CREATE TABLE collectionListChild (
            listId BIGINT NOT NULL REFERENCES collectionList (id) ON DELETE CASCADE,
            collectionId BIGINT REFERENCES assetCollection (id) ON DELETE CASCADE,
            childListId BIGINT REFERENCES collectionList (id) ON DELETE CASCADE,
            position BIGINT NOT NULL,
            CHECK ((collectionId IS NULL) != (childListId IS NULL))
        )
        """,
        "CREATE INDEX collectionListChild_on_listId ON collectionListChild (listId)",
        "CREATE UNIQUE INDEX collectionListChild_unique_collection ON collectionListChild (collectionId)",
        "CREATE UNIQUE INDEX collectionListChild_unique_childList ON collectionListChild (childListId)",
        """
        CREATE TABLE topLevelPosition (
            collectionId BIGINT REFERENCES assetCollection (id) ON DELETE CASCADE,
            childListId BIGINT REFERENCES collectionList (id) ON DELETE CASCADE,
            position BIGINT NOT NULL,
            CHECK ((collectionId IS NULL) != (childListId IS NULL))
        )
        """,
        "CREATE UNIQUE INDEX topLevelPosition_unique_collection ON topLevelPosition (collectionId)",
        "CREATE UNIQUE INDEX topLevelPosition_unique_childList ON topLevelPosition (childListId)",
        "CREATE TABLE libraryState (key TEXT PRIMARY KEY, value BIGINT NOT NULL)",
        "INSERT INTO libraryState (key, value) VALUES ('historyFloor', 0), ('trashRetentionSeconds', 2592000)",
        """
        CREATE TABLE importedFile (
            path TEXT COLLATE "C" PRIMARY KEY, size BIGINT NOT NULL, modificationDate DOUBLE PRECISION NOT NULL,
            sha256 TEXT COLLATE "C" NOT NULL)
        """,
        "CREATE TABLE pendingRemoval (storedPath TEXT COLLATE \"C\" PRIMARY KEY)",
        // What every server of a shared catalog must agree on, which SQLite's library keeps in
        // its folder: where the originals are.
        "CREATE TABLE librarySetting (key TEXT COLLATE \"C\" PRIMARY KEY, value TEXT NOT NULL)",
        // Counts kept in the writing transaction, as Apple's Photos keeps cached counts: a
        // count of a million assets reads a few rows.
        """
        CREATE TABLE assetTally (
            isHidden SMALLINT NOT NULL,
            isBurstFrame SMALLINT NOT NULL,
            isTrashed SMALLINT NOT NULL,
            mediaType BIGINT NOT NULL,
            sourceType BIGINT NOT NULL,
            count BIGINT NOT NULL,
            PRIMARY KEY (isHidden, isBurstFrame, isTrashed, mediaType, sourceType)
        )
        """,
        """
        CREATE FUNCTION asset_tally_add(changed asset, delta BIGINT) RETURNS void LANGUAGE sql AS $$
            INSERT INTO assetTally VALUES (
                (changed).isHidden,
                CASE WHEN (changed).burstIdentifier IS NOT NULL AND (changed).representsBurst = 0 THEN 1 ELSE 0 END,
                CASE WHEN (changed).trashedDate IS NOT NULL THEN 1 ELSE 0 END,
                (changed).mediaType, (changed).sourceType, delta)
            ON CONFLICT (isHidden, isBurstFrame, isTrashed, mediaType, sourceType)
            DO UPDATE SET count = assetTally.count + delta
        $$
        """,
        """
        CREATE FUNCTION asset_tally() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF TG_OP IN ('UPDATE', 'DELETE') THEN PERFORM asset_tally_add(OLD, -1); END IF;
            IF TG_OP IN ('UPDATE', 'INSERT') THEN PERFORM asset_tally_add(NEW, 1); END IF;
            RETURN NULL;
        END
        $$
        """,
        // SQLite's `datetime('now', '-30 days')` for the smart albums' rules: UTC, in the form
        // SQLite gives, which compares with the stored dates as text.
        """
        CREATE FUNCTION datetime(base TEXT, modifier TEXT) RETURNS TEXT LANGUAGE sql STABLE AS $$
            SELECT CASE WHEN base = 'now'
                THEN to_char((now() AT TIME ZONE 'UTC') + modifier::interval, 'YYYY-MM-DD HH24:MI:SS') END
        $$
        """,
        "CREATE TRIGGER asset_tally_insert AFTER INSERT ON asset FOR EACH ROW EXECUTE FUNCTION asset_tally()",
        "CREATE TRIGGER asset_tally_delete AFTER DELETE ON asset FOR EACH ROW EXECUTE FUNCTION asset_tally()",
        """
        CREATE TRIGGER asset_tally_update
        AFTER UPDATE OF isHidden, burstIdentifier, representsBurst, trashedDate, mediaType, sourceType ON asset
        FOR EACH ROW EXECUTE FUNCTION asset_tally()
        """,
    ]

    /// The tally's triggers, once per statement instead of once per row. A row's trigger
    /// updated a tally row for every asset, and a row PostgreSQL updates again and again in one
    /// transaction keeps every version until it commits, each found by walking the ones before:
    /// a transaction inserting or trashing N assets (a copy by `lightbox migrate`, an edit of a
    /// whole selection) took time growing as N squared. Per statement, the rows the statement
    /// changed are counted by group (PostgreSQL's transition tables), one tally update a group.
    /// An update trigger with transition tables cannot name its columns: it runs for every
    /// update, and writes nothing when no group's count moved.
    static let tallyPerStatement: [String] = {
        let groups = tallyGroups(day: false)
        let columns = "isHidden, isBurstFrame, isTrashed, mediaType, sourceType"
        func function(_ name: String, counting changed: String) -> String {
            tallyFunction(name, updates: [("assetTally", columns)], counting: changed)
        }
        let added = "SELECT \(groups), 1 FROM added"
        let removed = "SELECT \(groups), -1 FROM removed"
        return [
            "DROP TRIGGER asset_tally_insert ON asset",
            "DROP TRIGGER asset_tally_delete ON asset",
            "DROP TRIGGER asset_tally_update ON asset",
            "DROP FUNCTION asset_tally()",
            "DROP FUNCTION asset_tally_add(asset, BIGINT)",
            function("asset_tally_added", counting: added),
            function("asset_tally_removed", counting: removed),
            function("asset_tally_changed", counting: "\(removed) UNION ALL \(added)"),
            """
            CREATE TRIGGER asset_tally_insert AFTER INSERT ON asset REFERENCING NEW TABLE AS added
            FOR EACH STATEMENT EXECUTE FUNCTION asset_tally_added()
            """,
            """
            CREATE TRIGGER asset_tally_delete AFTER DELETE ON asset REFERENCING OLD TABLE AS removed
            FOR EACH STATEMENT EXECUTE FUNCTION asset_tally_removed()
            """,
            """
            CREATE TRIGGER asset_tally_update AFTER UPDATE ON asset REFERENCING OLD TABLE AS removed NEW TABLE AS added
            FOR EACH STATEMENT EXECUTE FUNCTION asset_tally_changed()
            """,
        ]
    }()

    /// The timeline's order, as SQLite's step v23 keeps it: the clock time where each asset was
    /// taken, in the stored dates' text form. A stored column computed by PostgreSQL (generated
    /// columns need an immutable expression: the function parses only the ISO text Lightbox
    /// writes, which no setting reads otherwise), with the visible assets' indexes of step v23.
    /// A date it cannot move (not four digits of year before or after, an offset past a day)
    /// is its own local date, as in SQLite: an insert never fails on it, and no row is NULL.
    static let localCreationDates: [String] = {
        let visible = "isHidden = 0 AND (burstIdentifier IS NULL OR representsBurst = 1) AND trashedDate IS NULL"
        let covered = "localCreationDate, id, creationDate, creationTimeZoneOffset"
        return [
            """
            CREATE FUNCTION lightbox_local_date(date TEXT, seconds BIGINT) RETURNS TEXT
            LANGUAGE SQL IMMUTABLE STRICT PARALLEL SAFE
            RETURN CASE
                WHEN date ~ '^[1-9][0-9]{3}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}' AND seconds BETWEEN -86400 AND 86400
                    AND date::timestamp + make_interval(secs => seconds) < TIMESTAMP '10000-01-01'
                THEN to_char(date::timestamp + make_interval(secs => seconds), 'YYYY-MM-DD HH24:MI:SS.MS')
                ELSE date
            END
            """,
            """
            ALTER TABLE asset ADD COLUMN localCreationDate TEXT COLLATE "C"
            GENERATED ALWAYS AS (lightbox_local_date(creationDate, creationTimeZoneOffset)) STORED
            """,
            "CREATE INDEX asset_visible_on_localCreationDate ON asset (\(covered), mediaType) WHERE \(visible)",
            "DROP INDEX asset_visible_on_cameraModel",
            "DROP INDEX asset_visible_on_lensModel",
            "CREATE INDEX asset_visible_on_cameraModel ON asset (cameraModel, \(covered)) WHERE \(visible)",
            "CREATE INDEX asset_visible_on_lensModel ON asset (lensModel, \(covered)) WHERE \(visible)",
        ]
    }()

    /// The visible assets' timeline index of step v23 covering each asset's size too, so that
    /// the timeline (days and shapes, `FetchResult.creationDays(aspectRatios:)`) reads the index alone. The
    /// same statements in SQLite's step v24.
    static let timelineShapes: [String] = {
        let visible = "isHidden = 0 AND (burstIdentifier IS NULL OR representsBurst = 1) AND trashedDate IS NULL"
        return [
            "DROP INDEX asset_visible_on_localCreationDate",
            """
            CREATE INDEX asset_visible_on_localCreationDate ON asset (
                localCreationDate, id, creationDate, creationTimeZoneOffset, mediaType, pixelWidth, pixelHeight)
            WHERE \(visible)
            """,
        ]
    }()

    /// How many assets each local day holds, by the groups `assetTally` tells apart, kept by
    /// the writing statement as the tally is: a timeline's days over ten million assets read
    /// one row a day instead of every asset's date crossing the socket. A day is the date part
    /// of `localCreationDate` (step v23), the order the timeline reads in. The same table and
    /// counts in SQLite's step v26, kept there per row.
    static let dayTally: [String] = {
        let groups = tallyGroups(day: true)
        let columns = "day, " + "isHidden, isBurstFrame, isTrashed, mediaType, sourceType"
        func function(_ name: String, counting changed: String) -> String {
            tallyFunction(name, updates: [("assetDayTally", columns)], counting: changed)
        }
        let added = "SELECT \(groups), 1 FROM added"
        let removed = "SELECT \(groups), -1 FROM removed"
        return [
            """
            CREATE TABLE assetDayTally (
                day TEXT COLLATE "C" NOT NULL,
                isHidden SMALLINT NOT NULL,
                isBurstFrame SMALLINT NOT NULL,
                isTrashed SMALLINT NOT NULL,
                mediaType BIGINT NOT NULL,
                sourceType BIGINT NOT NULL,
                count BIGINT NOT NULL,
                PRIMARY KEY (\(columns))
            )
            """,
            "INSERT INTO assetDayTally SELECT \(groups), COUNT(*) FROM asset GROUP BY 1, 2, 3, 4, 5, 6",
            function("asset_day_tally_added", counting: added),
            function("asset_day_tally_removed", counting: removed),
            function("asset_day_tally_changed", counting: "\(removed) UNION ALL \(added)"),
            """
            CREATE TRIGGER asset_day_tally_insert AFTER INSERT ON asset REFERENCING NEW TABLE AS added
            FOR EACH STATEMENT EXECUTE FUNCTION asset_day_tally_added()
            """,
            """
            CREATE TRIGGER asset_day_tally_delete AFTER DELETE ON asset REFERENCING OLD TABLE AS removed
            FOR EACH STATEMENT EXECUTE FUNCTION asset_day_tally_removed()
            """,
            """
            CREATE TRIGGER asset_day_tally_update AFTER UPDATE ON asset
            REFERENCING OLD TABLE AS removed NEW TABLE AS added
            FOR EACH STATEMENT EXECUTE FUNCTION asset_day_tally_changed()
            """,
        ]
    }()

    /// What tells the tallies' groups apart, as SQL over an asset row: with `day`, the local
    /// day first (`assetDayTally`'s, step v26).
    static func tallyGroups(day: Bool) -> String {
        (day ? "split_part(localCreationDate, ' ', 1), " : "") + """
            isHidden,
                CASE WHEN burstIdentifier IS NOT NULL AND representsBurst = 0 THEN 1 ELSE 0 END,
                CASE WHEN trashedDate IS NOT NULL THEN 1 ELSE 0 END,
                mediaType, sourceType
            """
    }

    /// A statement trigger's function that adds the rows of `changed` (a query of the groups'
    /// columns and a delta, over the statement's transition tables) to each of `updates`' tables,
    /// a table and its group columns: one update a group whose count moved. Several tables are
    /// updated from one reading of the rows, the day tally's groups carrying the others'.
    static func tallyFunction(_ name: String, updates: [(table: String, columns: String)], counting changed: String)
        -> String
    {
        guard updates.count > 1 else {
            let (table, columns) = updates[0]
            let grouped = (1...columns.split(separator: ",").count).map(String.init).joined(separator: ", ")
            return """
                CREATE FUNCTION \(name)() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    INSERT INTO \(table) AS tally (\(columns), count)
                    SELECT \(columns), SUM(delta)
                    FROM (\(changed)) AS changed (\(columns), delta)
                    GROUP BY \(grouped) HAVING SUM(delta) <> 0
                    ON CONFLICT (\(columns))
                    DO UPDATE SET count = tally.count + EXCLUDED.count;
                    RETURN NULL;
                END
                $$
                """
        }
        // The first table's columns hold every other's: the rows are read once, then grouped
        // for each table, the other tables' updates as statements of the WITH.
        let inserts = updates.map { update in
            let grouped = (1...update.columns.split(separator: ",").count).map(String.init).joined(separator: ", ")
            return """
                INSERT INTO \(update.table) AS tally (\(update.columns), count)
                    SELECT \(update.columns), SUM(delta) FROM changed GROUP BY \(grouped) HAVING SUM(delta) <> 0
                    ON CONFLICT (\(update.columns)) DO UPDATE SET count = tally.count + EXCLUDED.count
                """
        }
        let others = inserts.dropLast().enumerated().map { "counted\($0) AS (\($1))" }
        return """
            CREATE FUNCTION \(name)() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                WITH changed (\(updates[0].columns), delta) AS MATERIALIZED (\(changed)),
                \(others.joined(separator: ",\n"))
                \(inserts[inserts.count - 1]);
                RETURN NULL;
            END
            $$
            """
    }

    /// The asset tally (step v22.1) and the day tally (v26) kept by one trigger for each kind of
    /// statement instead of two, reading the statement's rows once: every update of assets (a
    /// favourite, a trash) ran two statement triggers that each read the transition tables.
    static let talliesTogether: [String] = {
        let groups = tallyGroups(day: true)
        let updates = [
            ("assetDayTally", "day, isHidden, isBurstFrame, isTrashed, mediaType, sourceType"),
            ("assetTally", "isHidden, isBurstFrame, isTrashed, mediaType, sourceType"),
        ]
        let added = "SELECT \(groups), 1 FROM added"
        let removed = "SELECT \(groups), -1 FROM removed"
        var statements: [String] = []
        for tally in ["asset_tally", "asset_day_tally"] {
            for kind in ["insert", "delete", "update"] { statements.append("DROP TRIGGER \(tally)_\(kind) ON asset") }
            for kind in ["added", "removed", "changed"] { statements.append("DROP FUNCTION \(tally)_\(kind)()") }
        }
        return statements + [
            tallyFunction("asset_tallies_added", updates: updates, counting: added),
            tallyFunction("asset_tallies_removed", updates: updates, counting: removed),
            tallyFunction("asset_tallies_changed", updates: updates, counting: "\(removed) UNION ALL \(added)"),
            """
            CREATE TRIGGER asset_tallies_insert AFTER INSERT ON asset REFERENCING NEW TABLE AS added
            FOR EACH STATEMENT EXECUTE FUNCTION asset_tallies_added()
            """,
            """
            CREATE TRIGGER asset_tallies_delete AFTER DELETE ON asset REFERENCING OLD TABLE AS removed
            FOR EACH STATEMENT EXECUTE FUNCTION asset_tallies_removed()
            """,
            """
            CREATE TRIGGER asset_tallies_update AFTER UPDATE ON asset REFERENCING OLD TABLE AS removed NEW TABLE AS added
            FOR EACH STATEMENT EXECUTE FUNCTION asset_tallies_changed()
            """,
        ]
    }()

    /// A Live Photo was given its movie's length as its `duration`; PhotoKit's is a movie's
    /// alone (0 for a photo, a Live Photo's movie keeping its own). The same statement in
    /// SQLite's step v25.
    static let photosHaveNoDuration: [String] = [
        "UPDATE asset SET duration = 0 WHERE mediaType = \(AssetMediaType.image.rawValue) AND duration <> 0"
    ]
}
