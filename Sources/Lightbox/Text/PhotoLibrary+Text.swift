import Foundation
import LightboxAnalysis
import LightboxImaging
import LightboxStore

extension PhotoLibrary {
    /// Reads the text of every photo `analyzer`'s text model has yet to read (none has, another
    /// model did, or the photo was edited since) and records its lines (``text(of:)``). Each
    /// photo's stored preview is decoded to RGB and sent, several at once, as many as the
    /// services take together (at most 16); the service checks cheaply first, so that a photo
    /// without text costs little. A run stops and goes on as a run of faces does
    /// (``analyseFaces(with:imageManager:progress:)``).
    @discardableResult
    public func readText(
        with analyzer: any PhotoAnalyzing, imageManager: ImageManager? = nil,
        progress: @escaping @Sendable (Int, Int) -> Void = { _, _ in }
    ) async throws -> PhotoAnalysisSummary {
        try await analyse(
            .text, with: analyzer, imageManager: imageManager, progress: progress,
            ask: { pixels in
                let answer = try await analyzer.text(width: pixels.width, height: pixels.height, pixels: pixels.bytes)
                let lines = answer.lines.map {
                    TextLine(
                        text: $0.text, x: $0.box.x, y: $0.box.y, width: $0.box.width, height: $0.box.height,
                        confidence: $0.confidence)
                }
                return (answer.model, lines)
            },
            record: { writer, identifier, model, lines in
                try writer.recordText(lines, inAsset: identifier, model: model)
                return lines.count
            })
    }

    /// The text read in an asset, its lines top to bottom: nil before the text job read it (or
    /// when it could not), no lines when it holds none.
    public func text(of asset: Asset) async throws -> AssetText? {
        try await store.read { try $0.text(ofAsset: asset.localIdentifier) }
    }
}
