import ArgumentParser
import Foundation
import LightboxMetadata

/// `lightbox-bench metadata`: Lightbox's metadata reader against `exiftool -fast` and
/// `exiv2 -pa` on the same files, each over all of them in one process.
struct MetadataBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "metadata",
        abstract: "Read the metadata of every image and movie under the paths: Lightbox, exiftool -fast, exiv2 -pa.")

    @Argument(help: "Files and folders (folders recursively); files Lightbox does not recognise are left out.")
    var paths: [String]

    @Option(help: "How many times Lightbox reads the whole set (the median round is reported).")
    var rounds = 5

    func run() async throws {
        let files = Self.mediaFiles(paths)
        guard !files.isEmpty else { throw ValidationError("no image or movie files under \(paths)") }
        let bytes = files.reduce(0) {
            $0 + ((try? FileManager.default.attributesOfItem(atPath: $1)[.size] as? Int) ?? 0)
        }
        // Every tool reads the same files from the page cache: read them all once first.
        for file in files { _ = FileManager.default.contents(atPath: file) }

        var times: [Double] = []
        var failures = 0
        for _ in 0..<max(1, rounds) {
            let start = Date()
            failures = 0
            for file in files where (try? MetadataReader.read(fileAtPath: file)) == nil { failures += 1 }
            times.append(Date().timeIntervalSince(start))
        }
        let lightbox = Report.percentile(times, 0.5)
        let exiftool = try Self.time("/usr/bin/exiftool", ["-fast", "-json", "-q", "-q", "-@", Self.listFile(files)])
        let exiv2 = try Self.time("/usr/bin/exiv2", ["-pa", "-q"] + files)
        var report: [String: Any] = [
            "benchmark": "metadata", "files": files.count, "megabytes": Report.round(Double(bytes) / 1_000_000),
            "lightboxFailures": failures, "lightboxSeconds": Report.round(lightbox),
            "lightboxFilesPerSecond": Report.round(Double(files.count) / lightbox),
            "peakResidentMB": Report.peakResidentMegabytes(),
        ]
        if let exiftool {
            report["exiftoolFastSeconds"] = Report.round(exiftool)
            report["exiftoolFastFilesPerSecond"] = Report.round(Double(files.count) / exiftool)
            report["speedupOverExiftoolFast"] = Report.round(exiftool / lightbox)
        }
        if let exiv2 {
            report["exiv2Seconds"] = Report.round(exiv2)
            report["exiv2FilesPerSecond"] = Report.round(Double(files.count) / exiv2)
            report["speedupOverExiv2"] = Report.round(exiv2 / lightbox)
        }
        Report.print(report)
    }

    /// Regular files under the paths whose first bytes Lightbox recognises, sorted.
    static func mediaFiles(_ paths: [String]) -> [String] {
        var files: [String] = []
        for path in paths {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else { continue }
            let candidates =
                isFolder.boolValue
                ? (FileManager.default.enumerator(atPath: path)?.allObjects as? [String] ?? []).map { path + "/" + $0 }
                : [path]
            for file in candidates.sorted() {
                guard let handle = FileHandle(forReadingAtPath: file) else { continue }
                let head = (try? handle.read(upToCount: FileFormat.sniffLength)) ?? Data()
                try? handle.close()
                if FileFormat(sniffing: [UInt8](head)) != nil { files.append(file) }
            }
        }
        return files
    }

    static func listFile(_ files: [String]) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("bench-\(UUID().uuidString).txt").path
        try files.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Seconds one run of a tool takes (its output discarded); nil when it is not installed.
    static func time(_ executable: String, _ arguments: [String]) throws -> Double? {
        guard FileManager.default.isExecutableFile(atPath: executable) else { return nil }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let start = Date()
        try process.run()
        process.waitUntilExit()
        return Date().timeIntervalSince(start)
    }
}
