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
        let (message, status) = try Tool.run("/usr/bin/vips", arguments, collecting: .errors)
        guard status == 0 else {
            throw Failed(arguments: arguments, output: String(decoding: message, as: UTF8.self))
        }
    }

    /// The mean of every pixel's bands (`vips avg`): a photo's brightness, by libvips.
    public static func average(_ path: String) throws -> Double {
        let (output, status) = try Tool.run("/usr/bin/vips", ["avg", path])
        let text = String(decoding: output, as: UTF8.self)
        guard status == 0, let value = Double(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw Failed(arguments: ["avg", path], output: text)
        }
        return value
    }

    /// A field of an image's header (`vipsheader -f FIELD`), e.g. its width.
    public static func header(_ field: String, of path: String) throws -> String {
        let (output, status) = try Tool.run("/usr/bin/vipsheader", ["-f", field, path])
        let text = String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard status == 0 else { throw Failed(arguments: ["-f", field, path], output: text) }
        return text
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
