import Foundation
import Hummingbird
import HummingbirdTesting
import LightboxAnalysis
import LightboxImaging
import LightboxTestSupport
import Testing

@testable import Lightbox
@testable import LightboxServer

/// Places over HTTP: the list and an asset's place, for the whole library and for a token
/// limited to an album, which sees its photos' places only.
@Suite("Places over HTTP")
struct PlaceRouteTests {
    /// Names Lisbon for a point north of the equator and Canberra for one south of it.
    static let twoCities = PlacesStub(each: { point in
        point.latitude > 0
            ? PlaceObservation(
                name: "Intendente", city: "Lisbon", region: "Lisbon", country: "Portugal", countryCode: "PT",
                distance: 300)
            : PlaceObservation(
                name: "Canberra", city: "Canberra", region: "Australian Capital Territory", country: "Australia",
                countryCode: "AU", distance: 1_000)
    })

    /// A server of two photos, one in Lisbon and one in Canberra, with a token for the whole
    /// library and one limited to an album of the Lisbon photo (the photos by identifier).
    static func twoPhotosServer() async throws -> (
        TemporaryDirectory, PhotoLibrary, some ApplicationProtocol, [Asset], owner: HTTPFields, limited: HTTPFields
    ) {
        let (folder, library, accounts, app) = try await AccessTests.makeServer()
        let assets = Array(
            try library.fetchAssets(
                options: FetchOptions(sortDescriptors: [FetchSortDescriptor(key: "localIdentifier")])))
        try await library.performChanges { changes in
            changes.changeRequest(for: assets[0]).location = Location(latitude: 38.72, longitude: -9.14)
            changes.changeRequest(for: assets[1]).location = Location(latitude: -35.29, longitude: 149.13)
        }
        var album = ""
        try await library.performChanges { changes in
            let request = changes.creationRequestForAssetCollection(withTitle: "Lisbon trip")
            request.addAssets([assets[0].localIdentifier])
            album = request.localIdentifier
        }
        let ann = try #require(try await accounts.user(named: "ann"))
        let (_, whole) = try await accounts.createToken(for: ann, name: "reader", scope: .read)
        let (_, frame) = try await accounts.createToken(for: ann, name: "frame", scope: .read, limitedTo: [album])
        return (folder, library, app, assets, [.authorization: "Bearer " + whole], [.authorization: "Bearer " + frame])
    }

    @Test("The list and an asset's place; a token limited to an album sees its photos' places only")
    func places() async throws {
        let (folder, library, app, assets, owner, limited) = try await Self.twoPhotosServer()
        defer { withExtendedLifetime(folder) {} }
        try await library.findPlaces(with: Self.twoCities)
        try await app.test(.router) { client in
            var response = try await client.execute(uri: "/api/places", method: .get, headers: owner) { $0 }
            #expect(response.status == .ok)
            let countries = try #require(try AccessTests.body(response)["countries"] as? [[String: Any]])
            #expect(Set(countries.compactMap { $0["name"] as? String }) == ["Portugal", "Australia"])
            let portugal = try #require(countries.first { $0["countryCode"] as? String == "PT" })
            #expect(portugal["count"] as? Int == 1)
            #expect((portugal["cities"] as? [[String: Any]])?.first?["name"] as? String == "Lisbon")

            response = try await client.execute(
                uri: "/api/assets/\(assets[1].localIdentifier)/place", method: .get, headers: owner
            ) { $0 }
            let place = try #require(try AccessTests.body(response)["place"] as? [String: Any])
            #expect(place["city"] as? String == "Canberra" && place["countryCode"] as? String == "AU")

            // The limited token: its album's photo only.
            response = try await client.execute(uri: "/api/places", method: .get, headers: limited) { $0 }
            let seen = try #require(try AccessTests.body(response)["countries"] as? [[String: Any]])
            #expect(seen.compactMap { $0["name"] as? String } == ["Portugal"])
            response = try await client.execute(
                uri: "/api/assets/\(assets[0].localIdentifier)/place", method: .get, headers: limited
            ) { $0 }
            #expect((try AccessTests.body(response)["place"] as? [String: Any])?["city"] as? String == "Lisbon")
            response = try await client.execute(
                uri: "/api/assets/\(assets[1].localIdentifier)/place", method: .get, headers: limited
            ) { $0 }
            #expect(response.status == .notFound)
            #expect(!String(decoding: response.body.readableBytesView, as: UTF8.self).contains("Canberra"))
        }
    }

    @Test("An asset's text with its boxes; a limited token reads and finds its photos' text only")
    func text() async throws {
        let (folder, library, app, assets, owner, limited) = try await Self.twoPhotosServer()
        defer { withExtendedLifetime(folder) {} }
        let menu = TextStub { _, _ in
            TextAnalysis(
                model: "text-test",
                lines: [
                    TextObservation(text: "MENU", box: .init(x: 0.1, y: 0.2, width: 0.3, height: 0.05), confidence: 0.9)
                ],
                checkedOnly: false)
        }
        let unread = assets[0]
        try await app.test(.router) { client in
            var response = try await client.execute(
                uri: "/api/assets/\(unread.localIdentifier)/text", method: .get, headers: owner
            ) { $0 }
            #expect(response.status == .ok)
            var body = try AccessTests.body(response)
            #expect(body["read"] as? Bool == false && (body["lines"] as? [Any])?.isEmpty == true)

            #expect(try await library.readText(with: menu).tally.found == 2)
            response = try await client.execute(
                uri: "/api/assets/\(assets[1].localIdentifier)/text", method: .get, headers: owner
            ) { $0 }
            body = try AccessTests.body(response)
            #expect(body["read"] as? Bool == true && body["model"] as? String == "text-test")
            let line = try #require((body["lines"] as? [[String: Any]])?.first)
            #expect(
                line["text"] as? String == "MENU" && line["x"] as? Double == 0.1 && line["height"] as? Double == 0.05)

            // The limited token: the album's photo's text, found by a fetch; the other photo is
            // none of its business.
            response = try await client.execute(
                uri: "/api/assets/\(assets[1].localIdentifier)/text", method: .get, headers: limited
            ) { $0 }
            #expect(response.status == .notFound)
            #expect(!String(decoding: response.body.readableBytesView, as: UTF8.self).contains("MENU"))
            let found =
                "/api/assets?predicate=" + "text == \"MENU\"".addingPercentEncoding(
                    withAllowedCharacters: .alphanumerics)!
            response = try await client.execute(uri: found, method: .get, headers: limited) { $0 }
            let seen = try #require(try AccessTests.body(response)["assets"] as? [[String: Any]])
            #expect(seen.compactMap { $0["localIdentifier"] as? String } == [assets[0].localIdentifier])
            response = try await client.execute(uri: found, method: .get, headers: owner) { $0 }
            #expect((try AccessTests.body(response)["assets"] as? [Any])?.count == 2)

            // Switched off, no text is kept or shown.
            try await library.setAnalysisEnabled(.text, false)
            response = try await client.execute(
                uri: "/api/assets/\(assets[1].localIdentifier)/text", method: .get, headers: owner
            ) { $0 }
            #expect(try AccessTests.body(response)["read"] as? Bool == false)
            response = try await client.execute(uri: "/api/analysis", method: .get, headers: owner) { $0 }
            #expect(try AccessTests.body(response)["text"] as? Bool == false)
        }
    }

    @Test("An asset's things with their words; a limited token sees and finds its photos' things only")
    func things() async throws {
        let (folder, library, app, assets, owner, limited) = try await Self.twoPhotosServer()
        defer { withExtendedLifetime(folder) {} }
        try await library.findThings(with: ThingStub())
        try await app.test(.router) { client in
            var response = try await client.execute(
                uri: "/api/assets/\(assets[1].localIdentifier)/things", method: .get, headers: owner
            ) { $0 }
            let body = try AccessTests.body(response)
            #expect(body["read"] as? Bool == true && body["model"] as? String == "things-test")
            let thing = try #require((body["things"] as? [[String: Any]])?.first)
            #expect(thing["label"] as? String == "Samoyed" && (thing["terms"] as? [String])?.contains("dog") == true)
            #expect(thing["x"] as? Double == 0.25 && thing["synset"] as? String == "n02111889")
            response = try await client.execute(
                uri: "/api/assets/\(assets[1].localIdentifier)/things", method: .get, headers: limited
            ) { $0 }
            #expect(response.status == .notFound)
            let found =
                "/api/assets?predicate=" + "thing == \"DOG\"".addingPercentEncoding(
                    withAllowedCharacters: .alphanumerics)!
            response = try await client.execute(uri: found, method: .get, headers: limited) { $0 }
            let seen = try #require(try AccessTests.body(response)["assets"] as? [[String: Any]])
            #expect(seen.compactMap { $0["localIdentifier"] as? String } == [assets[0].localIdentifier])
            try await library.setAnalysisEnabled(.things, false)
            response = try await client.execute(uri: "/api/analysis", method: .get, headers: owner) { $0 }
            #expect(try AccessTests.body(response)["things"] as? Bool == false)
            response = try await client.execute(uri: found, method: .get, headers: owner) { $0 }
            #expect((try AccessTests.body(response)["assets"] as? [Any])?.isEmpty == true)
        }
    }

    @Test("The map's cells for the owner and for a limited token; a bad area or zoom is a 400")
    func map() async throws {
        let (folder, _, app, assets, owner, limited) = try await Self.twoPhotosServer()
        defer { withExtendedLifetime(folder) {} }
        let earth = "/api/map?south=-90&west=-180&north=90&east=180&zoom=1"
        try await app.test(.router) { client in
            var response = try await client.execute(uri: earth, method: .get, headers: owner) { $0 }
            #expect(response.status == .ok)
            var body = try AccessTests.body(response)
            #expect(body["count"] as? Int == 2 && body["zoom"] as? Int == 1)
            let cells = try #require(body["cells"] as? [[String: Any]])
            #expect(Set(cells.compactMap { $0["asset"] as? String }) == Set(assets.prefix(2).map(\.localIdentifier)))
            let lisbon = try #require(cells.first { $0["asset"] as? String == assets[0].localIdentifier })
            #expect(lisbon["latitude"] as? Double == 38.72 && lisbon["south"] as? Double == 38.72)

            // Across the antimeridian: Canberra's side only.
            response = try await client.execute(
                uri: "/api/map?south=-60&west=100&north=60&east=-100&zoom=3", method: .get, headers: owner
            ) { $0 }
            body = try AccessTests.body(response)
            #expect(
                (body["cells"] as? [[String: Any]])?.compactMap { $0["asset"] as? String } == [
                    assets[1].localIdentifier
                ])

            // A limited token: its album's photo only.
            response = try await client.execute(uri: earth, method: .get, headers: limited) { $0 }
            body = try AccessTests.body(response)
            #expect(
                (body["cells"] as? [[String: Any]])?.compactMap { $0["asset"] as? String } == [
                    assets[0].localIdentifier
                ])

            for bad in [
                "/api/map?south=10&west=0&north=5&east=1&zoom=3", "/api/map?south=-91&west=0&north=5&east=1&zoom=3",
                "/api/map?south=0&west=0&north=5&east=1&zoom=23", "/api/map?south=0&west=0&north=5&east=1",
                "/api/map?south=nan&west=0&north=5&east=1&zoom=3", "/api/map?south=0&west=0&north=5&east=1e400&zoom=3",
                "/api/map?south=-90&west=-180&north=90&east=180&zoom=22",
            ] {
                response = try await client.execute(uri: bad, method: .get, headers: owner) { $0 }
                #expect(response.status == .badRequest, "\(bad)")
            }

            // The tiles the page draws: OpenStreetMap's unless the operator said otherwise, and the
            // page may load images from there and nowhere else.
            response = try await client.execute(uri: "/api/map/tiles", method: .get, headers: owner) { $0 }
            body = try AccessTests.body(response)
            #expect(body["url"] as? String == "https://tile.openstreetmap.org/{z}/{x}/{y}.png")
            #expect(
                response.headers[.contentSecurityPolicy]?.contains(
                    "img-src 'self' blob: data: https://tile.openstreetmap.org;") == true)
        }
    }

    @Test("An operator's tile URL is checked, and its origin alone is let into the page's images")
    func tiles() throws {
        let tiles = try MapTiles(
            url: "https://{s}.tiles.example.org/osm/{z}/{x}/{y}.png?key=k", attribution: "© Example")
        #expect(tiles.imageSource == "https://*.tiles.example.org")
        #expect(
            try MapTiles(url: "http://127.0.0.1:8123/{z}/{x}/{y}.png", attribution: "Local").imageSource
                == "http://127.0.0.1:8123")
        for bad in [
            "ftp://tiles.example.org/{z}/{x}/{y}.png", "https://tiles.example.org/{z}/{x}.png", "/{z}/{x}/{y}.png",
            "https://user:pass@tiles.example.org/{z}/{x}/{y}.png",
            "https://tiles.example.org'; script-src *;/{z}/{x}/{y}",
        ] {
            #expect(throws: MapTilesError.self, "\(bad)") { try MapTiles(url: bad, attribution: "x") }
        }
        #expect(throws: MapTilesError.self) {
            try MapTiles(url: "https://t.example.org/{z}/{x}/{y}.png", attribution: "a\nb")
        }
        #expect(MapTiles.none.imageSource == nil)
    }
}
