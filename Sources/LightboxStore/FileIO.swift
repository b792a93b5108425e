import Crypto
import Foundation
import LightboxMetadata

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Small POSIX file helpers with errors that name the file: reading in chunks, hashing,
/// durable writes (temporary file, fsync, rename, fsync of the folder).
package enum FileIO {
    package static let chunkSize = 1 << 20

    /// An error from a POSIX call, with the file and the system's reason.
    package static func posixError(_ what: String, _ path: String) -> LibraryError {
        let reason = String(cString: strerror(errno))
        let code: LibraryError.Code =
            (errno == ENOENT || errno == EACCES || errno == EISDIR) ? .unreadableFile : .storageFailed
        return LibraryError(code, "\(what) failed: \(reason)", path: path)
    }

    /// Calls `body` with each chunk of the file, in order.
    package static func forEachChunk(ofFileAt path: String, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw posixError("opening", path) }
        defer { close(fd) }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let n = read(fd, buffer.baseAddress, chunkSize)
            if n < 0 {
                if errno == EINTR { continue }
                throw posixError("reading", path)
            }
            if n == 0 { break }
            try body(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
        }
    }

    /// The first `count` bytes of a file (fewer when it is shorter).
    package static func prefix(ofFileAt path: String, count: Int) throws -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw posixError("opening", path) }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: count)
        let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, count) }
        guard n >= 0 else { throw posixError("reading", path) }
        return Array(bytes.prefix(n))
    }

    /// A whole regular file's bytes, read with one open; nil when it is larger than `limit`.
    /// Anything else (a named pipe, a device, a folder) is refused: opened without waiting
    /// for a writer, its size is looked at before a byte is read.
    package static func contents(ofFileAt path: String, limit: Int) throws -> [UInt8]? {
        let (fd, size): (Int32, Int)
        do {
            (fd, size) = try RegularFile.open(path)
        } catch {
            throw LibraryError(.unreadableFile, error.reason, path: path)
        }
        defer { close(fd) }
        guard size <= limit else { return nil }
        var failed = false
        let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            var done = 0
            while done < size {
                let n = read(fd, buffer.baseAddress! + done, size - done)
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { break }
                done += n
            }
            failed = done != size
            count = done
        }
        if failed { throw posixError("reading", path) }
        return bytes
    }

    /// SHA-256 of a file's bytes, lowercase hex, and its size.
    package static func sha256(ofFileAt path: String) throws -> (hex: String, size: Int64) {
        var hasher = SHA256()
        var size: Int64 = 0
        try forEachChunk(ofFileAt: path) { chunk in
            hasher.update(bufferPointer: chunk)
            size += Int64(chunk.count)
        }
        return (hasher.finalize().hexadecimal, size)
    }

    /// SHA-256 of bytes in memory, lowercase hex.
    package static func sha256(of bytes: [UInt8]) -> String {
        SHA256.hash(data: bytes).hexadecimal
    }

    /// Copies `source` to a new file `temporary` (which must not exist), hashing the bytes as
    /// they are written, and fsyncs it unless `syncing` is false. Returns the SHA-256 of what
    /// was written.
    package static func copyAndSync(
        from source: String, to temporary: String, permissions: mode_t, bypassingCache: Bool = false,
        syncing: Bool = true
    ) throws -> String {
        let file = try DurableFile(creating: temporary, permissions: permissions, bypassingCache: bypassingCache)
        var hasher = SHA256()
        try forEachChunk(ofFileAt: source) { chunk in
            hasher.update(bufferPointer: chunk)
            try file.append(chunk)
        }
        try file.finish(syncing: syncing)
        return hasher.finalize().hexadecimal
    }

    /// Writes bytes durably to a new file `path` (which must not exist) and fsyncs it.
    package static func writeAndSync(
        _ bytes: [UInt8], to path: String, permissions: mode_t, bypassingCache: Bool = false
    )
        throws
    {
        try write(bytes, toNew: path, permissions: permissions, bypassingCache: bypassingCache, syncing: true)
    }

    /// Writes bytes to `path` through a temporary file beside it, renamed over it: a reader
    /// never sees a half-written file. With `syncing` (the default) the file is fsynced before
    /// the rename and survives a crash whole. Without, for caches, a crash may leave a file
    /// written shortly before missing, empty or cut short, and its reader must take that for a
    /// miss.
    package static func writeAtomically(_ bytes: [UInt8], to path: String, syncing: Bool = true) throws {
        try replaceAtomically(path) { temporary in
            try write(bytes, toNew: temporary, permissions: 0o644, bypassingCache: false, syncing: syncing)
        }
    }

    private static func write(
        _ bytes: [UInt8], toNew path: String, permissions: mode_t, bypassingCache: Bool, syncing: Bool
    ) throws {
        let file = try DurableFile(creating: path, permissions: permissions, bypassingCache: bypassingCache)
        try bytes.withUnsafeBytes { try file.append($0) }
        try file.finish(syncing: syncing)
    }

    /// `write` makes a temporary file beside `path`, which is then renamed over it; on
    /// any failure the temporary file is removed and `path` is as it was.
    private static func replaceAtomically(_ path: String, write: (String) throws -> Void) throws {
        let temporary = path + ".tmp-\(UUID().uuidString)"
        do {
            try write(temporary)
        } catch {
            unlink(temporary)
            throw error
        }
        guard rename(temporary, path) == 0 else {
            let error = posixError("renaming into place", path)
            unlink(temporary)
            throw error
        }
    }

    /// fsyncs a folder so that a rename into it survives a crash.
    package static func syncDirectory(_ path: String) throws {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw posixError("opening folder", path) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw posixError("syncing folder", path) }
    }

    package static func makeDirectory(_ path: String) throws {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw LibraryError(
                .storageFailed, "cannot create folder: \(error.localizedDescription)", path: path, underlying: error)
        }
    }

    package static func fileExists(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0
    }

    /// Throws unless `path` is a regular file (through links): opening a named pipe to read
    /// it waits for a writer forever, and a device has no end. Files an import or an editor
    /// names are checked before they are opened.
    package static func requireRegularFile(_ path: String) throws {
        var info = stat()
        guard stat(path, &info) == 0 else { throw posixError("reading", path) }
        guard info.st_mode & S_IFMT != S_IFREG else { return }
        throw LibraryError(.unreadableFile, "not a regular file but \(RegularFile.kind(of: info.st_mode))", path: path)
    }
}
