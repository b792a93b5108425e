import Foundation

/// A predicate or sort compiled to SQL: text with `?` placeholders and their values.
struct SQLFragment: Sendable {
    var sql: String
    var arguments: [SQLValue]
}

extension FetchPredicate {
    /// Compiles the predicate to a SQL condition over the class's columns, every value bound
    /// as a parameter. Throws ``LibraryError/Code-swift.struct/invalidPredicate`` naming the
    /// unknown key or the value that does not fit its key.
    func sql(for keys: FetchKeys, _ dialect: SQLDialect) throws -> SQLFragment {
        var arguments: [SQLValue] = []
        let text = try compile(keys, dialect, &arguments)
        return SQLFragment(sql: text, arguments: arguments)
    }

    /// The key a comparison, range, list, bit test or text match names; nil for the others.
    private var leafKey: String? {
        switch self {
        case .comparison(let key, _, _), .between(let key, _, _), .isIn(let key, _), .bitmask(let key, _, _),
            .text(let key, _, _, _):
            key
        case .and, .or, .not, .constant: nil
        }
    }

    private func compile(_ keys: FetchKeys, _ dialect: SQLDialect, _ arguments: inout [SQLValue]) throws -> String {
        if let name = leafKey, let key = try? keys.key(name), key.fullText {
            guard case .comparison(_, .equal, .string(let value)) = self else {
                throw Self.invalid("\(name) takes == and a text: \(name) == \"red car\"")
            }
            let words = SearchWords.tokens(of: value)
            guard !words.isEmpty else { return "FALSE" }
            return "("
                + words.map { word in
                    arguments += dialect.fullTextArguments(word, withPeople: key.fullTextPeople)
                    return "asset.id IN (\(dialect.fullTextMatch(withPeople: key.fullTextPeople)))"
                }.joined(separator: " AND ") + ")"
        }
        if let name = leafKey, let key = try? keys.key(name), let scope = key.anyOf {
            // A to-many key: the condition on one related row, inside the relation's EXISTS.
            var plain = keys.keys
            plain[name] = FetchKeys.Key(column: key.column, kind: key.kind, foldsCase: key.foldsCase)
            let related = FetchKeys(className: keys.className, keys: plain, tiebreaker: keys.tiebreaker)
            func exists(_ condition: String) -> String {
                "(" + scope.replacingOccurrences(of: "%@", with: condition) + ")"
            }
            switch self {
            case .comparison(_, .equal, .null): return "(NOT \(exists("TRUE")))"
            case .comparison(_, .notEqual, .null): return exists("TRUE")
            case .comparison(let name, .notEqual, let value):
                let equal = try FetchPredicate.comparison(key: name, .equal, value)
                    .compileCondition(related, dialect, &arguments)
                return "(NOT \(exists(equal)))"
            default:
                return exists(try compileCondition(related, dialect, &arguments))
            }
        }
        let condition = try compileCondition(keys, dialect, &arguments)
        // SQL's NULL would make `NOT (x = 1)` unknown, and drop the row; a predicate is true or false.
        // A condition with a value is NULL only where the column is: `AND column IS NOT NULL`
        // makes it false there and leaves the column's index usable, which COALESCE hides.
        switch self {
        case .comparison(_, let op, let value) where value == .null || op == .notEqual:
            return condition  // IS NULL, IS NOT NULL, IS NOT ?: never NULL
        case .comparison(let name, _, _), .between(let name, _, _), .bitmask(let name, _, _), .text(let name, _, _, _):
            let key = try keys.key(name)
            guard key.nullable else { return condition }
            return key.isPlainColumn ? "(\(condition) AND \(key.column) IS NOT NULL)" : "COALESCE(\(condition), FALSE)"
        case .isIn(let name, _):
            if try keys.key(name).nullable { return "COALESCE(\(condition), FALSE)" }
        default:
            break
        }
        return condition
    }

    private func compileCondition(_ keys: FetchKeys, _ dialect: SQLDialect, _ arguments: inout [SQLValue]) throws
        -> String
    {
        switch self {
        case .constant(let value):
            return value ? "TRUE" : "FALSE"
        case .and(let all):
            guard !all.isEmpty else { return "TRUE" }
            return "(" + (try all.map { try $0.compile(keys, dialect, &arguments) }).joined(separator: " AND ") + ")"
        case .or(let all):
            guard !all.isEmpty else { return "FALSE" }
            return "(" + (try all.map { try $0.compile(keys, dialect, &arguments) }).joined(separator: " OR ") + ")"
        case .not(let inner):
            return "(NOT " + (try inner.compile(keys, dialect, &arguments)) + ")"
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
            if op == .notEqual { return "(\(dialect.isDistinct(key.column, from: "?")))" }
            return "(\(key.column) \(op == .equal ? "=" : op.rawValue) ?)"
        case .between(let name, let low, let high):
            let key = try keys.key(name)
            arguments += [try Self.bind(low, to: key, name: name), try Self.bind(high, to: key, name: name)]
            return "(\(key.column) BETWEEN ? AND ?)"
        case .isIn(let name, let values):
            let key = try keys.key(name)
            guard !values.isEmpty else { return "FALSE" }
            for value in values { arguments += [try Self.bind(value, to: key, name: name)] }
            return "(\(key.column) IN (" + Array(repeating: "?", count: values.count).joined(separator: ",") + "))"
        case .bitmask(let name, let mask, let isSet):
            let key = try keys.key(name)
            guard key.kind == .int else { throw Self.invalid("\(name) is not a bit set; & applies to integer keys") }
            arguments += [mask.sqlValue]
            return "((\(key.column) & ?) \(isSet ? "!=" : "=") 0)"
        case .text(let name, let op, let value, let caseInsensitive):
            let key = try keys.key(name)
            guard key.kind == .string else {
                throw Self.invalid("\(name) is not text; \(op.rawValue) applies to text keys")
            }
            let value = key.foldsCase ? value.lowercased() : value
            // Folded across all of Unicode on both stores (SQLite's own LIKE folds ASCII only).
            let column = caseInsensitive ? dialect.lowercase(key.column) : key.column
            let needle = caseInsensitive ? dialect.lowercase("?") : "?"
            switch op {
            case .contains:
                arguments += [.text(value)]
                return "(\(dialect.position(of: needle, in: column)) > 0)"
            case .beginsWith:
                arguments += [.text(value)]
                return "(\(dialect.position(of: needle, in: column)) = 1)"
            case .endsWith:
                arguments += [.text(value), .text(value)]
                return "(\(dialect.suffix(of: column, count: "length(?)")) = \(needle))"
            }
        }
    }

    /// The database value of a literal for a key of the given kind.
    private static func bind(_ value: FetchValue, to key: FetchKeys.Key, name: String) throws -> SQLValue {
        switch (key.kind, value) {
        case (.int, .int(let v)): return v.sqlValue
        case (.int, .double(let v)):
            // The text's number, which may be past Int's range (or infinite): never converted
            // by trapping.
            guard let whole = Int(exactly: v) else {
                throw invalid("\(name) holds whole numbers from \(Int.min) to \(Int.max), not \(value)")
            }
            return whole.sqlValue
        case (.int, .bool(let v)): return (v ? 1 : 0).sqlValue
        case (.double, .int(let v)): return Double(v).sqlValue
        case (.double, .double(let v)): return v.sqlValue
        case (.bool, .bool(let v)): return v.sqlValue
        case (.bool, .int(let v)) where v == 0 || v == 1: return (v == 1).sqlValue
        case (.string, .string(let v)): return (key.foldsCase ? v.lowercased() : v).sqlValue
        case (.date, .date(let v)): return v.sqlValue
        case (.date, .string(let v)):
            guard let date = ISO8601.date(from: v) else {
                throw invalid(
                    "\(name) needs a date in ISO 8601 (2023-01-01 or 2023-01-01T10:00:00+02:00), not \"\(v)\"")
            }
            return date.sqlValue
        default:
            throw invalid("\(name) cannot be compared with \(value): it holds \(key.kind) values")
        }
    }

    static func invalid(_ message: String) -> LibraryError {
        LibraryError(.invalidPredicate, message)
    }
}
