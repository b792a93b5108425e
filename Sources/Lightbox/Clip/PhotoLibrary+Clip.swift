import Foundation
import LightboxAnalysis
import LightboxImaging
import LightboxStore
import Synchronization

/// A photo that shows what a search said, by CLIP: its asset and how near its embedding lies
/// to the text's (their cosine, -1 to 1; a photo of what the text says is usually above 0.2
/// with OpenAI's models).
public struct ContentMatch: Sendable, Hashable, Codable {
    public var localIdentifier: String
    public var score: Float
}

extension PhotoLibrary {
    /// Embeds every photo `analyzer`'s CLIP model has yet to see (none has, another model did,
    /// or the photo was edited since), for ``searchContent(_:with:limit:)``, as
    /// ``readText(with:imageManager:progress:)`` reads text.
    @discardableResult
    public func embedPhotos(
        with analyzer: any PhotoAnalyzing, imageManager: ImageManager? = nil,
        progress: @escaping @Sendable (Int, Int) -> Void = { _, _ in }
    ) async throws -> PhotoAnalysisSummary {
        try await analyse(
            .clip, with: analyzer, imageManager: imageManager, progress: progress,
            ask: { pixels in
                let embedding = try await analyzer.clipImage(
                    width: pixels.width, height: pixels.height, pixels: pixels.bytes)
                return (embedding.model, embedding.vector)
            },
            record: { writer, identifier, model, vector in
                try writer.recordEmbedding(vector, inAsset: identifier, model: model)
                return 1
            })
    }

    /// The photos that best show what `text` says, the nearest first, at most `limit` (1 to
    /// 1,000): the text embedded by `analyzer`'s CLIP model and compared with every photo that
    /// model embedded (an index in memory, read once and then only for what was written since).
    /// Photos in Recently Deleted are not answered; a limited view answers its own alone.
    /// Refused when the service runs no CLIP model, or content search is switched off.
    public func searchContent(_ text: String, with analyzer: any PhotoAnalyzing, limit: Int = 100) async throws
        -> [ContentMatch]
    {
        guard try await analysisEnabled(.clip) else {
            throw LibraryError(.invalidRequest, "content search is switched off for this library")
        }
        let info = try await analyzer.describe()
        guard let model = info.clipModel else {
            throw LibraryError(
                .invalidRequest,
                "the analysis service runs no CLIP model: content search needs one (docs/ANALYSIS.md, --clip)")
        }
        let query = try await analyzer.clipText(String(text.prefix(ClipEmbedding.maximumText)))
        guard query.model == model, query.vector.count == info.clipDimensions else {
            throw AnalysisError(.badAnswer, "the text's embedding came from \(query.model), not \(model)")
        }
        try await contentIndex.catchUp(model: model, dimensions: info.clipDimensions, store: store)
        let wanted = max(1, min(limit, 1_000))
        // More than asked, since some may be in Recently Deleted or out of a limited view.
        let nearest = contentIndex.nearest(to: query.vector, count: wanted * 2 + 16)
        let identifiers = try await store.read { try $0.assetIdentifiers(ofRows: nearest.map(\.id)) }
        var matches: [ContentMatch] = []
        for (row, distance) in nearest {
            guard let identifier = identifiers[row],
                let asset = try await recentAsset(withLocalIdentifier: identifier), asset.trashedDate == nil
            else { continue }
            matches.append(ContentMatch(localIdentifier: identifier, score: 1 - distance * distance / 2))
            if matches.count == wanted { break }
        }
        return matches
    }
}

/// A library's photos' CLIP embeddings in memory, for content search: read whole the first
/// time, then only the rows written since (a photo embedded again replaces its vector). Made
/// again for another model; emptied when content search is switched off.
final class ContentIndex: Sendable {
    private struct State {
        var model: String?
        var index: VectorIndex?
        var after: Int64 = 0
    }

    private let state = Mutex(State())

    /// Reads what was written since the last look.
    func catchUp(model: String, dimensions: Int, store: any LibraryStore) async throws {
        var after = state.withLock { state -> Int64 in
            if state.model != model || state.index?.dimensions != dimensions {
                state = State(model: model, index: VectorIndex(dimensions: dimensions), after: 0)
            }
            return state.after
        }
        while true {
            let from = after
            let page = try await store.read { try $0.embeddings(model: model, after: from, limit: 4_096) }
            guard let last = page.last else { return }
            after = last.rowID
            state.withLock { state in
                guard state.model == model, var index = state.index else { return }
                state.index = nil
                for embedding in page where embedding.halves.count == dimensions {
                    index.insert(embedding.assetID, halves: embedding.halves)
                }
                state.index = index
                state.after = max(state.after, after)
            }
        }
    }

    /// The assets' rows nearest `vector` (Euclidean, between unit vectors), at most `count`.
    func nearest(to vector: [Float], count: Int) -> [(id: Int64, distance: Float)] {
        state.withLock { state in
            guard var index = state.index, index.dimensions == vector.count else { return [] }
            state.index = nil
            defer { state.index = index }
            // A text's embedding lies apart from every image's (CLIP's gap between the two), so
            // the groups nearest it are fewer good guesses than a face's: a quarter are read.
            return index.nearest(to: vector, count: count, within: 2.01, probing: 4)
        }
    }

    /// Forgets everything (content search switched off).
    func reset() {
        state.withLock { $0 = State() }
    }
}
