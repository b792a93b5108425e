import Foundation
import GRDB
import GRDBSQLite

/// A fetch result's rows in a database snapshot: the row ids a query selects, and the
/// objects `loader` reads for them.
struct SQLiteFetchSource<Object: Sendable>: FetchSource {
    let query: RowIDQuery
    let snapshot: DatabaseSnapshot
    let loader: @Sendable (Database, [Int64]) throws -> [Int64: Object]
    let lookup: @Sendable (Database, [String]) throws -> [Int64]

    var limit: Int { query.limit }
    var countsMediaTypes: Bool { query.countsMediaTypes }

    func rowIDs(offset: Int, count: Int) throws -> [Int64] {
        try snapshot.read { db in try query.rowIDs(db, offset: offset, count: count) }
    }

    func count() throws -> Int {
        try snapshot.read { db in try query.count(db) }
    }

    func count(mediaType: Int) throws -> Int {
        try snapshot.read { db in try query.count(db, mediaType: mediaType) }
    }

    func objects(_ rowIDs: [Int64]) throws -> [Int64: Object] {
        try snapshot.read { db in try loader(db, rowIDs) }
    }

    func rowIDs(forLocalIdentifiers identifiers: [String]) throws -> [Int64] {
        try snapshot.read { db in try lookup(db, identifiers) }
    }

    func creationDays() throws -> [AssetDay]? {
        guard query.creationDays != nil else { return nil }
        return try snapshot.read { db in try query.creationDays(db) }
    }

    func cameras(limit: Int?) throws -> [AssetCamera]? {
        guard query.cameras != nil else { return nil }
        return try snapshot.read { db in try query.cameras(db, limit: limit) }
    }
}

/// The query a lazy fetch result reads its row ids with.
struct RowIDQuery: Sendable {
    /// `SELECT <row id> FROM ... WHERE ...`: one column, no order, no limit.
    var select: SQLFragment
    /// The ORDER BY terms, total.
    var orderBy: String
    /// The fetch limit; 0 for none.
    var limit: Int = 0
    /// A cheaper query for the count without limit, when there is one (tallies).
    var fastCount: SQLFragment?
    /// For asset fetches: the count of one media type, its value bound last; nil for other classes.
    var mediaTypeCount: SQLFragment?
    /// For asset fetches: each row's `creationDate` and `creationTimeZoneOffset`, in order, no
    /// limit; nil for other classes.
    var creationDays: SQLFragment?
    /// For asset fetches: the rows' cameras and lenses with how many rows have each, no limit;
    /// nil for other classes.
    var cameras: SQLFragment?

    var countsMediaTypes: Bool { mediaTypeCount != nil }

    /// `count` row ids from `offset` (all the rest when `count` is negative), in order.
    func rowIDs(_ db: Database, offset: Int, count: Int) throws -> [Int64] {
        var arguments = select.arguments
        arguments += [count, offset]
        return try db.integers(sql: "\(select.sql) ORDER BY \(orderBy) LIMIT ? OFFSET ?", arguments: arguments)
    }

    /// The runs of rows taken on the same local day, in order, the limit applied: the dates
    /// stepped through with SQLite's C API and parsed from their bytes, as a timeline over a
    /// million assets reads them all.
    func creationDays(_ db: Database) throws -> [AssetDay] {
        guard let creationDays else { return [] }
        var arguments = creationDays.arguments
        arguments += [limit > 0 ? limit : -1]
        let sql = "\(creationDays.sql) LIMIT ?"
        let statement = try db.makeStatement(sql: sql)
        try statement.setArguments(arguments)
        let raw = statement.sqliteStatement
        defer { sqlite3_reset(raw) }
        var runs = AssetDay.Runs()
        while true {
            switch sqlite3_step(raw) {
            case SQLITE_ROW:
                let length = Int(sqlite3_column_bytes(raw, 0))
                let text = sqlite3_column_text(raw, 0).map { UnsafeBufferPointer(start: $0, count: length) }
                guard let text, let date = StoredDate.parse(bytes: text) else {
                    throw LibraryError(.storageFailed, "an asset's creationDate is not a stored date")
                }
                runs.add(AssetDay.dayNumber(date, offsetSeconds: Int(sqlite3_column_int64(raw, 1))))
            case SQLITE_DONE: return runs.finish()
            case let code:
                throw DatabaseError(
                    resultCode: ResultCode(rawValue: code),
                    message: String(cString: sqlite3_errmsg(db.sqliteConnection)),
                    sql: sql)
            }
        }
    }

    /// The cameras and lenses of the rows, the fetch limit applied, the most used first; at most
    /// `limit` of them (nil: all).
    func cameras(_ db: Database, limit most: Int?) throws -> [AssetCamera] {
        guard let cameras else { return [] }
        var sql = cameras.sql
        var arguments = cameras.arguments
        if limit > 0 {
            // Which rows the limit keeps depends on the order: group those.
            sql = """
                SELECT asset.cameraMake, asset.cameraModel, asset.lensModel, COUNT(*) FROM asset
                WHERE asset.id IN (\(select.sql) ORDER BY \(orderBy) LIMIT ?) GROUP BY 1, 2, 3
                """
            arguments = select.arguments
            arguments += [limit]
        }
        arguments += [most.map { max(0, $0) } ?? -1]
        return try Row.fetchAll(db, sql: sql + " ORDER BY 4 DESC, 1, 2, 3 LIMIT ?", arguments: arguments).map { row in
            AssetCamera(make: row[0], model: row[1], lensModel: row[2], count: row[3])
        }
    }

    /// The number of rows, the limit applied.
    func count(_ db: Database) throws -> Int {
        let counted: Int
        if let fastCount {
            counted = try Int.fetchOne(db, sql: fastCount.sql, arguments: fastCount.arguments) ?? 0
        } else if limit > 0 {
            var arguments = select.arguments
            arguments += [limit]
            return try Int.fetchOne(
                db, sql: "SELECT COUNT(*) FROM (\(select.sql) LIMIT ?)", arguments: arguments) ?? 0
        } else {
            counted =
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM (\(select.sql))", arguments: select.arguments) ?? 0
        }
        return limit > 0 ? Swift.min(limit, counted) : counted
    }

    /// The number of rows of one media type, the limit applied (asset fetches only).
    func count(_ db: Database, mediaType: Int) throws -> Int {
        guard let mediaTypeCount else { return 0 }
        if limit > 0 {
            // Which rows the limit keeps depends on the order: count among those.
            var arguments = select.arguments
            arguments += [limit, mediaType]
            return try Int.fetchOne(
                db,
                sql: """
                    SELECT COUNT(*) FROM (\(select.sql) ORDER BY \(orderBy) LIMIT ?) AS kept
                    JOIN asset ON asset.id = kept.id WHERE asset.mediaType = ?
                    """,
                arguments: arguments) ?? 0
        }
        var arguments = mediaTypeCount.arguments
        arguments += [mediaType]
        return try Int.fetchOne(db, sql: mediaTypeCount.sql, arguments: arguments) ?? 0
    }
}

extension Database {
    /// The `column` values of the rows of `table` with these local identifiers (those that
    /// exist), looked up in chunks that stay under SQLite's limit on parameters.
    func rowIDs(_ column: String, in table: String, localIdentifiers: [String]) throws -> [Int64] {
        var found: [Int64] = []
        var start = 0
        while start < localIdentifiers.count {
            let chunk = localIdentifiers[start..<Swift.min(localIdentifiers.count, start + 500)]
            let marks = Array(repeating: "?", count: chunk.count).joined(separator: ",")
            found += try Int64.fetchAll(
                self, sql: "SELECT \(column) FROM \(table) WHERE localIdentifier IN (\(marks))",
                arguments: StatementArguments(Array(chunk)))
            start += chunk.count
        }
        return found
    }
}

extension Database {
    /// The first column of every row of a query, as integers, stepped through with SQLite's C
    /// API: a million row ids take about a third of the time GRDB's cursor takes, which
    /// change details over large results and `index(of:)` feel.
    func integers(sql: String, arguments: StatementArguments) throws -> [Int64] {
        let statement = try makeStatement(sql: sql)
        try statement.setArguments(arguments)
        let raw = statement.sqliteStatement
        defer { sqlite3_reset(raw) }
        var values: [Int64] = []
        while true {
            switch sqlite3_step(raw) {
            case SQLITE_ROW: values.append(sqlite3_column_int64(raw, 0))
            case SQLITE_DONE: return values
            case let code:
                throw DatabaseError(
                    resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(sqliteConnection)),
                    sql: sql)
            }
        }
    }
}
