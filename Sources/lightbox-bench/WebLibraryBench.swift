import ArgumentParser
import Foundation
@_spi(Benchmarks) import Lightbox

/// A library for measuring the web page at scale: real photos imported (their thumbnails
/// rendered as any import renders them), then copied to N assets dated over four years.
struct WebLibraryBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "web-library",
        abstract: "Make a library of N assets from a few real photos, for measuring the web page (scripts/bench-web).")

    /// The file in a library this command made.
    static let marker = ".lightbox-bench-web-library"

    @Option(help: "Where the library is made; it must not exist.")
    var library: String

    @Option(help: "How many assets the library holds.")
    var assets = 100_000

    @Argument(help: "Photos to import, then copy.")
    var paths: [String]

    func validate() throws {
        guard (1...100_000_000).contains(assets) else { throw ValidationError("--assets must be 1...100000000") }
    }

    func run() async throws {
        guard !FileManager.default.fileExists(atPath: library) else {
            throw ValidationError("\(library) exists: web-library makes a new library")
        }
        let made = try PhotoLibrary(url: URL(fileURLWithPath: library))
        let start = Date()
        let summary = await made.importItems(at: paths.map { URL(fileURLWithPath: $0) })
        let imported = summary.progress.imported
        guard imported > 0 else { throw ValidationError("none of the photos imported") }
        // Dated over the four years to today, as a phone's library is.
        let years = 4
        try made.insertCopiesOfAssets(
            count: max(0, assets - imported),
            spreadFrom: Date().addingTimeInterval(-Double(years) * 365 * 24 * 3600), years: years)
        // What scripts/bench-web checks before it adds its user to a library it is given: only
        // one this command made, never a person's.
        try Data().write(to: made.url.appendingPathComponent(Self.marker), options: .withoutOverwriting)
        Report.print([
            "benchmark": "web-library", "assets": try made.fetchAssets().count, "imported": imported,
            "seconds": Report.round(Date().timeIntervalSince(start)),
        ])
    }
}
