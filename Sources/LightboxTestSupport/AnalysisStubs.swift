import LightboxAnalysis

/// An analysis that reads text only, answering what a test says for each image's size.
public struct TextStub: PhotoAnalyzing {
    let answer: @Sendable (Int, Int) -> TextAnalysis

    public init(answer: @escaping @Sendable (Int, Int) -> TextAnalysis) {
        self.answer = answer
    }

    public func describe() async throws(AnalysisError) -> AnalysisServiceInfo {
        AnalysisServiceInfo(
            version: "test", faceModel: "faces-test", dimensions: 2, sameFaceDistance: 0.5, maximumSide: 1024,
            maximumFaces: 8, concurrent: 2, textModel: "text-test", maximumLines: 10)
    }

    public func faces(width: Int, height: Int, pixels: [UInt8]) async throws(AnalysisError) -> FaceAnalysis {
        FaceAnalysis(model: "faces-test", faces: [])
    }

    public func text(width: Int, height: Int, pixels: [UInt8]) async throws(AnalysisError) -> TextAnalysis {
        answer(width, height)
    }
}
