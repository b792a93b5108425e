import Foundation

/// A catalog's rows copied from one database to another with the same schema (a SQLite library
/// to PostgreSQL, `lightbox migrate`): every table of the model, rows and ids as they are, in an
/// order that satisfies the foreign keys, inside the caller's transactions on both. Counts kept
/// by triggers (`assetTally`) are made again by the target's own as the assets arrive.
enum CatalogCopy {
    /// The catalog's tables, parents before children.
    static let tables = [
        "asset", "resource", "assetCollection", "collectionAsset", "trashedMembership", "collectionList",
        "collectionListChild", "topLevelPosition", "changeTransaction", "changeRecord", "libraryState",
        "importedFile", "pendingRemoval", "job", "jobRun", "person", "face", "assetAnalysis",
        "faceRejection", "place", "placeName", "assetPlace", "assetText", "textLine",
        "assetThings", "thing", "thingTerm", "assetClip", "clipEmbedding",
    ]

    /// The tables whose ids come from an identity column on PostgreSQL.
    static let identityTables = [
        "asset", "resource", "assetCollection", "collectionList", "changeTransaction", "job", "jobRun", "person",
        "face", "place", "clipEmbedding",
    ]

    /// The accounts' tables, parents before children.
    static let accountTables = ["\"user\"", "session", "token", "share"]

    /// Columns each database computes from others (schema step v23): read, never written.
    static let computedColumns: Set<String> = ["localcreationdate"]

    /// Rows read and written at a time: under PostgreSQL's 65,535 parameters for the widest table.
    static let batch = 500

    /// Copies `tables` from `source` into `target`, replacing what a new catalog holds there (the
    /// smart albums its first step makes); calls `copied` with each table's name and row count.
    /// Answers the rows copied.
    @discardableResult
    static func copy(
        _ tables: [String], from source: any SQLDatabase, to target: any SQLDatabase,
        copied: (String, Int) -> Void = { _, _ in }
    ) throws -> Int {
        for table in tables.reversed() { try target.execute("DELETE FROM \(table)") }
        var total = 0
        for table in tables {
            var count = 0
            var last = Int64.min
            while true {
                // By SQLite's rowid, each batch after the last one's (keyset: a million rows read
                // once, not again for each batch), stable while the caller's transaction holds.
                let rows = try source.rows(
                    "SELECT rowid AS copiedRowid, * FROM \(table) WHERE rowid > ? ORDER BY rowid LIMIT ?",
                    [last, batch])
                guard let first = rows.first else { break }
                last = try rows[rows.count - 1].integer("copiedRowid")
                let columns = first.columns.filter {
                    $0.key != "copiedRowid" && !computedColumns.contains($0.key.lowercased())
                }.sorted { $0.value < $1.value }
                let placeholders = "(" + Array(repeating: "?", count: columns.count).joined(separator: ", ") + ")"
                try target.execute(
                    "INSERT INTO \(table) (\(columns.map(\.key).joined(separator: ", "))) VALUES "
                        + Array(repeating: placeholders, count: rows.count).joined(separator: ", "),
                    rows.flatMap { row in columns.map { row.values[$0.value] } })
                count += rows.count
                if rows.count < batch { break }
            }
            copied(table, count)
            total += count
        }
        return total
    }

    /// After rows were inserted with their ids: each identity column's sequence continues past
    /// the largest (PostgreSQL).
    static func advanceSequences(in target: any SQLDatabase) throws {
        for table in identityTables {
            let bare = table.trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            try target.execute(
                "SELECT setval(pg_get_serial_sequence(?, 'id'), MAX(id)) FROM \(table) HAVING MAX(id) IS NOT NULL",
                [bare])
        }
    }
}
