import Foundation

/// A point on the earth in degrees (WGS 84, as a photo's GPS records it).
public struct GeoPoint: Sendable, Hashable, Codable {
    public var latitude: Double
    public var longitude: Double

    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// Whether it is a point at all: finite, latitude from -90 to 90, longitude from -180 to 180.
    public var isValid: Bool {
        latitude.isFinite && longitude.isFinite && abs(latitude) <= 90 && abs(longitude) <= 180
    }
}

/// Where a point is, as an analysis service's places answered (docs/ANALYSIS.md): its nearest
/// place (`name`: a neighbourhood, a village, a town), the city it belongs with, its region and
/// its country. Far from any town (the open sea, a desert) the town and the city are nil, and
/// farther still there is no place at all.
public struct PlaceObservation: Sendable, Hashable, Codable {
    public var name: String?
    public var city: String?
    public var region: String?
    public var country: String?
    /// ISO 3166-1 alpha-2, e.g. "PT".
    public var countryCode: String?
    /// Metres from the point to the nearest place.
    public var distance: Double

    public init(
        name: String?, city: String?, region: String?, country: String?, countryCode: String?, distance: Double
    ) {
        self.name = name
        self.city = city
        self.region = region
        self.country = country
        self.countryCode = countryCode
        self.distance = distance
    }
}

/// What a service answered for a list of points: one place or none for each, in order, and the
/// places' model (a library finds the places of its photos again for another).
public struct PlaceAnalysis: Sendable, Hashable, Codable {
    public var model: String
    public var places: [PlaceObservation?]

    public init(model: String, places: [PlaceObservation?]) {
        self.model = model
        self.places = places
    }
}
