import ArgumentParser
import Foundation
import Lightbox

struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write assets' files into a folder, named by their original file names.",
        discussion: """
            --version original writes the files the library holds, byte for byte. --version current \
            (the default) writes the asset as it looks now; a Live Photo's still and movie carry one \
            content identifier, so that iOS and exiftool see them as a pair. Nothing is overwritten: \
            a name already taken gets " (1)".
            """)

    @OptionGroup var libraryOptions: LibraryOptions

    @Argument(help: "Local identifiers of the assets.")
    var ids: [String]

    @Option(help: ArgumentHelp("The folder to write into (made if missing).", valueName: "DIR"))
    var to: String

    @Option(help: "current or original.")
    var version: String = ExportVersion.current.rawValue

    @Flag(help: "Print one JSON line per file written.")
    var json = false

    func run() async throws {
        guard let version = ExportVersion(rawValue: version) else {
            throw ValidationError("--version must be current or original, not \(version)")
        }
        let library = try libraryOptions.open()
        let files = try await library.export(localIdentifiers: ids, to: URL(fileURLWithPath: to), version: version)
        for file in files {
            if json {
                Output.jsonLine(ExportLine(localIdentifier: file.localIdentifier, resourceType: "\(file.resourceType)", path: file.path))
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
