/// A PostgreSQL connection inside a transaction, as the shared statements see it.
struct PostgresTransaction: SQLDatabase {
    let link: PostgresLink

    var dialect: SQLDialect { .postgres }

    func execute(_ sql: String, _ arguments: [SQLValue]) throws {
        try link.execute(sql, arguments)
    }

    func integerColumn(_ sql: String, _ arguments: [SQLValue]) throws -> [Int64] {
        try link.integers(sql, arguments)
    }

    func creationDays(_ sql: String, _ arguments: [SQLValue], aspectRatios: Bool) throws -> [AssetDay] {
        try link.creationDays(sql, arguments, aspectRatios: aspectRatios)
    }

    func rows(_ sql: String, _ arguments: [SQLValue]) throws -> [SQLRow] {
        let (names, rows) = try link.namedRows(sql, arguments)
        let columns = Dictionary(
            names.enumerated().map { ($0.element, $0.offset) }, uniquingKeysWith: { first, _ in first })
        return rows.map { SQLRow(columns: columns, values: $0) }
    }
}
