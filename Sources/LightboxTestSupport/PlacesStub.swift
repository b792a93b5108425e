import Foundation
import LightboxAnalysis

/// An analysis that names places as a test tells it (and finds no face): what the places job
/// does with right and wrong answers, without the service.
public struct PlacesStub: PhotoAnalyzing {
    public let model: String
    public let maximumPoints: Int
    private let answer: @Sendable ([GeoPoint]) -> PlaceAnalysis

    public init(
        model: String = "places-test", maximumPoints: Int = 10,
        answer: @escaping @Sendable ([GeoPoint]) -> PlaceAnalysis
    ) {
        self.model = model
        self.maximumPoints = maximumPoints
        self.answer = answer
    }

    /// One that answers `place(point)` for each point, with its own model.
    public init(
        model: String = "places-test", maximumPoints: Int = 10,
        each place: @escaping @Sendable (GeoPoint) -> PlaceObservation?
    ) {
        self.init(model: model, maximumPoints: maximumPoints) { points in
            PlaceAnalysis(model: model, places: points.map(place))
        }
    }

    public func describe() async throws(AnalysisError) -> AnalysisServiceInfo {
        AnalysisServiceInfo(
            version: "test", faceModel: "faces-test", dimensions: 2, sameFaceDistance: 0.5, maximumSide: 64,
            maximumFaces: 1, concurrent: 1, placeModel: model, maximumPoints: maximumPoints)
    }

    public func faces(width: Int, height: Int, pixels: [UInt8]) async throws(AnalysisError) -> FaceAnalysis {
        FaceAnalysis(model: "faces-test", faces: [])
    }

    public func places(_ points: [GeoPoint]) async throws(AnalysisError) -> PlaceAnalysis { answer(points) }
}
