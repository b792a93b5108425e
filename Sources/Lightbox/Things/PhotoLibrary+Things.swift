import Foundation
import LightboxAnalysis
import LightboxImaging
import LightboxStore

extension PhotoLibrary {
    /// Finds the things in every photo `analyzer`'s things model has yet to see (none has,
    /// another model did, or the photo was edited since) and records them (``things(of:)``),
    /// each with the words it is found by (`thing == "dog"`). Each photo's stored preview is
    /// decoded to RGB and sent, several at once; a run stops and goes on as a run of faces does
    /// (``analyseFaces(with:imageManager:progress:)``).
    @discardableResult
    public func findThings(
        with analyzer: any PhotoAnalyzing, imageManager: ImageManager? = nil,
        progress: @escaping @Sendable (Int, Int) -> Void = { _, _ in }
    ) async throws -> PhotoAnalysisSummary {
        let info = try await analyzer.describe()
        guard let model = info.thingModel else {
            throw LibraryError(.invalidRequest, "the analysis service finds no things (it describes no things model)")
        }
        return try await analyse(.things, model: model, info: info, imageManager: imageManager, progress: progress) {
            [store] identifier, pixels in
            let answer = try await analyzer.things(width: pixels.width, height: pixels.height, pixels: pixels.bytes)
            guard answer.model == model else {
                throw AnalysisError(.badAnswer, "the analysis answered with the model \(answer.model), not \(model)")
            }
            let things = answer.things.map {
                AssetThing(
                    label: $0.label, confidence: $0.confidence, synset: $0.synset, terms: $0.terms, x: $0.box?.x,
                    y: $0.box?.y, width: $0.box?.width, height: $0.box?.height)
            }
            try await BlockingWork.run {
                try store.write { try $0.recordThings(things, inAsset: identifier, model: model) }
            }
            return things.count
        }
    }

    /// The things found in an asset, the surest first: nil before the things job looked (or
    /// when it could not), none when it found none.
    public func things(of asset: Asset) async throws -> AssetThings? {
        try await store.read { try $0.things(ofAsset: asset.localIdentifier) }
    }
}
