import ArgumentParser
import Foundation
import Lightbox
import LightboxImaging

#if canImport(Glibc)
    import Glibc
#endif

/// `lightbox-bench images`: thumbnails of the same files by Lightbox (`lightbox thumbnail`,
/// the command beside this one), by Pillow (`draft` + `thumbnail` in one Python process) and
/// by `vipsthumbnail`, at each size and thread count, each configuration in a process of its
/// own so that its peak memory is its own. Lightbox and vipsthumbnail write their thumbnails
/// to files; Pillow keeps them in memory.
///
/// Each configuration runs `--repeats` times, and its time is the median run's: one run of 21
/// small thumbnails lasts a third of a second, and on a 2-core machine single runs of the same
/// command moved by 10% with no time stolen by the host. Within a repeat each tool runs at
/// every thread count back to back, the tools taking turns, so that a slow spell of the
/// machine falls on all of them; a tool's speedup is the median of those back-to-back pairs'
/// ratios. Before each run the input files and the tool's executable are read once, so that
/// no run waits on the disk for what the one before it had in the page cache: the benchmark
/// machine gives back page cache that has not been touched for a few seconds, and a run then
/// read up to 20 MB of the photos from disk.
///
/// Each repeat also runs each tool at each thread count on the first file alone: that run's time
/// is the process's start (its libraries, its runtime) and one image. A batch's time less that
/// run's, over the images but one, is the time an image adds once the process runs
/// (`msPerImageAfterStart`, and its two-thread `speedupAfterStart`): what a long batch or a
/// server sees, where ten small thumbnails in a process are mostly its start. `speedupCeiling`
/// is what the thread count could reach at best with that start serial and the rest shared
/// perfectly (Amdahl's law): a batch mostly start cannot gain 1.8 on two threads however well
/// its images are spread.
struct ImageBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "images",
        abstract: "Thumbnails by Lightbox, Pillow and vipsthumbnail: time per image and peak memory.")

    @Argument(help: "Image files.")
    var files: [String]

    @Option(help: "Thumbnail sizes (the box's side, fit).")
    var size: [Int] = [256, 1024]

    @Option(help: "Thread counts.")
    var threads: [Int] = [1, 2]

    @Option(help: "How many times each file is made, per configuration.")
    var rounds = 5

    @Option(help: "How many processes each configuration runs; its time is the median one's.")
    var repeats = 5

    /// Python with Pillow: Debian's, which `make bench` installs (python3-pil).
    static let python = "/usr/bin/python3"

    /// Pillow's fastest path for a thumbnail: `draft` (libjpeg's DCT scaling) then
    /// `thumbnail` (its reducing resize), saved as JPEG at the same quality, in threads
    /// (Pillow releases the GIL while it decodes and resizes).
    static let pillowScript = #"""
        import io, sys
        from concurrent.futures import ThreadPoolExecutor
        from PIL import Image
        size, threads, rounds = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
        files = sys.argv[4:] * rounds
        def one(path):
            with Image.open(path) as image:
                image.draft("RGB", (size, size))
                image = image.convert("RGB")
                image.thumbnail((size, size))
                out = io.BytesIO()
                image.save(out, "JPEG", quality=82)
                return len(out.getvalue())
        with ThreadPoolExecutor(threads) as pool:
            list(pool.map(one, files))
        """#

    func run() async throws {
        guard repeats >= 1 else { throw ValidationError("--repeats must be 1 or more, not \(repeats)") }
        let executable = CommandLine.arguments[0]
        let script = FileManager.default.temporaryDirectory.appendingPathComponent("pillow-bench-\(getpid()).py").path
        try Self.pillowScript.write(toFile: script, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: script) }
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("vipsthumbnail-\(getpid())").path
        try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: output) }
        let images = files.count * rounds
        let lightbox = (executable as NSString).deletingLastPathComponent + "/lightbox"
        guard FileManager.default.isExecutableFile(atPath: lightbox) else {
            throw ValidationError("build the lightbox command beside lightbox-bench: make release")
        }
        let vips = Self.which("vipsthumbnail")
        let hasPillow = FileManager.default.isExecutableFile(atPath: Self.python)
        for side in size {
            /// Each tool's command at a thread count, for `files` made `rounds` times.
            func tools(_ count: Int, _ files: [String], rounds: Int) -> [(String, [String], [String: String])] {
                let repeated = Array(repeating: files, count: rounds).flatMap { $0 }
                var tools: [(String, [String], [String: String])] = [
                    (
                        "lightbox",
                        [
                            lightbox, "thumbnail", "--size", "\(side)", "--jobs", "\(count)", "--out", output,
                            "--overwrite",
                        ]
                            + repeated, [:]
                    )
                ]
                if hasPillow {
                    tools.append(("pillow", [Self.python, script, "\(side)", "\(count)", "\(rounds)"] + files, [:]))
                }
                if let vips {
                    // vipsthumbnail takes one file after another; its threads work inside each image.
                    tools.append(
                        (
                            "vipsthumbnail",
                            [vips, "--size", "\(side)x\(side)", "-o", output + "/%s.jpg[Q=82,strip]"] + repeated,
                            ["VIPS_CONCURRENCY": "\(count)"]
                        ))
                }
                return tools
            }
            // commands[thread count index][tool index]; runs[tool][thread count][repeat], and
            // starts the same for the first file alone.
            let commands = threads.map { tools($0, files, rounds: rounds) }
            let alone = threads.map { tools($0, [files[0]], rounds: 1) }
            let names = commands.first?.map(\.0) ?? []
            var runs: [String: [Int: [Run]]] = [:]
            var starts: [String: [Int: [Run]]] = [:]
            for _ in 0..<repeats {
                for (index, tool) in names.enumerated() {
                    for ((count, command), single) in zip(zip(threads, commands), alone) {
                        let (_, arguments, environment) = command[index]
                        Self.warm(files + [arguments[0]])
                        runs[tool, default: [:]][count, default: []].append(
                            try Self.measure(arguments, environment: environment))
                        guard images > 1 else { continue }
                        let (_, first, firstEnvironment) = single[index]
                        Self.warm(files + [first[0]])
                        starts[tool, default: [:]][count, default: []].append(
                            try Self.measure(first, environment: firstEnvironment))
                    }
                }
            }
            /// Per repeat, the seconds an image adds once the process runs.
            func afterStart(_ tool: String, _ count: Int) -> [Double] {
                zip(runs[tool]?[count] ?? [], starts[tool]?[count] ?? []).map {
                    ($0.seconds - $1.seconds) / Double(images - 1)
                }
            }
            for tool in names {
                for count in threads {
                    let measured = runs[tool]?[count] ?? []
                    let milliseconds = measured.map { $0.seconds * 1000 / Double(images) }
                    var line: [String: Any] = [
                        "benchmark": "images", "tool": tool, "size": side, "threads": count, "images": images,
                        "runs": measured.count,
                        "msPerImage": Report.round(Report.percentile(milliseconds, 0.5)),
                        "msPerImageRange": [
                            Report.round(milliseconds.min() ?? 0), Report.round(milliseconds.max() ?? 0),
                        ],
                        // Processor time (user and system, every thread), against which the wall
                        // time shows how busy the cores were.
                        "cpuMsPerImage": Report.round(
                            Report.percentile(measured.map { $0.cpuSeconds * 1000 / Double(images) }, 0.5)),
                        "peakResidentMB": Report.round(Double(measured.map(\.maxResidentKB).max() ?? 0) / 1024),
                        "peakAnonymousMB": Report.round(Double(measured.map(\.peakAnonymousKB).max() ?? 0) / 1024),
                        "exitStatus": measured.map(\.status).max() ?? 0,
                    ]
                    // Against the first thread count, pair by pair.
                    if let first = threads.first, count != first, let base = runs[tool]?[first],
                        base.count == measured.count
                    {
                        let ratios = zip(base, measured).map { $0.seconds / $1.seconds }
                        line["speedup"] = Report.round(Report.percentile(ratios, 0.5))
                        line["speedupRange"] = [Report.round(ratios.min() ?? 0), Report.round(ratios.max() ?? 0)]
                    }
                    if let alone = starts[tool]?[count], !alone.isEmpty {
                        let added = afterStart(tool, count)
                        line["startMs"] = Report.round(Report.percentile(alone.map { $0.seconds * 1000 }, 0.5))
                        line["msPerImageAfterStart"] = Report.round(Report.percentile(added.map { $0 * 1000 }, 0.5))
                        if let first = threads.first, count != first {
                            let base = afterStart(tool, first)
                            let ratios = zip(base, added).map { $0 / $1 }
                            if ratios.count == added.count, !ratios.isEmpty {
                                line["speedupAfterStart"] = Report.round(Report.percentile(ratios, 0.5))
                                line["speedupAfterStartRange"] = [
                                    Report.round(ratios.min() ?? 0), Report.round(ratios.max() ?? 0),
                                ]
                            }
                            // The most this thread count could gain were everything but the
                            // process's start shared perfectly: the first thread count's batch,
                            // with its start (the lone file's run less the image it made) serial.
                            let scale = Double(count) / Double(first)
                            let ceilings = zip(runs[tool]?[first] ?? [], zip(starts[tool]?[first] ?? [], base)).map {
                                batch, pair in
                                let serial = max(0, min(batch.seconds, pair.0.seconds - pair.1))
                                return batch.seconds / (serial + (batch.seconds - serial) / scale)
                            }
                            if !ceilings.isEmpty {
                                line["speedupCeiling"] = Report.round(Report.percentile(ceilings, 0.5))
                            }
                        }
                    }
                    Report.print(line)
                }
            }
        }
    }

    /// Reads each file once, so that the page cache holds it when the measured run starts.
    static func warm(_ paths: [String]) {
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        for path in Set(paths) {
            let descriptor = open(path, O_RDONLY)
            guard descriptor >= 0 else { continue }
            defer { close(descriptor) }
            while buffer.withUnsafeMutableBytes({ read(descriptor, $0.baseAddress, $0.count) }) > 0 {}
        }
    }

    /// One process's figures (``measure(_:environment:)``).
    typealias Run = (seconds: Double, cpuSeconds: Double, maxResidentKB: Int, peakAnonymousKB: Int, status: Int32)

    static func which(_ command: String) -> String? {
        for folder in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":") {
            let path = folder + "/" + command
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }

    /// Runs a command to its end, its output discarded: wall seconds, processor seconds (user
    /// and system, all its threads), its own peak resident memory (`wait4`'s rusage, for this
    /// child alone), its peak anonymous memory (the largest resident anonymous memory sampled
    /// every millisecond: what it owns, without the libraries it maps) and its exit status.
    ///
    /// The sampler must cost next to nothing: it shares the machine with what it measures, and
    /// on two threads of a 2-core machine every cycle it takes is one a worker loses. It reads
    /// `/proc/PID/statm` (a few counters) through one kept descriptor into a fixed buffer, where
    /// reading `status` into Swift strings and splitting them took 8% of a core.
    static func measure(_ arguments: [String], environment extra: [String: String] = [:]) throws -> Run {
        var environment = ProcessInfo.processInfo.environment
        for (key, value) in extra { environment[key] = value }
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var pid: pid_t = 0
        let start = Date()
        let spawned = posix_spawn(&pid, arguments[0], &actions, nil, argv, envp)
        guard spawned == 0 else {
            throw ValidationError("cannot start \(arguments[0]): \(String(cString: strerror(spawned)))")
        }
        let statm = open("/proc/\(pid)/statm", O_RDONLY)
        defer { if statm >= 0 { close(statm) } }
        let pageKB = sysconf(Int32(_SC_PAGESIZE)) / 1024
        var buffer = [UInt8](repeating: 0, count: 256)
        var peakAnonymous = 0
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, WNOHANG, &usage) != pid {
            if statm >= 0 {
                let count = buffer.withUnsafeMutableBytes { pread(statm, $0.baseAddress, $0.count, 0) }
                if count > 0, let pages = anonymousPages(statm: buffer[..<count]) {
                    peakAnonymous = max(peakAnonymous, pages * pageKB)
                }
            }
            usleep(1000)
        }
        let seconds = Date().timeIntervalSince(start)
        let cpu = [usage.ru_utime, usage.ru_stime].reduce(0) { $0 + Double($1.tv_sec) + Double($1.tv_usec) / 1e6 }
        return (seconds, cpu, Int(usage.ru_maxrss), peakAnonymous, (status >> 8) & 0xFF)
    }

    /// Resident anonymous pages from `statm`'s "size resident shared text lib data dt": the
    /// resident pages less the shared ones (file-backed and shmem), which is `status`' `RssAnon`.
    static func anonymousPages(statm: ArraySlice<UInt8>) -> Int? {
        var field = 0
        var value = 0
        var inNumber = false
        var resident = 0
        for byte in statm {
            if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
                inNumber = true
            } else if inNumber {
                if field == 1 { resident = value }
                if field == 2 { return resident - value }
                field += 1
                value = 0
                inNumber = false
            }
        }
        return nil
    }
}

/// `lightbox-bench image-cache`: how long a request takes when its image is cached, in
/// memory and on disk, from the call to the result.
struct ImageCacheBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "image-cache",
        abstract: "Import files, then time image requests served by the memory and disk caches.")

    @Argument(help: "Files and folders to import first.")
    var paths: [String]

    @Option(help: "Requests per asset and cache.")
    var repeats = 200

    func run() async throws {
        let bench = try BenchLibrary()
        let library = bench.library
        _ = await library.importItems(at: paths.map { URL(fileURLWithPath: $0) })
        let assets = try await library.assets().filter { $0.mediaType == .image }
        let size = PixelSize(width: 600, height: 600)
        let memory = ImageManager(library: library)
        // Without a memory cache every request goes to derivatives/.
        let disk = ImageManager(library: library, memoryCacheLimit: 0)
        for asset in assets {
            _ = await memory.requestImage(for: asset, targetSize: size).results()
        }
        var times: [String: [Double]] = ["memory": [], "disk": []]
        for (name, manager) in [("memory", memory), ("disk", disk)] {
            for _ in 0..<repeats {
                for asset in assets {
                    let start = ContinuousClock.now
                    let results = await manager.requestImage(for: asset, targetSize: size).results()
                    let elapsed = ContinuousClock.now - start
                    let expected: ImageResultSource = name == "memory" ? .memoryCache : .diskCache
                    guard results.count == 1, results[0].info.source == expected else {
                        throw ValidationError("\(asset.localIdentifier): not a \(name) cache hit")
                    }
                    times[name, default: []].append(
                        Double(elapsed.components.attoseconds) / 1e12
                            + Double(elapsed.components.seconds) * 1e6)
                }
            }
        }
        Report.print([
            "benchmark": "image-cache", "assets": assets.count, "requests": repeats * assets.count,
            "memoryHitMedianMicroseconds": Report.round(Report.percentile(times["memory"]!, 0.5)),
            "memoryHitP95Microseconds": Report.round(Report.percentile(times["memory"]!, 0.95)),
            "diskHitMedianMicroseconds": Report.round(Report.percentile(times["disk"]!, 0.5)),
            "diskHitP95Microseconds": Report.round(Report.percentile(times["disk"]!, 0.95)),
        ])
    }
}
