import Foundation
import Lightbox
import LightboxTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `lightbox check` and the sweep at open: what a library holds is what its rows say, and
/// what a killed process left goes.
@Suite("Library check and sweep")
struct CheckTests {
    @Test("check reports a damaged, a missing, a writable and an unreferenced original; --repair mends what it can")
    func damage() async throws {
        let folder = try TemporaryDirectory()
        let (library, assets) = try await ChangeTests.makeLibrary(folder, count: 3)
        let path = library.url.path
        let healthy = try CommandLineTests.run(["check", "--library", path])
        #expect(healthy.status == 0, "\(healthy.stderr)")
        #expect(healthy.stdout.contains("3 originals") && healthy.stdout.contains("no problem"), "\(healthy.stdout)")

        // An original overwritten (as an editor that chmods it could), one removed, one made
        // writable, and a file no row knows of.
        let originals = library.url.appendingPathComponent("originals").path
        func original(_ asset: Asset) throws -> String {
            try library.fileURL(for: try #require(asset.resource(ofType: .photo))).path
        }
        let damaged = try original(assets[0])
        chmod(damaged, 0o644)
        let handle = try #require(FileHandle(forWritingAtPath: damaged))
        try handle.seek(toOffset: 1000)
        try handle.write(contentsOf: Data(repeating: 0, count: 64))
        try handle.close()
        chmod(damaged, 0o444)
        let missing = try original(assets[1])
        chmod(missing, 0o644)
        try FileManager.default.removeItem(atPath: missing)
        let writable = try original(assets[2])
        chmod(writable, 0o644)
        let stray = originals + "/ff/" + String(repeating: "f", count: 64) + ".jpg"
        try FileManager.default.createDirectory(atPath: originals + "/ff", withIntermediateDirectories: true)
        try Data("not an original".utf8).write(to: URL(fileURLWithPath: stray))

        let sick = try CommandLineTests.run(["check", "--library", path])
        #expect(sick.status == 1)
        let report = sick.stdout + sick.stderr
        for (asset, what) in [(assets[0], "damaged"), (assets[1], "missing"), (assets[2], "writable")] {
            #expect(
                report.split(separator: "\n").contains { $0.contains(asset.localIdentifier) && $0.contains(what) },
                "\(what): \(report)")
        }
        #expect(report.contains("ff/" + String(repeating: "f", count: 64) + ".jpg") && report.contains("unreferenced"))
        #expect(FileManager.default.fileExists(atPath: stray), "check alone changes nothing")

        let repaired = try CommandLineTests.run(["check", "--repair", "--library", path])
        #expect(!FileManager.default.fileExists(atPath: stray), "the unreferenced file is removed")
        var info = stat()
        #expect(stat(writable, &info) == 0 && info.st_mode & 0o222 == 0, "the writable original is read-only again")
        // What cannot be mended is still reported, and the exit status says so.
        #expect(repaired.status == 1)
        #expect(
            repaired.stdout.contains(assets[0].localIdentifier) && repaired.stdout.contains(assets[1].localIdentifier))
        let after = try CommandLineTests.run(["check", "--library", path])
        #expect(!after.stdout.contains("unreferenced") && !after.stdout.contains("writable"), "\(after.stdout)")
    }

    @Test(
        "An edit killed before its commit leaves no file: the next open removes its render and scratch folder",
        arguments: ["changes-prepared", "changes-applied"])
    func killedEdit(point: String) async throws {
        let folder = try TemporaryDirectory()
        let (library, assets) = try await ChangeTests.makeLibrary(folder, count: 1)
        // The edit and the open that follows it have a temporary folder of their own: any other
        // test's library, opened meanwhile in the shared one, would sweep the dead folder first.
        let temporary = folder.url.appendingPathComponent("tmp").path
        try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
        let said = try CommandLineTests.runKilled(
            ["edit", "--library", library.url.path, assets[0].localIdentifier, "--filter", "mono=1"], at: point,
            environment: ["TMPDIR": temporary])
        #expect(said.contains("paused at \(point)"), "\(said)")
        let scratch = temporary + "/lightbox-\(getuid())"
        let dead = Self.unlockedFolders(in: scratch)
        #expect(!dead.isEmpty, "the killed edit's scratch folder is there until a sweep")

        let reopened = try PhotoLibrary(url: library.url)
        try await TrashTests.expectConsistent(reopened, "an edit killed at \(point)")
        // The next process to open the library sweeps the folders of those that died.
        let check = try CommandLineTests.run(
            ["check", "--library", library.url.path], environment: ["TMPDIR": temporary])
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        let left = Set((try? FileManager.default.contentsOfDirectory(atPath: scratch)) ?? [])
        #expect(left.isDisjoint(with: dead), "scratch folders of dead processes are swept at open")
    }

    /// The folders in `parent` whose lock no live process holds.
    static func unlockedFolders(in parent: String) -> Set<String> {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: parent)) ?? []
        return Set(
            names.filter { name in
                guard !name.hasSuffix(".lock") else { return false }
                let fd = open(parent + "/" + name + ".lock", O_RDWR | O_CLOEXEC)
                guard fd >= 0 else { return true }
                defer { close(fd) }
                return flock(fd, LOCK_EX | LOCK_NB) == 0
            })
    }
}
