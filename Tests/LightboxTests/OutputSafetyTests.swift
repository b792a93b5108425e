import Crypto
import Foundation
import Lightbox
import LightboxTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Every `lightbox` command that writes files, run with its output where its inputs are: the
/// same folder, a link to it, a hard link of an input. No input may change.
@Suite("No command writes over what it reads")
struct OutputSafetyTests {
    typealias CLI = CommandLineTests

    /// SHA-256 of each file, to compare before and after.
    static func hashes(_ paths: [String]) throws -> [String: String] {
        var hashes: [String: String] = [:]
        for path in paths {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            hashes[path] = SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
        }
        return hashes
    }

    /// A folder with a JPEG and a HEIC to read, a link to the folder, and a second folder
    /// holding a hard link of the JPEG.
    struct Inputs {
        let folder: TemporaryDirectory
        let jpeg: String
        let heic: String
        let link: String
        let hardLinks: String

        init() throws {
            folder = try TemporaryDirectory()
            let inputs = folder.path("inputs")
            try FileManager.default.createDirectory(atPath: inputs, withIntermediateDirectories: true)
            jpeg = inputs + "/photo.jpg"
            try FileManager.default.copyItem(
                atPath: try Corpus.path("forensics/original-files/pic1/IMG_1054.JPG"), toPath: jpeg)
            heic = inputs + "/IMG_3578.heic"
            try FileManager.default.copyItem(atPath: try Corpus.path("exiv2/data/IMG_3578.heic"), toPath: heic)
            link = folder.path("link")
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: inputs)
            hardLinks = folder.path("hard")
            try FileManager.default.createDirectory(atPath: hardLinks, withIntermediateDirectories: true)
            #expect(Glibc.link(jpeg, hardLinks + "/photo.jpg") == 0)
        }

        var inputsFolder: String { (jpeg as NSString).deletingLastPathComponent }
        var files: [String] { [jpeg, heic, hardLinks + "/photo.jpg"] }
    }

    @Test(
        "thumbnail and render into the folder they read, through a link and onto a hard link: refused, inputs unchanged",
        arguments: [
            ["thumbnail", "--size", "64"], ["render", "--filter", "exposure=0.3"],
        ])
    func filesCommands(command: [String]) throws {
        let inputs = try Inputs()
        let before = try Self.hashes(inputs.files)
        for out in [inputs.inputsFolder, inputs.link, inputs.hardLinks, "."] {
            for overwrite in [[], ["--overwrite"]] {
                // Run from the inputs' folder, so that "." is it.
                let run = try CLI.run(
                    command + [inputs.jpeg, inputs.heic, "--out", out] + overwrite,
                    currentDirectory: inputs.inputsFolder)
                #expect(run.status != 0, "\(command) --out \(out) \(overwrite)")
                #expect(run.stderr.contains("would replace the input \(inputs.jpeg)"), "\(run.stderr)")
                #expect(run.stdout.isEmpty, "refused before any work: \(run.stdout)")
                #expect(try Self.hashes(inputs.files) == before)
            }
        }
        // A folder read whose output folder lies inside it: the outputs are not read again, and
        // --overwrite replaces the run before's.
        let out = inputs.inputsFolder + "/out"
        for _ in 0..<2 {
            let run = try CLI.run(command + [inputs.inputsFolder, "--out", out, "--overwrite", "--json"])
            #expect(run.status == 0, "\(run.stderr)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: out).sorted() == ["IMG_3578.jpg", "photo.jpg"])
        // Into the folder, the HEIC alone gives IMG_3578.jpg beside it; again, IMG_3578-1.jpg.
        for expected in ["IMG_3578.jpg", "IMG_3578-1.jpg"] {
            let run = try CLI.run(command + [inputs.heic, "--out", inputs.inputsFolder, "--json"])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(try run.jsonLines().first?["output"] as? String == inputs.inputsFolder + "/" + expected)
        }
        #expect(try Self.hashes(inputs.files) == before)
    }

    @Test("thumb, export, edit --editor and import --move never change a library's originals or a file they read")
    func libraryCommands() async throws {
        let inputs = try Inputs()
        let library = inputs.folder.path("Photos.lightbox")
        let imported = try CLI.run(["import", "--library", library, "--json", inputs.jpeg])
        #expect(imported.status == 0, "\(imported.stderr)")
        let id = try #require(try imported.jsonLines().first?["localIdentifier"] as? String)
        let opened = try PhotoLibrary(url: URL(fileURLWithPath: library))
        let asset = try #require(try await opened.asset(withLocalIdentifier: id))
        let original = try await opened.fileURL(for: try #require(asset.resource(ofType: .photo))).path
        let originals = (original as NSString).deletingLastPathComponent
        // Outside the library: a link to the original and a hard link of it.
        let outside = inputs.folder.path("outside")
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: outside + "/linked.jpg", withDestinationPath: original)
        #expect(Glibc.link(original, outside + "/photo.jpg") == 0)
        let files = inputs.files + [original]
        let before = try Self.hashes(files)

        for overwrite in [[], ["--overwrite"]] {
            for out in [original, outside + "/linked.jpg", outside + "/photo.jpg", originals + "/thumb.jpg"] {
                let run = try CLI.run(
                    ["asset-thumbnail", "--library", library, id, "--size", "64x64", "--out", out] + overwrite)
                #expect(run.status != 0, "thumb --out \(out) \(overwrite)")
                #expect(try Self.hashes(files) == before)
            }
            let intoLibrary = try CLI.run(["export", "--library", library, id, "--to", originals] + overwrite)
            #expect(
                intoLibrary.status != 0 && intoLibrary.stderr.contains("inside the library"), "\(intoLibrary.stderr)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: originals).count == 1)
        }
        // A name that is a hard link of the original is refused, --overwrite or not; another
        // taken name gets a free one.
        for overwrite in [[], ["--overwrite"]] {
            let replacing = try CLI.run(
                ["export", "--library", library, id, "--to", outside, "--original"] + overwrite)
            #expect(
                replacing.status != 0 && replacing.stderr.contains("would replace the input \(original)"),
                "\(replacing.stderr)")
        }
        let exports = inputs.folder.path("exports")
        for expected in ["photo.jpg", "photo-1.jpg"] {
            let exported = try CLI.run(["export", "--library", library, id, "--to", exports, "--original", "--json"])
            #expect(exported.status == 0, "\(exported.stderr)")
            #expect(try exported.jsonLines().first?["path"] as? String == exports + "/" + expected)
        }
        #expect(
            try Self.hashes([exports + "/photo.jpg", exports + "/photo-1.jpg"]).values.allSatisfy {
                $0 == before[original]
            })

        // An editor that writes into the file it was given to read reaches only a copy.
        let scripts = try TemporaryDirectory()
        let vandal = scripts.path("vandal.py")
        try """
        #!/usr/bin/env python3
        import json, shutil, sys
        request = json.load(sys.stdin)
        source = request["input"]["fullSizeImage"]
        shutil.copyfile(request["input"]["displaySizeImage"], request["output"]["renderedContent"])
        open(source, "wb").write(b"overwritten")
        print(json.dumps({"adjustmentData": {"formatIdentifier": "org.example.vandal", "formatVersion": "1", "data": ""}}))
        """.write(toFile: vandal, atomically: true, encoding: .utf8)
        #expect(chmod(vandal, 0o755) == 0)
        let edited = try CLI.run(["edit", "--library", library, id, "--editor", vandal])
        #expect(edited.status == 0, "\(edited.stderr)")
        #expect(try Self.hashes(files) == before)

        // import --move of the library's own original, or of a folder holding a library.
        let moved = try CLI.run(["import", "--library", inputs.folder.path("Other.lightbox"), "--move", original])
        #expect(moved.status == 1 && moved.stderr.contains("inside the library"), "\(moved.stderr)")
        let walk = try CLI.run([
            "import", "--library", inputs.folder.path("Other.lightbox"), "--move", inputs.folder.url.path,
        ])
        #expect(walk.status == 0, "\(walk.stderr)")
        #expect(try Self.hashes([original]) == [original: before[original]])
    }
}
