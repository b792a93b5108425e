import Foundation
import Hummingbird
import HummingbirdTesting
import LightboxAnalysis
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

    @Test("The list and an asset's place; a token limited to an album sees its photos' places only")
    func places() async throws {
        let (folder, library, accounts, app) = try await AccessTests.makeServer()
        defer { withExtendedLifetime(folder) {} }
        let assets = Array(
            try library.fetchAssets(
                options: FetchOptions(sortDescriptors: [FetchSortDescriptor(key: "localIdentifier")])))
        try await library.performChanges { changes in
            changes.changeRequest(for: assets[0]).location = Location(latitude: 38.72, longitude: -9.14)
            changes.changeRequest(for: assets[1]).location = Location(latitude: -35.29, longitude: 149.13)
        }
        try await library.findPlaces(with: Self.twoCities)
        var album = ""
        try await library.performChanges { changes in
            let request = changes.creationRequestForAssetCollection(withTitle: "Lisbon trip")
            request.addAssets([assets[0].localIdentifier])
            album = request.localIdentifier
        }
        let ann = try #require(try await accounts.user(named: "ann"))
        let (_, whole) = try await accounts.createToken(for: ann, name: "reader", scope: .read)
        let (_, frame) = try await accounts.createToken(for: ann, name: "frame", scope: .read, limitedTo: [album])
        let owner: HTTPFields = [.authorization: "Bearer " + whole]
        let limited: HTTPFields = [.authorization: "Bearer " + frame]
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
}
