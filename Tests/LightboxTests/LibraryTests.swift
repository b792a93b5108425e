import Foundation
import GRDB
import LightboxTestSupport
import Synchronization
import Testing

@testable import Lightbox
@testable import LightboxStore

@Suite("The library on disk")
struct LibraryTests {
    @Test("A new library has its database and folders")
    func layout() throws {
        let folder = try TemporaryDirectory()
        // SQLite's layout: a library on SQLite, whatever store the suites run against.
        let library = try PhotoLibrary(url: folder.url.appendingPathComponent("New.lightbox"))
        for name in ["library.sqlite", "originals", "derivatives"] {
            #expect(FileManager.default.fileExists(atPath: library.url.appendingPathComponent(name).path), "\(name)")
        }
        #expect(try library.assetCount() == 0)
        let mode = try DatabaseQueue(path: library.url.appendingPathComponent("library.sqlite").path).read { db in
            try String.fetchOne(db, sql: "PRAGMA journal_mode")
        }
        #expect(mode == "wal")
    }

    @Test("A library from a newer Lightbox is refused with a clear reason, and left untouched")
    func newerLibraryIsRefused() throws {
        let folder = try TemporaryDirectory()
        let path = try PhotoLibrary(url: folder.url.appendingPathComponent("Future.lightbox")).url
            .appendingPathComponent("library.sqlite").path
        try DatabaseQueue(path: path).write { db in
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99: from the future')")
        }
        let error = #expect(throws: LibraryError.self) { try folder.makeLibrary("Future.lightbox") }
        #expect(error?.code == .newerLibraryVersion)
        #expect(error?.message.contains("newer version of Lightbox") == true)
        let still = try DatabaseQueue(path: path).read { db in
            try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations")
        }
        #expect(still.contains("v99: from the future"))
    }

    @Test("A library from before schema step v25 opens with its photos' durations 0, its movies' kept")
    func photosLoseTheirDuration() throws {
        let folder = try TemporaryDirectory()
        let url = folder.url.appendingPathComponent("Old.lightbox")
        let date = Date(timeIntervalSince1970: 1_700_000_000)
        try PhotoLibrary(url: url).withCatalog { db in
            // A Live Photo as Lightbox recorded one before: its movie's length; and a movie.
            for (name, type, duration) in [("LIVE", 1, 1.6), ("MOVIE", 2, 3.0)] {
                try db.execute(
                    """
                    INSERT INTO asset (localIdentifier, mediaType, pixelWidth, pixelHeight, creationDate,
                    creationTimeZoneOffset, modificationDate, addedDate, duration) VALUES (?, ?, 8, 6, ?, 0, ?, ?, ?)
                    """, [name, type, date, date, date, duration])
            }
            try db.execute("INSERT INTO changeTransaction (date, author) VALUES (?, 'test')", [Date()])
        }
        try DatabaseQueue(path: url.appendingPathComponent("library.sqlite").path).write { db in
            try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier LIKE 'v25:%'")
        }
        let library = try PhotoLibrary(url: url)
        let durations = Dictionary(
            uniqueKeysWithValues: Array(try library.fetchAssets()).map { ($0.localIdentifier, $0.duration) })
        #expect(durations == ["LIVE": 0, "MOVIE": 3.0])
    }

    @Test("A folder with other files is not taken for a library")
    func notALibrary() throws {
        let folder = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: folder.path("Photos"), withIntermediateDirectories: true)
        try "x".write(toFile: folder.path("Photos/readme.txt"), atomically: true, encoding: .utf8)
        let error = #expect(throws: LibraryError.self) { try folder.makeLibrary("Photos") }
        #expect(error?.code == .notALibrary)
        #expect(error?.path == folder.path("Photos"))

        // Another program's storage.json (JSON Lightbox could decode, even with a database key)
        // does not make its folder a library, and is never written over.
        for foreign in [#"{"theme": "dark"}"#, #"{"database": "not an address"}"#] {
            try foreign.write(toFile: folder.path("Photos/storage.json"), atomically: true, encoding: .utf8)
            #expect(!PhotoLibrary.isLibrary(folder.path("Photos")))
            for database in [nil, "postgres://app@db.example.net/photos"] {
                let refused = #expect(throws: LibraryError.self) {
                    try PhotoLibrary(url: folder.url.appendingPathComponent("Photos"), database: database)
                }
                #expect(refused?.code == .notALibrary)
                #expect(try String(contentsOfFile: folder.path("Photos/storage.json"), encoding: .utf8) == foreign)
            }
        }
    }

    @Test("Libraries opened at the same moment, new or to migrate, take turns: none fails")
    func concurrentOpens() throws {
        let folder = try TemporaryDirectory()
        let failures = Mutex<[String]>([])
        for round in 0..<8 {
            let url = folder.url.appendingPathComponent("Race\(round).lightbox")
            DispatchQueue.concurrentPerform(iterations: 4) { _ in
                do {
                    let library = try PhotoLibrary(url: url)
                    _ = try library.assetCount()
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }
        #expect(failures.withLock { $0 } == [])
    }

    @Test("Opening a library clears what closed ones left in flight, never what an open one is writing")
    func clearsIncoming() throws {
        let folder = try TemporaryDirectory()
        let incoming = folder.path("Test.lightbox/originals/.incoming")
        var open: PhotoLibrary? = try folder.makeLibrary()
        // An earlier version's loose file, and the folder of a process that crashed: its lock
        // file is there, but nobody holds it.
        let loose = incoming + "/half-written"
        _ = FileManager.default.createFile(atPath: loose, contents: Data([1, 2, 3]))
        try FileManager.default.createDirectory(atPath: incoming + "/CRASHED", withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: incoming + "/CRASHED/original", contents: Data([4]))
        _ = FileManager.default.createFile(atPath: incoming + "/CRASHED.lock", contents: Data())
        // The open library is writing a file of its own.
        let ownFolder = try #require(
            try FileManager.default.contentsOfDirectory(atPath: incoming).first {
                $0.count == 36 && !$0.hasSuffix(".lock")
            })
        let writing = incoming + "/" + ownFolder + "/in-flight"
        _ = FileManager.default.createFile(atPath: writing, contents: Data([5]))

        // Another process (here, another library object) opens it.
        let second = try folder.makeLibrary()
        #expect(!FileManager.default.fileExists(atPath: loose))
        #expect(!FileManager.default.fileExists(atPath: incoming + "/CRASHED"))
        #expect(!FileManager.default.fileExists(atPath: incoming + "/CRASHED.lock"))
        #expect(FileManager.default.fileExists(atPath: writing), "the open library's file in flight is left alone")
        // Closed, a library takes its folder with it.
        #expect(open?.url == second.url)
        open = nil
        #expect(!FileManager.default.fileExists(atPath: incoming + "/" + ownFolder))
        withExtendedLifetime(second) {}
    }

    @Test("An original stored by an import that crashed before its commit is reused, not duplicated")
    func orphanOriginalIsReused() async throws {
        let folder = try TemporaryDirectory()
        let library = try folder.makeLibrary()
        let photo = try Corpus.path("digikam/body-background.jpg")
        _ = await library.importItems(at: [URL(fileURLWithPath: photo)])
        // The crash: the file reached originals/, the transaction never committed.
        try library.withCatalog { db in try db.execute("DELETE FROM asset") }
        let reopened = try folder.makeLibrary()
        #expect(try await reopened.assetCount() == 0)
        let summary = await reopened.importItems(at: [URL(fileURLWithPath: photo)])
        #expect(summary.progress.imported == 1)
        let asset = try #require(await reopened.assets().first)
        let stored = try await reopened.fileURL(for: try #require(asset.resource(ofType: .photo)))
        #expect(FileManager.default.contentsEqual(atPath: stored.path, andPath: photo))
        let files = try FileManager.default.subpathsOfDirectory(atPath: reopened.url.path + "/originals")
            .filter { $0.hasSuffix(".jpg") }
        #expect(files.count == 1)
    }
}
