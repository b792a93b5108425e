import Foundation

/// Runs one of the command-line tools the tests use as oracles (exiftool, ffmpeg, ffprobe,
/// vips), collecting one of its streams; the other goes nowhere.
enum Tool {
    enum Stream { case output, errors }

    /// What `stream` printed, and the exit status.
    static func run(_ path: String, _ arguments: [String], collecting stream: Stream = .output) throws -> (
        data: Data, status: Int32
    ) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = stream == .output ? pipe : FileHandle.nullDevice
        process.standardError = stream == .errors ? pipe : FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (data, process.terminationStatus)
    }
}
