import ArgumentParser
import Foundation
import LightboxMetadata

/// `lightbox-bench movie-edit`: a phone movie edited with a three-filter recipe (exposure,
/// saturation, vignette) on every frame, by `lightbox edit` (the whole edit: input, frames,
/// H.264, the render checked and committed) and by the `ffmpeg` command with its own filters
/// and the same x264 settings; each run a process of its own: frames per second, peak memory.
struct MovieEditBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "movie-edit",
        abstract:
            "A three-filter movie edit by lightbox edit and by the ffmpeg command: frames per second, peak memory."
    )

    @Argument(help: "The movie (a 10 s 1080p phone movie).")
    var file: String

    @Option(help: "Runs per tool.")
    var rounds = 3

    static let filters = ["exposure=0.5", "saturation=-0.3", "vignette=0.4"]
    /// FFmpeg's filters for the same steps: `exposure` in EV (linear light), `eq` saturation
    /// (1 - 0.3), `vignette` at its default angle.
    static let ffmpegFilters = "exposure=exposure=0.5,eq=saturation=0.7,vignette"
    /// The settings Lightbox gives x264 (cvideo_edit.c), so that the encoders do the same work.
    static let x264 = "threads=2:sync-lookahead=0:rc-lookahead=0:mbtree=0:bframes=0"

    func run() async throws {
        let lightbox = (CommandLine.arguments[0] as NSString).deletingLastPathComponent + "/lightbox"
        guard FileManager.default.isExecutableFile(atPath: lightbox) else {
            throw ValidationError("build the lightbox command beside lightbox-bench: make release")
        }
        let metadata = try MetadataReader.read(fileAtPath: file)
        let duration = metadata.quickTime?.duration ?? 0
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("movie-bench-\(getpid())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let library = folder + "/Bench.lightbox"
        _ = try ImageBench.measure([lightbox, "import", "--library", library, file])
        let asset = try EditBench.onlyAsset(lightbox: lightbox, library: library)
        let frames = try Self.frameCount(file)
        let tools: [(String, [String])] = [
            (
                "lightbox edit",
                [lightbox, "edit", "--library", library, asset] + Self.filters.flatMap { ["--filter", $0] }
            ),
            (
                "ffmpeg",
                [
                    "/usr/bin/ffmpeg", "-v", "error", "-y", "-i", file, "-vf", Self.ffmpegFilters, "-c:v", "libx264",
                    "-preset", "veryfast", "-crf", "18", "-x264-params", Self.x264, "-pix_fmt", "yuv420p",
                    "-fps_mode", "passthrough", "-c:a", "copy", folder + "/ffmpeg.mov",
                ]
            ),
        ]
        for (tool, arguments) in tools {
            let runs = try EditBench.measure(
                arguments, rounds: rounds,
                reverting: tool == "lightbox edit" ? (lightbox: lightbox, library: library, asset: asset) : nil)
            let seconds = runs.map(\.seconds).sorted()
            let median = seconds[seconds.count / 2]
            Report.print([
                "benchmark": "movie-edit", "tool": tool, "file": (file as NSString).lastPathComponent,
                "pixels": "\(metadata.pixelWidth ?? 0)x\(metadata.pixelHeight ?? 0)", "frames": frames,
                "movieSeconds": Report.round(duration), "rounds": rounds, "medianSeconds": Report.round(median),
                "framesPerSecond": Report.round(Double(frames) / median),
                "bestFramesPerSecond": Report.round(Double(frames) / seconds[0]),
                "peakResidentMB": Report.round(Double(runs.map(\.maxResidentKB).max() ?? 0) / 1024),
                "peakAnonymousMB": Report.round(Double(runs.map(\.peakAnonymousKB).max() ?? 0) / 1024),
                "exitStatus": runs.map(\.status).max() ?? 0,
            ])
        }
    }

    /// The movie's video frames, as ffprobe counts them.
    static func frameCount(_ path: String) throws -> Int {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffprobe")
        process.arguments = [
            "-v", "error", "-select_streams", "v:0", "-count_packets", "-show_entries", "stream=nb_read_packets",
            "-of", "csv=p=0", path,
        ]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Int(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }
}
