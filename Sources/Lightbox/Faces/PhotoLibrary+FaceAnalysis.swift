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
        public static let maximumFailuresSaid = 100
    }

    /// What an analysis is given: the preview every import (and edit) stores, asked for as it
    /// was stored, so that the request finds it in `derivatives/` instead of decoding the
    /// original again.
    static let faceAnalysisPreview: (size: PixelSize, options: ImageRequestOptions) = {
        let preview = RenderOptions.preview
        var options = ImageRequestOptions()
        options.resizeMode = preview.resizeMode
        options.quality = preview.quality
        options.format = preview.format
        return (PixelSize(width: preview.width, height: preview.height), options)
    }()

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
        let side = max(64, min(RenderOptions.preview.width, info.maximumSide))
        let width = max(1, min(info.concurrent, 16))
        var summary = FaceAnalysisSummary(model: model)
        var total = try await faceAnalysisBacklogCount(model: model)
        var after: Int64 = 0
        progress(0, total)
        // Faces an earlier run recorded and did not group (it was stopped) are grouped first.
        var grouping = FaceGroupingState(model: model)
        summary.grouping.add(try await groupFaces(&grouping))
        while true {
            let start = after
            let page = try await store.read { try $0.faceAnalysisBacklog(model: model, after: start, limit: 256) }
            guard let last = page.last else { break }
            after = last.rowID
            try await withThrowingTaskGroup(of: (String, Analysed?, String?).self) { group in
                var next = page.makeIterator()
                func start() {
                    guard let item = next.next() else { return }
                    group.addTask {
                        do {
                            let found = try await self.analyseFaces(
                                of: item.localIdentifier, analyzer: analyzer, manager: manager, side: side, model: model
                            )
                            return (item.localIdentifier, found, nil)
                        } catch let error as AnalysisError where error.isTransient {
                            throw error
                        } catch is CancellationError {
                            throw CancellationError()
                        } catch {
                            return (item.localIdentifier, nil, "\(error)")
                        }
                    }
                }
                for _ in 0..<width { start() }
                while let (identifier, found, failure) = try await group.next() {
                    if let found {
                        summary.analysed += 1
                        summary.faces += found.faces
                        if found.rendered { summary.previewsRendered += 1 }
                    } else if let failure {
                        summary.failed += 1
                        if summary.failures.count < FaceAnalysisSummary.maximumFailuresSaid {
                            summary.failures.append("photo \(identifier): \(failure)")
                        }
                        try await BlockingWork.run { [store] in
                            try store.write {
                                try $0.recordFaceAnalysisFailure(inAsset: identifier, model: model, error: failure)
                            }
                        }
                    }
                    total = max(total, summary.analysed + summary.failed)
                    progress(summary.analysed + summary.failed, total)
                    start()
                }
            }
            summary.grouping.add(try await groupFaces(&grouping))
        }
        return summary
    }

    /// What one photo's analysis did: the faces it recorded, and whether its preview had to be
    /// rendered from the original.
    private struct Analysed: Sendable {
        var faces: Int
        var rendered: Bool
    }

    /// One photo's faces found and recorded (nil: deleted meanwhile).
    private func analyseFaces(
        of localIdentifier: String, analyzer: any PhotoAnalyzing, manager: ImageManager, side: Int, model: String
    ) async throws -> Analysed? {
        guard let asset = try await asset(withLocalIdentifier: localIdentifier), asset.mediaType == .image else {
            return nil
        }
        let (preview, source) = try await manager.finalImage(
            for: asset, targetSize: Self.faceAnalysisPreview.size, contentMode: RenderOptions.preview.contentMode,
            options: Self.faceAnalysisPreview.options)
        let pixels = try await BlockingWork.run { try ImageFile.rgbPixels(ofEncoded: preview.bytes, maximumSide: side) }
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
        return Analysed(faces: recorded.count, rendered: source == .rendered)
    }
}
