import Foundation
import Hummingbird

/// The route reference of docs/API.md, made from the router's own table as the OpenAPI document
/// is: each route under its section with who may call it, what it takes and what it answers,
/// then the schemas. `make api-docs` writes it below the hand-written part; a test fails when
/// the file and the table differ.
enum APIReference {
    /// The line docs/API.md's made part follows; what is above it is written by hand.
    static let marker =
        "<!-- Everything below is made from the router's table (`make api-docs`): change the routes, not this. -->"

    static func markdown(from table: MethodTable) -> String {
        let routes = table.routes()
        var text = marker + "\n"
        for section in OpenAPIDocument.sections(of: table) {
            text += "\n## \(section)\n"
            for route in routes where route.section == section { text += entry(route) }
        }
        text += "\n## Schemas\n\nThe JSON the routes take and answer, as the model's encoders write it.\n"
        for name in Schemas.all.keys.sorted() {
            text += "\n### \(name)\n\n" + members(of: Schemas.all[name] ?? [:])
        }
        return text
    }

    static func entry(_ route: MethodTable.Route) -> String {
        let operation = route.operation
        var text = "\n### `\(route.method.rawValue) \(OpenAPIDocument.openAPIPath(route.path))`\n\n"
        text += operation.summary + "\n"
        if let details = operation.details { text += "\n" + details + "\n" }
        text += "\n- Who: " + who(route.access) + "\n"
        for parameter in operation.parameters {
            let required = parameter.required ? ", required" : ""
            text +=
                "- \(parameter.location == .query ? "Query" : "Header") `\(parameter.name)` "
                + "(\(type(parameter.schema))\(required)): \(parameter.description)\n"
        }
        switch operation.body {
        case .json(let schema): text += "- Body: " + type(schema) + "\n"
        case .bytes: text += "- Body: the file's bytes (`application/octet-stream`)\n"
        case nil: break
        }
        for response in operation.responses {
            var content: String
            switch response.content {
            case .none: content = ""
            case .json(let schema): content = " " + type(schema)
            case .media(let types): content = " " + types.map { "`\($0)`" }.joined(separator: ", ")
            case .eventStream: content = " `text/event-stream`"
            case .html: content = " HTML"
            }
            let token = response.changeToken ? " (with `X-Lightbox-Change-Token`)" : ""
            text += "- \(response.status)\(content): \(response.description)\(token)\n"
        }
        return text
    }

    static func who(_ access: RouteAccess) -> String {
        switch access {
        case .open: "anyone"
        case .read: "any caller signed in or with a token, or a shared link's holder"
        case .write: "a caller who may change the library: a session, a write token, the local owner"
        case .contribute: "a caller who may change the library, or who contributes to the album shared with them"
        case .person: "a person signed in (or the local owner), never a token"
        case .admin: "an admin, or the local owner"
        }
    }

    /// A schema in a few words: `Asset`, `[string]`, `{"title": string, "assets": [string]}`.
    static func type(_ schema: JSONValue, depth: Int = 0) -> String {
        guard case .object(let members) = schema else { return "any" }
        if case .string(let reference) = members["$ref"] {
            return "`" + (reference.split(separator: "/").last.map(String.init) ?? reference) + "`"
        }
        if case .array(let choices) = members["oneOf"] {
            return choices.map { type($0, depth: depth) }.joined(separator: " or ")
        }
        if case .array(let types) = members["type"] {
            return types.map { type(.object(members.merging(["type": $0]) { $1 }), depth: depth) }
                .joined(separator: " or ")
        }
        switch members["type"] {
        case .string("array"):
            return "[" + type(members["items"] ?? [:], depth: depth + 1) + "]"
        case .string("object"):
            if let values = members["additionalProperties"] {
                return "{string: " + type(values, depth: depth + 1) + "}"
            }
            guard case .object(let properties) = members["properties"], !properties.isEmpty else { return "object" }
            guard depth < 2 else { return "{…}" }
            return "{"
                + properties.keys.sorted().map { "\"\($0)\": " + type(properties[$0] ?? [:], depth: depth + 1) }
                .joined(separator: ", ") + "}"
        case .string(let name):
            if case .array(let values) = members["enum"] {
                return values.map { value in
                    switch value {
                    case .string(let word): "\"\(word)\""
                    case .int(let number): String(number)
                    default: "…"
                    }
                }.joined(separator: " \\| ")
            }
            if case .string(let format) = members["format"] { return "\(name) (\(format))" }
            if case .int(let low) = members["minimum"], case .int(let high) = members["maximum"] {
                return "\(name) \(low)...\(high)"
            }
            return name
        default:
            return "any"
        }
    }

    /// An object schema's members, one line each (a required one marked), or its type.
    static func members(of schema: JSONValue) -> String {
        guard case .object(let members) = schema, case .object(let properties) = members["properties"] else {
            return type(schema) + "\n"
        }
        var required: Set<String> = []
        if case .array(let names) = members["required"] {
            for case .string(let name) in names { required.insert(name) }
        }
        return properties.keys.sorted().map { name in
            var line = "- `\(name)`: " + type(properties[name] ?? [:], depth: 1)
            if required.contains(name) { line += ", always" }
            if case .object(let property) = properties[name], case .string(let description) = property["description"] {
                line += ". " + description
            }
            return line + "\n"
        }.joined()
    }
}
