import ArgumentParser
import Foundation
import Lightbox

struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write assets' files into a folder, named by their original file names.",
        discussion: """
            --original writes the files the library holds, byte for byte. --current (the default) \
            writes the asset as it looks now; a Live Photo's still and movie carry one content \
            identifier, so that iOS and exiftool see them as a pair. Nothing is overwritten: a \
            name already taken gets "-1", "-2"... unless --overwrite says to replace it, and an \
            export into the library itself is refused.
            """)

    @OptionGroup var libraryOptions: LibraryOptions

    @Argument(help: "The assets: identifiers, or their first characters.")
    var ids: [String]

    @Option(help: ArgumentHelp("The folder to write into (made if missing).", valueName: "DIR"))
    var to: String

    @Flag(help: "Which version of each asset to write.")
    var version: ExportVersion = .current

    @Flag(help: "Replace files of the same names in the folder.")
    var overwrite = false

    @Flag(help: "Print one JSON line per file written.")
    var json = false

    func run() async throws {
        let library = try libraryOptions.open()
        let ids = try Names(library: library).assets(ids)
        let files: [ExportedFile]
        do {
            files = try await library.export(
                localIdentifiers: ids, to: URL(fileURLWithPath: to), version: version, overwrite: overwrite)
        } catch let error as LibraryError {
            throw CommandError(error.description)
        }
        for file in files {
            if json {
                Output.jsonLine(
                    ExportLine(
                        localIdentifier: file.localIdentifier, resourceType: "\(file.resourceType)", path: file.path))
            } else {
                Output.line(file.path)
            }
        }
    }
}

struct ExportLine: Encodable {
    var localIdentifier: String
    var resourceType: String
    var path: String
}

extension ExportVersion: EnumerableFlag {
    public static func help(for value: ExportVersion) -> ArgumentHelp? {
        switch value {
        case .current: "The asset as it looks now: an edited photo as its render (the default)."
        case .original: "The files as imported, byte for byte."
        }
    }
}
