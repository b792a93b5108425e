import Foundation

/// Reads a file of /proc whole, e.g. a process's memory maps. `String(contentsOfFile:)` stops
/// after its first read (4 KB of /proc/self/maps): /proc files say they are empty.
public enum ProcFile {
    public static func read(_ path: String) throws -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: path])
        }
        defer { try? handle.close() }
        return String(decoding: try handle.readToEnd() ?? Data(), as: UTF8.self)
    }
}
