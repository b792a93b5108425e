import Foundation
import Hummingbird
import HummingbirdTesting
import Lightbox
import LightboxImaging
import LightboxServer
import LightboxTestSupport
import Testing

extension HTTPFields {
    /// A header name, spelled without naming HTTPTypes' type (not a direct dependency here).
    static func headerName(_ text: String) -> HTTPFields.Element.Name { .init(text)! }
}

@Suite("The HTTP server, in process")
struct ServerTests {
    /// A library holding a few real photos, and the app over it.
    static func makeApp() async throws -> (TemporaryDirectory, PhotoLibrary, some ApplicationProtocol) {
        let folder = try TemporaryDirectory()
        let library = try folder.makeLibrary()
        let paths = Array(try Corpus.photoPaths().prefix(7))
        let summary = await library.importItems(at: paths.map { URL(fileURLWithPath: $0) })
        try #require(summary.progress.imported == paths.count)
        return (folder, library, Application(router: LightboxServer.router(library: library)))
    }

    struct Page: Decodable {
        struct Item: Decodable {
            var localIdentifier: String
            var mediaType: Int
            var pixelWidth: Int
            var pixelHeight: Int
            var creationDate: String
            var resources: [Resource]
        }
        struct Resource: Decodable {
            var type: Int
            var originalFilename: String
        }
        var assets: [Item]
        var next: String?
        var count: Int
    }

    @Test("GET /api/assets/{id}/movie answers a movie's bytes, byte ranges, 304, and 404 for a still")
    func movie() async throws {
        let (folder, library, app) = try await Self.makeApp()
        defer { withExtendedLifetime(folder) {} }
        let source = try Corpus.path("forensics/original-files/movie1/VID_20191220_170832.mp4")
        let summary = await library.importItems(at: [URL(fileURLWithPath: source)])
        guard case .imported(let video) = try #require(summary.results.first).outcome else {
            Issue.record("the movie did not import")
            return
        }
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: source)))
        let all = try library.fetchAssets()
        let still = try #require((0..<all.count).lazy.map { all.object(at: $0) }.first { $0.mediaType == .image })
        let uri = "/api/assets/\(video.localIdentifier)/movie"
        try await app.test(.router) { client in
            let tag = try await client.execute(uri: uri, method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "video/mp4" && response.headers[.acceptRanges] == "bytes")
                #expect(Array(response.body.readableBytesView) == bytes)
                return response.headers[.eTag]
            }
            try await client.execute(uri: uri, method: .get, headers: [.range: "bytes=100-199"]) { response in
                #expect(response.status == .partialContent)
                #expect(response.headers[.contentRange] == "bytes 100-199/\(bytes.count)")
                #expect(Array(response.body.readableBytesView) == Array(bytes[100..<200]))
            }
            try await client.execute(uri: uri, method: .get, headers: [.range: "bytes=-50"]) { response in
                #expect(response.status == .partialContent)
                #expect(Array(response.body.readableBytesView) == Array(bytes.suffix(50)))
            }
            try await client.execute(uri: uri, method: .get, headers: [.range: "bytes=\(bytes.count)-"]) { response in
                #expect(response.status == .rangeNotSatisfiable)
            }
            // An end as far as Int goes is the rest of the file, not a trap on end + 1.
            try await client.execute(uri: uri, method: .get, headers: [.range: "bytes=0-9223372036854775807"]) {
                response in
                #expect(response.status == .partialContent)
                #expect(Array(response.body.readableBytesView) == bytes)
            }
            try await client.execute(uri: uri, method: .get, headers: [.ifNoneMatch: tag ?? ""]) { response in
                #expect(response.status == .notModified)
            }
            try await client.execute(uri: uri + "?version=edited", method: .get) { response in
                #expect(response.status == .badRequest)
            }
            try await client.execute(uri: "/api/assets/\(still.localIdentifier)/movie", method: .get) { response in
                #expect(response.status == .notFound)
            }
        }
    }

    @Test("GET / is the page, and every file it loads is served, with the type a browser needs")
    func page() async throws {
        let (folder, _, app) = try await Self.makeApp()
        defer { withExtendedLifetime(folder) {} }
        // Every file of Web/ in the source tree: the page's modules must all reach the browser.
        let web = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Sources/LightboxServer/Web").standardizedFileURL.path
        let sources = try FileManager.default.contentsOfDirectory(atPath: web).filter { !$0.hasSuffix(".html") }
        try await app.test(.router) { client in
            var pending: [String] = []
            try await client.execute(uri: "/", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType]?.hasPrefix("text/html") == true)
                let html = String(buffer: response.body)
                #expect(html.contains("id=\"grid\""))
                pending = Self.references(in: html, pattern: #"(?:href|src)="/web/([^"]+)""#)
            }
            try await client.execute(uri: "/signin", method: .get) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body).contains("id=\"signin\""))
                pending += Self.references(in: String(buffer: response.body), pattern: #"(?:href|src)="/web/([^"]+)""#)
            }
            // A shared album's page, whatever the key: it asks for the album itself.
            try await client.execute(uri: "/s/any-key", method: .get) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body).contains("id=\"shared-grid\""))
                #expect(response.headers[.init("Referrer-Policy")!] == "no-referrer")
                pending += Self.references(in: String(buffer: response.body), pattern: #"(?:href|src)="/web/([^"]+)""#)
            }
            // Follows the page's links and the modules' imports, as a browser would.
            var served: Set<String> = []
            while let name = pending.popLast() {
                guard served.insert(name).inserted else { continue }
                try await client.execute(uri: "/web/" + name, method: .get) { response in
                    #expect(response.status == .ok, "\(name)")
                    let type = response.headers[.contentType] ?? ""
                    let expected =
                        name.hasSuffix(".css")
                        ? "text/css" : name.hasSuffix(".svg") ? "image/svg+xml" : "text/javascript"
                    #expect(type.hasPrefix(expected), "\(name)")
                    pending += Self.references(
                        in: String(buffer: response.body), pattern: #"(?:from|import) '\./([^']+)'"#)
                    // And the files a module loads when it needs them (the map's Leaflet).
                    pending += Self.references(in: String(buffer: response.body), pattern: #"'/web/([^']+)'"#)
                }
            }
            #expect(served == Set(sources))
            #expect(served.contains("main.js") && served.contains("editor.js"))

            var tag: String?
            try await client.execute(uri: "/web/grid.js", method: .get) { response in
                tag = response.headers[.eTag]
                #expect(String(buffer: response.body).contains("/api/timeline"))
            }
            try await client.execute(
                uri: "/web/grid.js", method: .get, headers: [.ifNoneMatch: try #require(tag)]
            ) { response in
                #expect(response.status == .notModified)
            }
            try await client.execute(uri: "/web/missing.js", method: .get) { response in
                #expect(response.status == .notFound)
            }
        }
    }

    private static func references(in text: String, pattern: String) -> [String] {
        let expression = try! NSRegularExpression(pattern: pattern)
        return expression.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap {
            Range($0.range(at: 1), in: text).map { String(text[$0]) }
        }
    }

    @Test("GET /api/assets pages newest first with keyset cursors, and matches the library")
    func assetsPaging() async throws {
        let (folder, library, app) = try await Self.makeApp()
        defer { withExtendedLifetime(folder) {} }
        let expected = try await library.assets().map(\.localIdentifier)
        try await app.test(.router) { client in
            var seen: [String] = []
            var after: String?
            var pages = 0
            repeat {
                let uri = "/api/assets?limit=3" + (after.map { "&after=\($0)" } ?? "")
                let page = try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == .ok)
                    return try JSONDecoder().decode(Page.self, from: Data(response.body.readableBytesView))
                }
                #expect(page.assets.count <= 3)
                // Every page says how many there are in all, not how many were loaded.
                #expect(page.count == expected.count)
                seen += page.assets.map(\.localIdentifier)
                after = page.next
                pages += 1
            } while after != nil && pages < 10
            #expect(seen == expected)
            #expect(pages == 3)

            try await client.execute(uri: "/api/assets?limit=0", method: .get) { response in
                #expect(response.status == .badRequest)
            }
            try await client.execute(uri: "/api/assets?after=nonsense", method: .get) { response in
                #expect(response.status == .notFound)
            }
        }
    }

    @Test("GET /api/assets with predicate and sort pages through the same assets as a fetch")
    func assetsWithPredicate() async throws {
        let (folder, library, app) = try await Self.makeApp()
        defer { withExtendedLifetime(folder) {} }
        let options = FetchOptions(
            predicate: try FetchPredicate("pixelWidth > 1280"),
            sortDescriptors: try FetchSortDescriptor.parse("pixelWidth desc, creationDate"))
        let expected = try library.fetchAssets(options: options).map(\.localIdentifier)
        #expect(expected.count >= 3 && expected.count < 7, "the predicate selects some assets, not all")
        let query = "predicate=pixelWidth%20%3E%201280&sort=pixelWidth%20desc,creationDate"
        try await app.test(.router) { client in
            var seen: [String] = []
            var after: String?
            repeat {
                let uri = "/api/assets?limit=2&\(query)" + (after.map { "&after=\($0)" } ?? "")
                let page = try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == .ok)
                    return try JSONDecoder().decode(Page.self, from: Data(response.body.readableBytesView))
                }
                #expect(page.count == expected.count)
                seen += page.assets.map(\.localIdentifier)
                after = page.next
            } while after != nil && seen.count < 20
            #expect(seen == expected)

            try await client.execute(uri: "/api/assets?predicate=colour%20%3D%3D%201", method: .get) { response in
                #expect(response.status == .badRequest)
                #expect(String(buffer: response.body).contains("colour"))
            }
            try await client.execute(uri: "/api/assets?sort=creationDate%20sideways", method: .get) { response in
                #expect(response.status == .badRequest)
            }
        }
    }

    @Test("GET /api/changes reports transactions since a token; GET /api/collections lists albums and their assets")
    func changesAndCollections() async throws {
        let (folder, library, app) = try await Self.makeApp()
        defer { withExtendedLifetime(folder) {} }
        let token = try library.currentChangeToken()
        let assets = Array(try library.fetchAssets())
        var created = ""
        try await library.performChanges { changes in
            let request = changes.creationRequestForAssetCollection(withTitle: "Web")
            request.addAssets([assets[2].localIdentifier, assets[0].localIdentifier])
            created = request.localIdentifier
        }
        let album = created
        struct Changes: Decodable {
            struct Change: Decodable {
                struct Details: Decodable { var insertedLocalIdentifiers: [String] }
                var token: Int
                var assetCollection: Details?
            }
            var currentToken: Int
            var changes: [Change]
        }
        struct Collections: Decodable {
            struct Item: Decodable {
                var localIdentifier: String
                var localizedTitle: String?
                var estimatedAssetCount: Int
            }
            var collections: [Item]
        }
        try await app.test(.router) { client in
            try await client.execute(uri: "/api/changes?since=\(token)", method: .get) { response in
                #expect(response.status == .ok)
                let page = try JSONDecoder().decode(Changes.self, from: Data(response.body.readableBytesView))
                #expect(page.changes.count == 1)
                #expect(page.changes.first?.assetCollection?.insertedLocalIdentifiers == [album])
                #expect(page.currentToken == page.changes.last?.token)
            }
            try await client.execute(uri: "/api/changes?since=soon", method: .get) { response in
                #expect(response.status == .badRequest)
            }
            try await client.execute(uri: "/api/collections?predicate=title%20%3D%3D%20'Web'", method: .get) {
                response in
                #expect(response.status == .ok)
                let page = try JSONDecoder().decode(Collections.self, from: Data(response.body.readableBytesView))
                #expect(page.collections.map(\.localIdentifier) == [album])
                #expect(page.collections.first?.estimatedAssetCount == 2)
            }
            try await client.execute(uri: "/api/collections/\(album)/assets", method: .get) { response in
                #expect(response.status == .ok)
                let page = try JSONDecoder().decode(Page.self, from: Data(response.body.readableBytesView))
                #expect(page.assets.map(\.localIdentifier) == [assets[2].localIdentifier, assets[0].localIdentifier])
            }
            try await client.execute(uri: "/api/collections/NOPE/assets", method: .get) { response in
                #expect(response.status == .notFound)
            }
        }
    }

    @Test("An expired change token is 410 Gone")
    func expiredToken() async throws {
        let folder = try TemporaryDirectory()
        let library = try PhotoLibrary(
            url: folder.url.appendingPathComponent("Short.lightbox"),
            historyRetention: HistoryRetention(maximumTransactions: 1))
        _ = await library.importItems(at: try Corpus.photoPaths().prefix(3).map { URL(fileURLWithPath: $0) })
        let app = Application(router: LightboxServer.router(library: library))
        try await app.test(.router) { client in
            try await client.execute(uri: "/api/changes?since=0", method: .get) { response in
                #expect(response.status == .gone)
                #expect(String(buffer: response.body).contains("persistentChangeTokenExpired"))
            }
        }
    }

    struct ErrorEnvelope: Decodable {
        struct Detail: Decodable {
            var code: String
            var message: String
        }
        var error: Detail
    }

    /// The error of a response, which every error answers in one form.
    static func error(_ response: TestResponse) throws -> ErrorEnvelope.Detail {
        try JSONDecoder().decode(ErrorEnvelope.self, from: Data(response.body.readableBytesView)).error
    }

    @Test(
        "Requests as clients send them: + is a space, a wrong method is 405, every error has one form, changes are paged"
    )
    func clientsRequests() async throws {
        let (folder, library, app) = try await Self.makeApp()
        defer { withExtendedLifetime(folder) {} }
        let asset = try #require(await library.assets().first)
        try await library.performChanges { $0.changeRequest(for: asset).isFavorite = true }
        let current = try library.currentChangeToken()
        try await app.test(.router) { client in
            // What `curl --data-urlencode 'predicate=favorite == true'` sends.
            try await client.execute(uri: "/api/assets?predicate=favorite+%3D%3D+true", method: .get) { response in
                #expect(response.status == .ok)
                let page = try JSONDecoder().decode(Page.self, from: Data(response.body.readableBytesView))
                #expect(page.assets.map(\.localIdentifier) == [asset.localIdentifier])
            }
            try await client.execute(uri: "/api/assets", method: .delete) { response in
                #expect(response.status == .methodNotAllowed)
                #expect(response.headers[.allow] == "GET, PATCH")
                let error = try Self.error(response)
                #expect(error.code == "methodNotAllowed")
            }
            try await client.execute(uri: "/api/assets/\(asset.localIdentifier)/edits", method: .put) { response in
                #expect(response.status == .methodNotAllowed)
                #expect(response.headers[.allow] == "DELETE, GET, POST")
            }
            // Errors from the router, a route's checks and the library share one form and a word.
            for (uri, status, code) in [
                ("/api/nothing", HTTPResponse.Status.notFound, "notFound"),
                ("/api/assets?limit=0", .badRequest, "badRequest"),
                ("/api/changes?since=\(current.rawValue + 5)", .badRequest, "invalidRequest"),
                ("/api/assets?predicate=colour+%3D%3D+1", .badRequest, "invalidPredicate"),
            ] {
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == status, "\(uri)")
                    let error = try Self.error(response)
                    #expect(error.code == code && !error.message.isEmpty, "\(uri): \(error)")
                }
            }
            // Predicates a request can make as deep and long as it likes: a 400 with the error form.
            let deep = String(repeating: "(", count: 8_000) + "favorite == true" + String(repeating: ")", count: 8_000)
            let nots = String(repeating: "NOT ", count: 3_000) + "favorite == true"
            let long = Array(repeating: "pixelWidth > 1", count: 600).joined(separator: " OR ")
            for predicate in [deep, nots, long] {
                for route in ["/api/assets", "/api/collections"] {
                    let query = predicate.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
                    try await client.execute(uri: "\(route)?predicate=\(query)", method: .get) { response in
                        #expect(response.status == .badRequest, "\(route), \(predicate.prefix(20))")
                        let error = try Self.error(response)
                        #expect(error.code == "invalidPredicate", "\(error.message)")
                    }
                }
            }
            // The changes a page at a time: 7 imports and a favourite, three at a time.
            var since = "0"
            var tokens: [Int] = []
            for _ in 0..<5 {
                try await client.execute(uri: "/api/changes?since=\(since)&limit=3", method: .get) { response in
                    #expect(response.status == .ok)
                    let page = try #require(
                        try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any])
                    tokens += (page["changes"] as? [[String: Any]] ?? []).compactMap { $0["token"] as? Int }
                    since = (page["next"] as? Int).map(String.init) ?? ""
                }
                if since.isEmpty { break }
            }
            #expect(tokens == Array(1...Int(current.rawValue)))
            // An empty filter list is no edit.
            let json: HTTPFields = [.contentType: "application/json"]
            try await client.execute(
                uri: "/api/assets/\(asset.localIdentifier)/edits", method: .post, headers: json,
                body: ByteBuffer(string: #"{"filters": []}"#)
            ) { response in
                #expect(response.status == .badRequest)
                let error = try Self.error(response)
                #expect(error.message.contains("filters is empty"))
            }
        }
        #expect(try await library.asset(withLocalIdentifier: asset.localIdentifier)?.hasAdjustments == false)
    }

    @Test("DELETE moves an asset to Recently Deleted, restore brings it back, permanently and DELETE /api/trash purge")
    func trash() async throws {
        let (folder, library, app) = try await Self.makeApp()
        defer { withExtendedLifetime(folder) {} }
        let assets = try await library.assets()
        let (first, second) = (assets[0].localIdentifier, assets[1].localIdentifier)
        try await app.test(.router) { client in
            try await client.execute(uri: "/api/assets/\(first)", method: .delete) { response in
                #expect(response.status == .ok)
                let object = try #require(
                    try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any])
                #expect(object["trashedDate"] is String)
            }
            try await client.execute(uri: "/api/assets?limit=100", method: .get) { response in
                let page = try JSONDecoder().decode(Page.self, from: Data(response.body.readableBytesView))
                #expect(page.assets.count == assets.count - 1 && !page.assets.contains { $0.localIdentifier == first })
            }
            try await client.execute(uri: "/api/trash", method: .get) { response in
                let page = try #require(
                    try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any])
                #expect(
                    (page["assets"] as? [[String: Any]])?.compactMap { $0["localIdentifier"] as? String } == [first])
                #expect(page["retentionDays"] as? Double == 30)
            }
            try await client.execute(uri: "/api/assets/\(first)/restore", method: .post) { response in
                #expect(response.status == .ok)
            }
            try await client.execute(uri: "/api/assets/\(first)/restore", method: .post) { response in
                #expect(response.status == .badRequest, "not in Recently Deleted")
            }
            try await client.execute(uri: "/api/assets/\(first)?permanently=true", method: .delete) { response in
                #expect(response.status == .noContent)
            }
            try await client.execute(uri: "/api/assets/\(first)", method: .get) { response in
                #expect(response.status == .notFound)
            }
            try await client.execute(uri: "/api/assets/\(second)", method: .delete) { _ in }
            try await client.execute(uri: "/api/trash", method: .delete) { response in
                let body = try #require(
                    try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any])
                #expect(body["purged"] as? [String] == [second])
            }
        }
        #expect(try await library.assetCount() == assets.count - 2)
    }

    @Test("GET /api/assets/{id} is the asset in the model's words; unknown ids are 404")
    func oneAsset() async throws {
        let (folder, library, app) = try await Self.makeApp()
        defer { withExtendedLifetime(folder) {} }
        let asset = try #require(await library.assets().first)
        try await app.test(.router) { client in
            try await client.execute(uri: "/api/assets/\(asset.localIdentifier)", method: .get) { response in
                #expect(response.status == .ok)
                let item = try JSONDecoder().decode(Page.Item.self, from: Data(response.body.readableBytesView))
                #expect(item.localIdentifier == asset.localIdentifier)
                #expect(item.mediaType == 1)
                #expect(item.pixelWidth == asset.pixelWidth && item.pixelHeight == asset.pixelHeight)
                #expect(item.resources.first?.type == 1)
                #expect(
                    item.creationDate
                        == ISO8601.string(from: asset.creationDate, offsetSeconds: asset.creationTimeZoneOffset))
            }
            try await client.execute(uri: "/api/assets/00000000-0000-0000-0000-000000000000", method: .get) {
                response in
                #expect(response.status == .notFound)
                #expect(String(buffer: response.body).contains("no asset"))
            }
        }
    }

    @Test("Edits over HTTP: preview, save, read the recipe back, refuse a bad one, revert")
    func edits() async throws {
        let (folder, library, app) = try await Self.makeApp()
        defer { withExtendedLifetime(folder) {} }
        let asset = try #require(try await library.assets().first { $0.mediaType == .image })
        let base = "/api/assets/\(asset.localIdentifier)/edits"
        let json: HTTPFields = [.contentType: "application/json"]
        let recipe = ByteBuffer(string: #"{"filters": ["exposure=0.5", "straighten=3", "mono=1"]}"#)
        try await app.test(.router) { client in
            // The preview: the display-size image (2048 px at most) with the recipe, not stored.
            try await client.execute(uri: base + "/preview", method: .post, headers: json, body: recipe) { response in
                #expect(response.status == .ok && response.headers[.contentType] == "image/jpeg")
                let size = try ImageFile.size(ofEncoded: Array(buffer: response.body))
                #expect(max(size.width, size.height) <= 2048 && size.width > 0)
            }
            #expect(try await library.asset(withLocalIdentifier: asset.localIdentifier)?.hasAdjustments == false)
            try await client.execute(uri: base, method: .post, headers: json, body: recipe) { response in
                #expect(response.status == .ok)
                let edited = try #require(
                    try JSONSerialization.jsonObject(with: Data(Array(buffer: response.body))) as? [String: Any])
                #expect(edited["hasAdjustments"] as? Bool == true)
                #expect(edited["adjustmentFormatIdentifier"] as? String == EditRecipe.formatIdentifier)
            }
            try await client.execute(uri: base, method: .get) { response in
                let state = try #require(
                    try JSONSerialization.jsonObject(with: Data(Array(buffer: response.body))) as? [String: Any])
                #expect(state["filters"] as? [String] == ["exposure=0.5", "straighten=3.0", "mono=1.0"])
                #expect(state["canContinue"] as? Bool == true)
            }
            for (body, status) in [
                (#"{"filters": ["exposure=9"]}"#, HTTPResponse.Status.badRequest),
                (#"{"filters": ["warp=1"]}"#, .badRequest),
                (#"{"filters": [], "mode": "sideways"}"#, .badRequest),
            ] {
                try await client.execute(uri: base, method: .post, headers: json, body: ByteBuffer(string: body)) {
                    response in
                    #expect(response.status == status, "\(body)")
                }
            }
            try await client.execute(uri: "/api/assets/nope/edits", method: .delete) { response in
                #expect(response.status == .notFound)
            }
            try await client.execute(uri: base, method: .delete) { response in
                #expect(response.status == .ok)
            }
        }
        let reverted = try #require(try await library.asset(withLocalIdentifier: asset.localIdentifier))
        #expect(!reverted.hasAdjustments && reverted.resources.map(\.type) == asset.resources.map(\.type))
    }

    @Test(
        "GET /api/assets/{id}/image: fast from the thumbnails, then high with an ETag; opportunistic; POST /api/cache")
    func image() async throws {
        let (folder, library, app) = try await Self.makeApp()
        defer { withExtendedLifetime(folder) {} }
        let assets = try await library.assets()
        let asset = try #require(assets.first { $0.mediaType == .image })
        let base = "/api/assets/\(asset.localIdentifier)/image?w=800&h=800"
        let degraded = HTTPFields.headerName("X-Lightbox-Degraded")
        let source = HTTPFields.headerName("X-Lightbox-Source")
        try await app.test(.router) { client in
            try await client.execute(uri: base + "&delivery=fast", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[degraded] == "true" && response.headers[source] == "thumbnail")
                #expect(response.headers[.cacheControl] == "no-store" && response.headers[.eTag] == nil)
            }
            let etag = try await client.execute(uri: base + "&resize=exact", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[degraded] == "false" && response.headers[source] == "rendered")
                let bytes = Array(buffer: response.body)
                let size = try ImageFile.size(ofEncoded: bytes)
                #expect(max(size.width, size.height) == 800)
                return try #require(response.headers[.eTag])
            }
            try await client.execute(uri: base + "&resize=exact", method: .get, headers: [.ifNoneMatch: etag]) {
                response in
                #expect(response.status == .notModified)
            }
            try await client.execute(uri: base + "&resize=exact", method: .get) { response in
                #expect(response.headers[source] == "memoryCache")
            }
            // Opportunistic on a miss: the quick image now, the final in the background.
            let other = "/api/assets/\(asset.localIdentifier)/image?w=640&h=640&mode=fill"
            try await client.execute(uri: other + "&delivery=opportunistic", method: .get) { response in
                #expect(response.status == .ok && response.headers[degraded] == "true")
            }
            // Caching ahead: every asset at 300 px fill, then each request is a memory hit.
            let ids = assets.filter { $0.mediaType == .image }.map(\.localIdentifier)
            let body = try JSONSerialization.data(withJSONObject: [
                "action": "start", "assets": ids, "w": 300, "h": 300, "mode": "fill",
            ])
            try await client.execute(
                uri: "/api/cache", method: .post, headers: [.contentType: "application/json"],
                body: ByteBuffer(bytes: body)
            ) {
                response in
                #expect(response.status == .ok)
            }
            var hits = 0
            var misses: [String] = []
            for _ in 0..<200 {
                hits = 0
                misses = []
                for id in ids {
                    try await client.execute(
                        uri: "/api/assets/\(id)/image?w=300&h=300&mode=fill&delivery=opportunistic", method: .get
                    ) {
                        response in
                        if response.headers[source] == "memoryCache" {
                            hits += 1
                        } else {
                            misses.append("\(id): \(response.status.code) \(response.headers[source] ?? "no source")")
                        }
                    }
                }
                if hits == ids.count { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(hits == ids.count, "every cached image is a memory hit; the last misses: \(misses)")
            for (uri, status) in [
                (base + "&delivery=later", HTTPResponse.Status.badRequest),
                (base + "&crop=0.5,0.5,0.9,0.1", .badRequest),
                ("/api/assets/\(asset.localIdentifier)/image?w=0", .badRequest), ("/api/assets/nope/image", .notFound),
            ] {
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == status, "\(uri)")
                }
            }
            try await client.execute(
                uri: "/api/cache", method: .post, headers: [.contentType: "application/json"],
                body: ByteBuffer(string: #"{"action": "pause"}"#)
            ) { response in
                #expect(response.status == .badRequest)
            }
        }
    }

    @Test("GET /api/assets/{id}/image in a box: upright pixels, ETag, 304, WebP, bad parameters; no second route")
    func imageInABox() async throws {
        let (folder, library, app) = try await Self.makeApp()
        defer { withExtendedLifetime(folder) {} }
        let asset = try #require(await library.assets().first)
        let uri = "/api/assets/\(asset.localIdentifier)/image?w=200&h=120&mode=fill&resize=exact"
        try await app.test(.router) { client in
            let etag = try await client.execute(uri: uri, method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "image/jpeg")
                #expect(response.headers[.cacheControl] != nil)
                let image = EncodedImage(
                    bytes: Array(buffer: response.body), format: .jpeg, pixelWidth: 0, pixelHeight: 0)
                let original = try await library.fileURL(for: try #require(asset.resource(ofType: .photo))).path
                let reference = try ImageComparison.referenceThumbnail(
                    ofFileAt: original, width: 200, height: 120, contentMode: .aspectFill)
                let upsideDown = try ImageComparison.referenceThumbnail(
                    ofFileAt: original, width: 200, height: 120, contentMode: .aspectFill, rotatedHalfTurn: true)
                // Same size (the comparison throws otherwise): exactly the box asked for. Close
                // pixels: libvips' centre crop of the upright photo, much closer than the same
                // crop turned upside down.
                let near = try ImageComparison.meanAbsoluteDifference(image, reference)
                let far = try ImageComparison.meanAbsoluteDifference(image, upsideDown)
                #expect(near < 12, "mean difference \(near) to the reference crop")
                #expect(far > near * 2, "upside-down reference \(far) as close as the upright one \(near)")
                return try #require(response.headers[.eTag])
            }
            try await client.execute(uri: uri, method: .get, headers: [.ifNoneMatch: etag]) { response in
                #expect(response.status == .notModified)
                #expect(response.body.readableBytes == 0)
            }
            try await client.execute(uri: uri + "&format=webp", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "image/webp")
                #expect(response.headers[.eTag] != etag)
            }
            try await client.execute(uri: "/api/assets/\(asset.localIdentifier)/image?mode=stretch", method: .get) {
                response in
                #expect(response.status == .badRequest)
            }
            try await client.execute(uri: "/api/assets/\(asset.localIdentifier)/image?w=abc", method: .get) {
                response in
                #expect(response.status == .badRequest)
            }
            try await client.execute(uri: "/api/assets/nope/image", method: .get) { response in
                #expect(response.status == .notFound)
            }
            // Images come from the image manager alone: the old thumbnail route is gone.
            try await client.execute(uri: "/api/assets/\(asset.localIdentifier)/thumbnail", method: .get) { response in
                #expect(response.status == .notFound)
            }
        }
    }
}
