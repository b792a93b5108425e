import Foundation

extension FetchPredicate {
    /// Parses the text form, for the command line and HTTP:
    ///
    /// - comparisons `key == value` (also `=`, `!=`, `<>`, `<`, `<=`, `>`, `>=`);
    /// - `key BETWEEN {low, high}`, `key IN {a, b, c}`;
    /// - bit tests `mediaSubtypes & photoLive != 0` (or `== 0`);
    /// - `key CONTAINS[c] "text"`, `BEGINSWITH`, `ENDSWITH` (`[c]`: case-insensitive);
    /// - `AND`/`&&`, `OR`/`||`, `NOT`/`!`, parentheses, `TRUEPREDICATE`, `FALSEPREDICATE`.
    ///
    /// Values: numbers, "text" or 'text', `true`/`false` (`YES`/`NO`), `nil`, dates in ISO 8601
    /// (`2023-01-01`, `2023-01-01T10:00:00Z`), and the model's names for media types
    /// (`image`, `video`, ...) and subtypes (`photoLive`, `photoScreenshot`, ...).
    ///
    /// Keys are checked when the predicate is used on a class (see ``FetchKeys``), not here.
    ///
    /// The text is untrusted (a query string, a command line): it is bounded to
    /// ``PredicateParser/maximumLength`` characters, ``PredicateParser/maximumDepth`` levels of
    /// parentheses and `NOT`, ``PredicateParser/maximumTerms`` comparisons and
    /// ``PredicateParser/maximumListCount`` values a list; past any of them it is refused with
    /// ``LibraryError/Code-swift.struct/invalidPredicate``, before recursion or SQL could suffer.
    public init(_ text: String) throws {
        guard text.count <= PredicateParser.maximumLength else {
            throw LibraryError(
                .invalidPredicate,
                "predicate: \(text.count) characters, more than the \(PredicateParser.maximumLength) a predicate may have"
            )
        }
        var parser = PredicateParser(text)
        self = try parser.parse()
    }
}

/// A recursive-descent parser of the predicate text form.
package struct PredicateParser {
    package enum Token: Equatable {
        case word(String)
        case number(String)
        case string(String)
        case symbol(String)
        case end
    }

    /// The longest text parsed.
    package static let maximumLength = 16_384
    /// The deepest nesting of parentheses and `NOT`s: the parser recurses once a level.
    package static let maximumDepth = 64
    /// The most comparisons (and constants) one predicate holds: each is a SQL condition.
    package static let maximumTerms = 512
    /// The most values of one `IN` list: each is a SQL parameter.
    package static let maximumListCount = 1_000

    private let characters: [Character]
    private var position = 0
    private var token: Token = .end
    private var tokenStart = 0
    private var depth = 0
    private var terms = 0

    /// Names a value may use instead of a number: the model's raw values.
    package static let namedValues: [String: Int] = {
        var names: [String: Int] = [:]
        for type in AssetMediaType.allCases { names["\(type)"] = type.rawValue }
        let subtypes: [(String, AssetMediaSubtypes)] = [
            ("photoPanorama", .photoPanorama), ("photoHDR", .photoHDR), ("photoScreenshot", .photoScreenshot),
            ("photoLive", .photoLive), ("photoDepthEffect", .photoDepthEffect), ("photoAnimation", .photoAnimation),
            ("videoStreamed", .videoStreamed), ("videoHighFrameRate", .videoHighFrameRate),
            ("videoTimelapse", .videoTimelapse), ("videoScreenRecording", .videoScreenRecording),
        ]
        for (name, value) in subtypes { names[name] = value.rawValue }
        return names
    }()

    package init(_ text: String) {
        characters = Array(text)
    }

    package mutating func parse() throws -> FetchPredicate {
        try advance()
        let predicate = try parseOr()
        guard token == .end else { throw error("expected the end of the predicate") }
        return predicate
    }

    // MARK: Grammar

    private mutating func parseOr() throws -> FetchPredicate {
        var result = try parseAnd()
        while isKeyword("OR") || token == .symbol("||") {
            try advance()
            result = result || (try parseAnd())
        }
        return result
    }

    private mutating func parseAnd() throws -> FetchPredicate {
        var result = try parseNot()
        while isKeyword("AND") || token == .symbol("&&") {
            try advance()
            result = result && (try parseNot())
        }
        return result
    }

    private mutating func parseNot() throws -> FetchPredicate {
        if isKeyword("NOT") || token == .symbol("!") {
            try enter()
            defer { depth -= 1 }
            try advance()
            return .not(try parseNot())
        }
        return try parsePrimary()
    }

    /// One level deeper, refused past ``maximumDepth``.
    private mutating func enter() throws {
        depth += 1
        guard depth <= Self.maximumDepth else {
            throw error("more than \(Self.maximumDepth) levels of parentheses and NOT")
        }
    }

    private mutating func parsePrimary() throws -> FetchPredicate {
        if token == .symbol("(") {
            try enter()
            defer { depth -= 1 }
            try advance()
            let inner = try parseOr()
            try expect(.symbol(")"), "expected )")
            return inner
        }
        terms += 1
        guard terms <= Self.maximumTerms else { throw error("more than \(Self.maximumTerms) comparisons") }
        if isKeyword("TRUEPREDICATE") {
            try advance()
            return .constant(true)
        }
        if isKeyword("FALSEPREDICATE") {
            try advance()
            return .constant(false)
        }
        guard case .word(let key) = token else { throw error("expected a key, such as creationDate") }
        try advance()

        if token == .symbol("&") {
            try advance()
            let mask = try parseValue()
            let maskValue: Int
            switch mask {
            case .int(let v): maskValue = v
            default: throw error("expected a number or a subtype name after &")
            }
            guard case .symbol(let op) = token, ["==", "=", "!=", "<>", ">"].contains(op) else {
                throw error("expected != 0 or == 0 after \(key) & \(maskValue)")
            }
            try advance()
            guard try parseValue() == .int(0) else { throw error("a bit test compares with 0") }
            return .bitmask(key: key, mask: maskValue, isSet: op != "==" && op != "=")
        }
        if case .symbol(let op) = token, let comparison = Self.comparison(op) {
            try advance()
            return .comparison(key: key, comparison, try parseValue())
        }
        if isKeyword("BETWEEN") {
            try advance()
            let values = try parseList()
            guard values.count == 2 else { throw error("BETWEEN takes two values: {low, high}") }
            return .between(key: key, values[0], values[1])
        }
        if isKeyword("IN") {
            try advance()
            return .isIn(key: key, try parseList())
        }
        for op in TextOperator.allCases where isKeyword(op.rawValue) {
            try advance()
            var caseInsensitive = false
            if token == .symbol("[") {
                try advance()
                guard case .word(let flags) = token, flags.allSatisfy({ "cd".contains($0) }) else {
                    throw error("expected [c] or [cd]")
                }
                caseInsensitive = flags.contains("c")
                try advance()
                try expect(.symbol("]"), "expected ]")
            }
            guard case .string(let text) = token else { throw error("\(op.rawValue) takes quoted text") }
            try advance()
            return .text(key: key, op, text, caseInsensitive: caseInsensitive)
        }
        throw error("expected an operator after \(key) (==, !=, <, <=, >, >=, BETWEEN, IN, CONTAINS, BEGINSWITH, &)")
    }

    private mutating func parseList() throws -> [FetchValue] {
        let close: Token
        if token == .symbol("{") {
            close = .symbol("}")
        } else if token == .symbol("(") {
            close = .symbol(")")
        } else {
            throw error("expected a list: {a, b, ...}")
        }
        try advance()
        var values: [FetchValue] = []
        if token != close {
            values.append(try parseValue())
            while token == .symbol(",") {
                try advance()
                values.append(try parseValue())
                guard values.count <= Self.maximumListCount else {
                    throw error("a list of more than \(Self.maximumListCount) values")
                }
            }
        }
        try expect(close, "expected , or the end of the list")
        return values
    }

    private mutating func parseValue() throws -> FetchValue {
        let value: FetchValue
        switch token {
        case .string(let text):
            value = .string(text)
        case .number(let text):
            if text.contains("-") || text.contains(":") {
                guard let date = ISO8601.date(from: text) else { throw error("\(text) is not an ISO 8601 date") }
                value = .date(date)
            } else if let int = Int(text) {
                value = .int(int)
            } else if let double = Double(text) {
                value = .double(double)
            } else {
                throw error("\(text) is not a number")
            }
        case .word(let word):
            switch word.lowercased() {
            case "true", "yes": value = .bool(true)
            case "false", "no": value = .bool(false)
            case "nil", "null": value = .null
            default:
                guard let named = Self.namedValues[word] else {
                    throw error("\(word) is not a value; quote text (\"\(word)\")")
                }
                value = .int(named)
            }
        case .symbol("-"):
            try advance()
            guard case .number(let text) = token, let number = Double(text) else {
                throw error("expected a number after -")
            }
            value = Int(text).map { .int(-$0) } ?? .double(-number)
        default:
            throw error("expected a value")
        }
        try advance()
        return value
    }

    private static func comparison(_ symbol: String) -> ComparisonOperator? {
        switch symbol {
        case "==", "=": .equal
        case "!=", "<>": .notEqual
        case "<": .less
        case "<=", "=<": .lessOrEqual
        case ">": .greater
        case ">=", "=>": .greaterOrEqual
        default: nil
        }
    }

    // MARK: Tokens

    private func isKeyword(_ keyword: String) -> Bool {
        if case .word(let word) = token { return word.uppercased() == keyword }
        return false
    }

    private mutating func expect(_ expected: Token, _ message: String) throws {
        guard token == expected else { throw error(message) }
        try advance()
    }

    private func error(_ message: String) -> LibraryError {
        let found: String
        switch token {
        case .end: found = "the end"
        default: found = "\"" + String(characters[tokenStart..<min(position, characters.count)]) + "\""
        }
        return LibraryError(.invalidPredicate, "predicate, at character \(tokenStart + 1): \(message), found \(found)")
    }

    private mutating func advance() throws {
        while position < characters.count, characters[position].isWhitespace { position += 1 }
        tokenStart = position
        guard position < characters.count else {
            token = .end
            return
        }
        let c = characters[position]
        if c.isLetter || c == "_" {
            var end = position
            while end < characters.count, characters[end].isLetter || characters[end].isNumber || characters[end] == "_"
            {
                end += 1
            }
            // A to-many key's count: `people.@count`.
            let count = Array(".@count")
            if end + count.count <= characters.count, Array(characters[end..<end + count.count]) == count {
                end += count.count
            }
            token = .word(String(characters[position..<end]))
            position = end
        } else if c.isNumber {
            // Numbers and dates: 42, 3.5, 2023-01-01, 2023-01-01T10:00:00.5+02:00
            var end = position
            while end < characters.count {
                let d = characters[end]
                let previous = characters[end - 1 >= position ? end - 1 : position]
                if d.isNumber || d == "." || d == ":" || d == "T" || d == "Z"
                    || (d == "-" && end > position) || (d == "+" && previous.isNumber && end > position)
                {
                    end += 1
                } else {
                    break
                }
            }
            token = .number(String(characters[position..<end]))
            position = end
        } else if c == "\"" || c == "'" {
            var end = position + 1
            var text = ""
            while end < characters.count, characters[end] != c {
                if characters[end] == "\\", end + 1 < characters.count {
                    end += 1
                }
                text.append(characters[end])
                end += 1
            }
            guard end < characters.count else {
                position = end
                throw error("the quoted text is not closed")
            }
            token = .string(text)
            position = end + 1
        } else {
            let two = position + 1 < characters.count ? String(characters[position...position + 1]) : ""
            if ["==", "!=", "<>", "<=", ">=", "=<", "=>", "&&", "||"].contains(two) {
                token = .symbol(two)
                position += 2
            } else if "=<>!&(){},[]-".contains(c) {
                token = .symbol(String(c))
                position += 1
            } else {
                position += 1
                throw error("unexpected character")
            }
        }
    }
}
