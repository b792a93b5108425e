import ArgumentParser
import Foundation
@_spi(Benchmarks) import Lightbox

/// The map's cells over a million located assets (issue 50): views a person opens (the earth,
/// a continent, a city, the Pacific across the antimeridian), each read `runs` times.
struct MapBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "map",
        abstract: "Fill a temporary library with synthetic located assets; time the map's cells of a few views.")

    @OptionGroup var located: LocatedAssetsOptions

    func run() async throws {
        let (bench, fillSeconds) = try located.fill()
        let library = bench.library
        let (assets, runs, database) = (located.assets, located.runs, located.database)
        let views: [(String, MapArea, Int)] = [
            ("earth", .world, 2),
            ("europe", MapArea(south: 35, west: -12, north: 60, east: 30)!, 5),
            ("lisbon", MapArea(south: 38.65, west: -9.3, north: 38.8, east: -9.0)!, 12),
            ("pacific", MapArea(south: -50, west: 150, north: 10, east: -150)!, 4),
        ]
        var fields: [String: Any] = [
            "bench": "map", "store": database == nil ? "sqlite" : "postgres", "assets": assets,
            "fillSeconds": Report.round(fillSeconds),
        ]
        for (name, area, zoom) in views {
            var times: [Double] = []
            var cells: [MapCell] = []
            for _ in 0..<max(1, runs) {
                let start = Date()
                cells = try await library.mapCells(in: area, zoom: zoom)
                times.append(Date().timeIntervalSince(start) * 1000)
            }
            fields[name + "Cells"] = cells.count
            fields[name + "Assets"] = cells.reduce(0) { $0 + $1.count }
            fields[name + "FirstMs"] = Report.round(times[0])
            fields[name + "MedianMs"] = Report.round(Report.percentile(times, 0.5))
        }
        fields["peakMB"] = Report.peakResidentMegabytes()
        Report.print(fields)
    }
}

/// The places' and the map's benchmarks' library: synthetic asset rows, a share of them located
/// (`PhotoLibrary.insertSyntheticLocations(share:)`), on SQLite or PostgreSQL.
struct LocatedAssetsOptions: ParsableArguments {
    @Option(help: "How many asset rows.")
    var assets = 1_000_000

    @Option(help: "The share of them with a location, 0 to 1.")
    var located = 0.8

    @Option(help: "How many times to read each figure again, for its median.")
    var runs = 9

    @Option(help: ArgumentHelp("The catalog on PostgreSQL: an empty database.", valueName: "URL"))
    var database: String?

    /// The library filled, and the seconds it took.
    func fill() throws -> (BenchLibrary, Double) {
        let bench = try BenchLibrary(database: database)
        let start = Date()
        try SyntheticAssets.insert(count: assets, into: bench.library)
        try bench.library.insertSyntheticLocations(share: located)
        return (bench, Date().timeIntervalSince(start))
    }
}
