import ArgumentParser
import Foundation
import Lightbox

struct TextCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "text",
        abstract: "Show the text read in a photo, or switch reading text on or off.",
        discussion: """
            The text in photos (signs, receipts, screenshots) is read by the text job (lightbox \
            worker, lightbox serve: docs/ANALYSIS.md) from each photo's preview, offline. \
            A fetch finds it: lightbox ls --predicate 'text CONTAINS[c] "receipt"'.
              lightbox text show 3F2A
              lightbox text show 3F2A --json
              lightbox text off      # no photo is sent to be read
            """,
        subcommands: [Show.self, Off.self, On.self],
        defaultSubcommand: Show.self)

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show", abstract: "Print the lines read in a photo, top to bottom.")
        @OptionGroup var libraryOptions: LibraryOptions
        @Argument(help: "The photo: its identifier, or its first characters.") var id: String
        @Flag(help: "Print the text as one JSON line: its model, date and lines with their boxes.") var json = false

        func run() async throws {
            let library = try libraryOptions.open()
            let id = try Names(library: library).asset(id)
            guard let asset = try await library.asset(withLocalIdentifier: id) else {
                throw CommandError("no asset has the identifier \(id) in \(library.url.path)")
            }
            guard let text = try await library.text(of: asset) else {
                if json {
                    Output.jsonLine(["lines": [String]()])
                    return
                }
                Output.line(
                    asset.mediaType != .image
                        ? "\(id) is not a photo: only photos are read"
                        : try await library.textEnabled()
                            ? "\(id) is not read yet: lightbox worker reads the text of photos"
                            : "Text is off: lightbox text on reads it")
                return
            }
            if json {
                Output.jsonLine(text)
                return
            }
            if text.lines.isEmpty { Output.line("no text in \(id) (\(text.model))") }
            for line in text.lines { Output.line(line.text) }
        }
    }

    struct Off: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "off", abstract: "Stop reading text in photos, and forget every line read.")
        @OptionGroup var libraryOptions: LibraryOptions

        func run() async throws {
            try await libraryOptions.open().setTextEnabled(false)
            Output.line("text is off: every line read is forgotten; lightbox text on reads them again")
        }
    }

    struct On: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "on", abstract: "Read text again: the text job reads every photo.")
        @OptionGroup var libraryOptions: LibraryOptions

        func run() async throws {
            try await libraryOptions.open().setTextEnabled(true)
            Output.line("text is on: a worker reads the photos (lightbox jobs shows the job)")
        }
    }
}
