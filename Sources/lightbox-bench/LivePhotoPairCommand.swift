import ArgumentParser
import Foundation
import LightboxMetadata

/// A Live Photo made from real parts, for the browser tests and benchmarks: a still and a movie
/// given one content identifier by Lightbox's own writers (the corpus has no Live Photo, and
/// exiftool cannot add an entry to an existing maker note).
struct LivePhotoPairCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "live-photo-pair",
        abstract: "Write a Live Photo (NAME.JPG and NAME.MOV, one content identifier) from a JPEG still and a movie.")

    @Option(help: "A JPEG still.") var still: String
    @Option(help: "A QuickTime or MP4 movie.") var movie: String
    @Option(help: "The folder written to.") var output: String
    @Option(help: "The file names' base.") var name = "IMG_0001"

    func run() throws {
        let identifier = UUID().uuidString
        let stillBytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: still)))
        let movieBytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: movie)))
        try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
        // New files only: never over a file this command did not write (a photo of the folder).
        try Data(try AppleMetadataWriter.jpeg(stillBytes, contentIdentifier: identifier)).write(
            to: URL(fileURLWithPath: output + "/" + name + ".JPG"), options: .withoutOverwriting)
        try Data(try AppleMetadataWriter.movie(movieBytes, contentIdentifier: identifier)).write(
            to: URL(fileURLWithPath: output + "/" + name + ".MOV"), options: .withoutOverwriting)
        print(identifier)
    }
}
