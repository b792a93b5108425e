import ArgumentParser
import Foundation
import Lightbox

struct ListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ls", abstract: "List assets, newest first.")

    @OptionGroup var libraryOptions: LibraryOptions

    @Option(help: "Show at most N assets.")
    var limit: Int?

    @Flag(help: "Print one JSON line per asset.")
    var json = false

    func validate() throws {
        if let limit, limit < 0 { throw ValidationError("--limit must be 0 or more") }
    }

    func run() async throws {
        let library = try libraryOptions.open()
        for asset in try await library.assets(limit: limit) {
            if json {
                Output.jsonLine(asset)
            } else {
                Output.line(AssetText.summary(asset))
            }
        }
    }
}

/// Plain-text forms of an asset for the terminal.
enum AssetText {
    static func summary(_ asset: Asset) -> String {
        let name = asset.resources.first?.originalFilename ?? ""
        let date = ISO8601.string(from: asset.creationDate, offsetSeconds: asset.creationTimeZoneOffset)
        return "\(asset.localIdentifier)  \(date)  \(asset.pixelWidth)x\(asset.pixelHeight)  \(name)"
    }
}
