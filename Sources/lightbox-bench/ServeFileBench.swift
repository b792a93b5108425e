import ArgumentParser
import Foundation
import Hummingbird

/// The ceiling a Lightbox server can reach on this machine: Hummingbird alone, one route
/// answering one file's bytes held in memory, with no middleware, no authentication and no
/// library. `scripts/bench-server` loads it with wrk beside `lightbox serve` and nginx.
struct ServeFileBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve-file",
        abstract: "Serve one file from memory with Hummingbird alone, at /file, until stopped.")

    @Option(help: "The file to serve.") var file: String
    @Option var port = 8090

    func run() async throws {
        guard let data = FileManager.default.contents(atPath: file) else {
            throw ValidationError("cannot read \(file)")
        }
        let bytes = ByteBuffer(bytes: data)
        let router = Router()
        router.get("/file") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "image/jpeg", .cacheControl: "private, max-age=3600"],
                body: .init(byteBuffer: bytes))
        }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)))
        try await app.runService()
    }
}
