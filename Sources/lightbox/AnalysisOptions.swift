import ArgumentParser
import Foundation
import LightboxAnalysis
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// `--analysis URL`: the analysis services (docs/ANALYSIS.md) that find faces for `serve` and
/// `worker`, on this machine or others, several sharing the work. Without one, a service of
/// this machine's own is started and stopped with the command, where the machine has it (the
/// venv `make run` and `make test` make); `--no-analysis`, or `LIGHTBOX_ANALYSIS=off`, starts
/// none.
struct AnalysisOptions: ParsableArguments {
    @Option(
        name: .customLong("analysis"),
        help: ArgumentHelp(
            "An analysis service that finds faces, e.g. http://127.0.0.1:8700 (repeatable: several share the work).",
            valueName: "URL"))
    var services: [String] = []

    @Option(
        name: .customLong("clip-model"),
        help: ArgumentHelp(
            "A CLIP model's folder in Immich's layout, for content search by the service started here "
                + "(default: $LIGHTBOX_CLIP_MODEL; docs/ANALYSIS.md).",
            valueName: "FOLDER"))
    var clipModel: String?

    @Flag(
        name: .customLong("no-analysis"),
        help: "Start no analysis service here: faces wait for a command given --analysis.")
    var noLocalService = false

    /// The services as one analyzer, and the one started here when none was named; no
    /// analyzer when none is named and none can be started (said in `unavailable`).
    func analyzer() throws -> (pool: AnalysisPool?, local: LocalAnalysisService?, unavailable: String?) {
        guard services.isEmpty else {
            let urls = try services.map { text -> URL in
                guard let url = URL(string: text), let scheme = url.scheme?.lowercased(),
                    ["http", "https"].contains(scheme),
                    let host = url.host, !host.isEmpty
                else { throw ValidationError("--analysis wants an http:// or https:// address, not \(text)") }
                return url
            }
            return (AnalysisPool(urls.map { AnalysisClient(url: $0) }), nil, nil)
        }
        if noLocalService || ProcessInfo.processInfo.environment["LIGHTBOX_ANALYSIS"] == "off" {
            return (nil, nil, "Faces: no analysis service (--no-analysis); faces wait for a worker with --analysis")
        }
        do {
            let clip =
                clipModel
                ?? ProcessInfo.processInfo.environment["LIGHTBOX_CLIP_MODEL"].flatMap {
                    $0.isEmpty ? nil : $0
                }
            let local = try LocalAnalysisService.start(clipModel: clip)
            return (AnalysisPool([AnalysisClient(url: local.url)]), local, nil)
        } catch {
            return (nil, nil, "Faces wait: \(error); --analysis URL names a service elsewhere")
        }
    }

    /// One line for the terminal: the model the services run, or why faces wait.
    static func describe(_ pool: AnalysisPool?) async -> String? {
        guard let pool else { return nil }
        do {
            let info = try await pool.describe()
            let leftOut = await pool.leftOut
            return "Faces: \(info.faceModel), \(info.concurrent) at once"
                + (leftOut.isEmpty ? "" : " (" + leftOut.joined(separator: "; ") + ")")
        } catch {
            return "Faces wait: \(error)"
        }
    }
}

/// This machine's analysis service, started by `serve` or `worker` on a free port of
/// loopback: the service's code (`analysis/`) and its venv (`.build/analysis-venv`) beside the
/// `lightbox` that runs. It ends with the command (it watches its parent: a command killed
/// with SIGKILL leaves none behind).
// Unchecked: set once in start(); the process is only told to stop.
final class LocalAnalysisService: @unchecked Sendable {
    let url: URL
    private let process: Process

    private init(url: URL, process: Process) {
        self.url = url
        self.process = process
    }

    struct StartError: Error, CustomStringConvertible {
        var description: String
    }

    /// The folder holding `analysis/` and `.build/analysis-venv`: the first above the running
    /// program's own that has both.
    static func home() -> URL? {
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent()
        for _ in 0..<5 {
            let code = folder.appendingPathComponent("analysis/lightbox_analysis/service.py").path
            let python = folder.appendingPathComponent(".build/analysis-venv/bin/python").path
            if FileManager.default.fileExists(atPath: code), FileManager.default.isExecutableFile(atPath: python) {
                return folder
            }
            folder = folder.deletingLastPathComponent()
        }
        return nil
    }

    /// Starts the service, one analysis per core (with the CLIP model of `clipModel`, a folder,
    /// when given), and waits for the line that says where it listens (after its models load).
    static func start(clipModel: String? = nil) throws -> LocalAnalysisService {
        guard let home = home() else {
            throw StartError(
                description: "no analysis service on this machine (make run installs one beside lightbox)")
        }
        let process = Process()
        process.executableURL = home.appendingPathComponent(".build/analysis-venv/bin/python")
        let threads = max(1, min(ProcessInfo.processInfo.activeProcessorCount, 16))
        process.arguments = [
            "-m", "lightbox_analysis", "--port", "0", "--threads", "\(threads)", "--exit-with-parent",
        ]
        if let clipModel {
            process.arguments? += ["--clip", URL(fileURLWithPath: clipModel).standardizedFileURL.path]
        }
        var environment = ProcessInfo.processInfo.environment
        environment["PYTHONPATH"] = home.appendingPathComponent("analysis").path
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        let errors = Pipe()
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Its models load in a second or two; one that has said nothing after a minute is
        // stopped, and the command goes on without it (the read ends when the process does).
        let reader = output.fileHandleForReading
        // What it says on its standard error, read as it comes (a full pipe would stop it), the
        // last 2 KiB kept: why it did not start (a --clip folder that is not a model).
        let complaint = Mutex(Data())
        let errorReader = errors.fileHandleForReading
        let complained = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            while let chunk = try? errorReader.read(upToCount: 4_096), !chunk.isEmpty {
                complaint.withLock { kept in
                    kept.append(chunk)
                    if kept.count > 2_048 { kept = kept.suffix(2_048) }
                }
            }
            complained.signal()
        }
        let said = Mutex<URL?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let url = try? AnalysisClient.listeningAddress(readingFrom: reader)
            said.withLock { $0 = url ?? nil }
            done.signal()
        }
        let answered = done.wait(timeout: .now() + 60) == .success
        guard answered, let url = said.withLock({ $0 }) else {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
            _ = complained.wait(timeout: .now() + 2)
            let why =
                complaint.withLock { String(decoding: $0, as: UTF8.self) }
                .split(separator: "\n").last.map { ": " + $0.prefix(500) } ?? ""
            throw StartError(
                description: answered
                    ? "the analysis service of this machine did not start\(why)"
                    : "the analysis service of this machine said nothing in a minute, and was stopped")
        }
        return LocalAnalysisService(url: url, process: process)
    }

    /// Stops it.
    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    deinit { stop() }
}
