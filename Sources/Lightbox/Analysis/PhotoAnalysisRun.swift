import Foundation
import LightboxAnalysis
import LightboxImaging
import LightboxStore

/// What a run over a backlog of photos did, whatever it looked for (faces, text).
public struct PhotoAnalysisTally: Sendable, Hashable {
    /// Photos analysed, those where nothing was found included.
    public var analysed = 0
    /// What was found in them: faces, lines of text.
    public var found = 0
    /// How many photos could not be analysed (each is recorded with why).
    public var failed = 0
    /// The first ``maximumFailuresSaid`` of them, each with why, naming the photo.
    public var failures: [String] = []
    /// Photos whose stored preview was missing (`derivatives/` emptied), rendered again from
    /// the original.
    public var previewsRendered = 0

    /// The most failures a tally keeps the words of: a run over a million photos that all fail
    /// holds a count, not a million messages.
    public static let maximumFailuresSaid = 100
}

/// What one photo's analysis did: how much it found, and whether its preview had to be
/// rendered from the original.
struct PhotoAnalysed: Sendable {
    var found: Int
    var rendered: Bool
}

extension PhotoLibrary {
    /// What an analysis is given: the preview every import (and edit) stores, asked for as it
    /// was stored, so that the request finds it in `derivatives/` instead of decoding the
    /// original again.
    static let analysisPreview: (size: PixelSize, options: ImageRequestOptions) = {
        let preview = RenderOptions.preview
        var options = ImageRequestOptions()
        options.resizeMode = preview.resizeMode
        options.quality = preview.quality
        options.format = preview.format
        return (PixelSize(width: preview.width, height: preview.height), options)
    }()

    /// The side of the RGB image an analysis is sent: the preview's, within what the service takes.
    static func analysisSide(_ info: AnalysisServiceInfo) -> Int {
        max(64, min(RenderOptions.preview.width, info.maximumSide))
    }

    /// A photo's stored preview as 8-bit RGB, at most `side` pixels a side, and whether it had
    /// to be rendered from the original; nil for an asset deleted meanwhile or not a photo.
    func analysisPixels(of localIdentifier: String, manager: ImageManager, side: Int) async throws
        -> (asset: Asset, pixels: RGBPixels, rendered: Bool)?
    {
        guard let asset = try await asset(withLocalIdentifier: localIdentifier), asset.mediaType == .image else {
            return nil
        }
        let (preview, source) = try await manager.finalImage(
            for: asset, targetSize: Self.analysisPreview.size, contentMode: RenderOptions.preview.contentMode,
            options: Self.analysisPreview.options)
        let pixels = try await BlockingWork.run { try ImageFile.rgbPixels(ofEncoded: preview.bytes, maximumSide: side) }
        return (asset, pixels, source == .rendered)
    }

    /// Analyses every photo of a backlog, paged by row id (`page` answers the photos after a
    /// row), `width` at once. What `analyse` records stays recorded: stopped or killed, a run
    /// loses nothing and the next goes on with what is left. A photo that cannot be analysed (a
    /// preview that does not decode, an image the service refuses, an answer that breaks the
    /// protocol) is given to `recordFailure` with why and the work goes on; a service that
    /// cannot be reached stops the run with that error, to be tried again later. `afterPage`
    /// runs once a page is done; `progress` is told the photos done and the photos there were.
    func analysePhotos(
        total initialTotal: Int, width: Int,
        page: @escaping @Sendable (Int64) async throws -> [AnalysisBacklogItem],
        analyse: @escaping @Sendable (String) async throws -> PhotoAnalysed?,
        recordFailure: @escaping @Sendable (String, String) async throws -> Void,
        afterPage: () async throws -> Void = {},
        progress: @escaping @Sendable (Int, Int) -> Void
    ) async throws -> PhotoAnalysisTally {
        var tally = PhotoAnalysisTally()
        var total = initialTotal
        var after: Int64 = 0
        progress(0, total)
        while true {
            let items = try await page(after)
            guard let last = items.last else { break }
            after = last.rowID
            try await withThrowingTaskGroup(of: (String, PhotoAnalysed?, String?).self) { group in
                var next = items.makeIterator()
                func start() {
                    guard let item = next.next() else { return }
                    group.addTask {
                        do {
                            return (item.localIdentifier, try await analyse(item.localIdentifier), nil)
                        } catch let error as AnalysisError where error.isTransient {
                            throw error
                        } catch is CancellationError {
                            throw CancellationError()
                        } catch {
                            return (item.localIdentifier, nil, "\(error)")
                        }
                    }
                }
                for _ in 0..<max(1, width) { start() }
                while let (identifier, analysed, failure) = try await group.next() {
                    if let analysed {
                        tally.analysed += 1
                        tally.found += analysed.found
                        if analysed.rendered { tally.previewsRendered += 1 }
                    } else if let failure {
                        tally.failed += 1
                        if tally.failures.count < PhotoAnalysisTally.maximumFailuresSaid {
                            tally.failures.append("photo \(identifier): \(failure)")
                        }
                        try await recordFailure(identifier, failure)
                    }
                    total = max(total, tally.analysed + tally.failed)
                    progress(tally.analysed + tally.failed, total)
                    start()
                }
            }
            try await afterPage()
        }
        return tally
    }
}

/// What a run of the text or the things job did.
public struct PhotoAnalysisSummary: Sendable, Hashable {
    public var kind: PhotoAnalysisKind
    /// The model that looked.
    public var model: String
    /// Photos looked at (those where nothing was found included), what was found in them,
    /// photos that could not be analysed (each recorded with why:
    /// ``PhotoLibrary/analysisFailures(_:model:limit:)``), and previews rendered again.
    public var tally = PhotoAnalysisTally()
}

extension PhotoLibrary {
    /// Looks at every photo that `analyzer`'s model of `kind` has yet to see (none has, another
    /// model did, or the photo was edited since), as ``analysePhotos(total:width:page:analyse:recordFailure:afterPage:progress:)``
    /// runs them: `ask` sends each photo's preview as RGB and answers the model that answered and
    /// what it found, and `record` keeps that (answering how much it kept), in a transaction of
    /// its own.
    func analyse<Found: Sendable>(
        _ kind: PhotoAnalysisKind, with analyzer: any PhotoAnalyzing, imageManager: ImageManager?,
        progress: @escaping @Sendable (Int, Int) -> Void,
        ask: @escaping @Sendable (RGBPixels) async throws -> (model: String, found: Found),
        record: @escaping @Sendable (any StoreWriter, _ localIdentifier: String, _ model: String, Found) throws -> Int
    ) async throws -> PhotoAnalysisSummary {
        let info = try await analyzer.describe()
        guard let model = info.model(of: kind) else {
            throw LibraryError(
                .invalidRequest, "the analysis service has no \(kind.summary) model (its description names none)")
        }
        let manager = imageManager ?? ImageManager(library: self, memoryCacheLimit: 4 << 20)
        let side = Self.analysisSide(info)
        let tally = try await analysePhotos(
            total: try await analysisBacklogCount(kind, model: model), width: min(info.concurrent, 16),
            page: { [store] after in
                try await store.read { try $0.analysisBacklog(kind, model: model, after: after, limit: 256) }
            },
            analyse: { [store] identifier in
                guard
                    let (_, pixels, rendered) = try await self.analysisPixels(
                        of: identifier, manager: manager, side: side)
                else { return nil }
                let (answered, found) = try await ask(pixels)
                guard answered == model else {
                    throw AnalysisError(.badAnswer, "the analysis answered with the model \(answered), not \(model)")
                }
                let kept = try await BlockingWork.run { try store.write { try record($0, identifier, model, found) } }
                return PhotoAnalysed(found: kept, rendered: rendered)
            },
            recordFailure: { [store] identifier, failure in
                try await BlockingWork.run {
                    try store.write {
                        try $0.recordAnalysisFailure(kind, inAsset: identifier, model: model, error: failure)
                    }
                }
            },
            progress: progress)
        return PhotoAnalysisSummary(kind: kind, model: model, tally: tally)
    }

    /// How many photos `model` has yet to look at for `kind`.
    public func analysisBacklogCount(_ kind: PhotoAnalysisKind, model: String) async throws -> Int {
        try await store.read { try $0.analysisBacklogCount(kind, model: model) }
    }

    /// The photos `model` could not look at for `kind`, with why, at most `limit` (10,000 at
    /// most), the last tried first.
    public func analysisFailures(_ kind: PhotoAnalysisKind, model: String, limit: Int = 100) async throws
        -> [AnalysisFailure]
    {
        try await store.read { try $0.analysisFailures(kind, model: model, limit: max(0, min(limit, 10_000))) }
    }

    /// Whether the library reads the text in its photos, finds the things in them, or embeds
    /// them for content search (each on unless switched off).
    public func analysisEnabled(_ kind: PhotoAnalysisKind) async throws -> Bool {
        try await store.read { try $0.analysisEnabled(kind) }
    }

    /// Switches reading text, or finding things, on or off, for privacy. Off deletes, in one
    /// transaction, everything it found; no photo is sent for it while it is off. On, its job
    /// is queued to look at every photo again.
    public func setAnalysisEnabled(_ kind: PhotoAnalysisKind, _ enabled: Bool) async throws {
        try await BlockingWork.run { [store] in
            try store.write { try $0.setAnalysisEnabled(kind, enabled) }
            if enabled { try store.enqueueJob(kind.job, subject: "") }
        }
        if !enabled && kind == .clip { contentIndex.reset() }
    }
}

extension AnalysisServiceInfo {
    /// The model the service runs for `kind`, nil when it runs none.
    func model(of kind: PhotoAnalysisKind) -> String? {
        switch kind {
        case .text: textModel
        case .things: thingModel
        case .clip: clipModel
        }
    }
}
