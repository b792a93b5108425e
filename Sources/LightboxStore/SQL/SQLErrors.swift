import GRDB

/// What the two databases' errors mean to the catalog.
enum SQLErrors {
    /// A unique constraint stopped the statement: on SQLite or PostgreSQL alike.
    static func isUniqueViolation(_ error: any Error) -> Bool {
        if let error = error as? DatabaseError { return error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE }
        if let error = error as? PostgresLink.Failure { return error.isUniqueViolation }
        return false
    }
}
