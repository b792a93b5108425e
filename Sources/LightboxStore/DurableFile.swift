import CDirectIO

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A new file written once and synced to the disk: how originals, renders and exports are
/// stored. Cached images in `derivatives/` are written the same way but not synced.
///
/// For originals, where the file system allows it (ext4, XFS, Btrfs), the bulk of the bytes
/// is written with direct I/O, from an aligned staging buffer straight to the disk; only the
/// last partial block goes through the page cache. An import writes each original once and
/// does not read it back, so copying it into new page-cache pages is pure cost, several times
/// the processor time of a direct write (docs/BENCHMARKS.md, Import). A large import also no longer pushes the rest of the
/// machine's cache out. The fsync at the end is needed either way, for the size, the last
/// block and the disk's own cache. A file system without direct I/O gets ordinary writes.
package final class DurableFile {
    /// Direct I/O needs buffers, lengths and offsets aligned to the disk's logical block,
    /// 512 or 4096 bytes: 4096 serves both.
    private static let alignment = 4096
    private static let stagingSize = 1 << 20

    package let path: String
    private var fd: Int32
    private var direct: Bool
    /// Only for direct I/O: the aligned buffer the bytes are gathered in. Ordinary writes go
    /// straight from the caller's bytes.
    private var staging: UnsafeMutableRawBufferPointer?
    private var staged = 0

    /// Creates `path`, which must not exist. `bypassingCache` asks for direct I/O: for files
    /// nobody reads soon after (originals), not for those read next (cached images, exports).
    package init(creating path: String, permissions: mode_t, bypassingCache: Bool) throws {
        self.path = path
        fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, permissions)
        guard fd >= 0 else { throw FileIO.posixError("creating", path) }
        direct = bypassingCache && cdirectio_set(fd, 1) == 0
        if direct { staging = .allocate(byteCount: Self.stagingSize, alignment: Self.alignment) }
    }

    deinit {
        if fd >= 0 { close(fd) }
        staging?.deallocate()
    }

    /// Appends bytes to the file.
    package func append(_ bytes: UnsafeRawBufferPointer) throws {
        guard var source = bytes.baseAddress else { return }
        guard direct, let staging = staging?.baseAddress else {
            // Anything gathered before direct I/O was given up goes first.
            if staged > 0 { try flush(count: staged) }
            return try writeAll(source, count: bytes.count)
        }
        var remaining = bytes.count
        while remaining > 0 {
            let n = min(remaining, Self.stagingSize - staged)
            (staging + staged).copyMemory(from: source, byteCount: n)
            staged += n
            source += n
            remaining -= n
            if staged == Self.stagingSize { try flush(count: staged) }
        }
    }

    /// Writes what is left, fsyncs (unless `syncing` is false) and closes the file.
    package func finish(syncing: Bool = true) throws {
        if direct {
            let aligned = staged & ~(Self.alignment - 1)
            if aligned > 0 { try flush(count: aligned) }
        }
        // The last partial block cannot go direct: through the page cache, where fsync finds it.
        if staged > 0 {
            if direct {
                _ = cdirectio_set(fd, 0)
                direct = false
            }
            try flush(count: staged)
        }
        guard !syncing || fsync(fd) == 0 else { throw FileIO.posixError("syncing", path) }
        let descriptor = fd
        fd = -1
        guard close(descriptor) == 0 else { throw FileIO.posixError("closing", path) }
    }

    /// Writes the first `count` staged bytes and keeps the rest at the start of the buffer.
    private func flush(count: Int) throws {
        guard let staging = staging?.baseAddress else { return }
        try writeAll(staging, count: count)
        let rest = staged - count
        if rest > 0 { staging.copyMemory(from: staging + count, byteCount: rest) }
        staged = rest
    }

    /// Writes `count` bytes at `pointer`, through short writes and interruptions.
    private func writeAll(_ pointer: UnsafeRawPointer, count: Int) throws {
        var offset = 0
        while offset < count {
            let n = write(fd, pointer + offset, count - offset)
            if n > 0 {
                offset += n
            } else if n < 0 && errno == EINTR {
                continue
            } else if direct && n < 0 && (errno == EINVAL || errno == ENOTSUP) {
                // A file system may take O_DIRECT at open and refuse it at a write, and a short
                // direct write (a full disk) leaves the offset unaligned: go on buffered.
                direct = false
                _ = cdirectio_set(fd, 0)
            } else {
                throw FileIO.posixError("writing", path)
            }
        }
    }
}
