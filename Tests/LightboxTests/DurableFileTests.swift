import CDirectIO
import Foundation
import GRDB
import LightboxTestSupport
import Testing

@testable import Lightbox
@testable import LightboxStore

#if canImport(Glibc)
    import Glibc
#endif

@Suite("Durable files")
struct DurableFileTests {
    /// Lengths around the 4 KB blocks direct I/O writes and the 1 MB staging buffer.
    static let lengths = [0, 1, 4095, 4096, 4097, 1 << 20, (1 << 20) + 1, 3 * (1 << 20) + 17]

    /// Cuts of a real camera JPEG, repeated to reach the longest length.
    static func photoBytes() throws -> [UInt8] {
        let photo = try [UInt8](
            Data(contentsOf: URL(fileURLWithPath: Corpus.path("forensics/original-files/pic2/IMG_20191224_234846.jpg")))
        )
        var bytes = photo
        while bytes.count < lengths.max()! { bytes += photo }
        return bytes
    }

    @Test("Every commit is synced: the writer runs with synchronous = FULL, not GRDB's WAL default")
    func commitsAreSynced() throws {
        let folder = try TemporaryDirectory()
        // SQLite's own setting: a library on SQLite, whatever store the suites run against.
        let library = try PhotoLibrary(url: folder.url.appendingPathComponent("Test.lightbox"))
        let level = try (library.store as! SQLiteStore).writer.writeWithoutTransaction { db in
            try Int.fetchOne(db, sql: "PRAGMA synchronous")
        }
        #expect(level == 2, "FULL is 2; NORMAL, 1, syncs only at checkpoints")
    }

    @Test(
        "Originals of every length land whole, read-only, from memory and copied from a file", arguments: [false, true])
    func storesEveryLength(inSharedMemory: Bool) throws {
        // /dev/shm is tmpfs, a second kind of file system: before Linux 6.6 it refused direct
        // I/O, and the writer must then fall back to ordinary writes.
        if inSharedMemory && !FileManager.default.fileExists(atPath: "/dev/shm") { return }
        let folder =
            inSharedMemory ? "/dev/shm/lightbox-test-\(UUID().uuidString)" : try TemporaryDirectory().path("originals")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try OriginalFolder(root: folder)
        let bytes = try Self.photoBytes()
        let scratch = try TemporaryDirectory()
        for length in Self.lengths {
            let content = Array(bytes.prefix(length))
            let sha256 = FileIO.sha256(of: content)
            let fromMemory = try store.store(bytes: content, sha256: sha256, filenameExtension: "jpg")
            let stored = store.absolutePath(fromMemory)
            #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: stored))) == content, "\(length) bytes")
            var info = stat()
            #expect(stat(stored, &info) == 0 && info.st_mode & 0o777 == 0o444, "\(length) bytes")

            // The same bytes copied from a file are found already stored; a copy of other bytes is written.
            let other = content + [0xFF, 0xD9]
            let source = scratch.path("\(length).jpg")
            try Data(other).write(to: URL(fileURLWithPath: source))
            let copied = try store.store(copying: source, sha256: FileIO.sha256(of: other), filenameExtension: "jpg")
            #expect(
                try [UInt8](Data(contentsOf: URL(fileURLWithPath: store.absolutePath(copied)))) == other,
                "\(length) + 2 bytes")
            // Until their commit, both are marked in flight (the same inode); released, unmarked.
            for path in [fromMemory, copied] {
                #expect(store.isMarked(path, by: store.markerPath(path)), "\(path) is marked")
            }
            store.release([fromMemory, copied])
        }
        // No temporary file is left, nor a marker once released.
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.incoming).isEmpty)
    }

    @Test("An original is written past the page cache where the file system has direct I/O; a cached image is not")
    func bypassesPageCache() throws {
        let folder = try TemporaryDirectory()
        // Whether this file system takes direct I/O, asked of it directly.
        let probe = folder.path("probe")
        let fd = open(probe, O_WRONLY | O_CREAT, 0o644)
        defer { close(fd) }
        guard fd >= 0, cdirectio_set(fd, 1) == 0 else { return }
        let bytes = Array(try Self.photoBytes().prefix(3 * (1 << 20) + 17))
        let store = try OriginalFolder(root: folder.path("originals"))
        let original = store.absolutePath(
            try store.store(bytes: bytes, sha256: FileIO.sha256(of: bytes), filenameExtension: "jpg"))
        let cached = folder.path("cached.jpg")
        try FileIO.writeAtomically(bytes, to: cached)
        // Pages of the file in memory, read with mincore before anything reads the files.
        func residentPages(_ path: String) throws -> Int {
            let fd = open(path, O_RDONLY)
            defer { close(fd) }
            let size = bytes.count
            let map = try #require(mmap(nil, size, PROT_READ, MAP_SHARED, fd, 0))
            defer { munmap(map, size) }
            let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
            var pages = [UInt8](repeating: 0, count: (size + pageSize - 1) / pageSize)
            #expect(mincore(map, size, &pages) == 0)
            return pages.filter { $0 & 1 != 0 }.count
        }
        let total = (bytes.count + 4095) / 4096
        // Only the last partial block goes through the page cache.
        #expect(try residentPages(original) <= 2, "\(total) pages")
        #expect(try residentPages(cached) == total)
    }

    @Test("A copy whose bytes differ from the expected hash is refused and leaves nothing")
    func refusesChangedFile() throws {
        let folder = try TemporaryDirectory()
        let store = try OriginalFolder(root: folder.path("originals"))
        let source = try folder.copy(Corpus.path("forensics/original-files/pic2/IMG_20191224_234846.jpg"))
        #expect(throws: LibraryError.self) {
            try store.store(copying: source, sha256: String(repeating: "0", count: 64), filenameExtension: "jpg")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.incoming).isEmpty)
    }
}
