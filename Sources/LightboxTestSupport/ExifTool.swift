import Foundation

/// Runs exiftool (Debian's libimage-exiftool-perl), the oracle for metadata tests.
public enum ExifTool {
    struct Failed: Error {}

    /// Runs exiftool with `arguments`; its standard output, and whether it exited with 0.
    private static func run(_ arguments: [String]) throws -> (output: Data, succeeded: Bool) {
        let (data, status) = try Tool.run("/usr/bin/exiftool", arguments)
        return (data, status == 0)
    }

    /// Tag values of a file as exiftool prints them with `-n` (numbers unformatted), keyed by tag
    /// name. Throws when exiftool is not installed (make test installs it).
    public static func tags(_ names: [String], of path: String) throws -> [String: String] {
        let data = try run(["-j", "-n", "-q", "-q"] + names.map { "-" + $0 } + [path]).output
        guard let array = try JSONSerialization.jsonObject(with: data) as? [[String: Any]], let object = array.first
        else { return [:] }
        var result: [String: String] = [:]
        for (key, value) in object where key != "SourceFile" {
            result[key] = "\(value)"
        }
        return result
    }

    /// A binary tag's bytes as exiftool extracts them (`-b`), e.g. `ICC_Profile`; empty when
    /// the file has none.
    public static func binary(_ tag: String, of path: String) throws -> [UInt8] {
        [UInt8](try run(["-b", "-" + tag, path]).output)
    }

    /// Writes tags into a file in place (`-overwrite_original`), e.g. `["Orientation#": "8"]`.
    public static func write(_ assignments: [String: String], to path: String, ignoringMinorErrors: Bool = false) throws
    {
        guard
            try run(
                (ignoringMinorErrors ? ["-m"] : []) + ["-q", "-overwrite_original"]
                    + assignments.map { "-\($0.key)=\($0.value)" } + [path]
            ).succeeded
        else {
            throw Failed()
        }
    }

    /// Writes a whole file into a binary tag in place (`-TAG<=FILE`), ignoring minor errors
    /// (`-m`): a real JPEG as a RAW file's `JpgFromRaw` or `PreviewImage`.
    public static func embed(_ tag: String, from file: String, into path: String) throws {
        guard try run(["-m", "-q", "-overwrite_original", "-\(tag)<=\(file)", path]).succeeded else { throw Failed() }
    }

    /// Copies tags from one file into another in place (`-TagsFromFile`).
    public static func copyTags(_ names: [String], from source: String, to destination: String) throws {
        guard
            try run(["-q", "-overwrite_original", "-TagsFromFile", source] + names.map { "-" + $0 } + [destination])
                .succeeded
        else { throw Failed() }
    }

    /// Every tag of many files in one run (`-json -n -G`: numbers unformatted, keys
    /// "Group:Tag"), one object per file, keyed by its path.
    public static func allTags(of paths: [String]) throws -> [String: [String: Any]] {
        let list = FileManager.default.temporaryDirectory.appendingPathComponent("exiftool-\(UUID().uuidString).txt")
        try paths.joined(separator: "\n").write(to: list, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: list) }
        let data = try run(["-json", "-n", "-G", "-q", "-q", "-@", list.path]).output
        let array = try JSONSerialization.jsonObject(with: data) as? [[String: Any]] ?? []
        var result: [String: [String: Any]] = [:]
        for object in array {
            if let path = object["SourceFile"] as? String { result[path] = object }
        }
        return result
    }

    /// The sample time, in seconds, of a movie's timed metadata sample holding `tag` (`-ee`:
    /// exiftool reads each sample as a document of its own), e.g. a Live Photo's StillImageTime.
    public static func sampleTime(of tag: String, in path: String) throws -> Double? {
        let data = try run(["-j", "-n", "-ee", "-G3", "-q", "-q", "-" + tag, "-SampleTime", path]).output
        guard let object = (try JSONSerialization.jsonObject(with: data) as? [[String: Any]])?.first else { return nil }
        for (key, _) in object where key.hasSuffix(":" + tag) {
            let document = key.split(separator: ":").first.map(String.init) ?? ""
            if let time = object[document + ":SampleTime"] as? Double { return time }
        }
        return nil
    }
}
