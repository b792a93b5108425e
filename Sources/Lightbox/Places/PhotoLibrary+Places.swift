import Foundation
import LightboxAnalysis
import LightboxStore

extension PhotoLibrary {
    /// What a run of ``findPlaces(with:progress:)`` did.
    public struct PlaceFindingSummary: Sendable, Hashable {
        /// The places' model that answered.
        public var model: String
        /// Assets whose location was asked for.
        public var asked = 0
        /// Those of them that got a place (the others lie far from any: the open sea).
        public var named = 0
    }

    /// Names the place of every asset with a location that `analyzer`'s places model has yet to
    /// name (none has, another model did, or its location changed since), in requests of as
    /// many points as the service takes, and records each (``AssetPlace``). What is recorded
    /// stays recorded: stopped or killed, a run loses nothing and the next goes on with what is
    /// left. A location that is no point on the earth (a catalog written by something else) is
    /// recorded as having no place, and not asked. `progress` is told the assets done and the
    /// assets there were to do.
    @discardableResult
    public func findPlaces(
        with analyzer: any PhotoAnalyzing, progress: @escaping @Sendable (Int, Int) -> Void = { _, _ in }
    ) async throws -> PlaceFindingSummary {
        let info = try await analyzer.describe()
        guard let model = info.placeModel else {
            throw LibraryError(.invalidRequest, "the analysis service finds no places (it describes no places model)")
        }
        let batch = max(1, min(info.maximumPoints, 1_000))
        var summary = PlaceFindingSummary(model: model)
        var total = try await store.read { try $0.placeBacklogCount(model: model) }
        var after: Int64 = 0
        progress(0, total)
        while true {
            try Task.checkCancellation()
            let start = after
            let page = try await store.read { try $0.placeBacklog(model: model, after: start, limit: batch) }
            guard let last = page.last else { break }
            after = last.rowID
            let asked = page.filter { GeoPoint(latitude: $0.latitude, longitude: $0.longitude).isValid }
            let answer =
                asked.isEmpty
                ? PlaceAnalysis(model: model, places: [])
                : try await analyzer.places(asked.map { GeoPoint(latitude: $0.latitude, longitude: $0.longitude) })
            guard answer.model == model, answer.places.count == asked.count else {
                throw AnalysisError(
                    .badAnswer,
                    "the analysis answered \(answer.places.count) places of \(answer.model), "
                        + "not \(asked.count) of \(model)")
            }
            var places: [Int64: PlaceObservation] = [:]
            for (item, place) in zip(asked, answer.places) { places[item.rowID] = place }
            let found = page.map { item in
                let place = places[item.rowID]
                let named = place.map {
                    AssetPlace(
                        name: $0.name, city: $0.city, region: $0.region, country: $0.country,
                        countryCode: $0.countryCode)
                }
                return FoundPlace(
                    rowID: item.rowID, latitude: item.latitude, longitude: item.longitude,
                    place: named.flatMap { $0.names.isEmpty ? nil : $0 }, distance: place?.distance)
            }
            try await BlockingWork.run { [store] in try store.write { try $0.recordPlaces(found, model: model) } }
            summary.asked += page.count
            summary.named += found.filter { $0.place != nil }.count
            total = max(total, summary.asked)
            progress(summary.asked, total)
        }
        return summary
    }

    /// Whether the library names the places of its photos (on unless switched off).
    public func placesEnabled() async throws -> Bool {
        try await store.read { try $0.placesEnabled() }
    }

    /// Switches naming places on or off, for privacy. Off deletes, in one transaction, every
    /// place named (the photos' locations stay: they are the files'); no location is sent to
    /// the analysis service while it is off. On, the places job is queued to name them again.
    public func setPlacesEnabled(_ enabled: Bool) async throws {
        try await BlockingWork.run { [store] in
            try store.write { try $0.setPlacesEnabled(enabled) }
            if enabled { try store.enqueueJob(.places, subject: "") }
        }
    }

    /// How many assets ``findPlaces(with:progress:)`` has yet to name for `model`.
    public func placeBacklogCount(model: String) async throws -> Int {
        try await store.read { try $0.placeBacklogCount(model: model) }
    }

    /// An asset's place: nil without a location, before the places job named it, or far from
    /// any place (the open sea).
    public func place(of asset: Asset) async throws -> AssetPlace? {
        try await store.read { try $0.place(ofAsset: asset.localIdentifier) }
    }

    /// The places of these assets (those that have one), by identifier.
    public func places(of assets: [Asset]) async throws -> [String: AssetPlace] {
        let identifiers = assets.map(\.localIdentifier)
        return try await store.read { try $0.places(ofAssets: identifiers) }
    }

    /// The places of the library's photos as a list shows them: each country with its count,
    /// the most photographed first, and in it each city (or region, where no city is named)
    /// with its count.
    public func placeList() async throws -> [PlaceCountry] {
        let counts = try await store.read { try $0.placeCounts(among: nil) }
        var countries: [String: PlaceCountry] = [:]
        var order: [String] = []
        for count in counts {
            let key = count.countryCode ?? count.country ?? ""
            if countries[key] == nil {
                countries[key] = PlaceCountry(name: count.country, countryCode: count.countryCode, count: 0, cities: [])
                order.append(key)
            }
            countries[key]?.count += count.count
            countries[key]?.cities.append(PlaceCity(name: count.city, region: count.region, count: count.count))
        }
        return order.compactMap { countries[$0] }.sorted { $0.count > $1.count }
    }
}

extension PhotoLibrary {
    /// The deepest zoom ``mapCells(in:zoom:)`` takes: a cell is then a few metres wide.
    public static let deepestMapZoom = 22

    /// The visible photos and movies with a location in `area`, grouped for a map at `zoom` (as
    /// web maps count it: 0 shows the earth in one tile of 256 pixels, each level doubles it)
    /// into cells of a grid about 64 pixels square at that zoom, the fullest first: each cell's
    /// count, mean position, the box its assets lie in and one of them. A map shows a marker a
    /// cell, and a million located assets are counted in the store, never read. A view asking
    /// for more than 20,000 cells (an area far larger than a screen at its zoom) is refused.
    public func mapCells(in area: MapArea, zoom: Int) async throws -> [MapCell] {
        guard (0...Self.deepestMapZoom).contains(zoom) else {
            throw LibraryError(.invalidRequest, "a map's zoom is from 0 to \(Self.deepestMapZoom), not \(zoom)")
        }
        let cellSize = 360 / (Double(1 << zoom) * 4)
        return try await store.read { try $0.mapCells(in: area, cellSize: cellSize, among: nil) }
    }
}

/// A country of the places' list, with its photos' count and its cities.
public struct PlaceCountry: Sendable, Hashable, Codable {
    /// nil far from any country's place (a photo off its coast knows only a region).
    public var name: String?
    public var countryCode: String?
    public var count: Int
    /// The most photographed first.
    public var cities: [PlaceCity]
}

/// A city (or, where none is named, the region) of a country in the places' list.
public struct PlaceCity: Sendable, Hashable, Codable {
    /// nil where no town lies near (a national park): the region stands for it.
    public var name: String?
    public var region: String?
    public var count: Int
}
