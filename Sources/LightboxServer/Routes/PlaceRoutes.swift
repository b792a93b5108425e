import Foundation
import Hummingbird
import Lightbox

/// Places over HTTP (docs/ANALYSIS.md): the places of the library's photos, country to city, the
/// place of one, and the map's cells and tiles. A limited caller (a limited token, a link) sees
/// the places and the cells of the photos it sees, counted over those. Each route's contract is
/// its `APIOperation` (docs/API.md).
struct PlaceRoutes: Sendable {
    let tiles: MapTiles

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
        let asset = try await AssetRoutes.asset(try context.parameters.require("id"), in: library)
        return try LightboxServer.jsonResponse(OnePlace(place: try await library.place(of: asset)))
    }

    struct AssetTextAnswer: Encodable {
        var read: Bool
        var model: String?
        var analysedDate: Date?
        var lines: [TextLine]
    }

    static let assetTextOperation = APIOperation(
        "The text read in a photo, its lines top to bottom, each with its box in the displayed image.",
        details: """
            Read by the text job from the photo's preview (docs/ANALYSIS.md, Text); a box's `x`, `y`,
            `width` and `height` are 0 to 1 from the top left. `read` is false before the job read the
            photo, for a movie, or where text is switched off; a photo without text has no lines.
            """,
        responses: [.json(200, "Its text.", Schema.ref("AssetText"))])

    @Sendable
    func assetText(_ _: Request, _ context: LightboxRequestContext) async throws -> Response {
        let library = try context.library().library
        let asset = try await AssetRoutes.asset(try context.parameters.require("id"), in: library)
        let text = try await library.text(of: asset)
        return try LightboxServer.jsonResponse(
            AssetTextAnswer(
                read: text != nil, model: text?.model, analysedDate: text?.analysedDate, lines: text?.lines ?? []))
    }

    struct AssetThingsAnswer: Encodable {
        var read: Bool
        var model: String?
        var analysedDate: Date?
        var things: [AssetThing]
    }

    static let assetThingsOperation = APIOperation(
        "The things found in a photo, the surest first, each with the words it is found by.",
        details: """
            Found by the things job from the photo's preview (docs/ANALYSIS.md, Things): what the whole
            photo shows (no box) and the objects in it (a box, 0 to 1 from the top left), each with its
            confidence, its WordNet synset and its `terms`, the words `thing == "dog"` finds it by. `read`
            is false before the job looked, for a movie, or where things are switched off.
            """,
        responses: [.json(200, "Its things.", Schema.ref("AssetThings"))])

    @Sendable
    func assetThings(_ _: Request, _ context: LightboxRequestContext) async throws -> Response {
        let library = try context.library().library
        let asset = try await AssetRoutes.asset(try context.parameters.require("id"), in: library)
        let found = try await library.things(of: asset)
        return try LightboxServer.jsonResponse(
            AssetThingsAnswer(
                read: found != nil, model: found?.model, analysedDate: found?.analysedDate, things: found?.things ?? [])
        )
    }

    struct MapAnswer: Encodable {
        var zoom: Int
        var cells: [MapCell]
        /// The assets in all the cells.
        var count: Int
    }

    static let mapOperation = APIOperation(
        "The located photos of an area, grouped for a map: a cell of a grid about 64 pixels square at the zoom.",
        details: """
            Each cell of the grid (counted from 90° S, 180° W, so the same at every read) has the visible
            photos and movies with a location in it: how many, their mean position (the marker's), the box
            they lie in and one of them (`asset`, for a single photo's thumbnail). The fullest cells come
            first. `west` greater than `east` crosses the antimeridian. An area of more than 20,000 cells at
            the zoom (far larger than a screen) is refused.
            """,
        parameters: [
            .query("south", Schema.number, required: true, "The area's southern edge, in degrees (-90 to 90)."),
            .query("west", Schema.number, required: true, "Its western edge (-180 to 180)."),
            .query("north", Schema.number, required: true, "Its northern edge, not south of `south`."),
            .query("east", Schema.number, required: true, "Its eastern edge (-180 to 180)."),
            .query(
                "zoom", Schema.integer(0...PhotoLibrary.deepestMapZoom), required: true,
                "The zoom as web maps count it: 0 shows the earth in one tile of 256 pixels."),
        ],
        responses: [.json(200, "The cells.", Schema.ref("MapCells"))])

    @Sendable
    func map(_ request: Request, _ context: LightboxRequestContext) async throws -> Response {
        let library = try context.library().library
        let parameters = request.uri.formQuery
        func degrees(_ name: String) throws -> Double {
            guard let text = parameters.get(name), let value = Double(text), value.isFinite else {
                throw HTTPError(.badRequest, message: "\(name) must be a number of degrees")
            }
            return value
        }
        let south = try degrees("south")
        let west = try degrees("west")
        let north = try degrees("north")
        let east = try degrees("east")
        guard let area = MapArea(south: south, west: west, north: north, east: east) else {
            throw HTTPError(
                .badRequest,
                message: "an area is south ≤ north within ±90° and west, east within ±180°, "
                    + "not \(south), \(west), \(north), \(east)")
        }
        guard let zoom = try parameters.get("zoom", as: Int.self) else {
            throw HTTPError(.badRequest, message: "zoom is needed: 0 to \(PhotoLibrary.deepestMapZoom)")
        }
        let cells = try await library.mapCells(in: area, zoom: zoom)
        return try LightboxServer.jsonResponse(
            MapAnswer(zoom: zoom, cells: cells, count: cells.reduce(0) { $0 + $1.count }))
    }

    static let mapTilesOperation = APIOperation(
        "Where the map's tiles come from: a URL template, its attribution and its deepest zoom.",
        details: """
            Set by the operator (`lightbox serve --map-tiles URL`); OpenStreetMap's tile server unless said.
            No `url` when the operator chose no tiles: the map then shows its markers alone.
            """,
        responses: [.json(200, "The tiles.", Schema.ref("MapTiles"))])

    @Sendable
    func mapTiles(_ _: Request, _ _: LightboxRequestContext) async throws -> Response {
        try LightboxServer.jsonResponse(tiles)
    }
}
