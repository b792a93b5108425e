import Foundation
import GRDB
import Lightbox
import LightboxTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// What a new user meets in the first hour with `lightbox`: mistakes get a clear answer and
/// leave nothing behind.
@Suite("The first hour")
struct FirstHourTests {
    typealias CLI = CommandLineTests

    @Test("A command other than import makes no library where there is none")
    func noLibraryIsMade() throws {
        let empty = try TemporaryDirectory()
        let listed = try CLI.run(["ls"], currentDirectory: empty.url.path)
        #expect(listed.status == 1)
        #expect(
            listed.stderr.contains("no library at Photos.lightbox (lightbox import creates one)"), "\(listed.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: empty.url.path).isEmpty)

        let missing = empty.path("nowhere/X.lightbox")
        for command in [["serve"], ["album", "create", "Iceland"], ["history"], ["show", "ID"]] {
            let run = try CLI.run(command + ["--library", missing])
            #expect(run.status == 1, "\(command)")
            #expect(
                run.stderr.contains("no library at \(missing) (lightbox import creates one)"),
                "\(command): \(run.stderr)")
            #expect(!run.stderr.contains("Serving"))
        }
        #expect(!FileManager.default.fileExists(atPath: empty.path("nowhere")))
    }

    @Test("serve on a port in use says so, and never that it serves")
    func busyPort() throws {
        let folder = try TemporaryDirectory()
        _ = try folder.makeLibrary()
        // A socket of this process holds a port.
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #expect(fd >= 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        #expect(bound == 0 && listen(fd, 1) == 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        let port = Int(UInt16(bigEndian: address.sin_port))
        let run = try CLI.run(["serve", "--library", folder.path("Test.lightbox"), "--port", "\(port)"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("port \(port) on 127.0.0.1 is in use"), "\(run.stderr)")
        #expect(!run.stderr.contains("Serving"), "\(run.stderr)")
    }

    @Test("Albums, folders and smart albums are named by title, assets by the start of their identifier")
    func names() throws {
        let folder = try TemporaryDirectory()
        let library = folder.path("Names.lightbox")
        let imported = try CLI.run([
            "import", "--library", library, "--json", try Corpus.path("forensics/original-files/pic1/IMG_1054.JPG"),
            try Corpus.path("exiv2/data/IMG_3578.heic"), try Corpus.path("digikam/body-background.jpg"),
        ])
        let ids = try imported.jsonLines().compactMap { $0["localIdentifier"] as? String }
        #expect(ids.count == 3)
        func run(_ arguments: [String]) throws -> CLI.Run {
            try CLI.run(arguments + ["--library", library])
        }
        func listed(_ arguments: [String]) throws -> [String] {
            try run(arguments + ["--json"]).jsonLines().compactMap { $0["localIdentifier"] as? String }
        }

        #expect(try run(["album", "create", "Iceland"]).status == 0)
        let again = try run(["album", "create", "iceland"])
        #expect(
            again.status == 1 && again.stderr.contains("an album titled \"Iceland\" exists already"), "\(again.stderr)")
        // An asset by its first eight characters, an album by its title in any case.
        #expect(try run(["album", "add", "ICELAND", String(ids[0].prefix(8))]).status == 0)
        #expect(try listed(["ls", "--in", "Iceland"]) == [ids[0]])
        #expect(try run(["favorite", String(ids[1].prefix(6)).lowercased()]).status == 0)
        #expect(try listed(["ls", "--in", "favorites"]) == [ids[1]])
        #expect(try run(["folder", "create", "Trips"]).status == 0)
        #expect(try run(["folder", "add", "trips", "Iceland"]).status == 0)
        #expect(try listed(["folder", "ls", "--in", "Trips"]).count == 1)
        #expect(try run(["show", String(ids[2].prefix(4))]).stdout.contains(ids[2]))

        // Two assets whose identifiers start alike, and two albums of one title (a library made
        // before titles were kept apart may hold them): ambiguous, and each error says so.
        #expect(try run(["album", "create", "Norway"]).status == 0)
        let queue = try DatabaseQueue(path: library + "/library.sqlite")
        try queue.write { db in
            try db.execute(
                sql:
                    "UPDATE asset SET localIdentifier = 'ABCDEF01' || substr(localIdentifier, 9) WHERE localIdentifier IN (?, ?)",
                arguments: [ids[0], ids[1]])
            try db.execute(sql: "UPDATE assetCollection SET title = 'Iceland' WHERE title = 'Norway'")
        }
        let shared = try run(["show", "ABCDEF"])
        #expect(
            shared.status == 1 && shared.stderr.contains("\"ABCDEF\" names more than one asset"), "\(shared.stderr)")
        let twice = try run(["ls", "--in", "Iceland"])
        #expect(twice.status == 1 && twice.stderr.contains("\"Iceland\" names more than one album"), "\(twice.stderr)")
        let nothing = try run(["ls", "--in", "Greenland"])
        #expect(nothing.status == 1 && nothing.stderr.contains("no album is called or identified by \"Greenland\""))
    }

    @Test("history refuses a token past the library's; an editor is found from the current folder")
    func historyAndEditor() throws {
        let folder = try TemporaryDirectory()
        let library = folder.path("H.lightbox")
        let imported = try CLI.run([
            "import", "--library", library, "--json", try Corpus.path("digikam/body-background.jpg"),
        ])
        let id = try #require(try imported.jsonLines().first?["localIdentifier"] as? String)
        let future = try CLI.run(["history", "--library", library, "--since", "999"])
        #expect(
            future.status == 1 && future.stderr.contains("change token 999 is newer than the library's"),
            "\(future.stderr)")
        #expect(try CLI.run(["history", "--library", library, "--since", "1"]).status == 0)

        // The editor named as a file of the current folder, without "./".
        let editors = Corpus.packageRoot.appendingPathComponent("examples/editors/negative").path
        let edited = try CLI.run(
            ["edit", "--library", library, id, "--editor", "negative.sh", "--filter", "strength=1"],
            currentDirectory: editors)
        #expect(edited.status == 0, "\(edited.stderr)")
        let missing = try CLI.run(["edit", "--library", library, id, "--editor", "nowhere/editor.py"])
        #expect(
            missing.status == 1 && missing.stderr.contains("no editor program is at nowhere/editor.py"),
            "\(missing.stderr)")
    }

    @Test(
        "import skips what is no photo in a folder and prints a damaged photo once; export's flags leave --version alone"
    )
    func importAndExportWords() throws {
        let folder = try TemporaryDirectory()
        let source = try TemporaryDirectory()
        try source.copy(Corpus.path("digikam/body-background.jpg"), as: "DCIM/IMG_0001.JPG")
        let broken = try source.truncatedCopy(
            of: Corpus.path("lomiri/backgrounds/Dragonfly_by_Bolly.jpg"), fraction: 0.5, as: "DCIM/IMG_0002.JPG")
        for name in ["notes.txt", "README.md", "scan.pdf", "drawing.xcf"] {
            try "not a photo".write(toFile: source.path("DCIM/" + name), atomically: true, encoding: .utf8)
        }
        let library = folder.path("Words.lightbox")
        let run = try CLI.run(["import", "--library", library, source.path("DCIM")])
        #expect(run.status == 1, "the damaged photo failed")
        #expect(run.stderr.components(separatedBy: broken).count == 2, "printed once: \(run.stderr)")
        #expect(
            run.stderr.contains("1 imported, 0 paired, 0 duplicates, 4 skipped (not photos or movies), 1 failed"),
            "\(run.stderr)")
        try FileManager.default.removeItem(atPath: broken)
        #expect(
            try CLI.run(["import", "--library", library, source.path("DCIM")]).status == 0,
            "documents alone fail nothing")

        let help = try CLI.run(["export", "--help"])
        #expect(help.stdout.contains("--original") && help.stdout.contains("--current"), "\(help.stdout)")
        #expect(!help.stdout.contains("--version <"), "\(help.stdout)")
        #expect(try CLI.run(["--version"]).stdout.contains("0.1.0"))
    }

    @Test("ls refuses a predicate nested 10,000 deep, or 3,000 NOTs, with a message: no crash")
    func deepPredicate() throws {
        let folder = try TemporaryDirectory()
        _ = try folder.makeLibrary()
        let library = folder.path("Test.lightbox")
        let deep = String(repeating: "(", count: 10_000) + "favorite == true" + String(repeating: ")", count: 10_000)
        let nots = String(repeating: "NOT ", count: 3_000) + "favorite == true"
        for predicate in [deep, nots] {
            let run = try CLI.run(["ls", "--library", library, "--predicate", predicate])
            #expect(run.status == 1, "\(run.stderr.prefix(200))")
            let refused = ["more than 64 levels of parentheses and NOT", "more than the 16384 a predicate may have"]
            #expect(refused.contains { run.stderr.contains($0) }, "\(run.stderr.prefix(300))")
        }
    }
}
