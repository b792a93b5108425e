import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The library's `originals/` folder: every original file, content-addressed by SHA-256.
///
/// A file enters through a temporary file in this library's own folder of `originals/.incoming/`
/// (``IncomingFolder``) that is written, fsynced, checked against the expected hash and renamed
/// into place, read-only. It is never modified afterwards. A crash leaves at most a temporary
/// file, removed by the next open, or a stored file no asset points to yet, which a later
/// import of the same bytes reuses.
struct OriginalStore: Sendable {
    let root: String
    /// This open library's folder of files in flight.
    let incomingFolder: IncomingFolder

    var incoming: String { incomingFolder.path }

    init(root: String) throws {
        self.root = root
        incomingFolder = try IncomingFolder(parent: root + "/.incoming")
    }

    /// Where the file with this hash lives, relative to `originals/`: `ab/abcdef....jpg`.
    static func relativePath(sha256: String, filenameExtension: String) -> String {
        "\(sha256.prefix(2))/\(sha256).\(filenameExtension)"
    }

    func absolutePath(_ relativePath: String) -> String {
        root + "/" + relativePath
    }

    /// Stores a copy of `source` whose SHA-256 must be `sha256`; returns its relative path.
    /// Throws when the bytes read differ from the hash (the file changed during the import).
    func store(copying source: String, sha256: String, filenameExtension: String) throws -> String {
        try store(sha256: sha256, filenameExtension: filenameExtension) { temporary in
            let written = try FileIO.copyAndSync(from: source, to: temporary, permissions: 0o444, bypassingCache: true)
            guard written == sha256 else {
                throw LibraryError(.unreadableFile, "the file changed while it was being imported", path: source)
            }
        }
    }

    /// Stores bytes held in memory (a movie cut out of a Motion Photo) like a copied file:
    /// durably, read-only, named by their hash.
    func store(bytes: [UInt8], sha256: String, filenameExtension: String) throws -> String {
        try store(sha256: sha256, filenameExtension: filenameExtension) { temporary in
            try FileIO.writeAndSync(bytes, to: temporary, permissions: 0o444, bypassingCache: true)
        }
    }

    /// The one way an original lands: `write` fills a temporary file in `.incoming/` durably,
    /// which is renamed to its content-addressed name and its folder synced. Bytes already
    /// stored under that name are reused.
    private func store(sha256: String, filenameExtension: String, write: (String) throws -> Void) throws -> String {
        let relative = Self.relativePath(sha256: sha256, filenameExtension: filenameExtension)
        let destination = absolutePath(relative)
        if FileIO.fileExists(destination), (try? FileIO.sha256(ofFileAt: destination).hex) == sha256 {
            return relative
        }
        let folder = root + "/" + sha256.prefix(2)
        try FileIO.makeDirectory(folder)
        let temporary = incoming + "/" + UUID().uuidString
        do {
            try write(temporary)
            var renamed = rename(temporary, destination) == 0
            // Another process may have removed the emptied folder meanwhile: make it again.
            if !renamed && errno == ENOENT {
                try FileIO.makeDirectory(folder)
                renamed = rename(temporary, destination) == 0
            }
            guard renamed else { throw FileIO.posixError("storing", destination) }
            try FileIO.syncDirectory(folder)
        } catch {
            unlink(temporary)
            throw error
        }
        return relative
    }

    /// Removes a stored file no resource refers to any more, and its two-letter folder when
    /// that is left empty.
    func remove(_ relativePath: String) {
        let absolute = absolutePath(relativePath)
        chmod(absolute, 0o644)
        unlink(absolute)
        rmdir((absolute as NSString).deletingLastPathComponent)
    }

    /// Removes what interrupted imports of libraries no longer open left in `.incoming/`.
    func removeIncomingLeftovers() {
        IncomingFolder.removeLeftovers(in: root + "/.incoming")
    }
}
