import ArgumentParser
import Foundation
import Hummingbird
import NIOCore
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
        guard (1...65535).contains(port) else { throw ValidationError("--port must be 1...65535, not \(port)") }
        let library = try libraryOptions.open()
        let count = try await library.assetCount()
        let (host, port) = (host, port)
        let app = LightboxServer.application(library: library, host: host, port: port) {
            Output.message("Serving \(count) asset\(count == 1 ? "" : "s") from \(library.url.path) at http://\(host):\(port) (Ctrl-C stops)")
        }
        do {
            try await app.runService()
        } catch let error as IOError where error.errnoCode == EADDRINUSE {
            throw CommandError("port \(port) on \(host) is in use by another program; choose another with --port")
        } catch let error as IOError where error.errnoCode == EACCES {
            throw CommandError("port \(port) on \(host) needs privileges this user lacks; choose one above 1023 with --port")
        }
    }
}
