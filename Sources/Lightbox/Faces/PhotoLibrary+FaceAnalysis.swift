import Foundation
import LightboxAnalysis
import LightboxImaging
import LightboxStore

extension PhotoLibrary {
    /// What a run of ``analyseFaces(with:imageManager:progress:)`` did.
    public struct FaceAnalysisSummary: Sendable, Hashable {
        /// The model that analysed.
        public var model: String
        /// Photos analysed, those without a face included.
        public var analysed = 0
        /// Faces found in them.
        public var faces = 0
        /// How many photos could not be analysed (each is recorded with why:
        /// ``faceAnalysisFailures(model:limit:)``).
        public var failed = 0
        /// The first ``maximumFailuresSaid`` of them, each with why, naming the photo.
        public var failures: [String] = []
        /// Photos whose stored preview was missing (`derivatives/` emptied), rendered again
        /// from the original.
        public var previewsRendered = 0
        /// What grouping the faces into people did.
        public var grouping = FaceGroupingSummary()

        /// The most failures a summary keeps the words of: a run over a million photos that
        /// all fail holds a count, not a million messages.
        public static let maximumFailuresSaid = PhotoAnalysisTally.maximumFailuresSaid
    }

    /// Finds the faces of every photo `analyzer`'s model has yet to see (none has, or another
    /// model did) and records them (``recordFaces(_:in:model:)``). Each photo's stored preview
    /// is decoded to RGB and sent; several are under way at once, as many as the services take
    /// together (at most 16). What is recorded stays recorded: stopped or killed, a run loses
    /// nothing and the next goes on with what is left. A photo that cannot be analysed (a
    /// preview that does not decode, an image the service refuses, an answer that breaks the
    /// protocol) is recorded with why and the work goes on; a service that cannot be reached
    /// stops the run with that error, to be tried again later. `progress` is told the photos
    /// done and the photos there were to do.
    @discardableResult
    public func analyseFaces(
        with analyzer: any PhotoAnalyzing, imageManager: ImageManager? = nil,
        progress: @escaping @Sendable (Int, Int) -> Void = { _, _ in }
    ) async throws -> FaceAnalysisSummary {
        let info = try await analyzer.describe()
        let model = info.faceModel
        let manager = imageManager ?? ImageManager(library: self, memoryCacheLimit: 4 << 20)
        let side = Self.analysisSide(info)
        var summary = FaceAnalysisSummary(model: model)
        // Faces an earlier run recorded and did not group (it was stopped) are grouped first.
        var grouping = FaceGroupingState(model: model)
        summary.grouping.add(try await groupFaces(&grouping))
        let tally = try await analysePhotos(
            total: try await faceAnalysisBacklogCount(model: model), width: min(info.concurrent, 16),
            page: { [store] after in
                try await store.read { try $0.faceAnalysisBacklog(model: model, after: after, limit: 256) }
            },
            analyse: { identifier in
                try await self.analyseFaces(
                    of: identifier, analyzer: analyzer, manager: manager, side: side, model: model)
            },
            recordFailure: { [store] identifier, failure in
                try await BlockingWork.run {
                    try store.write {
                        try $0.recordFaceAnalysisFailure(inAsset: identifier, model: model, error: failure)
                    }
                }
            },
            afterPage: { summary.grouping.add(try await self.groupFaces(&grouping)) },
            progress: progress)
        summary.analysed = tally.analysed
        summary.faces = tally.found
        summary.failed = tally.failed
        summary.failures = tally.failures
        summary.previewsRendered = tally.previewsRendered
        return summary
    }

    /// One photo's faces found and recorded (nil: deleted meanwhile).
    private func analyseFaces(
        of localIdentifier: String, analyzer: any PhotoAnalyzing, manager: ImageManager, side: Int, model: String
    ) async throws -> PhotoAnalysed? {
        guard
            let (asset, pixels, rendered) = try await analysisPixels(of: localIdentifier, manager: manager, side: side)
        else { return nil }
        let answer = try await analyzer.faces(width: pixels.width, height: pixels.height, pixels: pixels.bytes)
        guard answer.model == model else {
            throw AnalysisError(.badAnswer, "the analysis answered with the model \(answer.model), not \(model)")
        }
        let found = answer.faces.map { face in
            FoundFace(
                x: face.box.x, y: face.box.y, width: face.box.width, height: face.box.height, quality: face.quality,
                landmarks: face.landmarks.flatMap { [$0.x, $0.y] }, embedding: face.embedding)
        }
        let recorded = try await recordFaces(found, in: asset, model: model)
        return PhotoAnalysed(found: recorded.count, rendered: rendered)
    }
}
