import ArgumentParser
import Foundation
@_spi(Benchmarks) import Lightbox
import LightboxImaging

#if canImport(Glibc)
    import Glibc
#endif

/// `lightbox-bench`: measures Lightbox's speed and memory on this machine and prints one JSON
/// line per run, for docs/BENCHMARKS.md. Timings live here, never in tests.
@main
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lightbox-bench",
        abstract: "Measure Lightbox: import throughput, thumbnail latency, fetches, metadata, memory.",
        subcommands: [
            ImportBench.self, ThumbnailBench.self, FetchBench.self, MetadataBench.self, ImageBench.self,
            ImageCacheBench.self, EditBench.self, OwnCodeBench.self, CaptureBench.self, ServeFileBench.self,
            WebLibraryBench.self, LivePhotoPairCommand.self, MovieEditBench.self, PeopleBench.self, PlacesBench.self,
            MapBench.self,
        ])
}

struct ImportBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import files into a new temporary library; print files/s, MB/s and peak memory.")

    @Argument(help: "Files and folders to import.")
    var paths: [String]

    @Option(
        help: """
            Import N distinct copies of each file instead (the same photo with 16 bytes of its own \
            after the image's end, which decoders ignore): many real photos from a few.
            """)
    var copies = 0

    @Flag(help: "Print one JSON line (the default prints it too).")
    var json = false

    func run() async throws {
        let bench = try BenchLibrary()
        var inputs = paths.map { URL(fileURLWithPath: $0) }
        if copies > 0 {
            let folder = bench.folder.appendingPathComponent("copies")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            for file in MetadataBench.mediaFiles(paths) {
                guard let data = FileManager.default.contents(atPath: file) else { continue }
                let name = (file as NSString).lastPathComponent
                for copy in 0..<copies {
                    var unique = data
                    unique.append(Data(UUID().uuidString.utf8.prefix(16)))
                    try unique.write(to: folder.appendingPathComponent("\(copy)-\(name)"))
                }
            }
            inputs = [folder]
            // The copies' dirty pages are written out now, not by the kernel's writeback while
            // the import runs, where they would compete with the import's own writes.
            sync()
        }
        // The files are read from the page cache, as a second pass over a card would.
        for file in MetadataBench.mediaFiles(inputs.map(\.path)) { _ = FileManager.default.contents(atPath: file) }
        let start = Date()
        let cpuBefore = Report.processorSeconds()
        let summary = await bench.library.importItems(at: inputs)
        let seconds = Date().timeIntervalSince(start)
        let cpuAfter = Report.processorSeconds()
        let p = summary.progress
        Report.print([
            "benchmark": "import",
            "files": p.total, "imported": p.imported, "duplicates": p.duplicates, "failed": p.failed,
            "skipped": p.skipped,
            "megabytes": Report.round(Double(p.bytes) / 1_000_000),
            "seconds": Report.round(seconds),
            "filesPerSecond": Report.round(Double(p.completed) / seconds),
            "megabytesPerSecond": Report.round(Double(p.bytes) / 1_000_000 / seconds),
            "peakResidentMB": Report.peakResidentMegabytes(),
            "processors": ProcessInfo.processInfo.activeProcessorCount,
            "userSeconds": Report.round(cpuAfter.user - cpuBefore.user),
            "systemSeconds": Report.round(cpuAfter.system - cpuBefore.system),
        ])
    }
}

struct ThumbnailBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "thumbnails",
        abstract: "Import files, then time thumbnails of every asset: cold (rendered) and warm (cached).")

    @Argument(help: "Files and folders to import first.")
    var paths: [String]

    @Option(help: "Thumbnail side in pixels.")
    var size = 360

    @Option(help: "fit or fill.")
    var mode = "fill"

    func run() async throws {
        let bench = try BenchLibrary()
        let library = bench.library
        _ = await library.importItems(at: paths.map { URL(fileURLWithPath: $0) })
        // Imports render the grid thumbnail ahead; start from an empty cache.
        try? FileManager.default.removeItem(at: library.url.appendingPathComponent("derivatives"))
        try FileManager.default.createDirectory(
            at: library.url.appendingPathComponent("derivatives"), withIntermediateDirectories: true)
        guard let contentMode = ContentMode(rawValue: mode) else { throw ValidationError("--mode must be fit or fill") }
        let target = PixelSize(width: size, height: size)
        let options = ImageRequestOptions(resizeMode: .exact)
        let assets = try await library.assets()
        var cold: [Double] = []
        var warm: [Double] = []
        // Cold: rendered from the file, one at a time. Warm: a new manager, as in the next
        // process, so that the images come from derivatives/ and not from memory.
        let rendering = ImageManager(library: library)
        for asset in assets {
            let start = Date()
            _ = try await rendering.finalImage(
                for: asset, targetSize: target, contentMode: contentMode, options: options)
            cold.append(Date().timeIntervalSince(start) * 1000)
        }
        let reading = ImageManager(library: library)
        for asset in assets {
            let start = Date()
            _ = try await reading.finalImage(for: asset, targetSize: target, contentMode: contentMode, options: options)
            warm.append(Date().timeIntervalSince(start) * 1000)
        }
        Report.print([
            "benchmark": "thumbnails", "assets": assets.count, "size": size, "mode": mode,
            "coldMedianMs": Report.round(Report.percentile(cold, 0.5)),
            "coldP95Ms": Report.round(Report.percentile(cold, 0.95)),
            "warmMedianMs": Report.round(Report.percentile(warm, 0.5)),
            "peakResidentMB": Report.peakResidentMegabytes(),
        ])
    }
}

/// A library in a temporary folder, removed when the benchmark ends.
final class BenchLibrary {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lightbox-bench-\(UUID().uuidString)")
    let library: PhotoLibrary

    /// A new library; its catalog in `database` (an empty PostgreSQL database) when given.
    init(database: String? = nil) throws {
        library = try PhotoLibrary(url: folder.appendingPathComponent("Bench.lightbox"), database: database)
    }

    deinit {
        try? FileManager.default.removeItem(at: folder)
    }
}

enum Report {
    static func print(_ fields: [String: Any]) {
        let data = (try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys])) ?? Data()
        FileHandle.standardOutput.write(data + Data("\n".utf8))
    }

    static func round(_ value: Double) -> Double {
        (value * 100).rounded() / 100
    }

    static func percentile(_ values: [Double], _ fraction: Double) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * fraction + 0.5))]
    }

    /// The process's resident memory now (VmRSS), in bytes: the growth across building a
    /// structure is what it holds.
    static func heapBytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return Int(line.split(separator: " ").compactMap { Int($0) }.first ?? 0) * 1024
        }
        return 0
    }

    /// CPU time this process has used so far, in user and in kernel mode, in seconds.
    static func processorSeconds() -> (user: Double, system: Double) {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1_000_000 }
        return (seconds(usage.ru_utime), seconds(usage.ru_stime))
    }

    /// The process's peak resident memory (VmHWM), in megabytes.
    static func peakResidentMegabytes() -> Double {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            let kilobytes = line.split(separator: " ").compactMap { Double($0) }.first ?? 0
            return round(kilobytes / 1024)
        }
        return 0
    }
}

struct FetchBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Fill a temporary library with N synthetic assets (rows, no files) and time fetches.")

    @Option(help: "How many asset rows.")
    var assets = 1_000_000

    @Option(
        help: ArgumentHelp(
            """
            The catalog on PostgreSQL instead of SQLite: an empty database, postgres://USER@HOST/DATABASE, \
            or one an earlier run filled with at least --assets rows, measured as it is.
            """,
            valueName: "URL"))
    var database: String?

    @Option(help: "How many times to fetch the first object, the count and the predicate again, for their medians.")
    var runs = 9

    @Flag(help: "Print one JSON line (the default prints it too).")
    var json = false

    func run() async throws {
        let bench = try BenchLibrary(database: database)
        let library = bench.library
        let fillStart = Date()
        // A PostgreSQL catalog an earlier run filled is measured again as it is (ten million
        // rows take a while to fill).
        let filled = try library.fetchAssets().count >= assets
        if !filled { try SyntheticAssets.insert(count: assets, into: library) }
        let fillSeconds = Date().timeIntervalSince(fillStart)

        // First object of everything, newest first.
        let sorted = FetchOptions(sortDescriptors: [FetchSortDescriptor(key: "creationDate", ascending: false)])
        let heapBefore = Report.heapBytes()
        var start = Date()
        let all = try library.fetchAssets(options: sorted)
        _ = all.firstObject
        let firstObjectMs = Date().timeIntervalSince(start) * 1000
        let fetchResultBytes = Report.heapBytes() - heapBefore
        // The same result once every row id is read (the last object needs them all).
        start = Date()
        _ = all.lastObject
        let lastObjectMs = Date().timeIntervalSince(start) * 1000
        let fullFetchResultBytes = Report.heapBytes() - heapBefore

        start = Date()
        let count = try library.fetchAssets().count
        let countMs = Date().timeIntervalSince(start) * 1000

        // Favourites of one year, first batch.
        let year = SyntheticAssets.start.addingTimeInterval(365 * 24 * 3600)
        let favoritesOfYear = FetchOptions(
            predicate: .favorite == true && .creationDate >= .date(year)
                && .creationDate < .date(year.addingTimeInterval(365 * 24 * 3600)),
            sortDescriptors: sorted.sortDescriptors)
        start = Date()
        let favorites = try library.fetchAssets(options: favoritesOfYear)
        _ = favorites.firstObject
        let predicateMs = Date().timeIntervalSince(start) * 1000

        // A timeline: the days of everything newest first by local time (the web page's order),
        // then a page of 200 three quarters in (a scrubber's jump), each from a fetch of its own
        // as a server makes them.
        let timeline = FetchOptions(sortDescriptors: [FetchSortDescriptor(key: "localCreationDate", ascending: false)])
        start = Date()
        let days = try library.fetchAssets(options: timeline).creationDays()
        let daysMs = Date().timeIntervalSince(start) * 1000
        start = Date()
        let jump = try await library.fetchAssetPage(options: timeline, from: .offset(count * 3 / 4), limit: 200)
        let offsetPageMs = Date().timeIntervalSince(start) * 1000

        // Change details over 100,000 assets after a transaction touching 1% of them.
        let window = try library.fetchAssets(
            options: FetchOptions(sortDescriptors: sorted.sortDescriptors, fetchLimit: min(100_000, assets)))
        let touched = stride(from: 0, to: window.count, by: 100).map { window[$0] }
        try await library.performChanges { changes in
            for asset in touched { changes.changeRequest(for: asset).isFavorite = !asset.isFavorite }
        }
        start = Date()
        let after = try library.fetchAssets(
            options: FetchOptions(sortDescriptors: sorted.sortDescriptors, fetchLimit: min(100_000, assets)))
        let details = FetchResultChangeDetails(from: window, to: after, changedObjects: touched)
        let changeDetailsMs = Date().timeIntervalSince(start) * 1000

        // The same three again, each a new fetch as a server's next request makes it: the first
        // runs above are what a process's first requests see, the medians its usual ones.
        var again: [String: [Double]] = [:]
        for _ in 0..<max(0, runs) {
            start = Date()
            _ = try library.fetchAssets(options: sorted).firstObject
            again["firstObjectMedianMs", default: []].append(Date().timeIntervalSince(start) * 1000)
            start = Date()
            _ = try library.fetchAssets().count
            again["countMedianMs", default: []].append(Date().timeIntervalSince(start) * 1000)
            start = Date()
            _ = try library.fetchAssets(options: favoritesOfYear).firstObject
            again["predicateMedianMs", default: []].append(Date().timeIntervalSince(start) * 1000)
        }

        Report.print(
            again.mapValues { Report.round(Report.percentile($0, 0.5)) as Any }.merging([
                "benchmark": "fetch", "catalog": database == nil ? "sqlite" : "postgres", "assets": count,
                "fillSeconds": Report.round(fillSeconds), "filledBefore": filled,
                "firstObjectMs": Report.round(firstObjectMs), "countMs": Report.round(countMs),
                "predicateMs": Report.round(predicateMs), "predicateCount": favorites.count,
                "changeDetailsMs": Report.round(changeDetailsMs), "changedIndexes": details.changedIndexes.count,
                "timelineDaysMs": Report.round(daysMs), "timelineDays": days.count,
                "offsetPageMs": Report.round(offsetPageMs), "offsetPageAssets": jump.assets.count,
                "fetchResultBytes": fetchResultBytes, "lastObjectMs": Report.round(lastObjectMs),
                "fullFetchResultBytes": fullFetchResultBytes, "peakResidentMB": Report.peakResidentMegabytes(),
            ]) { first, _ in first })
        withExtendedLifetime(all) {}
    }
}

/// Synthetic asset rows for benchmarks, from 2020 on (see `PhotoLibrary.insertSyntheticAssets`).
enum SyntheticAssets {
    static let start = Date(timeIntervalSince1970: 1_577_836_800)  // 2020-01-01

    static func insert(count: Int, into library: PhotoLibrary) throws {
        try library.insertSyntheticAssets(count: count, spreadFrom: start)
    }
}
