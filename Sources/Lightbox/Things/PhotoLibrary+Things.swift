import Foundation
import LightboxAnalysis
import LightboxImaging
import LightboxStore

extension PhotoLibrary {
    /// Finds the things in every photo `analyzer`'s things model has yet to see (none has,
    /// another model did, or the photo was edited since) and records them (``things(of:)``),
    /// each with the words it is found by (`thing == "dog"`), as ``readText(with:imageManager:progress:)``
    /// reads text.
    @discardableResult
    public func findThings(
        with analyzer: any PhotoAnalyzing, imageManager: ImageManager? = nil,
        progress: @escaping @Sendable (Int, Int) -> Void = { _, _ in }
    ) async throws -> PhotoAnalysisSummary {
        try await analyse(
            .things, with: analyzer, imageManager: imageManager, progress: progress,
            ask: { pixels in
                let answer = try await analyzer.things(width: pixels.width, height: pixels.height, pixels: pixels.bytes)
                let things = answer.things.map {
                    AssetThing(
                        label: $0.label, confidence: $0.confidence, synset: $0.synset, terms: $0.terms, x: $0.box?.x,
                        y: $0.box?.y, width: $0.box?.width, height: $0.box?.height)
                }
                return (answer.model, things)
            },
            record: { writer, identifier, model, things in
                try writer.recordThings(things, inAsset: identifier, model: model)
                return things.count
            })
    }

    /// The things found in an asset, the surest first: nil before the things job looked (or
    /// when it could not), none when it found none.
    public func things(of asset: Asset) async throws -> AssetThings? {
        try await store.read { try $0.things(ofAsset: asset.localIdentifier) }
    }
}
