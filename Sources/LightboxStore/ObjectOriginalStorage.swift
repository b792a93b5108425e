import Foundation
import LightboxMetadata
import LightboxS3

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Originals in a bucket of S3-compatible object storage, under `PREFIX/originals/` with the
/// same content-addressed keys as ``OriginalFolder``'s (`ab/abcdef....jpg`): the
/// ``OriginalStorage`` of a library that has outgrown one machine's disk, or is served by several.
///
/// An original is uploaded with its SHA-256 checked as it is read and its MD5 checked by the
/// server, then its transaction commits: a crash between the two leaves an object no row refers
/// to, never a row without its object. Such objects are not removed when a transaction fails,
/// because another process (on another machine) may have found the same bytes stored and be
/// about to commit a row referring to them; instead every store of bytes already there makes
/// the object new again (a copy onto itself), and a sweep (`lightbox check --repair`) removes
/// the objects no row refers to that are older than ``graceInterval``, each in a write
/// transaction.
///
/// What this machine reads of originals (decodes, exports, edits) is fetched once into
/// `LIBRARY/cache/originals/`, checked against its hash.
package struct ObjectOriginalStorage: OriginalStorage {
    package let client: S3Client
    /// The library folder's `originals/`, for this process's files in flight (`.incoming/`).
    package let localRoot: String
    package let incomingFolder: ProcessFolder
    /// Copies of originals fetched to be read here.
    package let cacheRoot: String
    /// How long an object no row refers to is taken to be in flight: longer than any store
    /// takes to commit.
    package let graceInterval: TimeInterval

    /// Objects of originals are under this, in the location's prefix.
    package static let keyPrefix = "originals/"

    package init(client: S3Client, libraryFolder: String, graceInterval: TimeInterval = 24 * 3600) throws {
        self.client = client
        self.localRoot = libraryFolder + "/originals"
        self.cacheRoot = libraryFolder + "/cache/originals"
        self.graceInterval = graceInterval
        incomingFolder = try ProcessFolder(parent: localRoot + "/.incoming")
    }

    package var temporaryFolder: String { incomingFolder.path }

    /// Throws, saying what the server answered, unless the bucket can be listed.
    package func checkReachable(libraryFolder: String) throws {
        do {
            try client.list(prefix: Self.keyPrefix) { _ in false }
        } catch {
            throw LibraryError(
                .storageFailed, "cannot use \(client.location) for originals: \(error)", path: libraryFolder,
                underlying: error)
        }
    }

    private func objectKey(_ key: String) -> String { Self.keyPrefix + key }

    package func store(copying path: String, sha256: String, filenameExtension: String) throws -> String {
        let key = OriginalFolder.relativePath(sha256: sha256, filenameExtension: filenameExtension)
        // Its size only: the import hashed it already, and the upload checks the hash as it reads.
        var status = stat()
        guard stat(path, &status) == 0 else { throw FileIO.posixError("reading", path) }
        let size = Int64(status.st_size)
        if try reuse(key, size: size) { return key }
        do {
            try client.putFile(at: path, key: objectKey(key), sha256: sha256)
        } catch let error as S3Error where error.code == .checksumMismatch {
            throw LibraryError(.unreadableFile, "the file changed while it was being imported", path: path)
        } catch {
            throw storageError(error, "storing", key)
        }
        return key
    }

    package func store(bytes: [UInt8], sha256: String, filenameExtension: String) throws -> String {
        let key = OriginalFolder.relativePath(sha256: sha256, filenameExtension: filenameExtension)
        guard FileIO.sha256(of: bytes) == sha256 else {
            throw LibraryError(.storageFailed, "the bytes to store are not those hashed", path: key)
        }
        if try reuse(key, size: Int64(bytes.count)) { return key }
        do {
            try client.put(bytes, key: objectKey(key))
        } catch {
            throw storageError(error, "storing", key)
        }
        return key
    }

    /// Whether the object is stored already with this size; if so it is made new, so that a
    /// sweep leaves it to the transaction about to refer to it.
    private func reuse(_ key: String, size: Int64) throws -> Bool {
        do {
            guard let head = try client.head(objectKey(key)), head.size == size else { return false }
            try client.touch(objectKey(key))
            return true
        } catch let error as S3Error where error.code == .notFound {
            // Swept between the head and the touch: store it again.
            return false
        } catch {
            throw storageError(error, "reading", key)
        }
    }

    // Nothing is staged locally: the sweep's grace stands for the markers of the folder.
    package func release(_ keys: [String]) {}

    package func staged(_ keys: [String]) -> [StagedOriginal] {
        keys.map { StagedOriginal(key: $0, staging: "") }
    }

    package func removeLeftovers(_ discard: ([StagedOriginal]) -> Void) {
        ProcessFolder.removeLeftovers(in: localRoot + "/.incoming")
    }

    /// Leaves the object for the sweep: another process may have reused it meanwhile.
    package func discard(_ staged: StagedOriginal, removingOriginal: Bool) {}

    package func contains(_ key: String) -> Bool {
        (try? client.head(objectKey(key))) != nil
    }

    package func localPath(of key: String) throws -> String {
        let path = cacheRoot + "/" + key
        if FileIO.fileExists(path) { return path }
        try FileIO.makeDirectory(PathString.deletingLastComponent(path))
        let temporary = incomingFolder.path + "/" + UUID().uuidString
        defer { unlink(temporary) }
        do {
            try client.download(objectKey(key), to: temporary)
        } catch {
            throw storageError(error, "reading", key)
        }
        // The key names the bytes' hash: a copy that is not them is not kept.
        let expected = PathString.lastComponent(key).prefix { $0 != "." }
        guard (try FileIO.sha256(ofFileAt: temporary).hex) == expected else {
            throw LibraryError(.storageFailed, "the object storage gave other bytes than were stored", path: key)
        }
        chmod(temporary, 0o444)
        guard rename(temporary, path) == 0 else { throw FileIO.posixError("keeping a copy of", path) }
        return path
    }

    package func examine(_ key: String, sha256: String, size: Int64, verifying: Bool, repairing: Bool)
        -> OriginalCondition
    {
        guard let head = try? client.head(objectKey(key)) else { return .missing }
        guard head.size == size else { return .damaged }
        guard verifying else { return .sound }
        if let checksum = head.checksumSHA256 {
            return checksum == Data(hexBytes(sha256)).base64EncodedString() ? .sound : .damaged
        }
        // No checksum kept by the server: the bytes are read again, as the folder's are.
        let temporary = incomingFolder.path + "/" + UUID().uuidString
        defer { unlink(temporary) }
        guard (try? client.download(objectKey(key), to: temporary)) != nil else { return .missing }
        return (try? FileIO.sha256(ofFileAt: temporary).hex) == sha256 ? .sound : .damaged
    }

    package func remove(_ key: String) {
        try? client.delete(objectKey(key))
        unlink(cacheRoot + "/" + key)
    }

    package func allKeys() throws -> [String] {
        try objects().map(\.key).sorted()
    }

    /// Objects younger than the grace: a transaction on some machine may be about to refer to
    /// them.
    package func keysInFlight() throws -> Set<String> {
        let since = Date().addingTimeInterval(-graceInterval)
        return Set(try objects().filter { ($0.lastModified ?? .distantFuture) > since }.map(\.key))
    }

    /// Only if it is still older than the grace: a store that found it since made it new (and
    /// confirms it in its own write transaction, which waits for this one).
    package func mayRemoveUnreferenced(_ key: String) -> Bool {
        guard let head = try? client.head(objectKey(key)), let modified = head.lastModified else { return false }
        return modified < Date().addingTimeInterval(-graceInterval)
    }

    /// Every object of an original, keys relative to `originals/`.
    private func objects() throws -> [S3Client.Object] {
        do {
            return try client.objects(prefix: Self.keyPrefix).map {
                var object = $0
                object.key = String(object.key.dropFirst(Self.keyPrefix.count))
                return object
            }
        } catch {
            throw storageError(error, "listing", "")
        }
    }

    private func storageError(_ error: any Error, _ doing: String, _ key: String) -> LibraryError {
        LibraryError(
            .storageFailed, "\(doing) the original in \(client.location)\(Self.keyPrefix): \(error)", path: key,
            underlying: error)
    }

    private func hexBytes(_ hex: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex, let next = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex) {
            bytes.append(UInt8(hex[index..<next], radix: 16) ?? 0)
            index = next
        }
        return bytes
    }
}
