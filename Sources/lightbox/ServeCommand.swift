import ArgumentParser
import Foundation
import Hummingbird
import Lightbox
import LightboxServer

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve", abstract: "Serve the library's web page and JSON API.")

    @OptionGroup var libraryOptions: LibraryOptions

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on.")
    var port = 8080

    func run() async throws {
        let library = try libraryOptions.open()
        let count = try await library.assetCount()
        let app = LightboxServer.application(library: library, host: host, port: port)
        Output.message("Serving \(count) assets from \(library.url.path) at http://\(host):\(port) (Ctrl-C stops)")
        try await app.runService()
    }
}
