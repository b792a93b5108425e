import Foundation
import LightboxAnalysis
import LightboxImaging
import LightboxStore

extension PhotoLibrary {
    /// What a run of ``readText(with:imageManager:progress:)`` did.
    public struct TextReadingSummary: Sendable, Hashable {
        /// The text model that read.
        public var model: String
        /// Photos read (those without text included), lines found in them, photos that could
        /// not be read (each recorded with why: ``textFailures(model:limit:)``), and previews
        /// rendered again.
        public var tally = PhotoAnalysisTally()
    }

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
    ) async throws -> TextReadingSummary {
        let info = try await analyzer.describe()
        guard let model = info.textModel else {
            throw LibraryError(.invalidRequest, "the analysis service reads no text (it describes no text model)")
        }
        let manager = imageManager ?? ImageManager(library: self, memoryCacheLimit: 4 << 20)
        let side = Self.analysisSide(info)
        let tally = try await analysePhotos(
            total: try await textBacklogCount(model: model), width: min(info.concurrent, 16),
            page: { [store] after in try await store.read { try $0.textBacklog(model: model, after: after, limit: 256) }
            },
            analyse: { identifier in
                try await self.readText(of: identifier, analyzer: analyzer, manager: manager, side: side, model: model)
            },
            recordFailure: { [store] identifier, failure in
                try await BlockingWork.run {
                    try store.write { try $0.recordTextFailure(inAsset: identifier, model: model, error: failure) }
                }
            },
            progress: progress)
        return TextReadingSummary(model: model, tally: tally)
    }

    /// One photo's text read and recorded (nil: deleted meanwhile).
    private func readText(
        of localIdentifier: String, analyzer: any PhotoAnalyzing, manager: ImageManager, side: Int, model: String
    ) async throws -> PhotoAnalysed? {
        guard let (_, pixels, rendered) = try await analysisPixels(of: localIdentifier, manager: manager, side: side)
        else { return nil }
        let answer = try await analyzer.text(width: pixels.width, height: pixels.height, pixels: pixels.bytes)
        guard answer.model == model else {
            throw AnalysisError(.badAnswer, "the analysis answered with the model \(answer.model), not \(model)")
        }
        let lines = answer.lines.map {
            TextLine(
                text: $0.text, x: $0.box.x, y: $0.box.y, width: $0.box.width, height: $0.box.height,
                confidence: $0.confidence)
        }
        try await BlockingWork.run { [store] in
            try store.write { try $0.recordText(lines, inAsset: localIdentifier, model: model) }
        }
        return PhotoAnalysed(found: lines.count, rendered: rendered)
    }

    /// The text read in an asset, its lines top to bottom: nil before the text job read it (or
    /// when it could not), no lines when it holds none.
    public func text(of asset: Asset) async throws -> AssetText? {
        try await store.read { try $0.text(ofAsset: asset.localIdentifier) }
    }

    /// How many photos ``readText(with:imageManager:progress:)`` has yet to read for `model`.
    public func textBacklogCount(model: String) async throws -> Int {
        try await store.read { try $0.textBacklogCount(model: model) }
    }

    /// The photos `model` could not read, with why, at most `limit` (10,000 at most), the last
    /// tried first.
    public func textFailures(model: String, limit: Int = 100) async throws -> [AnalysisFailure] {
        try await store.read { try $0.textFailures(model: model, limit: max(0, min(limit, 10_000))) }
    }

    /// Whether the library reads the text in its photos (on unless switched off).
    public func textEnabled() async throws -> Bool {
        try await store.read { try $0.textEnabled() }
    }

    /// Switches reading text on or off, for privacy. Off deletes, in one transaction, every line
    /// read; no photo is sent to be read while it is off. On, the text job is queued to read
    /// them again.
    public func setTextEnabled(_ enabled: Bool) async throws {
        try await BlockingWork.run { [store] in
            try store.write { try $0.setTextEnabled(enabled) }
            if enabled { try store.enqueueJob(.text, subject: "") }
        }
    }
}
