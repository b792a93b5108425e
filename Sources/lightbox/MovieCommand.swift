import ArgumentParser
import Foundation
import Lightbox

struct MovieCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "movie",
        abstract: "Write an asset's movie to a file: as stored, at a size, or as H.264.",
        discussion: """
            PhotoKit's movie requests: a video's file or a Live Photo's movie, the current \
            version (an edit's) by default. --size N gives it at most N pixels on its long side \
            (a larger movie is copied at the largest of 640, 960, 1280, 1920 and 3840 not above \
            N, as PhotoKit's export presets), --transcode an H.264 copy whatever its codec (an \
            iPhone's HEVC plays nearly everywhere as H.264); copies are kept with the asset's \
            images for the next request. Prints the file and whether it is a copy. An \
            existing file is not replaced unless --overwrite says so, and never when it is one \
            of the asset's own files; nothing is written inside a library.
            """)

    enum Version: String, ExpressibleByArgument, CaseIterable {
        case current, original
    }

    @OptionGroup var libraryOptions: LibraryOptions

    @Argument(help: "The asset: its identifier, or its first characters.")
    var id: String

    @Option(help: "current or original.")
    var version: Version = .current

    @Option(help: ArgumentHelp("At most this many pixels on the long side.", valueName: "N"))
    var size: Int?

    @Flag(help: "An H.264 copy, whatever the movie's codec.")
    var transcode = false

    @Option(help: ArgumentHelp("Where to write the movie.", valueName: "FILE"))
    var out: String

    @Flag(help: "Replace the file when it exists.")
    var overwrite = false

    func run() async throws {
        if let size, !(16...16384).contains(size) { throw ValidationError("--size must be 16...16384") }
        let library = try libraryOptions.open()
        let (asset, folder, planned) = try await OutputFiles.plan(
            asset: id, out: out, overwrite: overwrite, in: library)
        guard let resource = version == .current ? asset.currentMovieResource : asset.originalMovieResource else {
            throw CommandError("asset \(asset.localIdentifier) has no movie (it is neither a video nor a Live Photo)")
        }
        do {
            var source = try await library.fileURL(for: resource).path
            var kind = "as stored"
            if size != nil || transcode {
                if size.map({ max(resource.pixelWidth, resource.pixelHeight) > $0 }) ?? false || transcode {
                    Output.message("Making the copy…")
                }
                let made = try await library.playableMovie(
                    for: asset, current: version == .current, maximumSide: size, transcode: transcode,
                    wait: .seconds(86_400))
                if case .transcoded(let path, _) = made {
                    source = path
                    kind = "H.264 copy"
                }
            }
            let written = try folder.write(to: planned) { temporary in
                try FileManager.default.copyItem(atPath: source, toPath: temporary)
            }
            Output.line("\(written)  \(kind)")
        } catch let error as LibraryError {
            throw CommandError(error.description)
        } catch let error as CocoaError {
            throw CommandError("cannot write \(out): \(error.localizedDescription)")
        }
    }
}
