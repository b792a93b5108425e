import Foundation
import GRDB

/// A predicate or sort compiled to SQL: text with `?` placeholders and their values.
struct SQLFragment {
    var sql: String
    var arguments: StatementArguments
}

extension FetchPredicate {
    /// Compiles the predicate to a SQL condition over the class's columns, every value bound
    /// as a parameter. Throws ``LibraryError/Code-swift.struct/invalidPredicate`` naming the
    /// unknown key or the value that does not fit its key.
    func sql(for keys: FetchKeys) throws -> SQLFragment {
        var arguments = StatementArguments()
        let text = try compile(keys, &arguments)
        return SQLFragment(sql: text, arguments: arguments)
    }

    private func compile(_ keys: FetchKeys, _ arguments: inout StatementArguments) throws -> String {
        let condition = try compileCondition(keys, &arguments)
        // SQL's NULL would make `NOT (x = 1)` unknown, and drop the row; a predicate is true or false.
        // A condition with a value is NULL only where the column is: `AND column IS NOT NULL`
        // makes it false there and leaves the column's index usable, which COALESCE hides.
        switch self {
        case .comparison(_, let op, let value) where value == .null || op == .notEqual:
            return condition  // IS NULL, IS NOT NULL, IS NOT ?: never NULL
        case .comparison(let name, _, _), .between(let name, _, _), .bitmask(let name, _, _), .text(let name, _, _, _):
            let key = try keys.key(name)
            guard key.nullable else { return condition }
            return key.isPlainColumn ? "(\(condition) AND \(key.column) IS NOT NULL)" : "COALESCE(\(condition), 0)"
        case .isIn(let name, _):
            if try keys.key(name).nullable { return "COALESCE(\(condition), 0)" }
        default:
            break
        }
        return condition
    }

    private func compileCondition(_ keys: FetchKeys, _ arguments: inout StatementArguments) throws -> String {
        switch self {
        case .constant(let value):
            return value ? "1" : "0"
        case .and(let all):
            guard !all.isEmpty else { return "1" }
            return "(" + (try all.map { try $0.compile(keys, &arguments) }).joined(separator: " AND ") + ")"
        case .or(let all):
            guard !all.isEmpty else { return "0" }
            return "(" + (try all.map { try $0.compile(keys, &arguments) }).joined(separator: " OR ") + ")"
        case .not(let inner):
            return "(NOT " + (try inner.compile(keys, &arguments)) + ")"
        case .comparison(let name, let op, let value):
            let key = try keys.key(name)
            if value == .null {
                switch op {
                case .equal: return "(\(key.column) IS NULL)"
                case .notEqual: return "(\(key.column) IS NOT NULL)"
                default: throw Self.invalid("\(name) \(op.rawValue) nil: only == and != compare with nil")
                }
            }
            if key.kind == .bool, op != .equal, op != .notEqual {
                throw Self.invalid("\(name) is true or false; compare it with == or !=, not \(op.rawValue)")
            }
            arguments += [try Self.bind(value, to: key, name: name)]
            // A NULL column is never equal to a value; `!=` must still include it.
            if op == .notEqual { return "(\(key.column) IS NOT ?)" }
            return "(\(key.column) \(op == .equal ? "=" : op.rawValue) ?)"
        case .between(let name, let low, let high):
            let key = try keys.key(name)
            arguments += [try Self.bind(low, to: key, name: name), try Self.bind(high, to: key, name: name)]
            return "(\(key.column) BETWEEN ? AND ?)"
        case .isIn(let name, let values):
            let key = try keys.key(name)
            guard !values.isEmpty else { return "0" }
            for value in values { arguments += [try Self.bind(value, to: key, name: name)] }
            return "(\(key.column) IN (" + Array(repeating: "?", count: values.count).joined(separator: ",") + "))"
        case .bitmask(let name, let mask, let isSet):
            let key = try keys.key(name)
            guard key.kind == .int else { throw Self.invalid("\(name) is not a bit set; & applies to integer keys") }
            arguments += [mask]
            return "((\(key.column) & ?) \(isSet ? "!=" : "=") 0)"
        case .text(let name, let op, let value, let caseInsensitive):
            let key = try keys.key(name)
            guard key.kind == .string else {
                throw Self.invalid("\(name) is not text; \(op.rawValue) applies to text keys")
            }
            // GRDB's swiftLowercaseString folds all of Unicode, where SQLite's LIKE folds ASCII only.
            let column = caseInsensitive ? "swiftLowercaseString(\(key.column))" : key.column
            let needle = caseInsensitive ? "swiftLowercaseString(?)" : "?"
            switch op {
            case .contains:
                arguments += [value]
                return "(instr(\(column), \(needle)) > 0)"
            case .beginsWith:
                arguments += [value]
                return "(instr(\(column), \(needle)) = 1)"
            case .endsWith:
                arguments += [value, value]
                return "(substr(\(column), -length(?)) = \(needle))"
            }
        }
    }

    /// The database value of a literal for a key of the given kind.
    private static func bind(_ value: FetchValue, to key: FetchKeys.Key, name: String) throws -> (
        any DatabaseValueConvertible
    )? {
        switch (key.kind, value) {
        case (.int, .int(let v)): return v
        case (.int, .double(let v)):
            // The text's number, which may be past Int's range (or infinite): never converted
            // by trapping.
            guard let whole = Int(exactly: v) else {
                throw invalid("\(name) holds whole numbers from \(Int.min) to \(Int.max), not \(value)")
            }
            return whole
        case (.int, .bool(let v)): return v ? 1 : 0
        case (.double, .int(let v)): return Double(v)
        case (.double, .double(let v)): return v
        case (.bool, .bool(let v)): return v
        case (.bool, .int(let v)) where v == 0 || v == 1: return v == 1
        case (.string, .string(let v)): return v
        case (.date, .date(let v)): return v
        case (.date, .string(let v)):
            guard let date = ISO8601.date(from: v) else {
                throw invalid(
                    "\(name) needs a date in ISO 8601 (2023-01-01 or 2023-01-01T10:00:00+02:00), not \"\(v)\"")
            }
            return date
        default:
            throw invalid("\(name) cannot be compared with \(value): it holds \(key.kind) values")
        }
    }

    static func invalid(_ message: String) -> LibraryError {
        LibraryError(.invalidPredicate, message)
    }
}
