import Foundation

/// The statements of one transaction, on SQLite (GRDB's `Database`) or PostgreSQL
/// (``PostgresTransaction``): what the catalog's operations are written against, so that
/// one statement serves both stores. Statements use `?` placeholders and the SQL both
/// servers read alike (`RETURNING`, `ON CONFLICT`, row values); where they differ,
/// ``dialect`` says which to write.
protocol SQLDatabase {
    var dialect: SQLDialect { get }

    /// Runs a statement.
    func execute(_ sql: String, _ arguments: [SQLValue]) throws

    /// Every row a query gives.
    func rows(_ sql: String, _ arguments: [SQLValue]) throws -> [SQLRow]

    /// The first column of every row, as integers (NULLs left out): the hot path of fetch
    /// results, a million row ids at a time, which each store reads its fastest way.
    func integerColumn(_ sql: String, _ arguments: [SQLValue]) throws -> [Int64]

    /// The runs of rows taken on the same local day, from a query giving each row's
    /// `creationDate` and `creationTimeZoneOffset` in order: a timeline over a million assets
    /// reads them all.
    func creationDays(_ sql: String, _ arguments: [SQLValue], aspectRatios: Bool) throws -> [AssetDay]

    /// Adds the points a query gives (latitude, longitude and row id, a row each) to the map's
    /// `grid`: every visible located asset of a view of the earth.
    func mapGrid(_ sql: String, _ arguments: [SQLValue], into grid: inout MapGrid) throws
}

extension SQLDatabase {
    func integerColumn(_ sql: String, _ arguments: [SQLValue]) throws -> [Int64] {
        try rows(sql, arguments).compactMap { $0.values.first?.integer }
    }

    func creationDays(_ sql: String, _ arguments: [SQLValue], aspectRatios: Bool) throws -> [AssetDay] {
        var runs = AssetDay.Runs(aspectRatios: aspectRatios)
        for row in try rows(sql, arguments) {
            guard let date = row.values[0].date else {
                throw LibraryError(.storageFailed, "an asset's creationDate is not a stored date")
            }
            runs.add(
                AssetDay.dayNumber(date, offsetSeconds: Int(clamping: row.values[1].integer ?? 0)),
                width: row.values[2].integer ?? 0, height: row.values[3].integer ?? 0)
        }
        return runs.finish()
    }
}

extension SQLDatabase {
    func execute(_ sql: String, _ arguments: [any SQLBindable] = []) throws {
        try execute(sql, arguments.map(\.sqlValue))
    }

    func rows(_ sql: String, _ arguments: [any SQLBindable] = []) throws -> [SQLRow] {
        try rows(sql, arguments.map(\.sqlValue))
    }

    /// The first column of the first row; nil when there is no row or it is NULL.
    func value(_ sql: String, _ arguments: [any SQLBindable] = []) throws -> SQLValue? {
        guard let value = try rows(sql, arguments).first?.values.first, value != .null else { return nil }
        return value
    }

    func integer(_ sql: String, _ arguments: [any SQLBindable] = []) throws -> Int64? {
        try value(sql, arguments)?.integer
    }

    func text(_ sql: String, _ arguments: [any SQLBindable] = []) throws -> String? {
        try value(sql, arguments)?.text
    }

    /// The first column of every row (NULLs left out).
    func integers(_ sql: String, _ arguments: [any SQLBindable] = []) throws -> [Int64] {
        try rows(sql, arguments).compactMap { $0.values.first?.integer }
    }

    func texts(_ sql: String, _ arguments: [any SQLBindable] = []) throws -> [String] {
        try rows(sql, arguments).compactMap { $0.values.first?.text }
    }
}

/// Where SQLite's SQL and PostgreSQL's part.
enum SQLDialect: Sendable {
    case sqlite
    case postgres

    /// The 1-based position of `needle` in `text` (0 when absent), both SQL expressions.
    func position(of needle: String, in text: String) -> String {
        switch self {
        case .sqlite: "instr(\(text), \(needle))"
        case .postgres: "strpos(\(text), \(needle))"
        }
    }

    /// `text` lowercased across all of Unicode: SQLite's own `lower` folds ASCII only, so
    /// GRDB's `swiftLowercaseString` (registered on every connection) does it there.
    func lowercase(_ text: String) -> String {
        switch self {
        case .sqlite: "swiftLowercaseString(\(text))"
        case .postgres: "lower(\(text))"
        }
    }

    /// The integer part of a non-negative number, a SQL expression: SQLite's cast truncates it,
    /// PostgreSQL's rounds (so it floors first).
    func wholePart(of number: String) -> String {
        switch self {
        case .sqlite: "CAST(\(number) AS INTEGER)"
        case .postgres: "CAST(FLOOR(\(number)) AS BIGINT)"
        }
    }

    /// The value a `LIMIT ?` is bound to for no limit.
    var noLimit: SQLValue {
        switch self {
        case .sqlite: .integer(-1)
        case .postgres: .null
        }
    }

    /// A sort term's direction, NULL first ascending and last descending as SQLite sorts it (and
    /// Swift's optionals): PostgreSQL sorts it the other way unless told.
    func order(ascending: Bool, nullable: Bool) -> String {
        switch (self, nullable) {
        case (.postgres, true): ascending ? "ASC NULLS FIRST" : "DESC NULLS LAST"
        default: ascending ? "ASC" : "DESC"
        }
    }

    /// A text compared without case, for accounts' names: SQLite's NOCASE column compares so
    /// already (ASCII), PostgreSQL folds both sides.
    func caseless(_ text: String) -> String {
        switch self {
        case .sqlite: text
        case .postgres: "lower(\(text))"
        }
    }

    /// Whether two SQL expressions differ, NULL being a value like any other (never NULL).
    func isDistinct(_ left: String, from right: String) -> String {
        switch self {
        case .sqlite: "\(left) IS NOT \(right)"
        case .postgres: "\(left) IS DISTINCT FROM \(right)"
        }
    }

    /// The last `count` characters of `text` (SQL expressions; `count` at least 0).
    func suffix(of text: String, count: String) -> String {
        switch self {
        case .sqlite: "substr(\(text), -(\(count)))"
        case .postgres: "right(\(text), \(count))"
        }
    }
}

/// A value bound to a statement or read from a row: the types the catalog stores, the same on
/// SQLite and PostgreSQL (dates are text in GRDB's form, flags integers), so that one
/// statement reads alike on both.
enum SQLValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    var integer: Int64? {
        switch self {
        case .integer(let value): value
        case .real(let value) where value.isFinite && value.rounded() == value && abs(value) < 9e18: Int64(value)
        default: nil
        }
    }

    var real: Double? {
        switch self {
        case .real(let value): value
        case .integer(let value): Double(value)
        default: nil
        }
    }

    var text: String? {
        if case .text(let value) = self { return value }
        return nil
    }

    /// A date stored as text in GRDB's form (``StoredDate``).
    var date: Date? {
        text.flatMap(StoredDate.parse)
    }
}

/// One row of a query's answer: its values in column order, and their names.
struct SQLRow: Sendable {
    /// Column names and their index, shared by the rows of one answer.
    let columns: [String: Int]
    let values: [SQLValue]

    /// The value of the named column, in any case (PostgreSQL folds unquoted names to lower
    /// case); `.null` for a name the query did not select.
    subscript(_ name: String) -> SQLValue {
        (columns[name] ?? columns[name.lowercased()]).map { values[$0] } ?? .null
    }

    /// The named column as an integer; throws when it is NULL or not one.
    func integer(_ name: String) throws -> Int64 {
        guard let value = self[name].integer else { throw Self.missing(name, self[name], "an integer") }
        return value
    }

    func text(_ name: String) throws -> String {
        guard let value = self[name].text else { throw Self.missing(name, self[name], "text") }
        return value
    }

    func real(_ name: String) throws -> Double {
        guard let value = self[name].real else { throw Self.missing(name, self[name], "a number") }
        return value
    }

    func date(_ name: String) throws -> Date {
        guard let value = self[name].date else { throw Self.missing(name, self[name], "a date") }
        return value
    }

    private static func missing(_ name: String, _ value: SQLValue, _ kind: String) -> LibraryError {
        LibraryError(.storageFailed, "the library's \(name) column holds \(value), not \(kind)")
    }
}

/// What can be bound to a statement.
protocol SQLBindable {
    var sqlValue: SQLValue { get }
}

extension SQLValue: SQLBindable {
    var sqlValue: SQLValue { self }
}

extension Int64: SQLBindable {
    var sqlValue: SQLValue { .integer(self) }
}

extension Int: SQLBindable {
    var sqlValue: SQLValue { .integer(Int64(self)) }
}

extension Int32: SQLBindable {
    var sqlValue: SQLValue { .integer(Int64(self)) }
}

extension Double: SQLBindable {
    var sqlValue: SQLValue { .real(self) }
}

extension String: SQLBindable {
    var sqlValue: SQLValue { .text(self) }
}

extension Bool: SQLBindable {
    var sqlValue: SQLValue { .integer(self ? 1 : 0) }
}

extension Date: SQLBindable {
    /// GRDB's text form, UTC, milliseconds (what the SQLite store has always written).
    var sqlValue: SQLValue { .text(StoredDate.format(self)) }
}

extension Optional: SQLBindable where Wrapped: SQLBindable {
    var sqlValue: SQLValue { self?.sqlValue ?? .null }
}
