import ArgumentParser
import Foundation
import Lightbox

struct SearchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Search the library as one box does: dates, kinds, people, places, cameras and words.",
        discussion: """
            What the text names is understood as the model's predicates (2019, last summer, \
            june 2020, videos, selfies, favourites, a person's, a place's or a camera's name); \
            the rest is searched as words among the photos' things, text, places, people, albums, \
            cameras and file names, and, with a CLIP model (--clip-model or LIGHTBOX_CLIP_MODEL, \
            or --analysis naming a service that has one), by what they show (docs/ANALYSIS.md).
              lightbox search "dog in Lisbon 2019"
              lightbox search "receipt last month" --json
            """)

    @OptionGroup var libraryOptions: LibraryOptions
    @OptionGroup var analysisOptions: AnalysisOptions
    @Argument(help: "What to search for (at most 500 characters).") var text: String
    @Option(help: "The most photos printed (1 to 1000).") var limit = 50
    @Flag(help: "Print one JSON line: what was understood, the photos and what was searched.") var json = false

    func run() async throws {
        guard (1...1_000).contains(limit) else { throw ValidationError("--limit must be 1 to 1000") }
        let library = try libraryOptions.open()
        // A service only where content search may use one: one named, or a CLIP model to start
        // one with (the faces' models take seconds to load for nothing otherwise).
        let wantsService =
            !analysisOptions.services.isEmpty || analysisOptions.clipModel != nil
            || !(ProcessInfo.processInfo.environment["LIGHTBOX_CLIP_MODEL"] ?? "").isEmpty
        let (analyzer, local, _) = wantsService ? try analysisOptions.analyzer() : (nil, nil, nil)
        defer { local?.stop() }
        let results: SearchResults
        do {
            results = try await library.search(text, with: analyzer, limit: limit)
        } catch let error as LibraryError {
            throw CommandError(error.message)
        }
        let assets = try library.fetchAssets(
            options: FetchOptions(
                predicate: .isIn(key: "localIdentifier", results.identifiers.map(FetchValue.string)),
                includeHiddenAssets: false))
        var byIdentifier: [String: Asset] = [:]
        for asset in assets { byIdentifier[asset.localIdentifier] = asset }
        if json {
            Output.jsonLine(
                SearchOutput(
                    understood: results.query.chips, predicate: results.query.predicateText,
                    assets: results.identifiers, foundByContent: results.foundByContent.sorted(),
                    covers: results.covers, notes: results.notes))
            return
        }
        let understood = results.query.chips.map { "\($0.label) (\($0.kind.rawValue))" }
        Output.line("Understood: " + (understood.isEmpty ? "nothing" : understood.joined(separator: ", ")))
        for identifier in results.identifiers {
            guard let asset = byIdentifier[identifier] else { continue }
            Output.line(
                AssetText.summary(asset) + (results.foundByContent.contains(identifier) ? "  (by what it shows)" : ""))
        }
        Output.line("\(results.identifiers.count) found; searched: " + results.covers.joined(separator: ", "))
        for note in results.notes { Output.line("note: " + note) }
    }

    struct SearchOutput: Encodable {
        var understood: [SearchChip]
        var predicate: String?
        var assets: [String]
        var foundByContent: [String]
        var covers: [String]
        var notes: [String]
    }
}
