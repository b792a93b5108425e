import Foundation
import LightboxImaging

/// A point in an image's normalised coordinates: 0 to 1 across its width and down its height,
/// from the top left, so that it holds for the photo at any size.
public struct NormalizedPoint: Sendable, Hashable, Codable {
    public var x: Double
    public var y: Double

    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }
}

/// A face an analysis service found in an image: where (a `NormalizedRect`, as a crop is), five
/// landmarks (the eyes' corners and the nose), how far it can be trusted to say who it is, and
/// the embedding that says who.
public struct FaceObservation: Sendable, Hashable, Codable {
    public var box: NormalizedRect
    public var landmarks: [NormalizedPoint]
    /// 0 to 1: the detector's confidence times a size factor (docs/ANALYSIS.md).
    public var quality: Double
    /// The face as a point in the model's space: faces of one person lie close together.
    public var embedding: [Float]

    public init(box: NormalizedRect, landmarks: [NormalizedPoint], quality: Double, embedding: [Float]) {
        self.box = box
        self.landmarks = landmarks
        self.quality = quality
        self.embedding = embedding
    }
}

/// What a service answered for one image: the faces, and the model that found them (a library
/// keeps it beside each face, and analyses again what an older model answered).
public struct FaceAnalysis: Sendable, Hashable, Codable {
    public var model: String
    public var faces: [FaceObservation]

    public init(model: String, faces: [FaceObservation]) {
        self.model = model
        self.faces = faces
    }
}
