import Foundation
import LightboxAnalysis
import LightboxStore
import Synchronization

/// What a search box found (``PhotoLibrary/search(_:with:limit:now:calendar:)``): what it
/// understood, the photos, the best first, and what it searched.
public struct SearchResults: Sendable, Hashable {
    public var query: SearchQuery
    /// The assets found, the best first: those the words find (the best ranked first, then the
    /// newest), then those CLIP finds alone (the nearest first).
    public var identifiers: [String]
    /// Those of ``identifiers`` found by CLIP and not by the words.
    public var foundByContent: Set<String>
    /// What the words are looked for among, for a person: "things", "text", "places", ...
    public var covers: [String]
    /// What a person should know of the search: content search without a model, an index
    /// still being made.
    public var notes: [String]
}

extension PhotoLibrary {
    /// The names the search box understands (people, places, cameras), read again after a
    /// write here or every 30 seconds (another process's).
    public func searchVocabulary() async throws -> SearchVocabulary {
        let writes = store.localWrites
        if let known = searchVocabularyMemory.recall(writes: writes) { return known }
        let read = try await store.read { try $0.searchVocabulary() }
        searchVocabularyMemory.keep(read, writes: writes)
        return read
    }

    /// `text` as the search box reads it, against this library's names.
    public func parseSearch(_ text: String, now: Date = Date(), calendar: Calendar = .current) async throws
        -> SearchQuery
    {
        SearchQuery(text, vocabulary: try await searchVocabulary(), now: now, calendar: calendar)
    }

    /// Searches the library as one box does (docs/ANALYSIS.md, Search): the text's dates,
    /// kinds, favourites, people, places and cameras as the model's predicates, and the rest
    /// as words, found among the photos' things, text, places, people's names, albums' titles,
    /// cameras and file names (ranked by the full text), and, when `analyzer` runs a CLIP model,
    /// by what the photos show (those the words do not find, the nearest first, among what the
    /// predicates select). At most `limit` (1 to 1,000) assets; those in Recently Deleted and
    /// hidden ones are not searched. A limited view searches its own photos, by their words
    /// without people's names.
    public func search(
        _ text: String, with analyzer: (any PhotoAnalyzing)? = nil, limit: Int = 200, now: Date = Date(),
        calendar: Calendar = .current
    ) async throws -> SearchResults {
        let query = try await parseSearch(text, now: now, calendar: calendar)
        let most = max(1, min(limit, 1_000))
        let understood = try query.understoodText.map { try FetchPredicate($0) }
        let words = query.words
        let all = try query.predicate
        let found = try await BlockingWork.run { [store] in
            try store.rankedAssetIdentifiers(
                matching: all, words: words, options: FetchOptions(), limit: most, withPeople: true)
        }
        var identifiers = found
        var byContent = Set<String>()
        var notes: [String] = []
        let clipModel = try? await analyzer?.describe().clipModel
        let clipOn = try await analysisEnabled(.clip)
        if !words.isEmpty, let analyzer, clipModel != nil, clipOn, identifiers.count < most {
            let wordsText = query.chips.filter { $0.kind == .words }.map(\.text).joined(separator: " ")
            do {
                let matches = try await searchContent(wordsText, with: analyzer, limit: most)
                // Those near the best: CLIP ranks every photo, the unrelated ones too.
                let floor = (matches.first?.score ?? 0) - Self.contentMargin
                let near = matches.filter { $0.score >= floor }.map(\.localIdentifier)
                let seen = Set(identifiers)
                let candidates = near.filter { !seen.contains($0) }
                if !candidates.isEmpty {
                    let within = FetchPredicate.isIn(key: "localIdentifier", candidates.map(FetchValue.string))
                    let condition = understood.map { $0 && within } ?? within
                    let selected = Set(
                        try await BlockingWork.run { [store] in
                            try store.rankedAssetIdentifiers(
                                matching: condition, words: [], options: FetchOptions(), limit: candidates.count,
                                withPeople: true)
                        })
                    for identifier in candidates where selected.contains(identifier) && identifiers.count < most {
                        identifiers.append(identifier)
                        byContent.insert(identifier)
                    }
                }
            } catch let error as AnalysisError {
                notes.append(
                    "Searching by what photos show is not answering (\(error.message)); the words were searched alone.")
            }
        }
        var covers = ["dates", "kinds", "favourites", "cameras", "album titles", "file names"]
        if !store.isLimited, try await facesEnabled() { covers.append("people") }
        if try await placesEnabled() { covers.append("places") }
        if try await analysisEnabled(.things) { covers.append("things") }
        if try await analysisEnabled(.text) { covers.append("text in photos") }
        if clipModel != nil && clipOn {
            covers.append("what photos show (CLIP)")
        } else if !words.isEmpty {
            notes.append(
                clipOn
                    ? "Words are matched to things, text, places, people, albums and file names; searching by what "
                        + "photos show needs a CLIP model on the server."
                    : "Searching by what photos show is switched off for this library.")
        }
        let backlog = try await store.read { try $0.searchBacklogCount() }
        if backlog > 0 { notes.append("\(backlog) photos' words are still being indexed.") }
        return SearchResults(
            query: query, identifiers: identifiers, foundByContent: byContent, covers: covers, notes: notes)
    }

    /// How far below the best match a CLIP match may be and still be answered: OpenAI's models
    /// put a photo of what a text says about 0.1 nearer it than an unrelated one.
    static let contentMargin: Float = 0.1
}

/// The search box's names, kept between searches (``PhotoLibrary/searchVocabulary()``).
final class SearchVocabularyMemory: Sendable {
    private struct Kept {
        var vocabulary: SearchVocabulary
        var writes: UInt64
        var read: ContinuousClock.Instant
    }

    private let kept = Mutex<Kept?>(nil)
    static let lifetime: Duration = .seconds(30)

    func recall(writes: UInt64) -> SearchVocabulary? {
        kept.withLock { kept in
            guard let known = kept, known.writes == writes, ContinuousClock.now - known.read < Self.lifetime else {
                return nil
            }
            return known.vocabulary
        }
    }

    func keep(_ vocabulary: SearchVocabulary, writes: UInt64) {
        kept.withLock { $0 = Kept(vocabulary: vocabulary, writes: writes, read: .now) }
    }
}
