import ArgumentParser
import Foundation
@_spi(Benchmarks) import Lightbox
import LightboxAnalysis

/// Places over a million located assets (issue 50): the places job through an analysis
/// service, the places' list, a fetch by place, and the moments with their location names.
struct PlacesBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "places",
        abstract: "Fill a temporary library with synthetic located assets; time naming their places and reading them.")

    @OptionGroup var located: LocatedAssetsOptions

    @Option(help: ArgumentHelp("The analysis service that names places.", valueName: "URL"))
    var analysis: String

    func run() async throws {
        guard let url = URL(string: analysis) else { throw ValidationError("--analysis needs a URL") }
        let (bench, fillSeconds) = try located.fill()
        let library = bench.library
        let (assets, runs, database) = (located.assets, located.runs, located.database)
        var start = Date()
        let momentsBefore = try library.fetchMoments().count
        let momentsBeforeMs = Date().timeIntervalSince(start) * 1000

        let pool = AnalysisPool([AnalysisClient(url: url)])
        start = Date()
        let summary = try await library.findPlaces(with: pool)
        let findSeconds = Date().timeIntervalSince(start)

        func timed<T>(_ work: () async throws -> T) async throws -> (T, [Double]) {
            var times: [Double] = []
            var last: T?
            for _ in 0..<max(1, runs) {
                let began = Date()
                last = try await work()
                times.append(Date().timeIntervalSince(began) * 1000)
            }
            return (last!, times)
        }
        start = Date()
        let list = try await library.placeList()
        let listMs = Date().timeIntervalSince(start) * 1000
        let (_, listAgain) = try await timed { try await library.placeList() }
        var options = FetchOptions()
        options.predicate = try FetchPredicate(#"place == "Lisbon""#)
        options.sortDescriptors = [FetchSortDescriptor(key: "creationDate", ascending: false)]
        let (lisbon, fetchTimes) = try await timed { try library.fetchAssets(options: options).count }
        start = Date()
        let moments = try library.fetchMoments()
        let momentsMs = Date().timeIntervalSince(start) * 1000
        let titled = moments.objects(at: 0..<moments.count).filter { !$0.localizedLocationNames.isEmpty }.count

        Report.print([
            "bench": "places", "store": database == nil ? "sqlite" : "postgres", "assets": assets,
            "asked": summary.asked, "named": summary.named, "fillSeconds": Report.round(fillSeconds),
            "findSeconds": Report.round(findSeconds),
            "assetsPerSecond": Int(Double(summary.asked) / max(findSeconds, 0.001)),
            "countries": list.count, "listMs": Report.round(listMs),
            "listMedianMs": Report.round(Report.percentile(listAgain, 0.5)),
            "lisbonPhotos": lisbon, "fetchByPlaceMedianMs": Report.round(Report.percentile(fetchTimes, 0.5)),
            "moments": moments.count, "momentsWithPlaces": titled, "momentsMs": Report.round(momentsMs),
            "momentsBefore": momentsBefore, "momentsBeforePlacesMs": Report.round(momentsBeforeMs),
            "peakMB": Report.peakResidentMegabytes(),
        ])
    }
}
