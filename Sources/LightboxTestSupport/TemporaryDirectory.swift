import Foundation
import Lightbox

/// A folder under the system's temporary directory, removed when the value is released.
public final class TemporaryDirectory: @unchecked Sendable {
    // @unchecked: `url` is immutable after init; the folder itself is only removed in deinit.
    /// The folder.
    public let url: URL

    /// Creates a new, empty folder whose name starts with `label`.
    public init(_ label: String = "lightbox-test") throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(label)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    /// A path inside the folder.
    public func path(_ name: String) -> String {
        url.appendingPathComponent(name).path
    }

    /// Copies a file into the folder (under `name`, default its own name) and returns the new path.
    @discardableResult
    public func copy(_ source: String, as name: String? = nil) throws -> String {
        let destination = path(name ?? (source as NSString).lastPathComponent)
        try FileManager.default.createDirectory(
            atPath: (destination as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: source, toPath: destination)
        return destination
    }

    /// Writes the first `fraction` of a file's bytes to a new file: a transfer cut short.
    @discardableResult
    public func truncatedCopy(of source: String, fraction: Double, as name: String) throws -> String {
        let data = try Data(contentsOf: URL(fileURLWithPath: source))
        let destination = path(name)
        try data.prefix(Int(Double(data.count) * fraction)).write(to: URL(fileURLWithPath: destination))
        return destination
    }

    /// Writes `count` pseudo-random bytes (a fixed seed, so failures reproduce).
    @discardableResult
    public func randomFile(_ name: String, count: Int, seed: UInt64 = 0x5EED) -> String {
        var state = seed
        var bytes = [UInt8](repeating: 0, count: count)
        for index in bytes.indices {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            bytes[index] = UInt8(truncatingIfNeeded: state >> 33)
        }
        let destination = path(name)
        _ = FileManager.default.createFile(atPath: destination, contents: Data(bytes))
        return destination
    }

    /// A new library inside the folder, its catalog in the store the suites run against
    /// (``Services/catalogUnderTest``): a SQLite file in the folder, or a new PostgreSQL database.
    /// The library made before under that name, opened again, when there is one.
    public func makeLibrary(_ name: String = "Test.lightbox") throws -> PhotoLibrary {
        let library = url.appendingPathComponent(name)
        let isNew = !PhotoLibrary.isLibrary(library.path)
        return try PhotoLibrary(url: library, database: isNew ? Services.newCatalog() : nil)
    }
}

extension TemporaryDirectory {
    /// A new library (``makeLibrary(_:)``) holding one movie as an iPhone records it (the
    /// corpus's phone movie made HEVC, which browsers cannot play), and its asset.
    public func makeLibraryWithHEVCMovie(named name: String = "HEVC_0001.MOV") async throws -> (PhotoLibrary, Asset) {
        let library = try makeLibrary()
        let movie = path(name)
        try FFmpeg.hevc(try Corpus.path(Corpus.livePhotoMovie), to: movie)
        let summary = await library.importItems(at: [URL(fileURLWithPath: movie)])
        guard summary.progress.imported == 1, let asset = try library.fetchAssets().firstObject else {
            throw LibraryError(.storageFailed, "the HEVC movie did not import: \(summary)")
        }
        return (library, asset)
    }
}

extension PhotoLibrary {
    /// The files in flight under `originals/.incoming/` of every open library (the open
    /// libraries' own folders and locks left out): what an interrupted write left.
    public var filesInFlight: [String] {
        let root = url.appendingPathComponent("originals/.incoming").path
        return (FileManager.default.subpaths(atPath: root) ?? []).filter { name in
            var isFolder: ObjCBool = false
            return FileManager.default.fileExists(atPath: root + "/" + name, isDirectory: &isFolder)
                && !isFolder.boolValue
                && !name.hasSuffix(".lock")
        }
    }
}
