import Foundation
import LightboxImaging

/// A thing an analysis service found in an image (docs/ANALYSIS.md, Things): what the whole
/// image shows (a classifier's label) or an object in it with where it lies (a detector's), how
/// sure the model is, the WordNet synset it is, and the words a search finds it by: its own,
/// its synonyms and every broader term (a Samoyed is a dog, and an animal).
public struct ThingObservation: Sendable, Hashable, Codable {
    public var label: String
    public var confidence: Double
    /// WordNet 3.0's noun synset, `n` and its offset ("n02084071"); nil where it has none.
    public var synset: String?
    /// Nearest first, each once.
    public var terms: [String]
    /// Where an object lies; nil for what the whole image shows.
    public var box: NormalizedRect?

    public init(label: String, confidence: Double, synset: String?, terms: [String], box: NormalizedRect?) {
        self.label = label
        self.confidence = confidence
        self.synset = synset
        self.terms = terms
        self.box = box
    }

    /// The most words a thing keeps, and characters a word or a label.
    public static let maximumTerms = 40
    public static let maximumLength = 100
}

/// What a service answered for one image: its things, the surest first, and the model that
/// found them (a library looks again at what an older model answered).
public struct ThingAnalysis: Sendable, Hashable, Codable {
    public var model: String
    public var things: [ThingObservation]

    public init(model: String, things: [ThingObservation]) {
        self.model = model
        self.things = things
    }
}
