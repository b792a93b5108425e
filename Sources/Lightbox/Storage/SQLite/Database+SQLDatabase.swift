import Foundation
import GRDB

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
