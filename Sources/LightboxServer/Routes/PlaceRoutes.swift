import Foundation
import Hummingbird
import Lightbox

/// Places over HTTP (docs/ANALYSIS.md): the places of the library's photos, country to city, and
/// the place of one. A limited caller (a limited token, a link) sees the places of the photos it
/// sees, counted over those. Each route's contract is its `APIOperation` (docs/API.md).
struct PlaceRoutes: Sendable {
    struct PlaceList: Encodable {
        var countries: [PlaceCountry]
    }

    struct OnePlace: Encodable {
        var place: AssetPlace?
    }

    static let placesOperation = APIOperation(
        "The places of the library's photos: countries, most photographed first, each with its cities.",
        details: """
            A photo's place is named from its location by the places job, offline, from GeoNames' places.
            A city's `name` is absent where no town lies near (its `region` stands for it); a photo far
            from any place (the open sea) is in no country.
            """,
        responses: [.json(200, "The places.", Schema.ref("PlaceList"))])

    @Sendable
    func places(_ _: Request, _ context: LightboxRequestContext) async throws -> Response {
        let library = try context.library().library
        return try LightboxServer.jsonResponse(PlaceList(countries: try await library.placeList()))
    }

    static let assetPlaceOperation = APIOperation(
        "An asset's place: its nearest place, city, region and country.",
        details: "No `place` for an asset without a location, not named yet, or far from any place.",
        responses: [.json(200, "Its place.", Schema.ref("AssetPlaceAnswer"))])

    @Sendable
    func assetPlace(_ _: Request, _ context: LightboxRequestContext) async throws -> Response {
        let library = try context.library().library
        let id = try context.parameters.require("id")
        guard let asset = try await library.asset(withLocalIdentifier: id) else {
            throw LibraryError(.assetNotFound, "no asset has the identifier \(id)")
        }
        return try LightboxServer.jsonResponse(OnePlace(place: try await library.place(of: asset)))
    }
}
