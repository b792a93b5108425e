import Foundation

/// A JSON value written as a Swift literal: the OpenAPI document's parts.
indirect enum JSONValue: Sendable, Hashable, Encodable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    case string(String)
    case int(Int)
    case double(Double)
    case bool(Bool)
    case array([JSONValue])
    case object([String: JSONValue])
    case null

    init(stringLiteral value: String) { self = .string(value) }
    init(integerLiteral value: Int) { self = .int(value) }
    init(floatLiteral value: Double) { self = .double(value) }
    init(booleanLiteral value: Bool) { self = .bool(value) }
    init(arrayLiteral elements: JSONValue...) { self = .array(elements) }

    init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .bool(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        case .null: try container.encodeNil()
        }
    }

    /// This object with `other`'s members added (or replaced).
    func merging(_ other: [String: JSONValue]) -> JSONValue {
        guard case .object(var members) = self else { return self }
        members.merge(other) { _, new in new }
        return .object(members)
    }
}

/// Shorthands for JSON Schema (2020-12, which OpenAPI 3.1 uses).
enum Schema {
    static func ref(_ name: String) -> JSONValue { ["$ref": .string("#/components/schemas/" + name)] }
    static let string: JSONValue = ["type": "string"]
    static let integer: JSONValue = ["type": "integer"]
    static let number: JSONValue = ["type": "number"]
    static let boolean: JSONValue = ["type": "boolean"]
    /// A date and time as ISO 8601 with its offset.
    static let date: JSONValue = ["type": "string", "format": "date-time"]
    static let sha256: JSONValue = ["type": "string", "pattern": "^[0-9a-f]{64}$"]

    static func integer(_ range: ClosedRange<Int>) -> JSONValue {
        ["type": "integer", "minimum": .int(range.lowerBound), "maximum": .int(range.upperBound)]
    }

    static func string(_ values: [String]) -> JSONValue {
        ["type": "string", "enum": .array(values.map(JSONValue.string))]
    }

    static func string(length: ClosedRange<Int>) -> JSONValue {
        ["type": "string", "minLength": .int(length.lowerBound), "maxLength": .int(length.upperBound)]
    }

    static func array(_ items: JSONValue, count: ClosedRange<Int>? = nil) -> JSONValue {
        var schema: [String: JSONValue] = ["type": "array", "items": items]
        if let count {
            schema["minItems"] = .int(count.lowerBound)
            schema["maxItems"] = .int(count.upperBound)
        }
        return .object(schema)
    }

    /// An object with these properties, those in `required` always present.
    static func object(_ properties: [String: JSONValue], required: [String] = []) -> JSONValue {
        var schema: [String: JSONValue] = ["type": "object", "properties": .object(properties)]
        if !required.isEmpty { schema["required"] = .array(required.sorted().map(JSONValue.string)) }
        return .object(schema)
    }

    /// A map from strings to `values`.
    static func map(_ values: JSONValue) -> JSONValue { ["type": "object", "additionalProperties": values] }
}
