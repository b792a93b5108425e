import ArgumentParser
import Foundation
import Lightbox

struct ClipCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clip",
        abstract: "Search photos by what they show, with a CLIP model, or switch content search on or off.",
        discussion: """
            No package ships CLIP's weights: the operator names a model's folder in Immich's layout \
            (config.json, visual/, textual/) with --clip-model or LIGHTBOX_CLIP_MODEL, and the clip \
            job (lightbox worker, lightbox serve) embeds each photo's preview (docs/ANALYSIS.md).
              lightbox clip search "a dog on the beach" --clip-model ~/models/ViT-B-32__openai
              lightbox clip off      # no photo is sent to be embedded, every embedding forgotten
            """,
        subcommands: [Search.self, AnalysisOff<Clip>.self, AnalysisOn<Clip>.self],
        defaultSubcommand: Search.self)

    enum Clip: AnalysedKind {
        static let kind = PhotoAnalysisKind.clip
        static let offAbstract = "Stop embedding photos for content search, and forget every embedding."
        static let offSaid = "content search is off: every embedding is forgotten; lightbox clip on embeds them again"
        static let onAbstract = "Embed photos again: the clip job embeds every photo."
        static let onSaid =
            "content search is on: a worker with a CLIP model embeds the photos (lightbox jobs shows the job)"
    }

    struct Search: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "search", abstract: "Print the photos that best show what a text says, the nearest first.")
        @OptionGroup var libraryOptions: LibraryOptions
        @OptionGroup var analysisOptions: AnalysisOptions
        @Argument(help: "What the photos show, in words (1 to 1000 characters).") var text: String
        @Option(help: "The most photos printed (1 to 1000).") var limit = 20
        @Flag(help: "Print each photo as a JSON line: its identifier and score.") var json = false

        func run() async throws {
            guard (1...1_000).contains(limit) else { throw ValidationError("--limit must be 1 to 1000") }
            guard !text.trimmingCharacters(in: .whitespaces).isEmpty, text.count <= 1_000 else {
                throw ValidationError("the text must be 1 to 1000 characters")
            }
            let library = try libraryOptions.open()
            let (analyzer, local, unavailable) = try analysisOptions.analyzer()
            defer { local?.stop() }
            guard let analyzer else { throw CommandError(unavailable ?? "no analysis service") }
            let matches = try await library.searchContent(text, with: analyzer, limit: limit)
            for match in matches {
                if json {
                    Output.jsonLine(match)
                } else {
                    Output.line(String(format: "%@  %.3f", match.localIdentifier, match.score))
                }
            }
            if matches.isEmpty && !json { Output.line("no photo is embedded yet: lightbox worker embeds them") }
        }
    }
}
