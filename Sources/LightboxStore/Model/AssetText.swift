import Foundation

/// A line of text read in a photo (the analysis service's text, docs/ANALYSIS.md): what it
/// says, where it lies in the displayed image (0 to 1 from the top left, as a face's box), and
/// how sure the model was.
public struct TextLine: Sendable, Hashable, Codable {
    public var text: String
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double
    /// 0 to 1.
    public var confidence: Double

    public init(text: String, x: Double, y: Double, width: Double, height: Double, confidence: Double) {
        self.text = text
        self.x = x
        self.y = y
        self.width = width
        self.height = height
        self.confidence = confidence
    }
}

/// The text read in a photo: its lines top to bottom, the model that read them and when. A
/// photo the model read and found no text in has no lines.
public struct AssetText: Sendable, Hashable, Codable {
    public var model: String
    public var analysedDate: Date
    public var lines: [TextLine]

    public init(model: String, analysedDate: Date, lines: [TextLine]) {
        self.model = model
        self.analysedDate = analysedDate
        self.lines = lines
    }
}
