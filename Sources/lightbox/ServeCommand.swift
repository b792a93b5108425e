import ArgumentParser
import Foundation
import Hummingbird
import Lightbox
import LightboxServer
import NIOCore

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve", abstract: "Serve the library's web page and JSON API.")

    @OptionGroup var libraryOptions: LibraryOptions

    @OptionGroup var memoryOptions: MemoryBudgetOptions

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on.")
    var port = 8080

    @Option(help: "The most connections open at once (bounded by the descriptors the process may open).")
    var maxConnections = ServerLimits().connections

    @Option(help: "The most connections open at once from one address.")
    var maxConnectionsPerAddress = ServerLimits().connectionsPerAddress

    @Option(help: "Seconds a connection may send nothing (a slow header, body or keep-alive) before it is closed.")
    var idleTimeout = 30

    @Option(help: "Seconds a new connection has to send its first request's whole header.")
    var headerTimeout = 10

    @Option(
        help: ArgumentHelp(
            "Bytes a second a request's body must keep up, over each span of the header timeout, or its connection is closed.",
            valueName: "BYTES"))
    var minimumBodyRate = ServerLimits().minimumBodyRate

    @Option(
        name: .customLong("public-name"),
        help: ArgumentHelp(
            "A host name clients reach the server by (repeatable); localhost and IP addresses need none. Requests for other names are refused.",
            valueName: "NAME"))
    var publicNames: [String] = []

    @Flag(
        help:
            "Trust X-Forwarded-Proto and X-Forwarded-For from a proxy in front (Secure cookies over TLS, the client's own address)."
    )
    var trustProxy = false

    @Option(
        help: ArgumentHelp(
            "Background jobs (movies made playable, older imports' cameras read) this server runs at once; 0 leaves them to `lightbox worker` processes.",
            valueName: "N"))
    var jobs = 1

    @OptionGroup var analysisOptions: AnalysisOptions

    @Option(
        name: .customLong("map-tiles"),
        help: ArgumentHelp(
            "The web app's map tiles, a URL with {z}, {x} and {y} (OpenStreetMap's by default, for light use; see its tile usage policy), or none.",
            valueName: "URL"))
    var mapTiles: String?

    @Option(
        name: .customLong("map-attribution"),
        help: ArgumentHelp("What the map credits for its tiles (their licence asks for it).", valueName: "TEXT"))
    var mapAttribution: String?

    @Option(
        name: .customLong("map-max-zoom"),
        help: ArgumentHelp("The tile server's deepest zoom, 1 to 22.", valueName: "N"))
    var mapMaxZoom = 19

    /// The map's tiles the options name.
    func tiles() throws -> MapTiles {
        switch mapTiles {
        case nil:
            guard mapAttribution == nil else { throw ValidationError("--map-attribution goes with --map-tiles URL") }
            return .openStreetMap
        case "none": return .none
        case let url?:
            guard let attribution = mapAttribution, !attribution.isEmpty else {
                throw ValidationError(
                    "--map-tiles URL needs --map-attribution TEXT: what the tiles' licence asks to credit")
            }
            do {
                return try MapTiles(url: url, attribution: attribution, maxZoom: mapMaxZoom)
            } catch let error as MapTilesError {
                throw ValidationError("--map-tiles: \(error)")
            }
        }
    }

    func run() async throws {
        guard (1...65535).contains(port) else { throw ValidationError("--port must be 1...65535, not \(port)") }
        for (name, value) in [
            ("--max-connections", maxConnections), ("--max-connections-per-address", maxConnectionsPerAddress),
            ("--idle-timeout", idleTimeout), ("--header-timeout", headerTimeout),
            ("--minimum-body-rate", minimumBodyRate),
        ] where !(1...1_000_000).contains(value) {
            throw ValidationError("\(name) must be 1...1000000, not \(value)")
        }
        guard (0...64).contains(jobs) else { throw ValidationError("--jobs must be 0...64, not \(jobs)") }
        let tiles = try tiles()
        var limits = ServerLimits()
        limits.connections = maxConnections
        limits.connectionsPerAddress = maxConnectionsPerAddress
        limits.idleTimeout = .seconds(idleTimeout)
        limits.headerTimeout = .seconds(headerTimeout)
        limits.minimumBodyRate = minimumBodyRate
        let budget = memoryOptions.apply()
        let library = try libraryOptions.open(joining: true)
        let count = try await library.assetCount()
        let accounts = try AccountsAccess.open(library)
        var policy = AccessPolicy()
        policy.hostNames = publicNames
        policy.loopbackOnly = AccessPolicy.isLoopback(host)
        policy.trustProxy = trustProxy
        let users = try await accounts.users().count
        if users == 0 && !policy.loopbackOnly {
            throw CommandError(
                "the library has no users, so serving it on \(host) would open it to the network: "
                    + "add one with `lightbox user add NAME` first (or serve on 127.0.0.1)")
        }
        let (host, port) = (host, port)
        let (analyzer, local, unavailable) = try analysisOptions.analyzer()
        defer { local?.stop() }
        let faces = await AnalysisOptions.describe(analyzer) ?? unavailable
        let app = LightboxServer.application(
            library: library, accounts: accounts, policy: policy, host: host, port: port, limits: limits,
            jobs: jobs, analyzer: analyzer, tiles: tiles
        ) {
            Output.message(
                "Serving \(count) asset\(count == 1 ? "" : "s") from \(library.url.path) at http://\(host):\(port) (Ctrl-C stops)"
            )
            Output.message(
                users == 0
                    ? "No users: anyone on this machine can reach the library; `lightbox user add NAME` requires signing in"
                    : "\(users) user\(users == 1 ? "" : "s") may sign in")
            Output.message("Memory budget: \(budget >> 20) MB for decodes, metadata, movies, edits and captures")
            let editors = library.installedEditors()
            if !editors.editors.isEmpty {
                Output.message("Editors: " + editors.editors.map(\.manifest.name).joined(separator: ", "))
            }
            for problem in editors.problems { Output.message("warning: \(problem.path): \(problem.message); skipped") }
            if let faces { Output.message(faces) }
        }
        do {
            try await app.runService()
        } catch let error as IOError where error.errnoCode == EADDRINUSE {
            throw CommandError("port \(port) on \(host) is in use by another program; choose another with --port")
        } catch let error as IOError where error.errnoCode == EACCES {
            throw CommandError(
                "port \(port) on \(host) needs privileges this user lacks; choose one above 1023 with --port")
        }
    }
}
