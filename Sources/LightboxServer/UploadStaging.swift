import Crypto
import Foundation
import Lightbox
import LightboxMetadata
import NIOCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Uploads in progress in one library's uploads folder, each a folder of its own:
/// `upload.json` (name, size, expected SHA-256) and `data`, the bytes so far. What is on disk
/// is the truth: the offset to resume from is `data`'s size, so an upload survives a dropped
/// connection and a restart of the server. A finished file is checked against its SHA-256 and
/// imported (moved in), as a file from a folder would be.
package final class UploadStaging: Sendable {
    struct Record: Codable, Sendable {
        var id: String
        var filename: String
        var size: Int64
        var sha256: String?
        var creationDate: Date
        /// Who started it: nil for the library's owner, else a contributor to an album shared
        /// with them (``uploader(_:)``). Only they see it.
        var uploader: String?
    }

    /// What `/api/uploads` answers about an upload.
    struct Status: Encodable, Sendable {
        var id: String
        var filename: String
        var size: Int64
        var offset: Int64
        /// Whether a request is sending its bytes now (one that dropped stops at once, or when
        /// the idle timeout closes its connection).
        var writing = false
    }

    let library: PhotoLibrary
    /// The uploads being written to now: one writer each.
    private let writing = Mutex<Set<String>>([])
    /// The SHA-256 of each checked upload's bytes so far, taken as they are written, so that a
    /// finished upload is not read again to be checked. A restart loses them: the file is then
    /// hashed whole at the end, as is one whose digest stopped matching its size.
    private let digests = Mutex<[String: RunningDigest]>([:])

    /// A digest of an upload's first `offset` bytes.
    struct RunningDigest: Sendable {
        var hasher = SHA256()
        var offset: Int64 = 0

        mutating func update(_ buffer: ByteBuffer) {
            buffer.withUnsafeReadableBytes { hasher.update(bufferPointer: $0) }
            offset += Int64(buffer.readableBytes)
        }
    }

    /// An upload untouched this long is removed when another starts.
    static let abandonedAfter: TimeInterval = 24 * 3600
    /// The most uploads one library has open at once.
    static let maximumOpen = 1000
    /// The most uploads one contributor has open in a library, and all its contributors
    /// together: half its slots, and half its free disk, are always the owner's.
    static let openPerContributor = 100
    static let openByContributors = maximumOpen / 2
    /// Kept free on the disk beyond an upload's size.
    static let spareDisk: Int64 = 256 << 20

    init(library: PhotoLibrary) {
        self.library = library
    }

    private var root: String { library.uploadsFolder.path }

    private func folder(_ id: String) throws -> String {
        // Identifiers are ours (hex); anything else names no upload.
        guard id.count == 32, id.allSatisfy(\.isHexDigit) else {
            throw UploadError.notFound("no upload has the identifier \(id)")
        }
        return root + "/" + id
    }

    /// Who an upload belongs to, for `caller`: nil for the library's owner, else the contributor
    /// and the share they send through.
    static func uploader(_ caller: Caller?) -> String? {
        guard let shared = caller?.sharedAlbum else { return nil }
        return "share " + shared.share.id + " user " + (caller?.user?.id ?? "")
    }

    /// Starts an upload of `size` bytes named `filename`, for `uploader` (``uploader(_:)``).
    /// The disk must hold it beside what every open upload still has to send; a contributor
    /// has a share of the library's slots and disk, so none can fill the owner's.
    func start(filename: String, size: Int64, sha256: String?, maximumSize: Int64, uploader: String? = nil) throws
        -> Status
    {
        let name = Self.safeName(filename)
        guard size > 0 else { throw UploadError.invalid("\(name) is empty") }
        guard size <= maximumSize else {
            throw UploadError.invalid(
                "\(name) is \(Self.readable(size)): this server takes files of at most \(Self.readable(maximumSize))")
        }
        if let sha256, sha256.count != 64 || !sha256.allSatisfy({ $0.isHexDigit && !$0.isUppercase }) {
            throw UploadError.invalid("sha256 is 64 lowercase hexadecimal digits")
        }
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        removeAbandoned()
        let open = openUploads()
        guard open.count < Self.maximumOpen else {
            throw UploadError.tooMany("\(open.count) uploads are open in this library: finish or cancel some first")
        }
        let free = Self.freeBytes(root) - Self.spareDisk
        // What open uploads declared and have yet to send is the disk's already.
        let promised = open.reduce(Int64(0)) { $0 + $1.remaining }
        guard free - promised >= size else {
            throw UploadError.noSpace(
                "the server's disk has no room for \(name) (\(Self.readable(size))) beside the \(Self.readable(promised)) "
                    + "the open uploads still send")
        }
        if let uploader {
            let contributed = open.filter { $0.record.uploader != nil }
            let own = contributed.filter { $0.record.uploader == uploader }.count
            guard own < Self.openPerContributor, contributed.count < Self.openByContributors else {
                throw UploadError.tooMany(
                    "\(own) of your uploads are open in this album's library: finish or cancel some first")
            }
            let theirs = contributed.reduce(Int64(0)) { $0 + $1.remaining }
            guard theirs + size <= free / 2 else {
                throw UploadError.noSpace(
                    "the album's library has no room for \(name) (\(Self.readable(size))) from contributors")
            }
        }
        let id = UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let path = root + "/" + id
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        let record = Record(
            id: id, filename: name, size: size, sha256: sha256, creationDate: Date(), uploader: uploader)
        try JSONEncoder().encode(record).write(to: URL(fileURLWithPath: path + "/upload.json"), options: .atomic)
        guard FileManager.default.createFile(atPath: path + "/data", contents: nil) else {
            throw UploadError.failed("cannot create the upload's file")
        }
        return Status(id: id, filename: name, size: size, offset: 0)
    }

    func status(_ id: String, uploader: String? = nil) throws -> Status {
        let record = try record(id, of: uploader)
        return Status(
            id: id, filename: record.filename, size: record.size, offset: try offset(id),
            writing: writing.withLock { $0.contains(id) })
    }

    func cancel(_ id: String, uploader: String? = nil) throws {
        let path = try folder(id)
        _ = try record(id, of: uploader)
        try claim(id)
        defer { release(id) }
        _ = digests.withLock { $0.removeValue(forKey: id) }
        try FileManager.default.removeItem(atPath: path)
    }

    /// Appends `chunks` at `offset` (which must be where the upload stands), never past its
    /// size; answers the new offset. A connection that drops keeps what arrived.
    func append(
        _ id: String, at offset: Int64, _ chunks: some AsyncSequence<ByteBuffer, any Error>, uploader: String? = nil
    ) async throws -> Status {
        let record = try record(id, of: uploader)
        try claim(id)
        defer { release(id) }
        let current = try self.offset(id)
        guard offset == current else {
            throw UploadError.conflict("the upload stands at \(current) bytes, not \(offset)", offset: current)
        }
        let path = try folder(id) + "/data"
        let fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
        guard fd >= 0 else { throw UploadError.failed("cannot open the upload's file") }
        defer { close(fd) }
        // The digest goes on from where the file stands, or from the start of a new file;
        // none when it no longer matches (a write that failed halfway, a restart).
        var digest: RunningDigest?
        if record.sha256 != nil {
            let kept = digests.withLock { $0.removeValue(forKey: id) }
            digest = kept?.offset == current ? kept : current == 0 ? RunningDigest() : nil
        }
        defer { if let digest { digests.withLock { $0[id] = digest } } }
        // Chunks are gathered up to a mebibyte and written (and hashed) off the cooperative
        // pool: a write can wait on the disk, and the pool's threads must not.
        var written = current
        var pending = ByteBuffer()
        do {
            for try await chunk in chunks {
                guard Int64(chunk.readableBytes) <= record.size - written - Int64(pending.readableBytes) else {
                    throw UploadError.invalid("the body goes past the upload's size of \(record.size) bytes")
                }
                pending.writeImmutableBuffer(chunk)
                if pending.readableBytes >= 1 << 20 {
                    (written, digest) = try await Self.write(pending, to: fd, after: written, hashing: digest)
                    pending.clear()
                }
            }
        } catch {
            // What arrived before the connection dropped is kept, to resume from.
            if pending.readableBytes > 0 {
                if let (_, hashed) = try? await Self.write(pending, to: fd, after: written, hashing: digest) {
                    digest = hashed
                } else {
                    digest = nil
                }
            }
            throw error
        }
        if pending.readableBytes > 0 {
            (written, digest) = try await Self.write(pending, to: fd, after: written, hashing: digest)
        }
        return Status(id: id, filename: record.filename, size: record.size, offset: written)
    }

    /// Where uploads' bytes are written: a serial queue, which Dispatch always gives a thread
    /// (a concurrent one waits behind renders for the processors' few).
    private static let writer = DispatchQueue(label: "lightbox.uploads.write", qos: .userInitiated)
    /// Where finished uploads are hashed, apart, so that hashing a movie holds up no writes.
    private static let hasher = DispatchQueue(label: "lightbox.uploads.hash", qos: .userInitiated)

    private static func run<T: Sendable>(on queue: DispatchQueue, _ work: @escaping @Sendable () throws -> T)
        async throws -> T
    {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try work() }) }
        }
    }

    /// Writes `buffer` whole to `fd`, which holds `offset` bytes, off the cooperative pool, and
    /// adds it to `digest`; answers the new offset and digest.
    private static func write(_ buffer: ByteBuffer, to fd: Int32, after offset: Int64, hashing digest: RunningDigest?)
        async throws -> (Int64, RunningDigest?)
    {
        try await run(on: writer) {
            var digest = digest
            try write(buffer, to: fd)
            digest?.update(buffer)
            return (offset + Int64(buffer.readableBytes), digest)
        }
    }

    private static func write(_ buffer: ByteBuffer, to fd: Int32) throws {
        try buffer.withUnsafeReadableBytes { bytes in
            var start = 0
            while start < bytes.count {
                let count = Glibc.write(fd, bytes.baseAddress! + start, bytes.count - start)
                if count < 0 {
                    if errno == EINTR { continue }
                    throw UploadError.failed(errno == ENOSPC ? "the disk is full" : "writing the upload failed")
                }
                start += count
            }
        }
    }

    /// Imports a whole upload: its SHA-256 checked, then the file moved into the library as an
    /// import would take it (pairing with a Live Photo's other half, or found a duplicate).
    func finish(_ id: String, uploader: String? = nil, contributingTo album: String? = nil) async throws
        -> ImportItemResult
    {
        let record = try record(id, of: uploader)
        try claim(id)
        defer { release(id) }
        let folder = try folder(id)
        guard try offset(id) == record.size else {
            throw UploadError.invalid("the upload is not whole yet")
        }
        let data = folder + "/data"
        if let expected = record.sha256 {
            let running = digests.withLock { $0.removeValue(forKey: id) }
            let actual: String
            if let running, running.offset == record.size {
                actual = running.hasher.finalize().hexadecimal
            } else {
                actual = try await Self.run(on: Self.hasher) {
                    do {
                        return try FileIO.sha256(ofFileAt: data).hex
                    } catch {
                        throw UploadError.failed("cannot read the upload")
                    }
                }
            }
            guard actual == expected else {
                try? FileManager.default.removeItem(atPath: folder)
                throw UploadError.hashMismatch(
                    "the bytes received have the SHA-256 \(actual), not \(expected): the upload is discarded")
            }
        }
        let named = folder + "/" + record.filename
        guard rename(data, named) == 0 else { throw UploadError.failed("cannot name the upload's file") }
        let summary = await library.importItems(
            at: [URL(fileURLWithPath: named)],
            options: ImportOptions(shouldMoveFile: true, maximumConcurrentFiles: 1, contributingTo: album))
        try? FileManager.default.removeItem(atPath: folder)
        guard let result = summary.results.first else { throw UploadError.failed("the import gave no result") }
        return result
    }

    /// The upload's record, when `uploader` started it: another's upload is not found.
    private func record(_ id: String, of uploader: String?) throws -> Record {
        let path = try folder(id) + "/upload.json"
        guard let data = FileManager.default.contents(atPath: path),
            let record = try? JSONDecoder().decode(Record.self, from: data), record.uploader == uploader
        else {
            throw UploadError.notFound("no upload has the identifier \(id)")
        }
        return record
    }

    /// The uploads open now, each with the bytes it has yet to send.
    private func openUploads() -> [(record: Record, remaining: Int64)] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        return names.compactMap { name -> (Record, Int64)? in
            guard let data = FileManager.default.contents(atPath: root + "/" + name + "/upload.json"),
                let record = try? JSONDecoder().decode(Record.self, from: data)
            else { return (Record(id: name, filename: "", size: 0, creationDate: Date(), uploader: nil), 0) }
            let sent = (try? offset(name)) ?? 0
            return (record, max(0, record.size - sent))
        }
    }

    private func offset(_ id: String) throws -> Int64 {
        guard
            let size = (try? FileManager.default.attributesOfItem(atPath: try folder(id) + "/data"))?[.size]
                as? NSNumber
        else {
            throw UploadError.notFound("no upload has the identifier \(id)")
        }
        return size.int64Value
    }

    private func claim(_ id: String) throws {
        let claimed = writing.withLock { $0.insert(id).inserted }
        guard claimed else { throw UploadError.conflict("another request is writing this upload", offset: nil) }
    }

    private func release(_ id: String) {
        _ = writing.withLock { $0.remove(id) }
    }

    /// Removes the uploads nobody has written to for a day.
    private func removeAbandoned() {
        let fileManager = FileManager.default
        let cutoff = Date().addingTimeInterval(-Self.abandonedAfter)
        for name in (try? fileManager.contentsOfDirectory(atPath: root)) ?? [] {
            let path = root + "/" + name + "/data"
            guard let modified = (try? fileManager.attributesOfItem(atPath: path))?[.modificationDate] as? Date,
                modified < cutoff, writing.withLock({ !$0.contains(name) })
            else { continue }
            try? fileManager.removeItem(atPath: root + "/" + name)
            // Its digest goes with it: the memory holds no more than the open uploads.
            _ = digests.withLock { $0.removeValue(forKey: name) }
        }
    }

    /// A file name as the client gave it, made safe to create: its last component, no control
    /// characters, no leading dot, at most 200 bytes.
    package static func safeName(_ name: String) -> String {
        // A name of megabytes is cut first, so that nothing below is more than linear in it.
        var base = PathString.lastComponent(String(name.suffix(1000)))
        base = String(base.unicodeScalars.filter { $0.value >= 0x20 && $0 != "/" && $0 != "\\" }.map(Character.init))
        // The end of the name is kept (its extension matters); cut on a character, at most 200 bytes.
        var kept = Substring(base)
        while kept.utf8.count > 200 { kept = kept.dropFirst(max(1, (kept.utf8.count - 200) / 4)) }
        // No leading dot, after the cut too (the cut may begin the name at one).
        base = String(kept.drop { $0 == "." })
        return base.isEmpty || base == "data" || base == "upload.json" ? "upload" : base
    }

    /// A size as people read it: "812 bytes", "4.2 MB", "10 GB" (units of 1,000, as Finder's).
    static func readable(_ bytes: Int64) -> String {
        if bytes < 1000 { return bytes == 1 ? "1 byte" : "\(bytes) bytes" }
        var value = Double(bytes)
        var unit = 0
        let units = ["KB", "MB", "GB", "TB", "PB", "EB"]
        repeat {
            value /= 1000
            unit += 1
        } while value >= 999.95 && unit < units.count
        let shown = value < 9.95 ? String(format: "%.1f", value) : String(Int(value.rounded()))
        return shown + " " + units[unit - 1]
    }

    static func freeBytes(_ path: String) -> Int64 {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return .max }
        return Int64(clamping: UInt64(info.f_bavail) &* UInt64(info.f_frsize))
    }
}

/// Why an upload request failed; the routes turn each into its status.
enum UploadError: Error {
    case invalid(String)
    case notFound(String)
    case conflict(String, offset: Int64?)
    case tooMany(String)
    case noSpace(String)
    case hashMismatch(String)
    case failed(String)
}
