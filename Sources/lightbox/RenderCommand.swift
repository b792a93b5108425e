import ArgumentParser
import Foundation
import Lightbox
import LightboxImaging

struct RenderCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Apply an edit recipe to image files, without a library.",
        discussion: """
            Each file is rendered at full size, upright, in sRGB, as a JPEG named after its base \
            name in --out (IMG_0001-1.jpg when the name is taken), with the original's metadata; \
            the originals are only read. A render that would replace one of the files read stops \
            the command before any work; --overwrite replaces other files only. Filters \
            apply in the order given: \(EditFilter.names.joined(separator: ", ")). A file that \
            fails gets its error and the others go on; the exit status is 1 when any failed.
            """)

    @Argument(help: "Image files (folders are read recursively).")
    var files: [String]

    @Option(
        name: .customLong("filter"),
        help: ArgumentHelp("A filter, NAME=VALUE (repeat, in order).", valueName: "NAME=VALUE"))
    var filters: [String] = []

    @Option(help: ArgumentHelp("The folder to write into (made if missing).", valueName: "DIR"))
    var out: String

    @Flag(help: "Replace files of the same names in --out (never a file being read).")
    var overwrite = false

    @Option(help: "JPEG quality, 1...100.")
    var quality: Int = 92

    @Flag(help: "Print one JSON line per file.")
    var json = false

    func run() async throws {
        guard (1...100).contains(quality) else { throw ValidationError("--quality must be 1...100, not \(quality)") }
        let recipe: EditRecipe
        do {
            recipe = try EditRecipe(parsing: filters)
        } catch {
            throw ValidationError(error.message)
        }
        let (paths, unreadable) = MetadataCommand.files(files, excluding: out, json: json)
        let (folder, outputs) = try OutputFiles.plan(paths, into: out, extension: "jpg", overwrite: overwrite)
        var failed = unreadable
        // One file at a time: libvips already runs each render on every core, and a full-size
        // render holds its decoded photo in memory.
        for (path, output) in zip(paths, outputs) {
            var line = ThumbnailLine(path: path, output: output)
            do {
                var size = (width: 0, height: 0)
                line.output = try folder.write(to: output) { temporary in
                    size = try ImageFile.renderEdit(
                        ofFileAt: path, recipe: recipe, toJPEGAt: temporary, quality: quality)
                }
                (line.pixelWidth, line.pixelHeight) = (size.width, size.height)
            } catch {
                line = ThumbnailLine(path: path, error: (error as? ImagingError)?.message ?? "\(error)")
                failed += 1
            }
            if json {
                Output.jsonLine(line)
            } else if let error = line.error {
                Output.message("\(path): error: \(error)")
            } else {
                Output.line("\(line.output ?? output)  \(line.pixelWidth ?? 0)x\(line.pixelHeight ?? 0)")
            }
        }
        if failed > 0 { throw ExitCode(1) }
    }
}
