import Foundation
import Hummingbird
import Lightbox
import LightboxTestSupport
import Testing

@testable import LightboxServer

/// docs/API.md's route reference is made from the router's table, as `/api/openapi.json` is, so
/// the API is described once: beside each route.
@Suite("docs/API.md")
struct APIReferenceTests {
    static let file = Corpus.packageRoot.appendingPathComponent("docs/API.md")

    @Test("docs/API.md lists every route as the router's table describes it (make api-docs writes it)")
    func referenceIsTheRoutersTable() throws {
        let folder = try TemporaryDirectory()
        let table = LightboxServer.routeTable(library: try folder.makeLibrary())
        let made = APIReference.markdown(from: table)
        let text = try String(contentsOf: Self.file, encoding: .utf8)
        let written = try #require(text.range(of: APIReference.marker), "docs/API.md lacks its marker line")
        let byHand = text[..<written.lowerBound]
        if ProcessInfo.processInfo.environment["LIGHTBOX_WRITE_API_DOCS"] == "1" {
            try (byHand + made).write(to: Self.file, atomically: true, encoding: .utf8)
            return
        }
        #expect(String(text[written.lowerBound...]) == made, "docs/API.md differs from the routes: run make api-docs")
        // Every route is in it, and each once.
        for route in table.routes() {
            let heading = "### `\(route.method.rawValue) \(OpenAPIDocument.openAPIPath(route.path))`"
            #expect(made.components(separatedBy: heading + "\n").count == 2, "\(heading) is not listed once")
        }
    }
}
