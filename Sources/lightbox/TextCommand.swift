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
        subcommands: [Show.self, AnalysisOff<Text>.self, AnalysisOn<Text>.self],
        defaultSubcommand: Show.self)

    enum Text: AnalysedKind {
        static let kind = PhotoAnalysisKind.text
        static let offAbstract = "Stop reading text in photos, and forget every line read."
        static let offSaid = "text is off: every line read is forgotten; lightbox text on reads them again"
        static let onAbstract = "Read text again: the text job reads every photo."
        static let onSaid = "text is on: a worker reads the photos (lightbox jobs shows the job)"
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show", abstract: "Print the lines read in a photo, top to bottom.")
        @OptionGroup var libraryOptions: LibraryOptions
        @Argument(help: "The photo: its identifier, or its first characters.") var id: String
        @Flag(help: "Print the text as one JSON line: its model, date and lines with their boxes.") var json = false

        func run() async throws {
            let (library, asset) = try await AnalysedPhoto.open(libraryOptions, id)
            guard let text = try await library.text(of: asset) else {
                return try await AnalysedPhoto.notLooked(library, asset, .text, json: json, what: "lines")
            }
            if json {
                Output.jsonLine(text)
                return
            }
            if text.lines.isEmpty { Output.line("no text in \(asset.localIdentifier) (\(text.model))") }
            for line in text.lines { Output.line(line.text) }
        }
    }
}

struct ThingsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "things",
        abstract: "Show the things found in a photo, or switch finding things on or off.",
        discussion: """
            What a photo shows and the objects in it are found by the things job (lightbox \
            worker, lightbox serve: docs/ANALYSIS.md) from each photo's preview, offline, each \
            with the words it is found by (a Samoyed is a dog): lightbox ls --predicate 'thing == "dog"'.
              lightbox things show 3F2A
              lightbox things off      # no photo is sent for its things
            """,
        subcommands: [Show.self, AnalysisOff<Things>.self, AnalysisOn<Things>.self],
        defaultSubcommand: Show.self)

    enum Things: AnalysedKind {
        static let kind = PhotoAnalysisKind.things
        static let offAbstract = "Stop finding things in photos, and forget every thing found."
        static let offSaid = "things are off: every thing found is forgotten; lightbox things on finds them again"
        static let onAbstract = "Find things again: the things job looks at every photo."
        static let onSaid = "things are on: a worker looks at the photos (lightbox jobs shows the job)"
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show", abstract: "Print the things found in a photo, the surest first, with their words.")
        @OptionGroup var libraryOptions: LibraryOptions
        @Argument(help: "The photo: its identifier, or its first characters.") var id: String
        @Flag(help: "Print the things as one JSON line: the model, the date, each thing with its words and box.")
        var json = false

        func run() async throws {
            let (library, asset) = try await AnalysedPhoto.open(libraryOptions, id)
            guard let found = try await library.things(of: asset) else {
                return try await AnalysedPhoto.notLooked(library, asset, .things, json: json, what: "things")
            }
            if json {
                Output.jsonLine(found)
                return
            }
            if found.things.isEmpty { Output.line("nothing found in \(asset.localIdentifier) (\(found.model))") }
            for thing in found.things {
                let place = thing.x.map { String(format: " at %.2f, %.2f", $0, thing.y ?? 0) } ?? ""
                Output.line(
                    String(format: "%@ %.2f%@: ", thing.label, thing.confidence, place)
                        + thing.terms.prefix(12).joined(separator: ", "))
            }
        }
    }
}

/// A kind of analysis a command switches (``AnalysisOn``, ``AnalysisOff``).
protocol AnalysedKind {
    static var kind: PhotoAnalysisKind { get }
    static var offAbstract: String { get }
    static var offSaid: String { get }
    static var onAbstract: String { get }
    static var onSaid: String { get }
}

struct AnalysisOff<Kind: AnalysedKind>: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "off", abstract: Kind.offAbstract)
    }
    @OptionGroup var libraryOptions: LibraryOptions

    func run() async throws {
        try await libraryOptions.open().setAnalysisEnabled(Kind.kind, false)
        Output.line(Kind.offSaid)
    }
}

struct AnalysisOn<Kind: AnalysedKind>: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "on", abstract: Kind.onAbstract)
    }
    @OptionGroup var libraryOptions: LibraryOptions

    func run() async throws {
        try await libraryOptions.open().setAnalysisEnabled(Kind.kind, true)
        Output.line(Kind.onSaid)
    }
}

/// The photo a `show` names, and what it says before the job looked at it.
enum AnalysedPhoto {
    static func open(_ options: LibraryOptions, _ id: String) async throws -> (PhotoLibrary, Asset) {
        let library = try options.open()
        let id = try Names(library: library).asset(id)
        guard let asset = try await library.asset(withLocalIdentifier: id) else {
            throw CommandError("no asset has the identifier \(id) in \(library.url.path)")
        }
        return (library, asset)
    }

    static func notLooked(_ library: PhotoLibrary, _ asset: Asset, _ kind: PhotoAnalysisKind, json: Bool, what: String)
        async throws
    {
        if json {
            Output.jsonLine([what: [String]()])
            return
        }
        Output.line(
            asset.mediaType != .image
                ? "\(asset.localIdentifier) is not a photo: only photos are analysed"
                : try await library.analysisEnabled(kind)
                    ? "\(asset.localIdentifier) is not analysed for \(kind.summary) yet: lightbox worker does it"
                    : "\(kind.summary.capitalized) is off: lightbox \(kind.rawValue) on turns it on")
    }
}
