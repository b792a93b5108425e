import LightboxAnalysis
import LightboxImaging

/// An analysis that reads text only, answering what a test says for each image's size.
public struct TextStub: PhotoAnalyzing {
    let answer: @Sendable (Int, Int) -> TextAnalysis

    public init(answer: @escaping @Sendable (Int, Int) -> TextAnalysis) {
        self.answer = answer
    }

    public func describe() async throws(AnalysisError) -> AnalysisServiceInfo {
        var info = AnalysisServiceInfo.stub
        info.textModel = "text-test"
        info.maximumLines = 10
        return info
    }

    public func faces(width: Int, height: Int, pixels: [UInt8]) async throws(AnalysisError) -> FaceAnalysis {
        FaceAnalysis(model: "faces-test", faces: [])
    }

    public func text(width: Int, height: Int, pixels: [UInt8]) async throws(AnalysisError) -> TextAnalysis {
        answer(width, height)
    }
}

/// An analysis that finds a Samoyed in every image, and nothing else.
public struct ThingStub: PhotoAnalyzing {
    public init() {}

    public func describe() async throws(AnalysisError) -> AnalysisServiceInfo {
        var info = AnalysisServiceInfo.stub
        info.thingModel = "things-test"
        info.maximumThings = 10
        return info
    }

    public func faces(width: Int, height: Int, pixels: [UInt8]) async throws(AnalysisError) -> FaceAnalysis {
        FaceAnalysis(model: "faces-test", faces: [])
    }

    public func things(width: Int, height: Int, pixels: [UInt8]) async throws(AnalysisError) -> ThingAnalysis {
        ThingAnalysis(
            model: "things-test",
            things: [
                ThingObservation(
                    label: "Samoyed", confidence: 0.9, synset: "n02111889",
                    terms: ["Samoyed", "spitz", "dog", "animal"],
                    box: NormalizedRect(x: 0.25, y: 0.25, width: 0.5, height: 0.5))
            ])
    }
}

extension AnalysisServiceInfo {
    /// A stub's description: a face model (which finds nothing), two analyses at once, and no
    /// other kind until the stub sets its own.
    public static let stub = AnalysisServiceInfo(
        version: "test", faceModel: "faces-test", dimensions: 2, sameFaceDistance: 0.5, maximumSide: 1024,
        maximumFaces: 8, concurrent: 2)
}
