import Foundation

/// Where an asset was taken, named: found from its location by reverse geocoding (the analysis
/// service's places, docs/ANALYSIS.md). `name` is the nearest place (a neighbourhood, a
/// village, a town), `city` the city it belongs with; both are nil far from any town (a
/// beach off the coast, a national park), where the region and the country may still be known.
public struct AssetPlace: Sendable, Hashable, Codable {
    public var name: String?
    public var city: String?
    public var region: String?
    public var country: String?
    /// ISO 3166-1 alpha-2, e.g. "PT".
    public var countryCode: String?

    public init(
        name: String? = nil, city: String? = nil, region: String? = nil, country: String? = nil,
        countryCode: String? = nil
    ) {
        self.name = name
        self.city = city
        self.region = region
        self.country = country
        self.countryCode = countryCode
    }

    /// The names from the most particular to the most general, each once: "Intendente, Lisbon,
    /// Portugal" (a region named as its city is said once).
    public var names: [String] {
        var seen: [String] = []
        for name in [name, city, region, country].compactMap({ $0 }) where !seen.contains(name) {
            seen.append(name)
        }
        return seen
    }

    /// The name a moment or a list shows: the city, else the nearest place, the region or the
    /// country.
    public var title: String? { city ?? name ?? region ?? country }
}

/// An asset whose place is still to be found (it has a location no places' model of this
/// version has named): its row id (to page on), its identifier and its location.
public struct PlaceBacklogItem: Sendable, Hashable {
    public var rowID: Int64
    public var localIdentifier: String
    public var latitude: Double
    public var longitude: Double
}

/// What a model answered for one asset's location: a place, or none (the open sea), and how far
/// the nearest place was.
public struct FoundPlace: Sendable, Hashable {
    public var rowID: Int64
    public var latitude: Double
    public var longitude: Double
    public var place: AssetPlace?
    public var distance: Double?

    public init(rowID: Int64, latitude: Double, longitude: Double, place: AssetPlace?, distance: Double?) {
        self.rowID = rowID
        self.latitude = latitude
        self.longitude = longitude
        self.place = place
        self.distance = distance
    }
}

/// How many visible assets a place has: a country, a region in it and a city in that (the
/// places' list, country to city).
public struct PlaceCount: Sendable, Hashable, Codable {
    public var country: String?
    public var countryCode: String?
    public var region: String?
    public var city: String?
    public var count: Int
}

/// An area of the map, in degrees: `south` to `north` and `west` to `east`, each within the
/// earth's range (``init(south:west:north:east:)`` clamps). `west` greater than `east` crosses
/// the antimeridian (a view of the Pacific).
public struct MapArea: Sendable, Hashable, Codable {
    public var south: Double
    public var west: Double
    public var north: Double
    public var east: Double

    /// Nil unless every side is a finite number, `south` is not above `north`, and each
    /// latitude lies within ±90° and each longitude within ±180° (what a map's view sends).
    public init?(south: Double, west: Double, north: Double, east: Double) {
        guard [south, west, north, east].allSatisfy(\.isFinite), south <= north, abs(south) <= 90, abs(north) <= 90,
            abs(west) <= 180, abs(east) <= 180
        else { return nil }
        self.south = south
        self.west = west
        self.north = north
        self.east = east
    }

    /// The whole earth.
    public static let world = MapArea(south: -90, west: -180, north: 90, east: 180)!

    /// Its longitudes as ranges: one, or two where it crosses the antimeridian.
    public var longitudeRanges: [ClosedRange<Double>] {
        west <= east ? [west...east] : [west...180, -180...east]
    }

    /// The degrees of longitude it spans.
    public var width: Double { longitudeRanges.reduce(0) { $0 + $1.upperBound - $1.lowerBound } }
}

/// A cell of the map's grid and the visible located assets in it: how many, where they are on
/// average (a cluster's marker), the box they lie in (a click zooms to it), and one of them
/// (a single photo's marker shows it).
public struct MapCell: Sendable, Hashable, Codable {
    public var latitude: Double
    public var longitude: Double
    public var count: Int
    public var south: Double
    public var west: Double
    public var north: Double
    public var east: Double
    /// The identifier of one of its assets (the first added, so that it is the same at every
    /// read).
    public var asset: String

    public init(
        latitude: Double, longitude: Double, count: Int, south: Double, west: Double, north: Double,
        east: Double, asset: String
    ) {
        self.latitude = latitude
        self.longitude = longitude
        self.count = count
        self.south = south
        self.west = west
        self.north = north
        self.east = east
        self.asset = asset
    }
}
