import ArgumentParser
import Foundation
import Lightbox
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
        abstract: "Measure Lightbox: import throughput, thumbnail latency, memory.",
        subcommands: [ImportBench.self, ThumbnailBench.self])
}

struct ImportBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import files into a new temporary library; print files/s, MB/s and peak memory.")

    @Argument(help: "Files and folders to import.")
    var paths: [String]

    @Flag(help: "Print one JSON line (the default prints it too).")
    var json = false

    func run() async throws {
        let bench = try BenchLibrary()
        let start = Date()
        let summary = await bench.library.importItems(at: paths.map { URL(fileURLWithPath: $0) })
        let seconds = Date().timeIntervalSince(start)
        let p = summary.progress
        Report.print([
            "benchmark": "import",
            "files": p.total, "imported": p.imported, "duplicates": p.duplicates, "failed": p.failed,
            "megabytes": Report.round(Double(p.bytes) / 1_000_000),
            "seconds": Report.round(seconds),
            "filesPerSecond": Report.round(Double(p.completed) / seconds),
            "megabytesPerSecond": Report.round(Double(p.bytes) / 1_000_000 / seconds),
            "peakResidentMB": Report.peakResidentMegabytes(),
            "processors": ProcessInfo.processInfo.activeProcessorCount,
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
        let options = ThumbnailOptions(width: size, height: size, contentMode: contentMode)
        let assets = try await library.assets()
        var cold: [Double] = []
        var warm: [Double] = []
        for asset in assets {
            let start = Date()
            _ = try await library.thumbnail(for: asset.localIdentifier, options: options)
            cold.append(Date().timeIntervalSince(start) * 1000)
        }
        for asset in assets {
            let start = Date()
            _ = try await library.thumbnail(for: asset.localIdentifier, options: options)
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

    init() throws {
        library = try PhotoLibrary(url: folder.appendingPathComponent("Bench.lightbox"))
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
