import Foundation
import GRDB

extension SQLiteStore {
    /// The schema, one step per library format change. Steps are never edited once released:
    /// a change is a new step, so every older library migrates forward.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: assets and resources") { db in
            try db.create(table: "asset") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("localIdentifier", .text).notNull().unique()
                t.column("mediaType", .integer).notNull().check { (0...3).contains($0) }
                t.column("mediaSubtypes", .integer).notNull().defaults(to: 0)
                t.column("pixelWidth", .integer).notNull().check { $0 >= 0 }
                t.column("pixelHeight", .integer).notNull().check { $0 >= 0 }
                t.column("creationDate", .datetime).notNull()
                t.column("creationTimeZoneOffset", .integer).notNull().defaults(to: 0)
                t.column("modificationDate", .datetime).notNull()
                t.column("addedDate", .datetime).notNull()
                t.column("duration", .double).notNull().defaults(to: 0)
                t.column("isFavorite", .boolean).notNull().defaults(to: false)
                t.column("isHidden", .boolean).notNull().defaults(to: false)
                t.column("playbackStyle", .integer).notNull().defaults(to: 1)
                t.column("sourceType", .integer).notNull().defaults(to: 1)
            }
            // Newest first is the order of every grid; the id breaks ties for keyset paging.
            try db.create(index: "asset_on_creationDate", on: "asset", columns: ["creationDate", "id"])

            try db.create(table: "resource") { t in
                t.autoIncrementedPrimaryKey("id")
                t.belongsTo("asset", onDelete: .cascade).notNull()
                t.column("type", .integer).notNull().check { (1...12).contains($0) }
                t.column("originalFilename", .text).notNull()
                t.column("uniformTypeIdentifier", .text).notNull()
                t.column("fileSize", .integer).notNull().check { $0 >= 0 }
                t.column("pixelWidth", .integer).notNull().defaults(to: 0)
                t.column("pixelHeight", .integer).notNull().defaults(to: 0)
                t.column("sha256", .text).notNull().check { length($0) == 64 }
                t.column("storedPath", .text).notNull()
                t.uniqueKey(["assetId", "type"])
            }
            // The same photo bytes are one asset: importing them again finds this row.
            try db.create(
                index: "resource_unique_photo", on: "resource", columns: ["sha256"], unique: true,
                condition: Column("type") == AssetResourceType.photo.rawValue)
            try db.create(index: "resource_on_sha256", on: "resource", columns: ["sha256"])
        }
        migrator.registerMigration("v2: location, bursts, adjustments") { db in
            try db.alter(table: "asset") { t in
                t.add(column: "latitude", .double).check { $0 == nil || ($0 >= -90 && $0 <= 90) }
                t.add(column: "longitude", .double).check { $0 == nil || ($0 >= -180 && $0 <= 180) }
                t.add(column: "altitude", .double)
                t.add(column: "locationTimestamp", .datetime)
                t.add(column: "burstIdentifier", .text)
                t.add(column: "burstSelectionTypes", .integer).notNull().defaults(to: 0)
                t.add(column: "representsBurst", .boolean).notNull().defaults(to: false)
                t.add(column: "hasAdjustments", .boolean).notNull().defaults(to: false)
                t.add(column: "adjustmentFormatIdentifier", .text)
            }
            try db.create(index: "asset_on_burstIdentifier", on: "asset", columns: ["burstIdentifier"])
        }
        migrator.registerMigration("v3: change transactions") { db in
            // One row per committed write transaction: its id is the library's change token,
            // and fetch results reuse a snapshot while the token has not moved.
            try db.create(table: "changeTransaction") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("date", .datetime).notNull()
                t.column("author", .text)
            }
        }
        migrator.registerMigration("v4: albums and the change log") { db in
            try db.create(table: "assetCollection") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("localIdentifier", .text).notNull().unique()
                t.column("type", .integer).notNull().check { (1...3).contains($0) }
                t.column("subtype", .integer).notNull()
                t.column("title", .text)
                t.column("creationDate", .datetime).notNull()
            }
            // An album holds an asset at most once, at a position 0..<count.
            try db.create(table: "collectionAsset") { t in
                t.belongsTo("collection", inTable: "assetCollection", onDelete: .cascade).notNull()
                t.belongsTo("asset", onDelete: .cascade).notNull()
                t.column("position", .integer).notNull()
                t.primaryKey(["collectionId", "assetId"])
            }
            try db.create(
                index: "collectionAsset_on_position", on: "collectionAsset", columns: ["collectionId", "position"])
            // What each transaction inserted, updated or deleted: persistent history.
            try db.create(table: "changeRecord") { t in
                t.belongsTo("transaction", inTable: "changeTransaction", onDelete: .cascade).notNull()
                t.column("objectType", .text).notNull()
                t.column("localIdentifier", .text).notNull()
                t.column("kind", .integer).notNull().check { (1...3).contains($0) }
            }
            // Every asset imported before the log existed counts as inserted by one transaction.
            let assets = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM asset") ?? 0
            if assets > 0 {
                try db.execute(
                    sql: "INSERT INTO changeTransaction (date, author) VALUES (?, 'migration')", arguments: [Date()])
                try db.execute(
                    sql: """
                        INSERT INTO changeRecord (transactionId, objectType, localIdentifier, kind)
                        SELECT ?, 'asset', localIdentifier, 1 FROM asset
                        """,
                    arguments: [db.lastInsertedRowID])
            }
        }
        migrator.registerMigration("v5: history retention") { db in
            // Named integers the library keeps about itself; `historyFloor` is the last change
            // token whose transactions were pruned: tokens below it have expired.
            try db.create(table: "libraryState") { t in
                t.primaryKey("key", .text)
                t.column("value", .integer).notNull()
            }
            try db.execute(sql: "INSERT INTO libraryState (key, value) VALUES ('historyFloor', 0)")
            try db.create(index: "changeTransaction_on_date", on: "changeTransaction", columns: ["date"])
        }
        migrator.registerMigration("v6: smart albums") { db in
            // One row per smart album, so each has a stable identifier; its assets come from
            // its rule (SmartAlbums) at every fetch.
            for rule in SmartAlbums.rules {
                try db.execute(
                    sql:
                        "INSERT INTO assetCollection (localIdentifier, type, subtype, title, creationDate) VALUES (?, ?, ?, ?, ?)",
                    arguments: [
                        UUID().uuidString, AssetCollectionType.smartAlbum.rawValue, rule.subtype.rawValue, rule.title,
                        Date(),
                    ])
            }
        }
        migrator.registerMigration("v7: fetch indexes") { db in
            // Default fetches show visible assets, one frame per burst, by creation date: this
            // partial index holds exactly those rows in that order, so such a fetch walks it
            // instead of sorting the table. The condition must stay identical to the one
            // fetches write (AssetVisibility.defaultCondition).
            try db.execute(
                sql: """
                    CREATE INDEX asset_visible_on_creationDate ON asset(creationDate, id, mediaType)
                    WHERE isHidden = 0 AND (burstIdentifier IS NULL OR representsBurst = 1)
                    """)
            try db.create(
                index: "asset_on_isFavorite_creationDate", on: "asset", columns: ["isFavorite", "creationDate"])
        }
        migrator.registerMigration("v8: folders") { db in
            try db.create(table: "collectionList") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("localIdentifier", .text).notNull().unique()
                t.column("type", .integer).notNull().check { (1...3).contains($0) }
                t.column("subtype", .integer).notNull()
                t.column("title", .text)
                t.column("creationDate", .datetime).notNull()
            }
            // A list's children, in order: each row holds an album or a list, never both, and
            // the unique indexes give every collection at most one parent.
            try db.create(table: "collectionListChild") { t in
                t.belongsTo("list", inTable: "collectionList", onDelete: .cascade).notNull()
                t.belongsTo("collection", inTable: "assetCollection", onDelete: .cascade)
                t.belongsTo("childList", inTable: "collectionList", onDelete: .cascade)
                t.column("position", .integer).notNull()
                t.check(sql: "(collectionId IS NULL) != (childListId IS NULL)")
            }
            try db.execute(sql: "DROP INDEX collectionListChild_on_collectionId")
            try db.execute(sql: "DROP INDEX collectionListChild_on_childListId")
            try db.create(
                index: "collectionListChild_unique_collection", on: "collectionListChild", columns: ["collectionId"],
                unique: true)
            try db.create(
                index: "collectionListChild_unique_childList", on: "collectionListChild", columns: ["childListId"],
                unique: true)
        }
        migrator.registerMigration("v9: asset tallies") { db in
            // How many assets there are of each kind the visibility options tell apart, kept
            // by triggers in the writing transaction itself (Apple's Photos keeps cached counts
            // likewise): a fetch without a predicate counts with a sum over a few rows instead
            // of a walk over a million index entries.
            try db.execute(
                sql: """
                    CREATE TABLE assetTally (
                        isHidden BOOLEAN NOT NULL,
                        isBurstFrame BOOLEAN NOT NULL,
                        mediaType INTEGER NOT NULL,
                        sourceType INTEGER NOT NULL,
                        count INTEGER NOT NULL,
                        PRIMARY KEY (isHidden, isBurstFrame, mediaType, sourceType)
                    ) WITHOUT ROWID;
                    INSERT INTO assetTally
                    SELECT isHidden, burstIdentifier IS NOT NULL AND representsBurst = 0, mediaType, sourceType, COUNT(*)
                    FROM asset GROUP BY 1, 2, 3, 4;
                    CREATE TRIGGER asset_tally_insert AFTER INSERT ON asset BEGIN
                        INSERT INTO assetTally VALUES (
                            NEW.isHidden, NEW.burstIdentifier IS NOT NULL AND NEW.representsBurst = 0, NEW.mediaType,
                            NEW.sourceType, 1)
                        ON CONFLICT DO UPDATE SET count = count + 1;
                    END;
                    CREATE TRIGGER asset_tally_delete AFTER DELETE ON asset BEGIN
                        UPDATE assetTally SET count = count - 1
                        WHERE isHidden = OLD.isHidden
                        AND isBurstFrame = (OLD.burstIdentifier IS NOT NULL AND OLD.representsBurst = 0)
                        AND mediaType = OLD.mediaType AND sourceType = OLD.sourceType;
                    END;
                    CREATE TRIGGER asset_tally_update
                    AFTER UPDATE OF isHidden, burstIdentifier, representsBurst, mediaType, sourceType ON asset BEGIN
                        UPDATE assetTally SET count = count - 1
                        WHERE isHidden = OLD.isHidden
                        AND isBurstFrame = (OLD.burstIdentifier IS NOT NULL AND OLD.representsBurst = 0)
                        AND mediaType = OLD.mediaType AND sourceType = OLD.sourceType;
                        INSERT INTO assetTally VALUES (
                            NEW.isHidden, NEW.burstIdentifier IS NOT NULL AND NEW.representsBurst = 0, NEW.mediaType,
                            NEW.sourceType, 1)
                        ON CONFLICT DO UPDATE SET count = count + 1;
                    END;
                    """)
        }
        migrator.registerMigration("v10: capture metadata") { db in
            // Whether a front camera took the photo (its EXIF lens model says so), for the
            // self-portraits smart album, whose row this step adds.
            try db.alter(table: "asset") { t in
                t.add(column: "isSelfPortrait", .boolean).notNull().defaults(to: false)
            }
            // Step v6 writes a row for every rule it finds in SmartAlbums, so a library that
            // migrates through it already has this one.
            try Self.addSmartAlbum(.smartAlbumSelfPortraits, title: "Selfies", db)
        }
        migrator.registerMigration("v11: pairing and the import journal") { db in
            // What pairs files into one asset: a Live Photo's content identifier, and a RAW's
            // and JPEG's capture key (folder, base name, capture time, camera).
            try db.alter(table: "asset") { t in
                t.add(column: "contentIdentifier", .text)
                t.add(column: "captureKey", .text)
            }
            try db.create(index: "asset_on_contentIdentifier", on: "asset", columns: ["contentIdentifier"])
            try db.create(index: "asset_on_captureKey", on: "asset", columns: ["captureKey"])
            // A file's bytes are one original, whatever role they play.
            try db.execute(
                sql: "CREATE UNIQUE INDEX resource_unique_original ON resource(sha256) WHERE type IN (1, 2, 4, 9)")
            // Files already imported, by path, size and modification time: a second run over
            // the same folders (an interrupted import resumed) skips them without hashing.
            try db.create(table: "importedFile") { t in
                t.primaryKey("path", .text)
                t.column("size", .integer).notNull()
                t.column("modificationDate", .double).notNull()
                t.column("sha256", .text).notNull()
            }
        }
        migrator.registerMigration("v12: long exposures") { db in
            try Self.addSmartAlbum(.smartAlbumLongExposures, title: "Long Exposure", db)
        }
        migrator.registerMigration("v13: orientation corrections") { db in
            // The orientation an XMP sidecar gives a photo instead of its file's (which is
            // never changed): thumbnails are rendered in it. NULL: the file's own.
            try db.alter(table: "asset") { t in
                t.add(column: "orientationOverride", .integer).check { $0 == nil || (1...8).contains($0) }
            }
        }
        migrator.registerMigration("v14: ratings") { db in
            // Stars as XMP and Lightroom write them: 1 to 5, or -1 for rejected. NULL: unrated.
            try db.alter(table: "asset") { t in
                t.add(column: "rating", .integer).check { $0 == nil || (-1...5).contains($0) && $0 != 0 }
            }
        }
        migrator.registerMigration("v15: recently deleted") { db in
            // A deleted asset stays, with its files, edits and state, until it is purged: it is
            // out of every fetch but Recently Deleted's.
            try db.alter(table: "asset") { t in t.add(column: "trashedDate", .datetime) }
            try db.execute(
                sql: """
                    CREATE INDEX asset_on_trashedDate ON asset(trashedDate) WHERE trashedDate IS NOT NULL;
                    DROP INDEX asset_visible_on_creationDate;
                    CREATE INDEX asset_visible_on_creationDate ON asset(creationDate, id, mediaType)
                    WHERE isHidden = 0 AND (burstIdentifier IS NULL OR representsBurst = 1) AND trashedDate IS NULL;
                    """)
            // The tallies tell deleted assets apart too (see step v9).
            try db.execute(
                sql: """
                    DROP TRIGGER asset_tally_insert;
                    DROP TRIGGER asset_tally_delete;
                    DROP TRIGGER asset_tally_update;
                    DROP TABLE assetTally;
                    CREATE TABLE assetTally (
                        isHidden BOOLEAN NOT NULL,
                        isBurstFrame BOOLEAN NOT NULL,
                        isTrashed BOOLEAN NOT NULL,
                        mediaType INTEGER NOT NULL,
                        sourceType INTEGER NOT NULL,
                        count INTEGER NOT NULL,
                        PRIMARY KEY (isHidden, isBurstFrame, isTrashed, mediaType, sourceType)
                    ) WITHOUT ROWID;
                    INSERT INTO assetTally
                    SELECT isHidden, burstIdentifier IS NOT NULL AND representsBurst = 0, trashedDate IS NOT NULL,
                    mediaType, sourceType, COUNT(*)
                    FROM asset GROUP BY 1, 2, 3, 4, 5;
                    CREATE TRIGGER asset_tally_insert AFTER INSERT ON asset BEGIN
                        INSERT INTO assetTally VALUES (
                            NEW.isHidden, NEW.burstIdentifier IS NOT NULL AND NEW.representsBurst = 0,
                            NEW.trashedDate IS NOT NULL, NEW.mediaType, NEW.sourceType, 1)
                        ON CONFLICT DO UPDATE SET count = count + 1;
                    END;
                    CREATE TRIGGER asset_tally_delete AFTER DELETE ON asset BEGIN
                        UPDATE assetTally SET count = count - 1
                        WHERE isHidden = OLD.isHidden
                        AND isBurstFrame = (OLD.burstIdentifier IS NOT NULL AND OLD.representsBurst = 0)
                        AND isTrashed = (OLD.trashedDate IS NOT NULL)
                        AND mediaType = OLD.mediaType AND sourceType = OLD.sourceType;
                    END;
                    CREATE TRIGGER asset_tally_update
                    AFTER UPDATE OF isHidden, burstIdentifier, representsBurst, trashedDate, mediaType, sourceType ON asset
                    BEGIN
                        UPDATE assetTally SET count = count - 1
                        WHERE isHidden = OLD.isHidden
                        AND isBurstFrame = (OLD.burstIdentifier IS NOT NULL AND OLD.representsBurst = 0)
                        AND isTrashed = (OLD.trashedDate IS NOT NULL)
                        AND mediaType = OLD.mediaType AND sourceType = OLD.sourceType;
                        INSERT INTO assetTally VALUES (
                            NEW.isHidden, NEW.burstIdentifier IS NOT NULL AND NEW.representsBurst = 0,
                            NEW.trashedDate IS NOT NULL, NEW.mediaType, NEW.sourceType, 1)
                        ON CONFLICT DO UPDATE SET count = count + 1;
                    END;
                    """)
            // The albums a deleted asset was in, and where: a restore puts it back. Albums hold
            // only assets in the library, so their indexes are what a fetch shows.
            try db.create(table: "trashedMembership") { t in
                t.belongsTo("collection", inTable: "assetCollection", onDelete: .cascade).notNull()
                t.belongsTo("asset", onDelete: .cascade).notNull()
                t.column("position", .integer).notNull()
                t.primaryKey(["collectionId", "assetId"])
            }
            // The change log learns two kinds: trashed (4) and restored (5); deleted (3) is a
            // purge. SQLite cannot alter a check, so the table is made again.
            try db.execute(
                sql: """
                    CREATE TABLE changeRecord_v15 (
                        transactionId INTEGER NOT NULL REFERENCES changeTransaction(id) ON DELETE CASCADE,
                        objectType TEXT NOT NULL,
                        localIdentifier TEXT NOT NULL,
                        kind INTEGER NOT NULL CHECK (kind BETWEEN 1 AND 5)
                    );
                    INSERT INTO changeRecord_v15 SELECT transactionId, objectType, localIdentifier, kind FROM changeRecord;
                    DROP TABLE changeRecord;
                    ALTER TABLE changeRecord_v15 RENAME TO changeRecord;
                    CREATE INDEX changeRecord_on_transactionId ON changeRecord(transactionId);
                    """)
            // Originals a purge let go, written in the purge's own transaction and removed from
            // the disk after it commits: a crash in between leaves the list, which the next
            // open finishes, never a file no row knows of.
            try db.create(table: "pendingRemoval") { t in
                t.primaryKey("storedPath", .text)
            }
            // 30 days, as Apple's Photos and Immich keep them: a step's value, fixed when it was written.
            try db.execute(
                sql: "INSERT INTO libraryState (key, value) VALUES ('trashRetentionSeconds', ?)",
                arguments: [30 * 24 * 3600])
            try Self.addSmartAlbum(.smartAlbumRecentlyDeleted, title: "Recently Deleted", db)
        }
        migrator.registerMigration("v16: timeline days") { db in
            // The index the default order walks also holds each asset's time zone: a timeline's
            // days (every visible asset's local date, newest first) read the index alone, not a
            // row of the table for each asset.
            try db.execute(
                sql: """
                    DROP INDEX asset_visible_on_creationDate;
                    CREATE INDEX asset_visible_on_creationDate
                    ON asset(creationDate, id, mediaType, creationTimeZoneOffset)
                    WHERE isHidden = 0 AND (burstIdentifier IS NULL OR representsBurst = 1) AND trashedDate IS NULL;
                    """)
        }
        migrator.registerMigration("v17: cameras and lenses") { db in
            // The camera and lens the original names, for search: written on import. Assets
            // imported before this step have them read from their originals afterwards (see
            // `PhotoLibrary.fillCaptureDetails`), those up to `captureDetailsThrough`, walked
            // in id order from `captureDetailsAfter`; both keys go when it is done.
            try db.alter(table: "asset") { t in
                t.add(column: "cameraMake", .text)
                t.add(column: "cameraModel", .text)
                t.add(column: "lensModel", .text)
            }
            try db.create(index: "asset_on_camera", on: "asset", columns: ["cameraModel", "lensModel"])
            if let last = try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM asset") {
                try db.execute(
                    sql: """
                        INSERT INTO libraryState (key, value) VALUES ('captureDetailsThrough', ?),
                        ('captureDetailsAfter', 0)
                        """,
                    arguments: [last])
            }
        }
        migrator.registerMigration("v18: top-level order") { db in
            // Where the user put each album and folder of the top level (none until they reorder
            // it): those without a place come after, oldest first. One that goes into a folder
            // loses its place.
            try db.create(table: "topLevelPosition") { t in
                t.belongsTo("collection", inTable: "assetCollection", onDelete: .cascade)
                t.belongsTo("childList", inTable: "collectionList", onDelete: .cascade)
                t.column("position", .integer).notNull()
                t.check(sql: "(collectionId IS NULL) != (childListId IS NULL)")
            }
            try db.execute(
                sql: """
                    DROP INDEX topLevelPosition_on_collectionId;
                    DROP INDEX topLevelPosition_on_childListId;
                    CREATE UNIQUE INDEX topLevelPosition_unique_collection ON topLevelPosition(collectionId);
                    CREATE UNIQUE INDEX topLevelPosition_unique_childList ON topLevelPosition(childListId);
                    """)
        }
        migrator.registerMigration("v19: cameras of the library") { db in
            // Over the visible assets (the partial index's condition of step v16): a library's
            // cameras and lenses, what search offers, grouped from an index in their order (no
            // row of the table read, no sort); and a search by camera or by lens read, in the
            // timeline's order, from an index alone, days and pages. Step v17's index, which
            // needed every row it found read and sorted, goes.
            let visible = "isHidden = 0 AND (burstIdentifier IS NULL OR representsBurst = 1) AND trashedDate IS NULL"
            try db.execute(
                sql: """
                    DROP INDEX asset_on_camera;
                    CREATE INDEX asset_visible_on_camera ON asset(cameraMake, cameraModel, lensModel) WHERE \(visible);
                    CREATE INDEX asset_visible_on_cameraModel
                    ON asset(cameraModel, creationDate, id, creationTimeZoneOffset) WHERE \(visible);
                    CREATE INDEX asset_visible_on_lensModel
                    ON asset(lensModel, creationDate, id, creationTimeZoneOffset) WHERE \(visible);
                    """)
        }
        migrator.registerMigration("v20: orientation") { db in
            // The original photo's own orientation, what an asset's JSON and its image data
            // give: written on import. Older assets have it read from their originals by the
            // camera backfill of step v17, which starts over (its camera writes fill only what
            // is empty).
            try db.alter(table: "asset") { t in t.add(column: "fileOrientation", .integer) }
            if let last = try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM asset") {
                try db.execute(
                    sql: """
                        INSERT OR REPLACE INTO libraryState (key, value) VALUES ('captureDetailsThrough', ?),
                        ('captureDetailsAfter', 0)
                        """,
                    arguments: [last])
            }
        }
        migrator.registerMigration("v21: jobs") { db in
            // The queue of background work (JobQueries): what waits, and each attempt at it.
            // Not part of the history: taking and ending jobs records no change transaction.
            try db.execute(sql: JobSchema.sqlite)
        }
        // v22 is PostgreSQL's accounts step (SQLite keeps accounts in a database of their own).
        migrator.registerMigration("v23: local creation dates") { db in
            // The timeline's order: the clock time where each asset was taken, so that a day's
            // assets come together whatever zone each was taken in (an instant's order splits
            // a party shot in two zones into runs of days that repeat). A virtual column: kept
            // by SQLite from the two it derives from, never written, stored only in its indexes,
            // which replace step v16's and v19's for the visible assets' timeline and searches.
            // A date that cannot be moved (by an offset past a day, or past the year 9999) is
            // its own local date, as in PostgreSQL: never NULL, which would fall out of the
            // keyset pages.
            let visible = "isHidden = 0 AND (burstIdentifier IS NULL OR representsBurst = 1) AND trashedDate IS NULL"
            let covered = "localCreationDate, id, creationDate, creationTimeZoneOffset"
            try db.execute(
                sql: """
                    ALTER TABLE asset ADD COLUMN localCreationDate TEXT GENERATED ALWAYS AS (
                        CASE WHEN abs(creationTimeZoneOffset) <= 86400 THEN COALESCE(
                            strftime('%Y-%m-%d %H:%M:%f', creationDate, creationTimeZoneOffset || ' seconds'),
                            creationDate)
                        ELSE creationDate END) VIRTUAL;
                    CREATE INDEX asset_visible_on_localCreationDate ON asset(\(covered), mediaType) WHERE \(visible);
                    DROP INDEX asset_visible_on_cameraModel;
                    DROP INDEX asset_visible_on_lensModel;
                    CREATE INDEX asset_visible_on_cameraModel ON asset(cameraModel, \(covered)) WHERE \(visible);
                    CREATE INDEX asset_visible_on_lensModel ON asset(lensModel, \(covered)) WHERE \(visible);
                    """)
        }
        migrator.registerMigration("v24: the timeline's shapes") { db in
            // The timeline gives each asset's shape (justified rows are laid out before any asset
            // is read): its index of step v23 covers the size too, so that the timeline stays a
            // read of the index alone.
            try db.execute(sql: PostgresSchema.timelineShapes.joined(separator: ";\n"))
        }
        migrator.registerMigration("v25: photos have no duration") { db in
            try db.execute(sql: PostgresSchema.photosHaveNoDuration.joined(separator: ";\n"))
        }
        migrator.registerMigration("v26: days counted") { db in
            // How many assets each local day holds, by the tally's groups (PostgreSQL's step
            // v26): a timeline's days read one row a day. Kept per row, as the tally is here.
            let day = "substr(X.localCreationDate, 1, instr(X.localCreationDate || ' ', ' ') - 1)"
            func group(_ row: String) -> String {
                """
                \(day.replacingOccurrences(of: "X.", with: row)), \(row)isHidden,
                \(row)burstIdentifier IS NOT NULL AND \(row)representsBurst = 0, \(row)trashedDate IS NOT NULL,
                \(row)mediaType, \(row)sourceType
                """
            }
            let matches = """
                day = \(day.replacingOccurrences(of: "X.", with: "OLD.")) AND isHidden = OLD.isHidden
                AND isBurstFrame = (OLD.burstIdentifier IS NOT NULL AND OLD.representsBurst = 0)
                AND isTrashed = (OLD.trashedDate IS NOT NULL)
                AND mediaType = OLD.mediaType AND sourceType = OLD.sourceType
                """
            try db.execute(
                sql: """
                    CREATE TABLE assetDayTally (
                        day TEXT NOT NULL,
                        isHidden BOOLEAN NOT NULL,
                        isBurstFrame BOOLEAN NOT NULL,
                        isTrashed BOOLEAN NOT NULL,
                        mediaType INTEGER NOT NULL,
                        sourceType INTEGER NOT NULL,
                        count INTEGER NOT NULL,
                        PRIMARY KEY (day, isHidden, isBurstFrame, isTrashed, mediaType, sourceType)
                    ) WITHOUT ROWID;
                    INSERT INTO assetDayTally SELECT \(group("")), COUNT(*) FROM asset GROUP BY 1, 2, 3, 4, 5, 6;
                    CREATE TRIGGER asset_day_tally_insert AFTER INSERT ON asset BEGIN
                        INSERT INTO assetDayTally VALUES (\(group("NEW.")), 1)
                        ON CONFLICT DO UPDATE SET count = count + 1;
                    END;
                    CREATE TRIGGER asset_day_tally_delete AFTER DELETE ON asset BEGIN
                        UPDATE assetDayTally SET count = count - 1 WHERE \(matches);
                    END;
                    CREATE TRIGGER asset_day_tally_update
                    AFTER UPDATE OF isHidden, burstIdentifier, representsBurst, trashedDate, mediaType, sourceType,
                        creationDate, creationTimeZoneOffset ON asset
                    BEGIN
                        UPDATE assetDayTally SET count = count - 1 WHERE \(matches);
                        INSERT INTO assetDayTally VALUES (\(group("NEW.")), 1)
                        ON CONFLICT DO UPDATE SET count = count + 1;
                    END;
                    """)
        }
        migrator.registerMigration("v27: faces and people") { db in
            try db.execute(sql: FaceSchema.sqlite)
        }
        migrator.registerMigration("v28: people as collections") { db in
            try db.execute(sql: PeopleSchema.statements.joined(separator: ";\n"))
            try db.execute(sql: PeopleSchema.sqliteTriggers)
            try db.execute(
                sql: PeopleSchema.seedList,
                arguments: StatementArguments(PeopleSchema.seedArguments.map(\.databaseValue)))
        }
        migrator.registerMigration("v29: faces grouping has looked at") { db in
            try db.execute(sql: PlacedSchema.statements.joined(separator: ";\n"))
        }
        migrator.registerMigration("v30: places") { db in
            try db.execute(sql: PlaceSchema.sqlite.joined(separator: ";\n"))
        }
        migrator.registerMigration("v31: the map's cells") { db in
            try db.execute(sql: MapSchema.statements.joined(separator: ";\n"))
        }
        migrator.registerMigration("v32: the places' counts") { db in
            try db.execute(sql: PlaceSchema.counting.joined(separator: ";\n"))
        }
        migrator.registerMigration("v33: text in photos") { db in
            try db.execute(sql: TextSchema.sqlite.joined(separator: ";\n"))
        }
        migrator.registerMigration("v34: things in photos") { db in
            try db.execute(sql: ThingSchema.sqlite.joined(separator: ";\n"))
        }
        migrator.registerMigration("v35: photos' CLIP embeddings") { db in
            try db.execute(sql: ClipSchema.sqlite.joined(separator: ";\n"))
        }
        migrator.registerMigration("v36: the search's full text") { db in
            for statement in SearchSchema.sqlite { try db.execute(sql: statement) }
        }
        return migrator
    }

    /// Adds a smart album's row, unless the library has it: step v6 writes a row for every
    /// rule it finds in SmartAlbums, so a library that migrates through it has them all.
    static func addSmartAlbum(_ subtype: AssetCollectionSubtype, title: String, _ db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO assetCollection (localIdentifier, type, subtype, title, creationDate)
                SELECT ?1, ?2, ?3, ?4, ?5 WHERE NOT EXISTS (
                    SELECT 1 FROM assetCollection WHERE type = ?2 AND subtype = ?3)
                """,
            arguments: [UUID().uuidString, AssetCollectionType.smartAlbum.rawValue, subtype.rawValue, title, Date()])
    }
}
