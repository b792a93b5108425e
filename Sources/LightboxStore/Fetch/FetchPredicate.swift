import Foundation

/// A value a predicate compares a key with.
public enum FetchValue: Sendable, Hashable, CustomStringConvertible {
    case int(Int)
    case double(Double)
    case bool(Bool)
    case string(String)
    case date(Date)
    case null

    public var description: String {
        switch self {
        case .int(let value): "\(value)"
        case .double(let value): "\(value)"
        case .bool(let value): value ? "true" : "false"
        case .string(let value): "\"\(value)\""
        case .date(let value): ISO8601.string(from: value, offsetSeconds: 0)
        case .null: "nil"
        }
    }
}

/// How a key is compared with a value.
public enum ComparisonOperator: String, Sendable, Hashable, CaseIterable {
    case equal = "=="
    case notEqual = "!="
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="
}

/// How a text key is matched.
public enum TextOperator: String, Sendable, Hashable, CaseIterable {
    case contains = "CONTAINS"
    case beginsWith = "BEGINSWITH"
    case endsWith = "ENDSWITH"
}

/// A condition on the objects a fetch returns (PhotoKit's `NSPredicate`), over the keys of
/// the fetched class (see ``FetchKeys``).
///
/// Two ways to write one, both compiled to SQL with bound parameters:
///
/// ```swift
/// // Typed:
/// let favorites2023: FetchPredicate = .favorite == true
///     && .creationDate >= .date(start) && .creationDate < .date(end)
/// // Text, for the command line and HTTP:
/// let same = try FetchPredicate("favorite == true AND creationDate BETWEEN {2023-01-01, 2024-01-01}")
/// let live = try FetchPredicate("mediaSubtypes & photoLive != 0")
/// ```
public indirect enum FetchPredicate: Sendable, Hashable {
    /// `key op value`.
    case comparison(key: String, ComparisonOperator, FetchValue)
    /// `key BETWEEN {low, high}`, both ends included.
    case between(key: String, FetchValue, FetchValue)
    /// `key IN {values}`.
    case isIn(key: String, [FetchValue])
    /// `key & mask != 0` (`isSet`) or `key & mask == 0`.
    case bitmask(key: String, mask: Int, isSet: Bool)
    /// `key CONTAINS[c] "text"`; `caseInsensitive` is the `[c]`.
    case text(key: String, TextOperator, String, caseInsensitive: Bool)
    /// Every predicate holds (`AND`).
    case and([FetchPredicate])
    /// At least one predicate holds (`OR`).
    case or([FetchPredicate])
    /// The predicate does not hold (`NOT`).
    case not(FetchPredicate)
    /// Always true or always false (`TRUEPREDICATE`, `FALSEPREDICATE`).
    case constant(Bool)

    /// The start of a typed predicate on a key named at run time: `FetchPredicate.key("favorite") == true`.
    public static func key(_ name: String) -> FetchKeyPath { FetchKeyPath(name: name) }

    /// Both hold.
    public static func && (lhs: FetchPredicate, rhs: FetchPredicate) -> FetchPredicate {
        switch (lhs, rhs) {
        case (.and(let a), .and(let b)): .and(a + b)
        case (.and(let a), _): .and(a + [rhs])
        case (_, .and(let b)): .and([lhs] + b)
        default: .and([lhs, rhs])
        }
    }

    /// Either holds.
    public static func || (lhs: FetchPredicate, rhs: FetchPredicate) -> FetchPredicate {
        switch (lhs, rhs) {
        case (.or(let a), .or(let b)): .or(a + b)
        case (.or(let a), _): .or(a + [rhs])
        case (_, .or(let b)): .or([lhs] + b)
        default: .or([lhs, rhs])
        }
    }

    /// Does not hold.
    public static prefix func ! (predicate: FetchPredicate) -> FetchPredicate {
        .not(predicate)
    }

    /// Every key the predicate names.
    public var keys: [String] {
        switch self {
        case .comparison(let key, _, _), .between(let key, _, _), .isIn(let key, _), .bitmask(let key, _, _),
            .text(let key, _, _, _):
            [key]
        case .and(let all), .or(let all): all.flatMap(\.keys)
        case .not(let inner): inner.keys
        case .constant: []
        }
    }
}

extension FetchPredicate {
    /// The predicate with key `name` read as `replacement` wherever it is compared.
    func renamingKey(_ name: String, to replacement: String) -> FetchPredicate {
        func renamed(_ key: String) -> String { key == name ? replacement : key }
        switch self {
        case .comparison(let key, let op, let value): return .comparison(key: renamed(key), op, value)
        case .between(let key, let low, let high): return .between(key: renamed(key), low, high)
        case .isIn(let key, let values): return .isIn(key: renamed(key), values)
        case .bitmask(let key, let mask, let isSet): return .bitmask(key: renamed(key), mask: mask, isSet: isSet)
        case .text(let key, let op, let value, let folded):
            return .text(key: renamed(key), op, value, caseInsensitive: folded)
        case .and(let all): return .and(all.map { $0.renamingKey(name, to: replacement) })
        case .or(let all): return .or(all.map { $0.renamingKey(name, to: replacement) })
        case .not(let inner): return .not(inner.renamingKey(name, to: replacement))
        case .constant: return self
        }
    }
}

/// A key in a typed predicate, waiting for its operator: `.pixelWidth > .int(4000)`.
public struct FetchKeyPath: Sendable, Hashable {
    /// The key's name, as in the text form.
    public var name: String

    /// A key by name.
    public init(name: String) {
        self.name = name
    }

    /// The object itself (its local identifier): `SELF IN {...}`.
    public static let SELF = FetchKeyPath(name: "SELF")
    /// localIdentifier.
    public static let localIdentifier = FetchKeyPath(name: "localIdentifier")
    /// An asset's creationDate.
    public static let creationDate = FetchKeyPath(name: "creationDate")
    /// An asset's modificationDate.
    public static let modificationDate = FetchKeyPath(name: "modificationDate")
    /// An asset's mediaType (raw value).
    public static let mediaType = FetchKeyPath(name: "mediaType")
    /// An asset's mediaSubtypes (a bit set: use ``hasAnyBit(_:)``).
    public static let mediaSubtypes = FetchKeyPath(name: "mediaSubtypes")
    /// An asset's duration in seconds.
    public static let duration = FetchKeyPath(name: "duration")
    /// An asset's pixelWidth.
    public static let pixelWidth = FetchKeyPath(name: "pixelWidth")
    /// An asset's pixelHeight.
    public static let pixelHeight = FetchKeyPath(name: "pixelHeight")
    /// Whether an asset is a favourite.
    public static let favorite = FetchKeyPath(name: "favorite")
    /// Whether an asset is hidden.
    public static let hidden = FetchKeyPath(name: "hidden")
    /// An asset's burstIdentifier.
    public static let burstIdentifier = FetchKeyPath(name: "burstIdentifier")

    public static func == (lhs: FetchKeyPath, rhs: FetchValue) -> FetchPredicate {
        .comparison(key: lhs.name, .equal, rhs)
    }
    public static func != (lhs: FetchKeyPath, rhs: FetchValue) -> FetchPredicate {
        .comparison(key: lhs.name, .notEqual, rhs)
    }
    public static func < (lhs: FetchKeyPath, rhs: FetchValue) -> FetchPredicate {
        .comparison(key: lhs.name, .less, rhs)
    }
    public static func <= (lhs: FetchKeyPath, rhs: FetchValue) -> FetchPredicate {
        .comparison(key: lhs.name, .lessOrEqual, rhs)
    }
    public static func > (lhs: FetchKeyPath, rhs: FetchValue) -> FetchPredicate {
        .comparison(key: lhs.name, .greater, rhs)
    }
    public static func >= (lhs: FetchKeyPath, rhs: FetchValue) -> FetchPredicate {
        .comparison(key: lhs.name, .greaterOrEqual, rhs)
    }
    public static func == (lhs: FetchKeyPath, rhs: Bool) -> FetchPredicate {
        .comparison(key: lhs.name, .equal, .bool(rhs))
    }
    public static func == (lhs: FetchKeyPath, rhs: Int) -> FetchPredicate {
        .comparison(key: lhs.name, .equal, .int(rhs))
    }
    public static func == (lhs: FetchKeyPath, rhs: String) -> FetchPredicate {
        .comparison(key: lhs.name, .equal, .string(rhs))
    }

    /// `key BETWEEN {low, high}`.
    public func between(_ low: FetchValue, _ high: FetchValue) -> FetchPredicate {
        .between(key: name, low, high)
    }

    /// `key IN {values}`.
    public func isIn(_ values: [FetchValue]) -> FetchPredicate {
        .isIn(key: name, values)
    }

    /// `key & mask != 0`: any of the mask's bits is set.
    public func hasAnyBit(_ mask: Int) -> FetchPredicate {
        .bitmask(key: name, mask: mask, isSet: true)
    }

    /// `key CONTAINS[c] text`.
    public func contains(_ text: String, caseInsensitive: Bool = true) -> FetchPredicate {
        .text(key: name, .contains, text, caseInsensitive: caseInsensitive)
    }

    /// `key BEGINSWITH[c] text`.
    public func beginsWith(_ text: String, caseInsensitive: Bool = true) -> FetchPredicate {
        .text(key: name, .beginsWith, text, caseInsensitive: caseInsensitive)
    }
}
