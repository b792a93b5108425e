import Foundation

/// Runs the vips command (Debian's libvips-tools): libvips' own operations, called one by one
/// from outside Lightbox, as the oracle for edit filters.
public enum VipsTool {
    struct Failed: Error, CustomStringConvertible {
        var arguments: [String]
        var output: String
        var description: String { "vips \(arguments.joined(separator: " ")) failed: \(output)" }
    }

    /// Runs `vips ARGUMENTS...`; throws with its message when it fails.
    public static func run(_ arguments: String...) throws {
        try run(arguments)
    }

    public static func run(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/vips")
        process.arguments = arguments
        let errors = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        try process.run()
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failed(arguments: arguments, output: String(decoding: message, as: UTF8.self))
        }
    }

    /// The mean of every pixel's bands (`vips avg`): a photo's brightness, by libvips.
    public static func average(_ path: String) throws -> Double {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/vips")
        process.arguments = ["avg", path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0, let value = Double(text.trimmingCharacters(in: .whitespacesAndNewlines))
        else { throw Failed(arguments: ["avg", path], output: text) }
        return value
    }

    /// Writes a matrix file (`vips recomb`'s and `vips conv`'s form) and returns its path.
    public static func matrix(_ rows: [[Double]], at path: String) throws -> String {
        let text =
            "\(rows[0].count) \(rows.count)\n"
            + rows.map { $0.map { "\($0)" }.joined(separator: " ") }.joined(separator: "\n") + "\n"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }
}
