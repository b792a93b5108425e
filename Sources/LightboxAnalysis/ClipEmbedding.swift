import Foundation

/// Where a CLIP model puts an image or a text (docs/ANALYSIS.md, Content search): a unit vector,
/// so that the dot product of an image's and a text's is their cosine, and the images nearest a
/// text's embedding are those that show what it says.
public struct ClipEmbedding: Sendable, Hashable, Codable {
    /// The model that answered: embeddings of different models are not comparable.
    public var model: String
    public var vector: [Float]

    public init(model: String, vector: [Float]) {
        self.model = model
        self.vector = vector
    }

    /// The most numbers an embedding has (OpenCLIP's largest models have 1,280).
    public static let maximumDimensions = 4_096
    /// The most characters of a text embedded.
    public static let maximumText = 1_000
}
