import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTesting
import Lightbox
import Testing

@testable import LightboxServer

/// The one place library errors meet HTTP statuses.
@Suite("Error responses")
struct ErrorMiddlewareTests {
    @Test("A busy image manager answers 503 with Retry-After; a timed-out or damaged render 422; one error form")
    func statuses() async throws {
        let router = Router(context: LightboxRequestContext.self)
        let routes = Routes(router: router)
        router.add(middleware: ErrorMiddleware(methods: routes.table))
        routes.add(
            Route(
                .get, "/busy", .open,
                { _, _ in
                    throw LibraryError(.busy, "256 images are waiting to be rendered; ask again in a moment")
                }, APIOperation("Busy")), section: "Tests")
        routes.add(
            Route(
                .get, "/damaged", .open, { _, _ in throw LibraryError(.corruptFile, "the render took too long") },
                APIOperation("Damaged")), section: "Tests")
        try await Application(router: router).test(.router) { client in
            try await client.execute(uri: "/busy", method: .get) { response in
                #expect(response.status == .serviceUnavailable)
                #expect(response.headers[.retryAfter] == "1")
                let body =
                    try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any]
                #expect((body?["error"] as? [String: Any])?["code"] as? String == "busy")
            }
            try await client.execute(uri: "/damaged", method: .get) { response in
                #expect(response.status == .unprocessableContent)
                #expect(response.headers[.retryAfter] == nil)
            }
        }
    }

    @Test("Query parameters decode as a form sends them: + is a space, %XX a byte; what is not UTF-8 stays")
    func formQuery() {
        let query = URI("/x?a=1&b=fav+%3D%3D+true&c=%E2%9C%93&d=%ZZ%2&e=%FF+x&f=plain").formQuery
        #expect(query.get("a") == "1" && query.get("f") == "plain")
        #expect(query.get("b") == "fav == true")
        #expect(query.get("c") == "✓")
        #expect(query.get("d") == "%ZZ%2")
        #expect(query.get("e") == "%FF x")
    }
}
