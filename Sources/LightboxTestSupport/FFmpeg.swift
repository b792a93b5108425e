import Foundation

/// Runs the ffmpeg command (Debian's ffmpeg), the oracle for movies' frames.
public enum FFmpeg {
    struct Failed: Error, CustomStringConvertible {
        var arguments: [String]
        var description: String { "ffmpeg failed: \(arguments.joined(separator: " "))" }
    }

    /// Runs ffmpeg quietly, overwriting outputs; throws when it fails.
    public static func run(_ arguments: [String]) throws {
        guard try Tool.run("/usr/bin/ffmpeg", ["-v", "error", "-y"] + arguments).status == 0 else {
            throw Failed(arguments: arguments)
        }
    }

    /// The movie's first frame as ffmpeg shows it (turned by the track's rotation), as PNG.
    public static func firstFrame(of movie: String, to png: String) throws {
        try run(["-i", movie, "-frames:v", "1", "-f", "image2", png])
    }

    /// Frame number `index` (from 0) of the movie as ffmpeg shows it, as PNG.
    public static func frame(_ index: Int, of movie: String, to png: String) throws {
        try run(["-i", movie, "-vf", "select=eq(n\\,\(index))", "-frames:v", "1", "-f", "image2", png])
    }

    /// What ffprobe says of a movie: its video frames' count and size, and whether it has sound.
    public static func probe(_ movie: String) throws -> (frames: Int, width: Int, height: Int, hasAudio: Bool) {
        let output = String(
            decoding: try outputData(
                "/usr/bin/ffprobe",
                [
                    "-v", "error", "-count_frames", "-show_entries",
                    "stream=codec_type,width,height,nb_read_frames", "-of", "csv=p=0", movie,
                ]), as: UTF8.self)
        var result = (frames: 0, width: 0, height: 0, hasAudio: false)
        for line in output.split(separator: "\n") {
            let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            if fields.first == "video", fields.count >= 4 {
                result.width = Int(fields[1]) ?? 0
                result.height = Int(fields[2]) ?? 0
                result.frames = Int(fields[3]) ?? 0
            } else if fields.first == "audio" {
                result.hasAudio = true
            }
        }
        return result
    }

    /// The codec of a movie's first video stream, as ffprobe names it (`h264`, `hevc`), and its
    /// duration in seconds.
    public static func videoCodec(_ movie: String) throws -> (codec: String, seconds: Double) {
        let fields = try output(
            "/usr/bin/ffprobe",
            [
                "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=codec_name,duration", "-of",
                "csv=p=0", movie,
            ]
        ).trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",").map(String.init)
        return (fields.first ?? "", fields.count > 1 ? Double(fields[1]) ?? 0 : 0)
    }

    /// An iPhone's kind of movie made from a real one: its video re-encoded as HEVC (libx265,
    /// tagged `hvc1` as iPhones write it), its sound copied.
    public static func hevc(_ movie: String, to output: String) throws {
        try run([
            "-i", movie, "-c:v", "libx265", "-preset", "ultrafast", "-x265-params", "log-level=error", "-tag:v", "hvc1",
            "-c:a", "copy", "-f", "mov", output,
        ])
    }

    /// A copy of the movie whose video track says to turn it `degrees` clockwise (its display
    /// matrix), the frames untouched.
    public static func rotated(_ movie: String, degrees: Int, to output: String) throws {
        try run(["-display_rotation", "\(-degrees)", "-i", movie, "-c", "copy", output])
    }
}

extension FFmpeg {
    /// Every frame of a movie's video as ffmpeg decodes it (after its edit list), grey, with the
    /// time it is shown at: the oracle for what a movie shows when.
    public static func greyFrames(of movie: String) throws -> (
        width: Int, height: Int, frames: [(time: Double, luma: [UInt8])]
    ) {
        let probe = try self.probe(movie)
        let times = try output(
            "/usr/bin/ffprobe",
            [
                "-v", "error", "-select_streams", "v:0", "-show_entries", "frame=best_effort_timestamp_time", "-of",
                "csv=p=0", movie,
            ]
        ).split(separator: "\n").compactMap {
            Double($0.trimmingCharacters(in: .whitespaces).split(separator: ",").first ?? "")
        }
        let raw = try outputData(
            "/usr/bin/ffmpeg",
            [
                "-v", "error", "-i", movie, "-map", "0:v:0", "-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt",
                "gray", "-",
            ])
        let size = probe.width * probe.height
        guard size > 0 else { return (0, 0, []) }
        let count = Swift.min(raw.count / size, times.count)
        let bytes = [UInt8](raw)
        let frames = (0..<count).map { (times[$0], Array(bytes[($0 * size)..<(($0 + 1) * size)])) }
        return (probe.width, probe.height, frames)
    }

    /// The root mean square of a movie's first sound stream, every channel's samples together,
    /// decoded by ffmpeg to 32-bit floats; with `seconds`, only of that part of it.
    public static func soundRMS(of movie: String, seconds: ClosedRange<Double>? = nil) throws -> Double {
        var arguments = ["-v", "error", "-i", movie]
        if let seconds {
            arguments = [
                "-v", "error", "-ss", "\(seconds.lowerBound)", "-i", movie, "-t",
                "\(seconds.upperBound - seconds.lowerBound)",
            ]
        }
        let raw = try outputData(
            "/usr/bin/ffmpeg", arguments + ["-map", "0:a:0", "-f", "f32le", "-c:a", "pcm_f32le", "-"])
        let count = raw.count / 4
        guard count > 0 else { return 0 }
        let sum = raw.withUnsafeBytes { bytes in
            (0..<count).reduce(0.0) { total, i in
                let value = Double(Float(bitPattern: bytes.loadUnaligned(fromByteOffset: i * 4, as: UInt32.self)))
                return total + value * value
            }
        }
        return (sum / Double(count)).squareRoot()
    }

    /// The duration of a movie's first stream of a kind (`v` or `a`), in seconds, as ffprobe
    /// reads it from the stream's packets.
    public static func streamDuration(of movie: String, _ kind: String) throws -> Double {
        let text = try output(
            "/usr/bin/ffprobe",
            [
                "-v", "error", "-select_streams", "\(kind):0", "-show_entries", "stream=duration", "-of", "csv=p=0",
                movie,
            ])
        return Double(text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }

    private static func output(_ command: String, _ arguments: [String]) throws -> String {
        String(decoding: try outputData(command, arguments), as: UTF8.self)
    }

    private static func outputData(_ command: String, _ arguments: [String]) throws -> Data {
        let (data, status) = try Tool.run(command, arguments)
        guard status == 0 else { throw Failed(arguments: [command] + arguments) }
        return data
    }
}
