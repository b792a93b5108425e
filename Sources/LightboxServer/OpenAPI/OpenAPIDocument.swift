import Foundation
import Hummingbird
import Lightbox
import Synchronization

/// The OpenAPI 3.1 document of the server, made from the router's own table: every route the
/// router has, with what it takes and answers (``APIOperation``), who may call it, and the
/// model's schemas. Served at `GET /api/openapi.json`.
final class OpenAPIDocument: Sendable {
    static func make(from table: MethodTable) -> JSONValue {
        var paths: [String: JSONValue] = [:]
        for route in table.routes() {
            let path = openAPIPath(route.path)
            var item: [String: JSONValue] = [:]
            if case .object(let existing) = paths[path] { item = existing }
            item[route.method.rawValue.lowercased()] = operation(route)
            paths[path] = .object(item)
        }
        return [
            "openapi": "3.1.0",
            "info": [
                "title": "Lightbox",
                "version": "1",
                "description": """
                A photo library: assets, albums, smart albums, moments and folders; images at any size; \
                edits; uploads; persistent changes and a change stream. Errors are one JSON form, \
                {"error": {"code", "message"}}, with a stable word as code. Changes answer their \
                transaction's change token in X-Lightbox-Change-Token. A user reaches an album \
                shared with them by adding share=ID to a route's query.
                """,
            ],
            "paths": .object(paths),
            "tags": .array(sections(of: table).map { ["name": .string($0)] }),
            "components": [
                "schemas": .object(Schemas.all),
                "securitySchemes": [
                    "bearer": [
                        "type": "http", "scheme": "bearer", "description": "A token from `lightbox token create`.",
                    ],
                    "session": ["type": "apiKey", "in": "cookie", "name": .string(AccessMiddleware.cookieName)],
                    "link": [
                        "type": "apiKey", "in": "query", "name": "link",
                        "description":
                            "A shared album's link key: the album's assets alone, read-only (also `X-Lightbox-Link`). A link with a password also wants the proof `POST /api/links/unlock` answers, as its cookie or `X-Lightbox-Link-Unlock`.",
                    ],
                ],
            ],
        ]
    }

    /// The routes' sections, in the order their first route was added.
    static func sections(of table: MethodTable) -> [String] {
        var seen: Set<String> = []
        return table.routes().map(\.section).filter { !$0.isEmpty && seen.insert($0).inserted }
    }

    /// `/api/assets/:id` as OpenAPI writes it: `/api/assets/{id}`.
    static func openAPIPath(_ path: String) -> String {
        path.split(separator: "/", omittingEmptySubsequences: false).map { part in
            part.hasPrefix(":") ? "{" + part.dropFirst() + "}" : String(part)
        }.joined(separator: "/")
    }

    static func operation(_ route: MethodTable.Route) -> JSONValue {
        let spec = route.operation
        var operation: [String: JSONValue] = [
            "summary": .string(spec.summary),
            "operationId": .string(operationID(route)),
        ]
        if let details = spec.details { operation["description"] = .string(details) }
        if !route.section.isEmpty { operation["tags"] = [.string(route.section)] }
        var parameters: [JSONValue] = route.path.split(separator: "/").filter { $0.hasPrefix(":") }.map { part in
            ["name": .string(String(part.dropFirst())), "in": "path", "required": true, "schema": Schema.string]
        }
        for parameter in spec.parameters {
            parameters.append([
                "name": .string(parameter.name), "in": .string(parameter.location.rawValue),
                "required": .bool(parameter.required), "schema": parameter.schema,
                "description": .string(parameter.description),
            ])
        }
        if !parameters.isEmpty { operation["parameters"] = .array(parameters) }
        switch spec.body {
        case .json(let schema):
            operation["requestBody"] = ["required": true, "content": ["application/json": ["schema": schema]]]
        case .bytes:
            operation["requestBody"] = [
                "required": true,
                "content": ["application/octet-stream": ["schema": ["type": "string", "format": "binary"]]],
            ]
        case nil:
            break
        }
        var responses: [String: JSONValue] = [:]
        for response in spec.responses {
            var answer: [String: JSONValue] = ["description": .string(response.description)]
            switch response.content {
            case .none: break
            case .json(let schema): answer["content"] = ["application/json": ["schema": schema]]
            case .media(let types):
                answer["content"] = .object(
                    Dictionary(
                        uniqueKeysWithValues: types.map { ($0, ["schema": ["type": "string", "format": "binary"]]) }))
            case .eventStream: answer["content"] = ["text/event-stream": ["schema": Schema.string]]
            case .html: answer["content"] = ["text/html": ["schema": Schema.string]]
            }
            if response.changeToken {
                answer["headers"] = [
                    "X-Lightbox-Change-Token": [
                        "description": "The change token of the transaction the request made.",
                        "schema": ["type": "string", "pattern": "^[0-9]+$"],
                    ]
                ]
            }
            responses[String(response.status)] = .object(answer)
        }
        responses["default"] = [
            "description": "An error, in Lightbox's one form.",
            "content": ["application/json": ["schema": Schema.ref("Error")]],
        ]
        operation["responses"] = .object(responses)
        switch route.access {
        case .open: operation["security"] = []
        // A shared album's link reads, and reaches nothing else.
        case .read: operation["security"] = [["bearer": []], ["session": []], ["link": []]]
        default: operation["security"] = [["bearer": []], ["session": []]]
        }
        operation["x-lightbox-access"] = .string("\(route.access)")
        return .object(operation)
    }

    /// A stable name for an operation: its method and path in lower camel case
    /// (`getApiAssetsId`).
    static func operationID(_ route: MethodTable.Route) -> String {
        let words =
            [route.method.rawValue.lowercased()]
            + route.path.split(whereSeparator: { $0 == "/" || $0 == ":" || $0 == "." || $0 == "-" }).map(String.init)
        return words.enumerated().map {
            $0.offset == 0 ? $0.element : $0.element.prefix(1).uppercased() + $0.element.dropFirst()
        }
        .joined()
    }

    /// The routes the document describes.
    let table: MethodTable
    /// The document, made once.
    private let made = Mutex<ByteBuffer?>(nil)

    init(table: MethodTable) {
        self.table = table
    }

    static let documentOperation = APIOperation(
        "This document: every route, with what it takes and answers.",
        responses: [.json(200, "The OpenAPI 3.1 document.", ["type": "object"])])

    @Sendable
    func document(_ _: Request, _ _: LightboxRequestContext) async throws -> Response {
        let bytes = try made.withLock { cached in
            if let cached { return cached }
            let made = ByteBuffer(bytes: try JSONEncoder.lightbox.encode(Self.make(from: table)))
            cached = made
            return made
        }
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: bytes))
    }
}
