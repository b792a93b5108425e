import Foundation

/// How a face came to be whose it is. A person's choice is never undone by a later grouping.
public enum FaceMembership: Int, Sendable, Hashable, Codable, CaseIterable {
    /// Not yet anyone's: it waits for enough faces like it to found a person.
    case waiting = 0
    /// Placed in a person by the grouping.
    case grouped = 1
    /// Put in its person by someone ("this is Anna").
    case chosen = 2
    /// Taken out of a person by someone ("this is not Anna"): no grouping places it again.
    case chosenNobody = 3
    /// Marked as no face at all: kept so that analysing again does not find it anew, and never
    /// shown or grouped.
    case notAFace = 4
}

/// A face found in an asset (Lightbox's own object: PhotoKit keeps faces private): where it is
/// in the asset's displayed image, how much it can say of who it is, and whose it is.
public struct Face: Sendable, Hashable, Identifiable, Codable {
    /// Stable identifier, unique in the library.
    public var localIdentifier: String
    /// The asset it was found in.
    public var assetLocalIdentifier: String
    /// The face's box, in the displayed image's coordinates from 0 to 1 (origin at the top
    /// left, the orientation applied).
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double
    /// How much the face can be trusted to say who it is, 0 to 1 (the detector's confidence and
    /// the face's size).
    public var quality: Double
    /// Its person, or nil.
    public var personLocalIdentifier: String?
    public var membership: FaceMembership
    /// Whether it is its person's key face, the one on the person's cover.
    public var isKeyFace: Bool
    /// The model that found it and made its embedding.
    public var model: String

    public var id: String { localIdentifier }

    public init(
        localIdentifier: String, assetLocalIdentifier: String, x: Double, y: Double, width: Double, height: Double,
        quality: Double, personLocalIdentifier: String?, membership: FaceMembership, isKeyFace: Bool, model: String
    ) {
        self.localIdentifier = localIdentifier
        self.assetLocalIdentifier = assetLocalIdentifier
        self.x = x
        self.y = y
        self.width = width
        self.height = height
        self.quality = quality
        self.personLocalIdentifier = personLocalIdentifier
        self.membership = membership
        self.isKeyFace = isKeyFace
        self.model = model
    }
}

/// A face an analysis found, as the catalog stores it: its box, its landmarks and its
/// embedding, already checked (finite, in range, of the model's dimensions).
public struct FoundFace: Sendable, Hashable {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double
    public var quality: Double
    /// The landmarks' points, x and y from 0 to 1.
    public var landmarks: [Double]
    public var embedding: [Float]

    public init(
        x: Double, y: Double, width: Double, height: Double, quality: Double, landmarks: [Double], embedding: [Float]
    ) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
        self.quality = quality
        self.landmarks = landmarks
        self.embedding = embedding
    }

    /// How much of this box and another overlap: their intersection over their union, 0 to 1.
    public func overlap(x: Double, y: Double, width: Double, height: Double) -> Double {
        let left = max(self.x, x)
        let top = max(self.y, y)
        let right = min(self.x + self.width, x + width)
        let bottom = min(self.y + self.height, y + height)
        guard right > left, bottom > top else { return 0 }
        let intersection = (right - left) * (bottom - top)
        let union = self.width * self.height + width * height - intersection
        return union > 0 ? intersection / union : 0
    }
}

/// The catalog's stored form of embeddings and landmarks: little-endian half floats (an
/// embedding's 128 numbers in 256 bytes; their distances keep three decimals, which grouping at
/// a distance of 0.5 never feels).
public enum FaceVectorCoding {
    public static func encode(_ values: [Float]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(values.count * 2)
        for value in values {
            let bits = Float16(value).bitPattern
            bytes.append(UInt8(truncatingIfNeeded: bits))
            bytes.append(UInt8(truncatingIfNeeded: bits >> 8))
        }
        return bytes
    }
}
