import Foundation
import LightboxImaging

/// A line of text an analysis service read in an image: what it says, the rectangle around it
/// (a `NormalizedRect`, from the top left), and how sure the model is.
public struct TextObservation: Sendable, Hashable, Codable {
    public var text: String
    public var box: NormalizedRect
    /// 0 to 1.
    public var confidence: Double

    public init(text: String, box: NormalizedRect, confidence: Double) {
        self.text = text
        self.box = box
        self.confidence = confidence
    }
}

/// What a service answered for one image: its lines, top to bottom, the model that read them
/// (a library reads again what an older model answered), and whether only the cheap check ran
/// (it found no text, so the image had none to read).
public struct TextAnalysis: Sendable, Hashable, Codable {
    public var model: String
    public var lines: [TextObservation]
    public var checkedOnly: Bool

    public init(model: String, lines: [TextObservation], checkedOnly: Bool) {
        self.model = model
        self.lines = lines
        self.checkedOnly = checkedOnly
    }

    /// The most characters a line keeps, as the service cleans it (docs/ANALYSIS.md).
    public static let maximumLineLength = 500
}
