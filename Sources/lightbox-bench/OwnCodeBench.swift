import ArgumentParser
import Foundation
@_spi(Benchmarks) import LightboxImaging

#if canImport(Glibc)
    import Glibc
#endif

/// `lightbox-bench own-code`: what each piece of Lightbox's own C gains over the library that
/// would do its work (``OwnCode``), in one process on the same files: every file is rendered
/// at each size with everything on, then with each piece turned off in turn, the
/// configurations taking turns within each round, in an order that moves on by one each
/// round, so that a slow spell of the machine, or what one render leaves behind, falls on all
/// of them. A configuration's figure is its median round; a piece's gain on a file is how
/// much longer the render takes without it, over the time with it.
///
/// Renders run one at a time on one processor (``ImageFile/processorLimit``), so that no
/// helper thread hides processor time: wall and processor time (every thread's, libheif's
/// own included) are both printed.
struct OwnCodeBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "own-code",
        abstract: "Each piece of Lightbox's own C turned off in turn: the render time it saves.")

    @Argument(help: "Image files.")
    var files: [String]

    @Option(help: "Thumbnail sizes (the box's side, fit).")
    var size: [Int] = [256, 1024]

    @Option(help: "Rounds per configuration; its figure is the median round's.")
    var rounds = 9

    @Option(help: "Pieces to turn off, one at a time (default: all).")
    var piece: [String] = OwnCode.allCases.map(\.rawValue)

    @Flag(
        help: """
            Also time a new process per render: its start, the libraries the render loads, one \
            image (what a command that makes one thumbnail waits).
            """)
    var cold = false

    @Option(help: .hidden)
    var once: String?

    /// Wall and processor milliseconds of one render.
    struct Timing {
        var wall: Double
        var processor: Double
    }

    func run() throws {
        guard rounds >= 1 else { throw ValidationError("--rounds must be 1 or more, not \(rounds)") }
        if let once {
            // A child of a cold run: one render of the first file with the piece named off.
            ImageFile.processorLimit = 1
            _ = try render(
                files[0], RenderOptions(width: size[0], height: size[0]), without: OwnCode(rawValue: once))
            return
        }
        let pieces = try piece.map { name in
            guard let known = OwnCode(rawValue: name) else {
                throw ValidationError(
                    "no piece \(name) (\(OwnCode.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            return known
        }
        ImageFile.processorLimit = 1
        /// Everything on, then each piece off.
        let configurations: [OwnCode?] = [nil] + pieces
        var gains: [OwnCode: [Double]] = [:]
        for file in files {
            for side in size {
                let options = RenderOptions(width: side, height: side)
                // Loads the libraries and fills the caches a long-running process has warm.
                for configuration in configurations { _ = try render(file, options, without: configuration) }
                var timings = Array(repeating: [Timing](), count: configurations.count)
                for round in 0..<rounds {
                    // Each round starts one configuration later: what a render leaves behind
                    // (freed memory, a cold cache) falls on each configuration in turn.
                    for step in 0..<configurations.count {
                        let index = (round + step) % configurations.count
                        timings[index].append(try render(file, options, without: configurations[index]))
                    }
                }
                let wall = timings.map { Report.percentile($0.map(\.wall), 0.5) }
                let processor = timings.map { Report.percentile($0.map(\.processor), 0.5) }
                var fields: [String: Any] = [
                    "bench": "own-code", "file": (file as NSString).lastPathComponent, "size": side,
                    "rounds": rounds, "msAllOn": Report.round(wall[0]), "cpuMsAllOn": Report.round(processor[0]),
                ]
                for (index, configuration) in configurations.enumerated() {
                    guard let configuration, wall[0] > 0 else { continue }
                    let gain = wall[index] / wall[0] - 1
                    gains[configuration, default: []].append(gain)
                    fields["msWithout_\(configuration.rawValue)"] = Report.round(wall[index])
                    fields["cpuMsWithout_\(configuration.rawValue)"] = Report.round(processor[index])
                    fields["gain_\(configuration.rawValue)"] = Report.round(gain * 100)
                }
                if cold { try measureCold(file, side: side, configurations, into: &fields) }
                Report.print(fields)
            }
        }
        for piece in pieces {
            let values = gains[piece] ?? []
            Report.print([
                "bench": "own-code", "piece": piece.rawValue, "renders": values.count,
                "medianGainPercent": Report.round(Report.percentile(values, 0.5) * 100),
                "largestGainPercent": Report.round((values.max() ?? 0) * 100),
            ])
        }
    }

    /// Each configuration's render in a process of its own, started afresh each round (the
    /// configurations taking turns as in-process): the median wall time from start to exit.
    func measureCold(_ file: String, side: Int, _ configurations: [OwnCode?], into fields: inout [String: Any])
        throws
    {
        var times = Array(repeating: [Double](), count: configurations.count)
        for round in 0..<rounds {
            for step in 0..<configurations.count {
                let index = (round + step) % configurations.count
                let process = Process()
                process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
                process.arguments = [
                    "own-code", "--once", configurations[index]?.rawValue ?? "none", "--size", "\(side)", file,
                ]
                let start = DispatchTime.now().uptimeNanoseconds
                try process.run()
                process.waitUntilExit()
                guard process.terminationStatus == 0 else {
                    throw ValidationError("a cold render of \(file) failed (\(process.terminationStatus))")
                }
                times[index].append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            }
        }
        let medians = times.map { Report.percentile($0, 0.5) }
        fields["msColdAllOn"] = Report.round(medians[0])
        for (index, configuration) in configurations.enumerated() {
            guard let configuration, medians[0] > 0 else { continue }
            fields["msColdWithout_\(configuration.rawValue)"] = Report.round(medians[index])
            fields["coldGain_\(configuration.rawValue)"] = Report.round((medians[index] / medians[0] - 1) * 100)
        }
    }

    /// One render of `file` with `piece` turned off (nil: everything on).
    func render(_ file: String, _ options: RenderOptions, without piece: OwnCode?) throws -> Timing {
        OwnCode.turnedOff = piece.map { [$0] } ?? []
        defer { OwnCode.turnedOff = [] }
        let processorBefore = Self.processorMilliseconds()
        let start = DispatchTime.now().uptimeNanoseconds
        _ = try ImageFile.thumbnail(ofFileAt: file, options: options)
        let wall = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
        return Timing(wall: wall, processor: Self.processorMilliseconds() - processorBefore)
    }

    /// The process's processor time so far, user and system, every thread.
    static func processorMilliseconds() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        func milliseconds(_ time: timeval) -> Double { Double(time.tv_sec) * 1000 + Double(time.tv_usec) / 1000 }
        return milliseconds(usage.ru_utime) + milliseconds(usage.ru_stime)
    }
}
