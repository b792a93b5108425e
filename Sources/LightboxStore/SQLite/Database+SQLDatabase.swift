import Foundation
import GRDB
import GRDBSQLite

/// GRDB's connection, inside the transaction GRDB opened, as the shared statements see it.
extension Database: SQLDatabase {
    var dialect: SQLDialect { .sqlite }

    func execute(_ sql: String, _ arguments: [SQLValue]) throws {
        try execute(sql: sql, arguments: StatementArguments(arguments.map(\.databaseValue)))
    }

    func rows(_ sql: String, _ arguments: [SQLValue]) throws -> [SQLRow] {
        let statement = try cachedStatement(sql: sql)
        let columns = Dictionary(
            statement.columnNames.enumerated().map { ($0.element, $0.offset) }, uniquingKeysWith: { first, _ in first })
        return try Row.fetchAll(statement, arguments: StatementArguments(arguments.map(\.databaseValue))).map {
            row in
            SQLRow(columns: columns, values: row.databaseValues.map(Self.value))
        }
    }

    private static func value(_ value: DatabaseValue) -> SQLValue {
        switch value.storage {
        case .null: .null
        case .int64(let integer): .integer(integer)
        case .double(let real): .real(real)
        case .string(let text): .text(text)
        case .blob(let data): .blob([UInt8](data))
        }
    }
}

extension SQLValue {
    /// The value as GRDB binds it.
    var databaseValue: DatabaseValue {
        switch self {
        case .null: .null
        case .integer(let integer): integer.databaseValue
        case .real(let real): real.databaseValue
        case .text(let text): text.databaseValue
        case .blob(let bytes): Data(bytes).databaseValue
        }
    }
}

extension Database {
    /// The first column of every row of a query, as integers, stepped through with SQLite's C
    /// API: a million row ids take about a third of the time GRDB's cursor takes, which
    /// change details over large results and `index(of:)` feel.
    func integerColumn(_ sql: String, _ arguments: [SQLValue]) throws -> [Int64] {
        let statement = try makeStatement(sql: sql)
        try statement.setArguments(StatementArguments(arguments.map(\.databaseValue)))
        let raw = statement.sqliteStatement
        defer { sqlite3_reset(raw) }
        var values: [Int64] = []
        while true {
            switch sqlite3_step(raw) {
            case SQLITE_ROW:
                if sqlite3_column_type(raw, 0) != SQLITE_NULL { values.append(sqlite3_column_int64(raw, 0)) }
            case SQLITE_DONE: return values
            case let code: throw failure(code, sql)
            }
        }
    }

    /// The runs of rows taken on the same local day (with their shapes when `aspectRatios`):
    /// the dates stepped through with SQLite's C API and parsed from their bytes.
    func creationDays(_ sql: String, _ arguments: [SQLValue], aspectRatios: Bool) throws -> [AssetDay] {
        let statement = try makeStatement(sql: sql)
        try statement.setArguments(StatementArguments(arguments.map(\.databaseValue)))
        let raw = statement.sqliteStatement
        defer { sqlite3_reset(raw) }
        var runs = AssetDay.Runs(aspectRatios: aspectRatios)
        while true {
            switch sqlite3_step(raw) {
            case SQLITE_ROW:
                let length = Int(sqlite3_column_bytes(raw, 0))
                let text = sqlite3_column_text(raw, 0).map { UnsafeBufferPointer(start: $0, count: length) }
                guard let text, let date = StoredDate.parse(bytes: text) else {
                    throw LibraryError(.storageFailed, "an asset's creationDate is not a stored date")
                }
                runs.add(
                    AssetDay.dayNumber(date, offsetSeconds: Int(sqlite3_column_int64(raw, 1))),
                    width: sqlite3_column_int64(raw, 2), height: sqlite3_column_int64(raw, 3))
            case SQLITE_DONE: return runs.finish()
            case let code: throw failure(code, sql)
            }
        }
    }

    /// The map's points stepped through with SQLite's C API and counted here: SQLite's GROUP BY
    /// sorts every row into a temporary tree first, most of a second for a million.
    func mapGrid(_ sql: String, _ arguments: [SQLValue], into grid: inout MapGrid) throws {
        let statement = try makeStatement(sql: sql)
        try statement.setArguments(StatementArguments(arguments.map(\.databaseValue)))
        let raw = statement.sqliteStatement
        defer { sqlite3_reset(raw) }
        while true {
            switch sqlite3_step(raw) {
            case SQLITE_ROW:
                let latitude = sqlite3_column_double(raw, 0)
                let longitude = sqlite3_column_double(raw, 1)
                // The schema's checks keep them on the earth; a catalog written by something else
                // is not trusted to.
                guard latitude.isFinite, longitude.isFinite, abs(latitude) <= 90, abs(longitude) <= 180 else {
                    continue
                }
                grid.add(latitude: latitude, longitude: longitude, id: sqlite3_column_int64(raw, 2))
            case SQLITE_DONE: return
            case let code: throw failure(code, sql)
            }
        }
    }

    private func failure(_ code: Int32, _ sql: String) -> DatabaseError {
        DatabaseError(
            resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(sqliteConnection)), sql: sql
        )
    }
}
