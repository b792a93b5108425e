import Foundation

/// The library's `derivatives/` folder: `AB/ABCD...-uuid/KEY` for each image of an asset.
package struct DerivativeFolder: DerivativeStorage {
    package let root: String

    package init(root: String) throws {
        self.root = root
        try FileIO.makeDirectory(root)
    }

    /// Cached files of an asset live in a folder named after it: `derivatives/AB/ABCD...-uuid/`.
    /// Only identifiers the database handed out reach here, never raw user input.
    package func path(localIdentifier: String, key: String) -> (folder: String, file: String) {
        let folder = root + "/" + localIdentifier.prefix(2) + "/" + localIdentifier
        return (folder, folder + "/" + key)
    }

    /// A cached file's bytes; nil when absent, or not whole (cut short by a crash: see ``store``).
    package func cached(localIdentifier: String, key: String) -> [UInt8]? {
        guard let data = FileManager.default.contents(atPath: path(localIdentifier: localIdentifier, key: key).file)
        else {
            return nil
        }
        let bytes = [UInt8](data)
        return Self.isWhole(bytes) ? bytes : nil
    }

    /// Whether encoded bytes run to their format's end: a JPEG to its end-of-image marker, a
    /// WebP to the length its RIFF header states. A file cut short, or empty, is not whole.
    package static func isWhole(_ bytes: [UInt8]) -> Bool {
        let count = bytes.count
        if count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 {
            return bytes[count - 2] == 0xFF && bytes[count - 1] == 0xD9
        }
        if count >= 12, bytes[0..<4].elementsEqual("RIFF".utf8), bytes[8..<12].elementsEqual("WEBP".utf8) {
            let stated = Int(bytes[4]) | Int(bytes[5]) << 8 | Int(bytes[6]) << 16 | Int(bytes[7]) << 24
            return stated + 8 == count
        }
        return false
    }

    /// Stores a rendered image, renamed into place but not fsynced: everything here can be
    /// made again, and waiting for the disk twice per photo (the file, then the rename) cost
    /// an import of 12 MP JPEGs a tenth of its speed (docs/BENCHMARKS.md). A crash may lose the
    /// files written last, or leave one empty or short, which ``cached`` takes for a miss.
    package func store(_ bytes: [UInt8], localIdentifier: String, key: String) throws {
        let (folder, file) = path(localIdentifier: localIdentifier, key: key)
        try FileIO.makeDirectory(folder)
        try FileIO.writeAtomically(bytes, to: file, syncing: false)
    }

    package func localFile(localIdentifier: String, key: String) -> String? {
        let file = path(localIdentifier: localIdentifier, key: key).file
        return FileManager.default.fileExists(atPath: file) ? file : nil
    }

    /// In `derivatives/.incoming/`, which listings of stored assets leave out.
    package func scratchFolder() throws -> ProcessFolder {
        try ProcessFolder(parent: root + "/.incoming")
    }

    package func storeFile(at path: String, localIdentifier: String, key: String) throws {
        let (folder, file) = self.path(localIdentifier: localIdentifier, key: key)
        try FileIO.makeDirectory(folder)
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw FileIO.posixError("opening", path) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw FileIO.posixError("syncing", path) }
        guard rename(path, file) == 0 else { throw FileIO.posixError("moving into place", file) }
    }

    /// Removes every cached image of one file of an asset (a render an edit replaced).
    package func removeImages(localIdentifier: String, contentHash: String) {
        let folder = path(localIdentifier: localIdentifier, key: "").folder
        let prefix = contentHash.prefix(16) + "-"
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        for name in names where name.hasPrefix(prefix) { unlink(folder + "/" + name) }
    }

    @discardableResult
    package func removeAll(localIdentifier: String) -> Bool {
        (try? FileManager.default.removeItem(atPath: path(localIdentifier: localIdentifier, key: "").folder)) != nil
    }

    package func storedAssets() -> [(localIdentifier: String, location: String)] {
        let fileManager = FileManager.default
        var found: [(localIdentifier: String, location: String)] = []
        for prefix in ((try? fileManager.contentsOfDirectory(atPath: root)) ?? []).sorted() where !prefix.hasPrefix(".")
        {
            for name in ((try? fileManager.contentsOfDirectory(atPath: root + "/" + prefix)) ?? []).sorted() {
                found.append((name, "derivatives/" + prefix + "/" + name))
            }
        }
        return found
    }
}
