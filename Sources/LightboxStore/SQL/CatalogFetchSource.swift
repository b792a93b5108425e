import Foundation
import Synchronization

/// One state of the catalog that fetch results read, whatever commits after it: a SQLite
/// `DatabaseSnapshot` (``SQLiteSnapshot``) or a PostgreSQL repeatable-read transaction
/// (``PostgresSnapshot``).
protocol CatalogSnapshot: Sendable {
    /// Runs `body` on the snapshot's state.
    func read<T>(_ body: (any SQLDatabase) throws -> T) throws -> T
    /// What was read of the snapshot once, for every fetch that reads it again.
    var memory: SnapshotMemory { get }
}

/// What a snapshot's fetches read once and keep for its life, its state never changing: the
/// day tally's counts a page deep in a timeline seeks its day by, read by every far page of
/// every fetch of that state otherwise.
final class SnapshotMemory: Sendable {
    /// A day of the tally and how many rows it holds, in the result's order.
    struct DayCount: Sendable {
        var day: String
        var count: Int
    }

    /// By the query of the counts; nil where a row was not a day and a count.
    private let dayCounts = Mutex<[String: [DayCount]?]>([:])

    /// The counts `counts` reads, read on the first call with its query.
    func dayCounts(_ counts: SQLFragment, in db: any SQLDatabase) throws -> [DayCount]? {
        let key = counts.sql + "\u{0}" + counts.arguments.map { "\($0)" }.joined(separator: "\u{0}")
        if let known = dayCounts.withLock({ $0[key] }) { return known }
        var read: [DayCount]? = []
        for row in try db.rows(counts.sql, counts.arguments) {
            guard let day = row.values.first?.text, let count = row.values.dropFirst().first?.integer,
                count > 0, count <= Int64(Int32.max)
            else {
                read = nil
                break
            }
            read?.append(DayCount(day: day, count: Int(count)))
        }
        dayCounts.withLock { $0[key] = .some(read) }
        return read
    }
}

/// A fetch result's rows in a snapshot of either store: the row ids a query selects, and the
/// objects `loader` reads for them.
struct CatalogFetchSource<Object: Sendable>: FetchSource {
    let query: RowIDQuery
    let snapshot: any CatalogSnapshot
    let loader: @Sendable (any SQLDatabase, [Int64]) throws -> [Int64: Object]
    let lookup: @Sendable (any SQLDatabase, [String]) throws -> [Int64]

    var limit: Int { query.limit }
    var countsMediaTypes: Bool { query.countsMediaTypes }

    func rowIDs(offset: Int, count: Int) throws -> [Int64] {
        try snapshot.read { db in try query.rowIDs(db, offset: offset, count: count, memory: snapshot.memory) }
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

    func creationDays(aspectRatios: Bool) throws -> [AssetDay]? {
        guard query.creationDays != nil else { return nil }
        return try snapshot.read { db in try query.creationDays(db, aspectRatios: aspectRatios) }
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
    /// For asset fetches: `FROM ... WHERE ... ORDER BY ...` of the rows, in order, no limit,
    /// which ``creationDays(_:aspectRatios:)`` selects the columns of; nil for other classes.
    var creationDays: SQLFragment?
    /// For asset fetches: the rows' cameras and lenses with how many rows have each, no limit;
    /// nil for other classes.
    var cameras: SQLFragment?
    /// For asset fetches in the timeline's order (by local creation date) with no condition of
    /// their own: each local day and how many rows it holds, in that order, from the day tally
    /// (schema step v26), so that a timeline's days read one row a day, not one an asset; nil
    /// otherwise.
    var creationDayCounts: SQLFragment?
    /// Whether ``creationDayCounts`` and the rows run oldest day first.
    var creationDaysAscending = false

    var countsMediaTypes: Bool { mediaTypeCount != nil }

    /// How far into a result in the timeline's order a page starts before it seeks its day
    /// through the day tally instead of stepping over every row before it.
    static let seekingOffset = 10_000

    /// `count` row ids from `offset` (all the rest when `count` is negative), in order.
    func rowIDs(_ db: any SQLDatabase, offset: Int, count: Int, memory: SnapshotMemory? = nil) throws -> [Int64] {
        let bound = count < 0 ? db.dialect.noLimit : count.sqlValue
        if offset >= Self.seekingOffset, limit == 0, let seek = try seek(db, to: offset, memory: memory) {
            return try db.integerColumn(
                "\(select.sql) AND \(seek.condition) ORDER BY \(orderBy) LIMIT ? OFFSET ?",
                select.arguments + [seek.bound, bound, seek.offset.sqlValue])
        }
        return try db.integerColumn(
            "\(select.sql) ORDER BY \(orderBy) LIMIT ? OFFSET ?", select.arguments + [bound, offset.sqlValue])
    }

    /// Where row `offset` of a result in the timeline's order is, found by the day tally's
    /// counts: a condition leaving out the days before its own (the rows of one day are
    /// together in that order, a day's text the date part of their `localCreationDate`), its
    /// bound, and the offset left within its day. A page three quarters into ten million rows
    /// then steps over the rows of one day, not over seven million. Nil without a tally, or
    /// past the last day.
    private func seek(_ db: any SQLDatabase, to offset: Int, memory: SnapshotMemory?) throws -> (
        condition: String, bound: SQLValue, offset: Int
    )? {
        guard let counts = creationDayCounts,
            let days = try (memory ?? SnapshotMemory()).dayCounts(counts, in: db)
        else { return nil }
        var before = 0
        for (day, count) in days.lazy.map({ ($0.day, $0.count) }) {
            if offset < before + count {
                // A day's dates are its text and a space, then the time. Newest first, the days
                // before it in the order are the dates at or past its text and "!" (the
                // character after the space); oldest first, the dates before its own text.
                return creationDaysAscending
                    ? ("asset.localCreationDate >= ?", .text(day), offset - before)
                    : ("asset.localCreationDate < ?", .text(day + "!"), offset - before)
            }
            before += count
        }
        return nil
    }

    /// The runs of rows taken on the same local day, in order, the limit applied; with the
    /// rows' sizes when `aspectRatios` (else two constants, so that an index without them does).
    func creationDays(_ db: any SQLDatabase, aspectRatios: Bool) throws -> [AssetDay] {
        guard let creationDays else { return [] }
        if !aspectRatios, limit == 0, let counts = creationDayCounts {
            return try db.rows(counts.sql, counts.arguments).map { row in
                guard let text = row.values.first?.text, let (year, month, day) = AssetDay.parse(isoDay: text),
                    let count = row.values.dropFirst().first?.integer, count > 0, count <= Int64(Int32.max)
                else {
                    throw LibraryError(.storageFailed, "the day tally holds a row that is not a day and a count")
                }
                return AssetDay(year: year, month: month, day: day, count: Int(count))
            }
        }
        let bound = limit > 0 ? limit.sqlValue : db.dialect.noLimit
        let sizes = aspectRatios ? "asset.pixelWidth, asset.pixelHeight" : "0, 0"
        return try db.creationDays(
            "SELECT asset.creationDate, asset.creationTimeZoneOffset, \(sizes) \(creationDays.sql) LIMIT ?",
            creationDays.arguments + [bound], aspectRatios: aspectRatios)
    }

    /// The cameras and lenses of the rows, the fetch limit applied, the most used first; at most
    /// `limit` of them (nil: all).
    func cameras(_ db: any SQLDatabase, limit most: Int?) throws -> [AssetCamera] {
        guard let cameras else { return [] }
        var sql = cameras.sql
        var arguments = cameras.arguments
        if limit > 0 {
            // Which rows the limit keeps depends on the order: group those.
            sql = """
                SELECT asset.cameraMake, asset.cameraModel, asset.lensModel, COUNT(*) FROM asset
                WHERE asset.id IN (\(select.sql) ORDER BY \(orderBy) LIMIT ?) GROUP BY 1, 2, 3
                """
            arguments = select.arguments + [limit.sqlValue]
        }
        arguments.append(most.map { max(0, $0).sqlValue } ?? db.dialect.noLimit)
        return try db.rows(sql + " ORDER BY 4 DESC, 1, 2, 3 LIMIT ?", arguments).map { row in
            AssetCamera(
                make: row.values[0].text, model: row.values[1].text, lensModel: row.values[2].text,
                count: Int(row.values[3].integer ?? 0))
        }
    }

    /// The number of rows, the limit applied.
    func count(_ db: any SQLDatabase) throws -> Int {
        let counted: Int64
        if let fastCount {
            counted = try db.integer(fastCount.sql, fastCount.arguments) ?? 0
        } else if limit > 0 {
            return Int(
                try db.integer(
                    "SELECT COUNT(*) FROM (\(select.sql) LIMIT ?) AS counted", select.arguments + [limit.sqlValue]) ?? 0
            )
        } else {
            counted = try db.integer("SELECT COUNT(*) FROM (\(select.sql)) AS counted", select.arguments) ?? 0
        }
        return limit > 0 ? Swift.min(limit, Int(counted)) : Int(counted)
    }

    /// The number of rows of one media type, the limit applied (asset fetches only).
    func count(_ db: any SQLDatabase, mediaType: Int) throws -> Int {
        guard let mediaTypeCount else { return 0 }
        if limit > 0 {
            // Which rows the limit keeps depends on the order: count among those.
            return Int(
                try db.integer(
                    """
                    SELECT COUNT(*) FROM (\(select.sql) ORDER BY \(orderBy) LIMIT ?) AS kept
                    JOIN asset ON asset.id = kept.id WHERE asset.mediaType = ?
                    """, select.arguments + [limit.sqlValue, mediaType.sqlValue]) ?? 0)
        }
        return Int(try db.integer(mediaTypeCount.sql, mediaTypeCount.arguments + [mediaType.sqlValue]) ?? 0)
    }
}

extension SQLDatabase {
    /// The `column` values of the rows of `table` with these local identifiers (those that
    /// exist), looked up in chunks that stay under SQLite's limit on parameters.
    func rowIDs(_ column: String, in table: String, localIdentifiers: [String]) throws -> [Int64] {
        var found: [Int64] = []
        var start = 0
        while start < localIdentifiers.count {
            let chunk = localIdentifiers[start..<Swift.min(localIdentifiers.count, start + 500)]
            let marks = Array(repeating: "?", count: chunk.count).joined(separator: ",")
            found += try integerColumn(
                "SELECT \(column) FROM \(table) WHERE localIdentifier IN (\(marks))", chunk.map(\.sqlValue))
            start += chunk.count
        }
        return found
    }
}
