import ArgumentParser
import Foundation
import Lightbox
import LightboxImaging

struct AssetThumbnailCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "asset-thumbnail", abstract: "Write an image of a library's asset, at a size, to a file.",
        discussion: """
            An existing file is not replaced unless --overwrite says so, and never when it is one \
            of the asset's own files; nothing is written inside a library.
            """)

    @OptionGroup var libraryOptions: LibraryOptions

    @Argument(help: "The asset: its identifier, or its first characters.")
    var id: String

    @OptionGroup var sizeOptions: ThumbnailSizeOptions

    @Option(
        help: ArgumentHelp("Where to write the thumbnail; .webp writes WebP, anything else JPEG.", valueName: "FILE"))
    var out: String

    @Flag(help: "Replace the file when it exists.")
    var overwrite = false

    func run() async throws {
        let (width, height, contentMode) = (sizeOptions.size.width, sizeOptions.size.height, sizeOptions.contentMode)
        let format: EncodedImageFormat = out.lowercased().hasSuffix(".webp") ? .webp : .jpeg
        let library = try libraryOptions.open()
        let (asset, folder, planned) = try await OutputFiles.plan(
            asset: id, out: out, overwrite: overwrite, in: library)
        do {
            // Exact, not the fast resize a screen can live with: the file is kept.
            let options = ImageRequestOptions(resizeMode: .exact, format: format)
            let thumbnail = try await ImageManager(library: library).finalImage(
                for: asset, targetSize: PixelSize(width: width, height: height), contentMode: contentMode,
                options: options)
            let written = try folder.write(thumbnail.image.bytes, to: planned)
            Output.message(
                "\(written): \(thumbnail.image.pixelWidth)x\(thumbnail.image.pixelHeight) \(format.rawValue)")
        } catch let error as LibraryError {
            throw CommandError(error.description)
        }
    }
}
