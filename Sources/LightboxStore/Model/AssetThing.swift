import Foundation

/// A thing found in a photo (the analysis service's things, docs/ANALYSIS.md): what the whole
/// photo shows, or an object in it with its box in the displayed image (0 to 1 from the top
/// left); how sure the model was; its WordNet synset; and the words a search finds it by.
public struct AssetThing: Sendable, Hashable, Codable {
    public var label: String
    public var confidence: Double
    /// WordNet 3.0's noun synset, "n02084071"; nil where the model named none.
    public var synset: String?
    /// Its own word, its synonyms and every broader term, nearest first.
    public var terms: [String]
    /// Where an object lies; nil for what the whole photo shows.
    public var x: Double?
    public var y: Double?
    public var width: Double?
    public var height: Double?

    public init(
        label: String, confidence: Double, synset: String?, terms: [String], x: Double? = nil, y: Double? = nil,
        width: Double? = nil, height: Double? = nil
    ) {
        self.label = label
        self.confidence = confidence
        self.synset = synset
        self.terms = terms
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }
}

/// The things found in a photo, the surest first, the model that found them and when.
public struct AssetThings: Sendable, Hashable, Codable {
    public var model: String
    public var analysedDate: Date
    public var things: [AssetThing]

    public init(model: String, analysedDate: Date, things: [AssetThing]) {
        self.model = model
        self.analysedDate = analysedDate
        self.things = things
    }
}
