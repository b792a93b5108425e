import Foundation
import LightboxMetadata

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The library's `originals/` folder: every original file, content-addressed by SHA-256 (the
/// ``OriginalStorage`` of a library on one machine). A key is the path relative to the folder.
///
/// A file enters through a temporary file in this library's own folder of `originals/.incoming/`
/// (a ``ProcessFolder``) that is written, fsynced, checked against the expected hash and renamed
/// into place, read-only. It is never modified afterwards.
///
/// Until the transaction that refers to it commits, a stored file is also linked in that
/// folder under its own name (a *marker*, the same inode): its staging, the library's journal
/// of what is in flight. ``release(_:)`` drops the markers after the commit. A process that dies (or ends)
/// before leaves its markers, and the next library to open removes each marked file no row
/// refers to, in a write transaction: a crash between a store and its commit leaves a temporary
/// file or a marked file, never a file nothing will ever find.
package struct OriginalFolder: OriginalStorage {
    package let root: String
    /// This open library's folder of files in flight.
    package let incomingFolder: ProcessFolder

    package var incoming: String { incomingFolder.path }
    package var temporaryFolder: String { incoming }

    package init(root: String) throws {
        self.root = root
        // Markers left when the library closes stay for the next open to settle.
        incomingFolder = try ProcessFolder(parent: root + "/.incoming") { Self.hasMarkers($0) }
    }

    /// Where the file with this hash lives, relative to `originals/`: `ab/abcdef....jpg`.
    package static func relativePath(sha256: String, filenameExtension: String) -> String {
        "\(sha256.prefix(2))/\(sha256).\(filenameExtension)"
    }

    package func absolutePath(_ relativePath: String) -> String {
        root + "/" + relativePath
    }

    package func localPath(of key: String) -> String {
        absolutePath(key)
    }

    package func examine(_ key: String, sha256: String, size: Int64, verifying: Bool, repairing: Bool)
        -> OriginalCondition
    {
        let absolute = absolutePath(key)
        var info = stat()
        guard lstat(absolute, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return .missing }
        if verifying, (try? FileIO.sha256(ofFileAt: absolute).hex) != sha256 { return .damaged }
        guard info.st_mode & 0o222 != 0 else { return .sound }
        return repairing && chmod(absolute, 0o444) == 0 ? .madeReadOnly : .writable
    }

    package func contains(_ key: String) -> Bool {
        FileIO.fileExists(absolutePath(key))
    }

    /// Stores a copy of `source` whose SHA-256 must be `sha256`; returns its relative path.
    /// Throws when the bytes read differ from the hash (the file changed during the import).
    package func store(copying source: String, sha256: String, filenameExtension: String) throws -> String {
        try store(sha256: sha256, filenameExtension: filenameExtension) { temporary in
            let written = try FileIO.copyAndSync(from: source, to: temporary, permissions: 0o444, bypassingCache: true)
            guard written == sha256 else {
                throw LibraryError(.unreadableFile, "the file changed while it was being imported", path: source)
            }
        }
    }

    /// Stores bytes held in memory (a movie cut out of a Motion Photo) like a copied file:
    /// durably, read-only, named by their hash.
    package func store(bytes: [UInt8], sha256: String, filenameExtension: String) throws -> String {
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
            // The marker first: a file renamed into place is always one a sweep can find.
            let marker = markerPath(relative)
            if link(temporary, marker) != 0 && errno != EEXIST { throw FileIO.posixError("marking", marker) }
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
    package func remove(_ relativePath: String) {
        let absolute = absolutePath(relativePath)
        chmod(absolute, 0o644)
        unlink(absolute)
        rmdir(PathString.deletingLastComponent(absolute))
    }

    /// Where this process marks a stored file whose transaction has not committed yet.
    package func markerPath(_ relativePath: String) -> String {
        incoming + "/" + PathString.lastComponent(relativePath)
    }

    /// Drops the markers of stored files that a committed transaction now refers to.
    package func release(_ relativePaths: [String]) {
        for path in relativePaths { unlink(markerPath(path)) }
    }

    package func staged(_ keys: [String]) -> [StagedOriginal] {
        keys.map { StagedOriginal(key: $0, staging: markerPath($0)) }
    }

    package func discard(_ staged: StagedOriginal, removingOriginal: Bool) {
        if removingOriginal, isMarked(staged.key, by: staged.staging) { remove(staged.key) }
        unlink(staged.staging)
    }

    package func allKeys() -> [String] {
        let fileManager = FileManager.default
        var keys: [String] = []
        for folder in ((try? fileManager.contentsOfDirectory(atPath: root)) ?? []).sorted() where !folder.hasPrefix(".")
        {
            for name in ((try? fileManager.contentsOfDirectory(atPath: root + "/" + folder)) ?? []).sorted() {
                keys.append(folder + "/" + name)
            }
        }
        return keys
    }

    /// Files a running process marked are in ``keysInFlight()``, which the sweep leaves.
    package func mayRemoveUnreferenced(_ key: String) -> Bool { true }

    package func keysInFlight() -> Set<String> {
        let fileManager = FileManager.default
        let parent = root + "/.incoming"
        return Set(
            ((try? fileManager.contentsOfDirectory(atPath: parent)) ?? []).flatMap { folder in
                ((try? fileManager.contentsOfDirectory(atPath: parent + "/" + folder)) ?? []).compactMap(
                    Self.storedPath(ofMarker:))
            })
    }

    /// The stored file a marker names (`ab/abcdef....jpg`), or nil for a temporary file.
    package static func storedPath(ofMarker name: String) -> String? {
        let hash = name.prefix { $0 != "." }
        guard hash.count == 64, hash.allSatisfy(\.isHexDigit), name.count > 65 else { return nil }
        return "\(hash.prefix(2))/\(name)"
    }

    private static func hasMarkers(_ folder: String) -> Bool {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).contains {
            storedPath(ofMarker: $0) != nil
        }
    }

    /// Whether the file stored at `relativePath` is the one `marker` links (the same inode):
    /// not a file stored again since by another process.
    package func isMarked(_ relativePath: String, by marker: String) -> Bool {
        var stored = stat()
        var marked = stat()
        return lstat(absolutePath(relativePath), &stored) == 0 && lstat(marker, &marked) == 0
            && stored.st_ino == marked.st_ino && stored.st_dev == marked.st_dev
    }

    /// Removes what processes no longer running left in `.incoming/`; `discard` is given the
    /// stagings of each (a stored file one of them marked, and the marker).
    package func removeLeftovers(_ discard: ([StagedOriginal]) -> Void) {
        ProcessFolder.removeLeftovers(in: root + "/.incoming") { folder in
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
            let marked = names.compactMap { name in
                Self.storedPath(ofMarker: name).map { StagedOriginal(key: $0, staging: folder + "/" + name) }
            }
            if !marked.isEmpty { discard(marked) }
        }
    }
}
