import Foundation

/// Runs the ffmpeg command (Debian's ffmpeg), the oracle for movies' frames.
public enum FFmpeg {
    struct Failed: Error, CustomStringConvertible {
        var arguments: [String]
        var description: String { "ffmpeg failed: \(arguments.joined(separator: " "))" }
    }

    /// Runs ffmpeg quietly, overwriting outputs; throws when it fails.
    public static func run(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        process.arguments = ["-v", "error", "-y"] + arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw Failed(arguments: arguments) }
    }

    /// The movie's first frame as ffmpeg shows it (turned by the track's rotation), as PNG.
    public static func firstFrame(of movie: String, to png: String) throws {
        try run(["-i", movie, "-frames:v", "1", "-f", "image2", png])
    }

    /// A copy of the movie whose video track says to turn it `degrees` clockwise (its display
    /// matrix), the frames untouched.
    public static func rotated(_ movie: String, degrees: Int, to output: String) throws {
        try run(["-display_rotation", "\(-degrees)", "-i", movie, "-c", "copy", output])
    }
}
