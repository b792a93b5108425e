import Foundation

/// What a route takes and answers, for the OpenAPI document and docs/API.md: written beside
/// the route, so both list exactly the routes the router has, described once.
struct APIOperation: Sendable {
    /// One sentence: what the route does.
    var summary: String
    /// What a client needs beyond the summary and the schemas (Markdown): limits, what an
    /// answer means, how it pages; nil when the summary says it all.
    var details: String?
    var parameters: [APIParameter] = []
    var body: APIBody? = nil
    var responses: [APIResponse] = []

    init(
        _ summary: String, details: String? = nil, parameters: [APIParameter] = [], body: APIBody? = nil,
        responses: [APIResponse] = []
    ) {
        self.summary = summary
        self.details = details
        self.parameters = parameters
        self.body = body
        self.responses = responses
    }
}

/// A query or header parameter.
struct APIParameter: Sendable {
    enum Location: String, Sendable { case query, header }

    var name: String
    var location: Location
    var schema: JSONValue
    var required: Bool
    var description: String

    static func query(_ name: String, _ schema: JSONValue, required: Bool = false, _ description: String) -> Self {
        Self(name: name, location: .query, schema: schema, required: required, description: description)
    }

    static func header(_ name: String, _ schema: JSONValue, required: Bool = false, _ description: String) -> Self {
        Self(name: name, location: .header, schema: schema, required: required, description: description)
    }

    static let limit = query("limit", Schema.integer(1...500), "The most items in the page.")
    static let after = query("after", Schema.string, "The `next` of the previous page.")
    static let offset = query(
        "offset", Schema.integer(0...Int(Int32.max)), "Where the page starts in the whole fetch (instead of `after`).")
    static let at = query("at", Schema.string, "The asset the page starts at (instead of `after`).")
}

/// A request's body.
enum APIBody: Sendable {
    /// JSON matching the schema.
    case json(JSONValue)
    /// A file's bytes.
    case bytes
}

/// One answer a route gives.
struct APIResponse: Sendable {
    enum Content: Sendable {
        case none
        case json(JSONValue)
        /// Bytes of these media types.
        case media([String])
        case eventStream
        case html
    }

    var status: Int
    var description: String
    var content: Content
    /// Whether it carries the transaction's change token.
    var changeToken = false

    static func json(_ status: Int = 200, _ description: String, _ schema: JSONValue, changeToken: Bool = false) -> Self
    {
        Self(status: status, description: description, content: .json(schema), changeToken: changeToken)
    }

    static func empty(_ status: Int = 204, _ description: String, changeToken: Bool = false) -> Self {
        Self(status: status, description: description, content: .none, changeToken: changeToken)
    }

    static func media(_ status: Int = 200, _ description: String, _ types: [String]) -> Self {
        Self(status: status, description: description, content: .media(types))
    }
}
