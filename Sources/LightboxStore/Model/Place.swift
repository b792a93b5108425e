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
