import Foundation
import LightboxAnalysis

#if canImport(Glibc)
    import Glibc
#endif

/// The analysis service (analysis/, docs/ANALYSIS.md) started for a test on a free port, from
/// the venv `scripts/analysis-venv` makes (made here when it is missing), stopped by ``stop()``.
// Unchecked: its fields are set once in init; `Process` is only asked whether it runs and told to stop.
public final class AnalysisServiceProcess: @unchecked Sendable {
    /// Where it listens.
    public let url: URL
    private let process: Process

    /// Starts one (with the CLIP model of folder `clipModel`, when given) and waits for the line
    /// that says where it listens.
    public init(threads: Int = 1, clipModel: URL? = nil) throws {
        let root = Corpus.packageRoot.path
        let python = try Self.python()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-m", "lightbox_analysis", "--port", "0", "--threads", "\(threads)"]
        if let clipModel { process.arguments? += ["--clip", clipModel.path] }
        var environment = ProcessInfo.processInfo.environment
        environment["PYTHONPATH"] = root + "/analysis"
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        self.process = process
        guard let url = try AnalysisClient.listeningAddress(readingFrom: output.fileHandleForReading) else {
            process.terminate()
            throw ServiceError(message: "the analysis service did not say where it listens")
        }
        self.url = url
    }

    /// The venv's Python (made when it is missing), with the service's packages and Pillow.
    public static func python() throws -> String {
        let root = Corpus.packageRoot.path
        let python = root + "/.build/analysis-venv/bin/python"
        if !FileManager.default.isExecutableFile(atPath: python) {
            let venv = Process()
            venv.executableURL = URL(fileURLWithPath: root + "/scripts/analysis-venv")
            try venv.run()
            venv.waitUntilExit()
            guard venv.terminationStatus == 0 else {
                throw ServiceError(message: "scripts/analysis-venv failed (status \(venv.terminationStatus))")
            }
        }
        return python
    }

    /// Builds the tests' tiny CLIP model in Immich's layout in `folder` (`analysis/tests/tiny_clip.py`):
    /// four numbers an embedding, an image's red, green and blue and a constant; "crimson" and
    /// "red" lie along red, "grass" along green, "sea" and "sky" along blue. Needs the venv's test
    /// packages (ONNX), installed here when missing.
    public static func buildTinyClip(in folder: URL) throws {
        let venv = Process()
        venv.executableURL = URL(fileURLWithPath: Corpus.packageRoot.path + "/scripts/analysis-venv")
        venv.arguments = ["--test"]
        try venv.run()
        venv.waitUntilExit()
        guard venv.terminationStatus == 0 else {
            throw ServiceError(message: "scripts/analysis-venv --test failed (status \(venv.terminationStatus))")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try python())
        process.arguments = ["-m", "tests.tiny_clip", folder.path]
        var environment = ProcessInfo.processInfo.environment
        environment["PYTHONPATH"] = Corpus.packageRoot.path + "/analysis"
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ServiceError(message: "building the tiny CLIP model failed (status \(process.terminationStatus))")
        }
    }

    /// A real photo with lines of dark text on a pale band drawn on it, as the photo of a sign
    /// or a receipt is, written as a JPEG at `destination` (1024 pixels on its long side);
    /// answers each line's box as drawn, 0 to 1 from the top left (left, top,
    /// right, bottom). Drawn by Pillow with its own scalable font, so that no system font is
    /// needed; the same drawing as the service's own tests (`analysis/tests/draw_text.py`).
    @discardableResult
    public static func drawText(_ lines: [String], on photo: String, to destination: URL) throws
        -> [[Double]]
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try python())
        process.arguments = ["-m", "tests.draw_text", photo, destination.path] + lines
        var environment = ProcessInfo.processInfo.environment
        environment["PYTHONPATH"] = Corpus.packageRoot.path + "/analysis"
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0, let boxes = try? JSONDecoder().decode([[Double]].self, from: data) else {
            throw ServiceError(message: "drawing text on \(photo) failed (status \(process.terminationStatus))")
        }
        return boxes
    }

    /// Stops it (and waits until it has). SIGKILL, not `terminate()`'s SIGTERM: a process the
    /// test runner starts inherits a signal mask that blocks SIGTERM, and the service keeps nothing
    /// that needs a graceful end.
    public func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    deinit { stop() }

    public struct ServiceError: Error, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }
}
