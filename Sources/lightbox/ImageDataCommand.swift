import ArgumentParser
import Foundation
import Lightbox

struct ImageDataCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "image-data",
        abstract: "Write a photo's bytes as stored to a file, and say the orientation to show them in.",
        discussion: """
            PhotoKit's requestImageDataAndOrientation: the current version is an edit's render \
            (upright) when the photo has one, else the original; unadjusted is the original with \
            a sidecar's orientation; original, the file as imported with its own. Prints the file, \
            its Uniform Type Identifier and the EXIF orientation (1 to 8). A movie has no image \
            data. An existing file is not replaced unless --overwrite says so, and never when it \
            is one of the asset's own files; nothing is written inside a library.
            """)

    enum Version: String, ExpressibleByArgument, CaseIterable {
        case current, unadjusted, original
    }

    @OptionGroup var libraryOptions: LibraryOptions

    @Argument(help: "The asset: its identifier, or its first characters.")
    var id: String

    @Option(help: "current, unadjusted or original.")
    var version: Version = .current

    @Option(help: ArgumentHelp("Where to write the bytes.", valueName: "FILE"))
    var out: String

    @Flag(help: "Replace the file when it exists.")
    var overwrite = false

    @Flag(help: "Print one JSON line: path, uniformTypeIdentifier, orientation, size.")
    var json = false

    struct Written: Encodable {
        var path: String
        var uniformTypeIdentifier: String
        var orientation: Int
        var size: Int
    }

    func run() async throws {
        let library = try libraryOptions.open()
        let (asset, folder, planned) = try await OutputFiles.plan(
            asset: id, out: out, overwrite: overwrite, in: library)
        let versions: [Version: ImageRequestOptions.Version] = [
            .current: .current, .unadjusted: .unadjusted, .original: .original,
        ]
        do {
            var options = ImageRequestOptions()
            options.version = versions[version] ?? .current
            let data = try await ImageManager(library: library).requestImageDataAndOrientation(
                for: asset, options: options)
            let written = try folder.write(data.bytes, to: planned)
            if json {
                Output.jsonLine(
                    Written(
                        path: written, uniformTypeIdentifier: data.uniformTypeIdentifier,
                        orientation: data.orientation, size: data.bytes.count))
            } else {
                Output.line("\(written)  \(data.uniformTypeIdentifier)  orientation \(data.orientation)")
            }
        } catch let error as LibraryError {
            throw CommandError(error.description)
        }
    }
}
