import Foundation
import Lightbox
import LightboxImaging
import LightboxTestSupport
import Testing

/// The `lightbox` command, run as a user would: a separate process, JSON Lines on stdout.
@Suite("The lightbox command")
struct CommandLineTests {
    struct Run {
        var status: Int32
        var stdout: String
        var stderr: String

        /// Standard output's lines, each decoded as a JSON object.
        func jsonLines() throws -> [[String: Any]] {
            try stdout.split(separator: "\n").map { line in
                try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            }
        }
    }

    /// The `lightbox` executable `swift build` put beside this test bundle.
    static var executable: String {
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for folder in [bundle, bundle.deletingLastPathComponent()] {
            let candidate = folder.appendingPathComponent("lightbox").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return Corpus.packageRoot.appendingPathComponent(".build/debug/lightbox").path
    }

    static func run(
        _ arguments: [String], environment: [String: String] = [:], currentDirectory: String? = nil,
        input: String? = nil
    ) throws -> Run {
        let process = Process()
        if let input {
            let pipe = Pipe()
            process.standardInput = pipe
            pipe.fileHandleForWriting.write(Data(input.utf8))
            try pipe.fileHandleForWriting.close()
        }
        process.executableURL = URL(fileURLWithPath: executable)
        if let currentDirectory { process.currentDirectoryURL = URL(fileURLWithPath: currentDirectory) }
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(
            status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self))
    }

    /// Runs `lightbox` with `arguments`, stopped at a fault-injection point
    /// (`LIGHTBOX_TEST_PAUSE_AT`) and killed there with SIGKILL; returns what it said on
    /// standard error, which names the point when it was reached.
    static func runKilled(_ arguments: [String], at point: String, environment: [String: String] = [:]) throws
        -> String
    {
        let (process, said) = try start(
            arguments, environment: environment.merging(["LIGHTBOX_TEST_PAUSE_AT": point]) { $1 },
            until: "paused at \(point)")
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        return said
    }

    /// Starts `lightbox` with `arguments` and returns once it has said `phrase` on standard
    /// error (or ended without saying it), with what it said.
    static func start(_ arguments: [String], environment: [String: String] = [:], until phrase: String) throws
        -> (Process, said: String)
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        var said = ""
        while !said.contains(phrase) {
            let chunk = errors.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            said += String(decoding: chunk, as: UTF8.self)
        }
        return (process, said)
    }

    /// ISO 8601 with an explicit offset, e.g. 2021-02-13T11:03:31.864-06:00.
    static func isISO8601WithOffset(_ text: String) -> Bool {
        text.wholeMatch(of: #/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?[+-]\d{2}:\d{2}/#) != nil
    }

    @Test("Under a VIPSHOME of someone's, libvips' other modules stay out of the process too")
    func vipsHomeDefersModules() throws {
        // A prefix whose modules folder is the system's: libvips would load every module there.
        let system = ["/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib"].lazy.compactMap {
            folder in
            (try? FileManager.default.contentsOfDirectory(atPath: folder))?.first { $0.hasPrefix("vips-modules-") }
                .map { folder + "/" + $0 }
        }.first
        let modules = try #require(system, "no libvips modules folder on this machine")
        // libvips 8.14 looks under a moved prefix in the libdir's last component: PREFIX/x86_64-linux-gnu.
        let libdir = ((modules as NSString).deletingLastPathComponent as NSString).lastPathComponent
        let folder = try TemporaryDirectory()
        try FileManager.default.createDirectory(
            atPath: folder.path("prefix/" + libdir), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: folder.path("prefix/\(libdir)/" + (modules as NSString).lastPathComponent),
            withDestinationPath: modules)
        // TIFFs go through libvips: a thousand of them, one at a time, so that the process is
        // still at work when its first thumbnail is written.
        let tiff = try Corpus.path("pillow/images/hopper.tif")
        try FileManager.default.createDirectory(atPath: folder.path("in"), withIntermediateDirectories: true)
        let inputs = try (0..<1000).map { index in
            let path = folder.path("in/\(index).tif")
            try FileManager.default.linkItem(atPath: tiff, toPath: path)
            return path
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.executable)
        process.arguments = ["thumbnail", "--size", "64", "--jobs", "1", "--out", folder.path("out")] + inputs
        process.environment = ProcessInfo.processInfo.environment.merging(["VIPSHOME": folder.path("prefix")]) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        var maps = ""
        for _ in 0..<3000 where process.isRunning {
            // A thumbnail whole (the command writes each into a hidden temporary file first).
            let written = (try? FileManager.default.contentsOfDirectory(atPath: folder.path("out"))) ?? []
            if written.contains(where: { !$0.hasPrefix(".") }) {
                maps = (try? ProcFile.read("/proc/\(process.processIdentifier)/maps")) ?? ""
                break
            }
            usleep(10_000)
        }
        #expect(maps.contains("libvips"), "the process ended before its maps were read")
        // libheif's module, the one Lightbox needs, from the prefix's folder (a link here).
        #expect(maps.contains("vips-heif"))
        for module in ["vips-magick", "vips-openslide", "vips-poppler", "vips-jxl"] {
            #expect(!maps.contains(module), "\(module) is loaded")
        }
    }

    // One process takes a JPEG (libvips started without its modules), a HEIC (the modules
    // loaded then) and a movie (FFmpeg opened then).
    @Test("thumbnail makes upright thumbnails of files without a library, named after each file")
    func thumbnailFiles() throws {
        let source = try TemporaryDirectory()
        let out = try TemporaryDirectory()
        let rotated = try source.copy(Corpus.path("lomiri/backgrounds/Wine_by_Jakkub_Mede.jpg"), as: "wine.jpg")
        try ExifTool.write(["Orientation#": "8"], to: rotated)
        let heic = try Corpus.path("exiv2/data/IMG_3578.heic")
        let broken = try source.truncatedCopy(
            of: Corpus.path("lomiri/backgrounds/Dragonfly_by_Bolly.jpg"), fraction: 0.5, as: "broken.jpg")
        let movie = try Corpus.path("forensics/original-files/movie1/VID_20191220_170832.mp4")
        let run = try Self.run([
            "thumbnail", rotated, heic, movie, broken, "--size", "256", "--out", out.url.path, "--json",
        ])
        #expect(run.status == 1, "one file failed")
        let lines = try run.jsonLines()
        #expect(lines.count == 4)
        let byPath = Dictionary(uniqueKeysWithValues: lines.map { ($0["path"] as? String ?? "", $0) })
        #expect((byPath[broken]?["error"] as? String)?.isEmpty == false)
        let poster = try #require(byPath[movie])
        #expect(poster["error"] == nil, "\(poster)")
        #expect(max(poster["pixelWidth"] as? Int ?? 0, poster["pixelHeight"] as? Int ?? 0) == 256)
        #expect(FileManager.default.fileExists(atPath: poster["output"] as? String ?? ""))
        for path in [rotated, heic] {
            let line = try #require(byPath[path])
            let output = try #require(line["output"] as? String)
            let base = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
            #expect((output as NSString).lastPathComponent == base + ".jpg")
            let width = try #require(line["pixelWidth"] as? Int)
            let height = try #require(line["pixelHeight"] as? Int)
            #expect(max(width, height) == 256)
            let upright = try ImageComparison.autorotatedSize(ofFileAt: path)
            #expect((width < height) == (upright.width < upright.height), "\(path) keeps its displayed shape")
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: output)))
            let image = EncodedImage(bytes: bytes, format: .jpeg, pixelWidth: width, pixelHeight: height)
            let near = try ImageComparison.meanAbsoluteDifference(
                image, try ImageComparison.referenceThumbnail(ofFileAt: path, width: width, height: height))
            let far = try ImageComparison.meanAbsoluteDifference(
                image,
                try ImageComparison.referenceThumbnail(
                    ofFileAt: path, width: width, height: height, rotatedHalfTurn: true))
            #expect(near < 8, "\(path): mean difference \(near) to libvips' upright thumbnail")
            #expect(far > near * 3, "\(path): upside down \(far), upright \(near)")
        }

        // Two files with one base name never write over each other, nor over the wine.jpg of
        // the run before.
        let first = try Data(contentsOf: out.url.appendingPathComponent("wine.jpg"))
        let twin = try source.copy(heic, as: "wine.heic")
        let twins = try Self.run(["thumbnail", rotated, twin, "--size", "64", "--out", out.url.path, "--json"])
        let outputs = try twins.jsonLines().compactMap {
            ($0["output"] as? String).map { ($0 as NSString).lastPathComponent }
        }
        #expect(Set(outputs) == ["wine-1.jpg", "wine-2.jpg"])
        #expect(try Data(contentsOf: out.url.appendingPathComponent("wine.jpg")) == first)

        // In a folder, a photo's XMP sidecar and iPhone adjustments are passed over: they
        // neither fail nor take the photo's name.
        let dcim = try TemporaryDirectory()
        try dcim.copy(Corpus.path("digikam/body-background.jpg"), as: "DCIM/IMG_0001.JPG")
        for companion in ["DCIM/IMG_0001.xmp", "DCIM/IMG_0001.AAE"] {
            try "<x/>".write(toFile: dcim.path(companion), atomically: true, encoding: .utf8)
        }
        let folderOut = try TemporaryDirectory()
        let walked = try Self.run([
            "thumbnail", dcim.path("DCIM"), "--size", "64", "--out", folderOut.url.path, "--json",
        ])
        #expect(walked.status == 0, "\(walked.stderr)")
        let named = try walked.jsonLines().compactMap {
            ($0["output"] as? String).map { ($0 as NSString).lastPathComponent }
        }
        #expect(named == ["IMG_0001.jpg"])
    }

    // libvips and libheif are opened on first use, and the render of a camera JPEG, an iPhone
    // HEIC (read in Swift, decoded by FFmpeg) or a movie's poster frame needs neither: with a
    // broken libvips.so.42 and libheif.so.1 first on the library path, they still make
    // thumbnails and a PNG, which needs libvips, fails with the reason.
    @Test(
        "thumbnail of camera JPEGs, an iPhone HEIC and a movie never opens libvips or libheif; a PNG names libvips' absence as its error"
    )
    func thumbnailWithoutLibvips() throws {
        let libraries = try TemporaryDirectory()
        try Data().write(to: libraries.url.appendingPathComponent("libvips.so.42"))
        try Data().write(to: libraries.url.appendingPathComponent("libheif.so.1"))
        let source = try TemporaryDirectory()
        let rotated = try source.copy(Corpus.path("lomiri/backgrounds/Wine_by_Jakkub_Mede.jpg"), as: "wine.jpg")
        try ExifTool.write(["Orientation#": "6"], to: rotated)
        // An iPhone's Display P3 photo (its profile converted by Little CMS), a 24 MP camera
        // photo and a progressive file.
        let jpegs = [
            rotated, try Corpus.path("digikam/body-background.jpg"), try Corpus.path("exiv2/data/exiv2-bug922a.jpg"),
            try Corpus.path("lomiri/backgrounds/Dragonfly_by_Bolly.jpg"),
        ]
        // FFmpeg's decode of the HEIC's tiles, shrunk by CHEIF, and FFmpeg's first frame.
        let heic = try Corpus.path("exiv2/data/IMG_3578.heic")
        let movie = try Corpus.path("forensics/original-files/movie1/VID_20191220_170832.mp4")
        let png = try Corpus.path("pillow/images/hopper.png")
        let environment = ["LD_LIBRARY_PATH": libraries.url.path]
        for mode in ["fit", "fill"] {
            // The same thumbnails with libvips there, for their bytes.
            let (usual, out) = (try TemporaryDirectory(), try TemporaryDirectory())
            let arguments = ["thumbnail"] + jpegs + [heic, movie, "--size", "200", "--mode", mode, "--json"]
            #expect(try Self.run(arguments + ["--out", usual.url.path]).status == 0)
            let run = try Self.run(arguments + [png, "--out", out.url.path], environment: environment)
            #expect(run.status == 1, "the PNG failed")
            let byPath = Dictionary(uniqueKeysWithValues: try run.jsonLines().map { ($0["path"] as? String ?? "", $0) })
            let error = try #require(byPath[png]?["error"] as? String)
            #expect(error.contains("libvips.so.42"), "\(error)")
            for path in jpegs + [heic, movie] {
                let line = try #require(byPath[path])
                #expect(line["error"] == nil, "\(path): \(line)")
                let output = try #require(line["output"] as? String)
                let width = try #require(line["pixelWidth"] as? Int)
                let height = try #require(line["pixelHeight"] as? Int)
                let contentMode: ContentMode = mode == "fill" ? .aspectFill : .aspectFit
                if mode == "fill" { #expect((width, height) == (200, 200)) } else { #expect(max(width, height) == 200) }
                let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: output)))
                let name = (output as NSString).lastPathComponent
                #expect(
                    bytes == [UInt8](try Data(contentsOf: usual.url.appendingPathComponent(name))), "\(path) (\(mode))")
                // libvips reads no movie.
                if path == movie { continue }
                let image = EncodedImage(bytes: bytes, format: .jpeg, pixelWidth: width, pixelHeight: height)
                let difference = try ImageComparison.meanAbsoluteDifference(
                    image,
                    try ImageComparison.referenceThumbnail(
                        ofFileAt: path, width: width, height: height, contentMode: contentMode))
                #expect(difference < 8, "\(path) (\(mode)): mean difference \(difference) to libvips' thumbnail")
            }
        }
        let version = try Self.run(["--version"], environment: environment)
        #expect(version.status == 0)
    }

    @Test(
        "metadata, thumbnail and import of a folder with a named pipe and a Latin-1 name finish, naming both",
        .timeLimit(.minutes(10)))
    func pipeAndLatin1InFolder() throws {
        let card = try TemporaryDirectory()
        try card.copy(Corpus.path("digikam/body-background.jpg"), as: "DCIM/IMG_0001.JPG")
        #expect(mkfifo(card.path("DCIM/IMG_0002.JPG"), 0o600) == 0)
        // "Été.jpg" as an old camera or a Windows share writes it in Latin-1, holding a real photo.
        let latin1: [UInt8] = Array((card.path("DCIM") + "/").utf8) + [0xC9, 0x74, 0xE9] + Array(".jpg".utf8) + [0]
        let photo = try Data(contentsOf: URL(fileURLWithPath: try Corpus.path("digikam/body-background.jpg")))
        let descriptor = latin1.withUnsafeBufferPointer {
            $0.withMemoryRebound(to: CChar.self) { creat($0.baseAddress!, 0o600) }
        }
        #expect(descriptor >= 0)
        _ = photo.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
        let escaped = card.path("DCIM/\\xC9t\\xE9.jpg")

        let metadata = try Self.run(["metadata", card.path("DCIM"), "--json"])
        #expect(metadata.status == 1)
        let lines = try metadata.jsonLines()
        #expect(lines.count == 3, "\(metadata.stdout)")
        #expect(lines.contains { $0["path"] as? String == card.path("DCIM/IMG_0001.JPG") && $0["error"] == nil })
        let pipe = lines.first { $0["path"] as? String == card.path("DCIM/IMG_0002.JPG") }
        #expect((pipe?["error"] as? String)?.contains("named pipe") == true, "\(metadata.stdout)")
        let unreadable = lines.first { $0["path"] as? String == escaped }
        #expect((unreadable?["error"] as? String)?.contains("not UTF-8") == true, "\(metadata.stdout)")

        let out = try TemporaryDirectory()
        let thumbnails = try Self.run(["thumbnail", card.path("DCIM"), "--size", "64", "--out", out.url.path])
        #expect(thumbnails.status == 1)
        #expect(thumbnails.stderr.contains("IMG_0002.JPG: error: not a regular file but a named pipe"))
        #expect(thumbnails.stderr.contains(escaped + ": error: the name is not UTF-8"), "\(thumbnails.stderr)")

        let library = card.path("Photos.lightbox")
        let imported = try Self.run(["import", "--library", library, "--json", card.path("DCIM")])
        #expect(imported.status != 0)
        #expect(imported.stdout.contains("not UTF-8") || imported.stderr.contains("not UTF-8"))
        #expect(imported.stdout.contains("\\\\xC9t\\\\xE9.jpg") || imported.stderr.contains(escaped))
    }

    @Test("A movie's frames are reserved from the memory budget by the size its header states")
    func movieWithinBudget() throws {
        let folder = try TemporaryDirectory()
        // A 1080p phone movie whose track states 4K: FFmpeg may decode frames up to 4K, so
        // that memory is reserved, which 64 MB cannot hold and 1 GiB can.
        let movie = try [UInt8](
            Data(
                contentsOf: URL(
                    fileURLWithPath: try Corpus.path(
                        "forensics/original-files/movie1/VID_20191220_170832.mp4"))))
        let stated = folder.path("stated-4k.mp4")
        try Data(HostileFiles.movie(movie, statingWidth: 3840, height: 2160)).write(to: URL(fileURLWithPath: stated))
        let out = folder.path("out")
        let small = try Self.run(
            ["thumbnail", stated, "--size", "64", "--out", out], environment: ["LIGHTBOX_MEMORY_BUDGET": "64M"])
        #expect(small.status == 1)
        #expect(small.stderr.contains(stated + ": error: its poster frame needs"), "\(small.stderr)")
        #expect(small.stderr.contains("more than the memory budget of 64 MB"), "\(small.stderr)")
        let fits = try Self.run(["thumbnail", stated, "--size", "64", "--out", out, "--overwrite"])
        #expect(fits.status == 0, "\(fits.stderr)")

        // A track stating 20000x20000 would need past the whole budget: refused before FFmpeg
        // opens it, whatever its frames really are.
        let huge = folder.path("stated-huge.mp4")
        try Data(HostileFiles.movie(movie, statingWidth: 20_000, height: 20_000)).write(to: URL(fileURLWithPath: huge))
        let refused = try Self.run(["thumbnail", huge, "--size", "64", "--out", out])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("more than the memory budget of 1024 MB"), "\(refused.stderr)")
        // A track stating less than its frames: FFmpeg refuses the frame before allocating it.
        let tiny = folder.path("stated-tiny.mp4")
        try Data(HostileFiles.movie(movie, statingWidth: 64, height: 36)).write(to: URL(fileURLWithPath: tiny))
        let lied = try Self.run(["thumbnail", tiny, "--size", "64", "--out", out])
        #expect(lied.status == 1)
        #expect(lied.stderr.contains(tiny + ": error:"), "\(lied.stderr)")

        let badBudget = try Self.run(["worker", "--memory-budget", "12", "--until-idle", "--library", folder.path("L")])
        #expect(badBudget.status != 0)
        #expect(badBudget.stderr.contains("--memory-budget must be a size of at least 64M"), "\(badBudget.stderr)")
    }

    @Test("A decode and a full-size edit reserve from the memory budget, and say so when it is too small")
    func decodeAndEditWithinBudget() throws {
        let folder = try TemporaryDirectory()
        let small = ["LIGHTBOX_MEMORY_BUDGET": "64M"]
        // An interlaced PNG is decoded whole: 6000x4000 RGB and half again, past 64 MB.
        let flat = folder.path("flat.png")
        let interlaced = folder.path("interlaced.png")
        try VipsTool.run("black", flat, "6000", "4000", "--bands", "3")
        try VipsTool.run("copy", flat, interlaced + "[interlace]")
        let decoded = try Self.run(
            ["thumbnail", interlaced, "--size", "64", "--out", folder.path("thumbs")], environment: small)
        #expect(decoded.status == 1)
        #expect(decoded.stderr.contains(interlaced + ": error: decoding it needs"), "\(decoded.stderr)")
        #expect(decoded.stderr.contains("more than the memory budget of 64 MB"), "\(decoded.stderr)")

        // A 24 MP JPEG turned a quarter is rendered in memory: the photo and a copy, 137 MB. Its
        // decode is counted within the edit's reservation, which is what is refused.
        let photo = try Corpus.path("exiv2/data/exiv2-bug922a.jpg")
        let arguments = ["render", photo, "--filter", "rotate=90", "--out", folder.path("renders")]
        let edited = try Self.run(arguments, environment: small)
        #expect(edited.status == 1)
        #expect(edited.stderr.contains("rendering its edit needs 138 MB at once"), "\(edited.stderr)")
        let fits = try Self.run(arguments)
        #expect(fits.status == 0, "\(fits.stderr)")
    }

    @Test("import --json reports each file; ls, show and thumb read the library back")
    func importListShowThumb() throws {
        let folder = try TemporaryDirectory()
        let source = try TemporaryDirectory()
        try source.copy(Corpus.path("exiv2/data/2021-02-13-1929.heic"))
        try source.copy(Corpus.path("forensics/original-files/pic2/IMG_20200124_231153.jpg"))
        let broken = try source.truncatedCopy(
            of: Corpus.path("lomiri/backgrounds/Dragonfly_by_Bolly.jpg"), fraction: 0.5, as: "broken.jpg")
        let library = folder.path("CLI.lightbox")

        let imported = try Self.run(["import", "--library", library, "--json", source.url.path])
        #expect(imported.status == 1, "a failed file makes the exit status 1")
        var lines = try imported.jsonLines()
        #expect(lines.count == 4, "one line per file, then the summary")
        let summary = try #require(lines.removeLast()["summary"] as? [String: Any])
        #expect(summary["imported"] as? Int == 2 && summary["failed"] as? Int == 1 && summary["paired"] as? Int == 0)
        let failures = try #require(summary["failures"] as? [[String: Any]])
        #expect(failures.count == 1 && failures.first?["path"] as? String == broken)
        let byStatus = Dictionary(grouping: lines) { $0["status"] as? String ?? "" }
        #expect(byStatus["imported"]?.count == 2)
        let failure = try #require(byStatus["failed"]?.first)
        #expect(failure["path"] as? String == broken)
        let error = try #require(failure["error"] as? [String: Any])
        #expect(error["code"] as? String == "corruptFile")
        #expect((error["message"] as? String)?.isEmpty == false)

        let again = try Self.run(["import", "--library", library, "--json", source.url.path])
        #expect(try again.jsonLines().filter { $0["status"] as? String == "duplicate" }.count == 2)

        // $LIGHTBOX_LIBRARY stands in for --library.
        let listed = try Self.run(["ls", "--json"], environment: ["LIGHTBOX_LIBRARY": library])
        #expect(listed.status == 0)
        let assets = try listed.jsonLines()
        #expect(assets.count == 2)
        for asset in assets {
            for key in ["creationDate", "addedDate", "modificationDate"] {
                let text = try #require(asset[key] as? String)
                #expect(Self.isISO8601WithOffset(text), "\(key) \(text)")
            }
            let resources = try #require(asset["resources"] as? [[String: Any]])
            #expect(resources.first?["type"] as? Int == 1)
            #expect(resources.first?["originalFilename"] as? String != nil)
        }
        // Newest first: the 2021 iPhone photo, then the 2020 phone photo.
        #expect(assets.first?["creationDate"] as? String == "2021-02-13T11:03:31.864-06:00")
        let portrait = try Self.run(["ls", "--library", library, "--json", "--predicate", "pixelHeight > pixelWidth"])
        #expect(portrait.status != 0, "comparing two keys is not part of the predicate language")
        let tall = try Self.run(["ls", "--library", library, "--json", "--predicate", "pixelHeight >= 4000"])
        #expect(try tall.jsonLines().map { $0["pixelHeight"] as? Int } == [4032])
        let bySize = try Self.run(["ls", "--library", library, "--json", "--sort", "pixelWidth asc"])
        #expect(try bySize.jsonLines().compactMap { $0["pixelWidth"] as? Int } == [3024, 4000])
        let unknown = try Self.run(["ls", "--library", library, "--predicate", "colour == 'red'"])
        #expect(unknown.status != 0)
        #expect(unknown.stderr.contains("colour"))
        let limited = try Self.run(["ls", "--library", library, "--json", "--limit", "1"])
        #expect(try limited.jsonLines().count == 1)

        let id = try #require(assets.first?["localIdentifier"] as? String)
        let shown = try Self.run(["show", "--library", library, "--json", id])
        #expect(try shown.jsonLines().first?["pixelWidth"] as? Int == 3024)
        let text = try Self.run(["show", "--library", library, id])
        #expect(text.stdout.contains("playbackStyle    image (1)"), "\(text.stdout)")
        let missing = try Self.run(["show", "--library", library, "00000000-0000-0000-0000-000000000000"])
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("no asset"))

        let out = folder.path("thumb.jpg")
        let thumb = try Self.run([
            "asset-thumbnail", "--library", library, id, "--size", "120x90", "--mode", "fill", "--out", out,
        ])
        #expect(thumb.status == 0, "\(thumb.stderr)")
        let properties = try ImageFile.properties(ofFileAt: out)
        #expect(properties.pixelWidth == 120 && properties.pixelHeight == 90)
        let badSize = try Self.run(["asset-thumbnail", "--library", library, id, "--size", "big", "--out", out])
        #expect(badSize.status != 0)
        #expect(badSize.stderr.contains("--size"))
        // One number is the long edge, as `thumbnail` takes it.
        let edge = folder.path("edge.jpg")
        #expect(
            try Self.run(["asset-thumbnail", "--library", library, id, "--size", "100", "--out", edge]).status == 0)
        let fitted = try ImageFile.properties(ofFileAt: edge)
        #expect(max(fitted.pixelWidth, fitted.pixelHeight) == 100)
        let boxed = try Self.run([
            "thumbnail", try Corpus.path("digikam/body-background.jpg"), "--size", "80x40", "--out",
            folder.path("boxed"), "--json",
        ])
        #expect(try boxed.jsonLines().first?["pixelHeight"] as? Int == 40)
    }

    @Test("favorite, hide, album and delete change the library; history reports each transaction")
    func editing() throws {
        let folder = try TemporaryDirectory()
        let library = folder.path("Edit.lightbox")
        let photos = try Corpus.photoPaths().prefix(3)
        #expect(try Self.run(["import", "--library", library] + photos).status == 0)
        let ids = try Self.run(["ls", "--library", library, "--json"]).jsonLines().compactMap {
            $0["localIdentifier"] as? String
        }
        try #require(ids.count == 3)
        let start = try #require(
            try Self.run(["history", "--library", library, "--json"]).jsonLines().last?["token"] as? Int)

        #expect(try Self.run(["favorite", "--library", library, ids[0]]).status == 0)
        #expect(try Self.run(["hide", "--library", library, ids[1]]).status == 0)
        let favorites = try Self.run(["ls", "--library", library, "--json", "--predicate", "favorite == true"])
            .jsonLines()
        #expect(favorites.compactMap { $0["localIdentifier"] as? String } == [ids[0]])
        #expect(try Self.run(["ls", "--library", library, "--json"]).jsonLines().count == 2)
        #expect(try Self.run(["ls", "--library", library, "--json", "--include-hidden"]).jsonLines().count == 3)

        let created = try Self.run(["album", "create", "--library", library, "Summer", "--json"]).jsonLines()
        let album = try #require(created.first?["localIdentifier"] as? String)
        #expect(created.first?["localizedTitle"] as? String == "Summer")
        #expect(try Self.run(["album", "add", "--library", library, album, ids[0], ids[2]]).status == 0)
        #expect(try Self.run(["album", "move", "--library", library, album, "1", "0"]).status == 0)
        let inAlbum = try Self.run(["album", "ls", "--library", library, "--in", album, "--json"]).jsonLines()
        #expect(inAlbum.compactMap { $0["localIdentifier"] as? String } == [ids[2], ids[0]])
        let listed = try Self.run(["ls", "--library", library, "--in", album, "--json"]).jsonLines()
        #expect(listed.compactMap { $0["localIdentifier"] as? String } == [ids[2], ids[0]])
        let pastEnd = try Self.run(["album", "move", "--library", library, album, "7", "0"])
        #expect(pastEnd.status != 0)
        #expect(pastEnd.stderr.contains("past the end"))
        #expect(try Self.run(["album", "rename", "--library", library, album, "Winter"]).status == 0)
        #expect(try Self.run(["album", "ls", "--library", library]).stdout.contains("Winter"))

        #expect(try Self.run(["delete", "--library", library, ids[2]]).status == 0)
        let unknown = try Self.run(["delete", "--library", library, "NO-SUCH-ASSET"])
        #expect(unknown.status != 0)
        #expect(unknown.stderr.contains("NO-SUCH-ASSET"))

        let history = try Self.run(["history", "--library", library, "--since", "\(start)", "--json"]).jsonLines()
        #expect(history.count == 7, "favorite, hide, create, add, move, rename, delete")
        let last = try #require(history.last)
        #expect(
            (last["asset"] as? [String: Any])?["trashedLocalIdentifiers"] as? [String] == [ids[2]],
            "to Recently Deleted")
        #expect((last["assetCollection"] as? [String: Any])?["updatedLocalIdentifiers"] as? [String] == [album])
    }

    @Test("An observer hears of a transaction another process commits")
    func otherProcess() async throws {
        let folder = try TemporaryDirectory()
        let path = folder.path("Shared.lightbox")
        #expect(try Self.run(["import", "--library", path] + Corpus.photoPaths().prefix(2)).status == 0)
        let library = try PhotoLibrary(url: URL(fileURLWithPath: path))
        let target = try #require(try library.fetchAssets().firstObject)
        let favorites = try library.fetchAssets(options: FetchOptions(predicate: .favorite == true))
        let stream = try library.changes()
        let other = try Self.run(["favorite", "--library", path, target.localIdentifier])
        #expect(other.status == 0)
        var iterator = stream.makeAsyncIterator()
        let change = try #require(await iterator.next())
        #expect(change.persistentChange.author == "performChanges")
        #expect(change.details(for: target)?.objectAfterChanges?.isFavorite == true)
        #expect(change.details(for: favorites)?.insertedObjects.map(\.localIdentifier) == [target.localIdentifier])
    }

    @Test(
        "watch prints one RICE line per transaction that changes its fetch, in JSON or for a person",
        arguments: [true, false])
    func watch(json: Bool) async throws {
        let folder = try TemporaryDirectory()
        let path = folder.path("Watched.lightbox")
        #expect(try Self.run(["import", "--library", path] + Corpus.photoPaths().prefix(3)).status == 0)
        let library = try PhotoLibrary(url: URL(fileURLWithPath: path))
        let assets = Array(
            try library.fetchAssets(
                options: FetchOptions(sortDescriptors: try FetchSortDescriptor.parse("creationDate desc"))))

        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.executable)
        process.arguments = ["watch", "--library", path, "--predicate", "hidden == false"] + (json ? ["--json"] : [])
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        defer { process.terminate() }
        // Should a line never come, end the watcher: the reads below then see the end of file.
        let watchdog = Task {
            try await Task.sleep(for: .seconds(30))
            process.terminate()
        }
        defer { watchdog.cancel() }
        // Wait until it watches: it says so on standard error.
        var banner = Data()
        while !String(decoding: banner, as: UTF8.self).contains("watching") {
            let chunk = err.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            banner += chunk
        }
        #expect(String(decoding: banner, as: UTF8.self).contains("watching 3 assets"))

        try await library.performChanges { changes in changes.changeRequest(for: assets[1]).isHidden = true }
        var output = Data()
        while !output.contains(UInt8(ascii: "\n")) {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            output += chunk
        }
        let line = try #require(String(decoding: output, as: UTF8.self).split(separator: "\n").first)
        if !json {
            let token = try library.currentChangeToken()
            #expect(line == "token \(token): removed \(assets[1].localIdentifier.prefix(8)); 2 assets")
            return
        }
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["count"] as? Int == 2)
        #expect(object["removedIndexes"] as? [Int] == [1])
        #expect(object["insertedIndexes"] as? [Int] == [])
        #expect(object["hasIncrementalChanges"] as? Bool == true)
        #expect(object["token"] as? Int == Int(try library.currentChangeToken().rawValue))
    }

    @Test("folder create, add, ls and the refusal of a cycle")
    func folders() throws {
        let folder = try TemporaryDirectory()
        let library = folder.path("Folders.lightbox")
        _ = try PhotoLibrary(url: URL(fileURLWithPath: library))
        func identifier(_ run: Run) throws -> String {
            try #require(try run.jsonLines().first?["localIdentifier"] as? String)
        }
        let trips = try identifier(try Self.run(["folder", "create", "--library", library, "Trips", "--json"]))
        let album = try identifier(try Self.run(["album", "create", "--library", library, "Iceland", "--json"]))
        #expect(try Self.run(["folder", "add", "--library", library, trips, album]).status == 0)
        let top = try Self.run(["folder", "ls", "--library", library, "--json"]).jsonLines()
        #expect(top.compactMap { $0["localIdentifier"] as? String } == [trips])
        let inside = try Self.run(["folder", "ls", "--library", library, "--in", trips, "--json"]).jsonLines()
        #expect(inside.compactMap { $0["localizedTitle"] as? String } == ["Iceland"])
        let cycle = try Self.run(["folder", "add", "--library", library, trips, trips])
        #expect(cycle.status != 0)
        #expect(cycle.stderr.contains("cannot hold itself"))
    }

    @Test("A catalog given to a command that reads makes no library; one that cannot be reached leaves no folder")
    func catalogFlagsMakeNothing() throws {
        let folder = try TemporaryDirectory()
        let unreachable = "postgres://nobody@127.0.0.1:1/none"
        let environment = ["LIGHTBOX_LIBRARY": ""]
        // `ls --database` in a folder without a library: a clear error, no ./Photos.lightbox
        // that would remember the address and overrule every later one.
        let listed = try Self.run(
            ["ls", "--database", unreachable], environment: environment, currentDirectory: folder.url.path)
        #expect(listed.status != 0)
        #expect(listed.stderr.contains("no library at Photos.lightbox"), "\(listed.stderr)")
        #expect(listed.stderr.contains("lightbox import --database"))
        #expect(!FileManager.default.fileExists(atPath: folder.path("Photos.lightbox")))
        // An import that cannot reach its catalog says so and leaves no empty library folder.
        let photo = try Corpus.photoPaths()[0]
        let imported = try Self.run(
            ["import", "--database", unreachable, photo], environment: environment, currentDirectory: folder.url.path)
        #expect(imported.status != 0 && imported.stderr.contains("127.0.0.1:1"), "\(imported.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.path("Photos.lightbox")))
        // A library whose catalog is away: `editors ls` needs none, and lists the library's editors.
        let library = folder.path("Away.lightbox")
        try FileManager.default.createDirectory(atPath: library + "/editors", withIntermediateDirectories: true)
        try Data("{\"database\": \"\(unreachable)\"}".utf8).write(to: URL(fileURLWithPath: library + "/storage.json"))
        let editors = try Self.run(
            ["editors", "ls", "--library", library],
            environment: ["XDG_DATA_DIRS": folder.path("none"), "XDG_DATA_HOME": folder.path("none")])
        #expect(editors.status == 0, "\(editors.stderr)")
        #expect(editors.stderr.contains(library + "/editors"), "\(editors.stderr)")
        // Another catalog given to it is an error naming the one it keeps, never ignored.
        let other = try Self.run(["ls", "--library", library, "--database", "postgres://nobody@127.0.0.1:2/other"])
        #expect(
            other.status != 0 && other.stderr.contains("this library's catalog is at \(unreachable)"), "\(other.stderr)"
        )
    }
}
