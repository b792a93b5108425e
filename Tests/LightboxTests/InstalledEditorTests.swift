import Foundation
import Lightbox
import LightboxImaging
import LightboxTestSupport
import Testing

/// Editors installed with a manifest: found in the system's, the user's and the library's
/// folders, listed for what they edit, run by identifier; broken manifests reported.
@Suite("Installed editors")
struct InstalledEditorTests {
    static let examples = Corpus.packageRoot.appendingPathComponent("examples/editors").path

    /// Copies an example editor's folder to `folder/name`.
    static func install(_ example: String, in folder: String, as name: String? = nil) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: examples + "/" + example, toPath: folder + "/" + (name ?? example))
    }

    static func write(_ text: String, to path: String, executable: Bool = false) throws {
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        if executable { chmod(path, 0o755) }
    }

    /// A manifest for the negative example's program, with other fields.
    static func manifest(_ identifier: String, name: String, media: String, program: String) -> String {
        """
        {"lightboxEditor": 1, "identifier": "\(identifier)", "name": "\(name)", "version": "2.0",
         "program": "\(program)", "mediaTypes": \(media), "adjustmentFormats": ["\(identifier)"]}
        """
    }

    /// A library with one photo and one movie, and system, user and library editor folders.
    static func setUp() async throws -> (
        TemporaryDirectory, PhotoLibrary, photo: Asset, movie: Asset, environment: [String: String]
    ) {
        let folder = try TemporaryDirectory()
        let library = try folder.makeLibrary()
        let summary = await library.importItems(at: [
            URL(fileURLWithPath: try folder.copy(Corpus.path(EditingTests.photo))),
            URL(
                fileURLWithPath: try folder.copy(Corpus.path("forensics/original-files/movie1/VID_20191220_170832.mp4"))
            ),
        ])
        let assets = summary.results.compactMap { result -> Asset? in
            if case .imported(let asset) = result.outcome { return asset }
            return nil
        }
        let photo = try #require(assets.first { $0.mediaType == .image })
        let movie = try #require(assets.first { $0.mediaType == .video })
        let environment = [
            "XDG_DATA_DIRS": folder.path("system"), "XDG_DATA_HOME": folder.path("user"), "HOME": folder.path("home"),
        ]
        return (folder, library, photo, movie, environment)
    }

    @Test("Found in the three folders, the most specific winning; listed by what they edit; broken manifests named")
    func discovery() async throws {
        let (folder, library, photo, movie, environment) = try await Self.setUp()
        let system = folder.path("system/lightbox/editors")
        let user = folder.path("user/lightbox/editors")
        let own = library.url.path + "/editors"
        try Self.install("sepia", in: system)
        try Self.install("negative", in: user)
        // A photos-and-movies editor in the library's folder, as a lone manifest beside its program.
        try FileManager.default.createDirectory(atPath: own, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Self.examples + "/negative/negative.sh", toPath: own + "/invert.sh")
        try Self.write(
            Self.manifest("org.example.both", name: "Both", media: #"["image", "video"]"#, program: "invert.sh"),
            to: own + "/both.json")
        // The library's own sepia replaces the system's.
        try Self.write(
            Self.manifest(
                "org.lightbox.example.sepia", name: "Sepia (library)", media: #"["image"]"#, program: "invert.sh"),
            to: own + "/sepia.json")
        // And what is broken, each reported with its path.
        let broken: [(String, String, String)] = [
            ("bad-json.json", "{\"lightboxEditor\": 1, ", "not valid JSON"),
            (
                "no-name.json",
                #"{"lightboxEditor": 1, "identifier": "org.x.a", "version": "1", "program": "invert.sh", "mediaTypes": ["image"]}"#,
                "name is missing"
            ),
            (
                "bad-id.json", Self.manifest("grain", name: "G", media: #"["image"]"#, program: "invert.sh"),
                "reverse-DNS"
            ),
            (
                "audio.json", Self.manifest("org.x.b", name: "B", media: #"["audio"]"#, program: "invert.sh"),
                "mediaTypes holds audio"
            ),
            (
                "gone.json", Self.manifest("org.x.c", name: "C", media: #"["image"]"#, program: "nowhere.sh"),
                "does not exist"
            ),
            (
                "escape.json", Self.manifest("org.x.d", name: "D", media: #"["image"]"#, program: "../../x.sh"),
                "leaves the editor's folder"
            ),
            ("future.json", #"{"lightboxEditor": 2}"#, "does not read"),
            (
                "limits.json",
                #"{"lightboxEditor": 1, "identifier": "org.x.e", "name": "E", "version": "1", "program": "invert.sh", "mediaTypes": ["image"], "memoryLimitMiB": 1e300}"#,
                "memoryLimitMiB must be from 16"
            ),
            (
                // A range narrower than the smallest step once trapped (an empty range of steps).
                "narrow.json",
                #"{"lightboxEditor": 1, "identifier": "org.x.g", "name": "G", "version": "1", "program": "invert.sh", "mediaTypes": ["image"], "settings": [{"name": "s", "minimum": 0, "maximum": 1e-10, "step": 1}]}"#,
                "step must be from 0"
            ),
            (
                "twice.json",
                Self.manifest("org.example.both", name: "Again", media: #"["image"]"#, program: "invert.sh"),
                "is taken by"
            ),
        ]
        for (name, text, _) in broken { try Self.write(text, to: own + "/" + name) }
        try Self.write("#!/bin/sh\n", to: own + "/plain.sh")
        try Self.write(
            Self.manifest("org.x.f", name: "F", media: #"["image"]"#, program: "plain.sh"), to: own + "/plain.json")
        try FileManager.default.createDirectory(atPath: own + "/empty", withIntermediateDirectories: true)
        #expect(mkfifo(own + "/pipe.json", 0o600) == 0)
        try Self.write(String(repeating: " ", count: EditorManifest.maximumSize + 1), to: own + "/huge.json")

        let catalog = library.installedEditors(environment: environment)
        #expect(
            catalog.editors.map(\.identifier).sorted() == [
                "org.example.both", "org.lightbox.example.negative", "org.lightbox.example.sepia",
            ])
        #expect(catalog.editor(withIdentifier: "org.lightbox.example.sepia")?.scope == .library)
        #expect(catalog.editor(withIdentifier: "org.lightbox.example.sepia")?.manifest.name == "Sepia (library)")
        #expect(catalog.editor(withIdentifier: "org.lightbox.example.negative")?.scope == .user)
        let negative = try #require(catalog.editor(withIdentifier: "org.lightbox.example.negative"))
        #expect(negative.manifest.settings.map(\.name) == ["strength"])
        #expect(negative.manifest.memoryLimit == 512 << 20 && negative.manifest.timeLimit == 60)
        for (name, _, reason) in broken {
            let problem = catalog.problems.first { $0.path == own + "/" + name }
            #expect(problem?.message.contains(reason) == true, "\(name): \(problem?.message ?? "not reported")")
        }
        for (name, reason) in [
            ("plain.json", "not executable"), ("empty", "needs an editor.json"), ("pipe.json", "cannot be read"),
            ("huge.json", "larger than 64 KiB"),
        ] {
            let problem = catalog.problems.first { $0.path == own + "/" + name }
            #expect(problem?.message.contains(reason) == true, "\(name): \(problem?.message ?? "not reported")")
        }

        // Photos: every editor; the movie: only the one that declares video.
        #expect(catalog.editors(for: photo).count == 3)
        #expect(catalog.editors(for: movie).map(\.identifier) == ["org.example.both", "org.lightbox.example.negative"])
    }

    @Test("An installed editor edits by identifier under its manifest's limits, and continues its own recipe")
    func editsByIdentifier() async throws {
        let (folder, library, photo, _, environment) = try await Self.setUp()
        try Self.install("sepia", in: library.url.path + "/editors")
        try Self.install("negative", in: folder.path("system/lightbox/editors"))
        let catalog = library.installedEditors(environment: environment)
        let sepia = try #require(catalog.editor(withIdentifier: "org.lightbox.example.sepia"))
        #expect(sepia.manifest.memoryLimit == 1024 << 20 && sepia.manifest.timeLimit == 120)
        let controller = sepia.controller(filters: ["tone=1", "vignette=0"])
        #expect(controller.memoryLimit == 1024 << 20 && controller.timeLimit == 120)
        let edited = try await library.edit(photo, with: controller)
        #expect(edited.adjustmentFormatIdentifier == "org.lightbox.example.sepia")
        #expect(sepia.mayContinue(edited))
        #expect(!(try #require(catalog.editor(withIdentifier: "org.lightbox.example.negative"))).mayContinue(edited))
        // Full toning: every pixel is a sepia tint, red over green over blue; the photo's shape kept.
        let render = try await library.fileURL(for: try #require(edited.resource(ofType: .fullSizePhoto))).path
        #expect(edited.pixelWidth == photo.pixelWidth && edited.pixelHeight == photo.pixelHeight)
        try VipsTool.run("thumbnail", render, folder.path("small.png"), "128")
        let (pixels, width, height, bands) = try ImageComparison.pixels(ofFileAt: folder.path("small.png"))
        var tinted = 0
        for i in stride(from: 0, to: width * height * bands, by: bands) {
            let (r, g, b) = (Int(pixels[i]), Int(pixels[i + 1]), Int(pixels[i + 2]))
            if r >= g && g >= b { tinted += 1 }
        }
        #expect(tinted * 100 >= width * height * 98, "\(tinted) of \(width * height) pixels are sepia")

        // Continued: the editor gets the original and its recipe; a setting not given keeps the
        // recipe's value, so the edit is redone from the original, not chained on its render.
        let again = try await library.edit(edited, with: sepia.controller(filters: ["vignette=0.5"]))
        #expect(again.resource(ofType: .adjustmentBasePhoto) == nil)
        let data = try #require(try await library.adjustmentData(for: again))
        let recipe = try JSONSerialization.jsonObject(with: data.data) as? [String: Double]
        #expect(recipe == ["tone": 1, "vignette": 0.5])

        // Another editor's format is not offered to it: it chains on the render, never asked.
        let negative = try #require(catalog.editor(withIdentifier: "org.lightbox.example.negative"))
        #expect(!negative.controller().canHandle(data))
        let chained = try await library.edit(again, with: negative.controller(filters: ["strength=1"]))
        #expect(chained.adjustmentFormatIdentifier == "org.lightbox.example.negative")
        #expect(chained.resource(ofType: .adjustmentBasePhoto) != nil)
    }

    @Test("An editor refuses what its manifest does not list; a bad setting is its clear error")
    func refusals() async throws {
        let (folder, library, photo, movie, environment) = try await Self.setUp()
        defer { withExtendedLifetime(folder) {} }
        try Self.install("sepia", in: library.url.path + "/editors")
        let sepia = try #require(
            library.installedEditors(environment: environment).editor(withIdentifier: "org.lightbox.example.sepia"))
        #expect(!sepia.canEdit(movie))
        await #expect(throws: LibraryError.self) { try await library.edit(movie, with: sepia.controller()) }
        let error = await #expect(throws: LibraryError.self) {
            try await library.edit(photo, with: sepia.controller(filters: ["tone=3"]))
        }
        #expect(error?.message.contains("tone must be from 0 to 1") == true, "\(error?.message ?? "")")
        #expect(try await library.asset(withLocalIdentifier: photo.localIdentifier)?.hasAdjustments == false)
    }
}

extension InstalledEditorTests {
    @Test(
        "lightbox editors ls lists them, for an asset too, and names a broken manifest; edit --editor takes an identifier"
    )
    func commandLine() async throws {
        let (folder, library, photo, movie, environment) = try await Self.setUp()
        let path = library.url.path
        try Self.install("negative", in: folder.path("user/lightbox/editors"))
        try Self.install("sepia", in: path + "/editors")
        try Self.write("{}", to: path + "/editors/broken.json")
        let CLI = CommandLineTests.self
        let listed = try CLI.run(["editors", "ls", "--library", path, "--json"], environment: environment)
        #expect(listed.status == 0, "\(listed.stderr)")
        let lines = try listed.jsonLines()
        #expect(
            lines.compactMap { $0["identifier"] as? String } == [
                "org.lightbox.example.negative", "org.lightbox.example.sepia",
            ])
        #expect(lines.compactMap { $0["scope"] as? String } == ["user", "library"])
        #expect(listed.stderr.contains("warning: \(path)/editors/broken.json: lightboxEditor"), "\(listed.stderr)")
        let forMovie = try CLI.run(
            ["editors", "--library", path, "--for", movie.localIdentifier, "--json"], environment: environment)
        #expect(
            try forMovie.jsonLines().compactMap { $0["identifier"] as? String } == ["org.lightbox.example.negative"])

        let edited = try CLI.run(
            ["edit", "--library", path, photo.localIdentifier, "--editor", "org.lightbox.example.negative", "--json"],
            environment: environment)
        #expect(edited.status == 0, "\(edited.stderr)")
        #expect(
            try edited.jsonLines().first?["adjustmentFormatIdentifier"] as? String == "org.lightbox.example.negative")
        let text = try CLI.run(
            ["editors", "--library", path, "--for", photo.localIdentifier], environment: environment)
        #expect(
            text.stdout.contains("org.lightbox.example.negative  Negative 1.1  photos, movies  user: "),
            "\(text.stdout)")
        #expect(text.stdout.split(separator: "\n").first?.hasSuffix("continues its edit") == true, "\(text.stdout)")
        let unknown = try CLI.run(
            ["edit", "--library", path, photo.localIdentifier, "--editor", "org.nobody.editor"],
            environment: environment)
        #expect(
            unknown.status == 1 && unknown.stderr.contains("no installed editor has the identifier org.nobody.editor"))
        #expect(unknown.stderr.contains("skipped \(path)/editors/broken.json"), "\(unknown.stderr)")
    }
}

extension InstalledEditorTests {
    @Test("An installed editor that declares video edits a movie: its frames through ffmpeg, its sound kept")
    func editsMovie() async throws {
        let (folder, library, _, movie, environment) = try await Self.setUp()
        try Self.install("negative", in: library.url.path + "/editors")
        let negative = try #require(
            library.installedEditors(environment: environment).editor(withIdentifier: "org.lightbox.example.negative"))
        #expect(negative.canEdit(movie))
        let edited = try await library.edit(movie, with: negative.controller(filters: ["strength=1"]))
        #expect(edited.adjustmentFormatIdentifier == "org.lightbox.example.negative")
        let render = try await library.fileURL(for: try #require(edited.resource(ofType: .fullSizeVideo))).path
        let source = try await library.fileURL(for: try #require(movie.resource(ofType: .video))).path
        let (probe, sourceProbe) = (try FFmpeg.probe(render), try FFmpeg.probe(source))
        #expect(probe.hasAudio && probe.frames == sourceProbe.frames)
        // A full negative: each frame's mean is 255 less the source frame's, as libvips measures them.
        for index in [0, 20] {
            try FFmpeg.frame(index, of: source, to: folder.path("source-\(index).png"))
            try FFmpeg.frame(index, of: render, to: folder.path("negative-\(index).png"))
            let sum =
                try VipsTool.average(folder.path("source-\(index).png"))
                + VipsTool.average(folder.path("negative-\(index).png"))
            #expect(abs(sum - 255) < 3, "frame \(index): means add up to \(sum)")
        }
    }
}

extension InstalledEditorTests {
    @Test("An installed editor is taken by one rule in the model: installed, of the asset's kind, settings bounded")
    func oneRule() async throws {
        let (folder, library, photo, movie, _) = try await Self.setUp()
        _ = folder
        try Self.install("sepia", in: library.url.path + "/editors")
        let sepia = "org.lightbox.example.sepia"
        #expect(try library.installedEditor(sepia, for: photo, settings: ["strength=0.5"]).filters == ["strength=0.5"])
        // The sepia example edits photos alone: the server and the command refused a movie
        // differently (the command not at all, until the editor's program failed).
        #expect(throws: LibraryError.self) { try library.installedEditor(sepia, for: movie, settings: []) }
        do {
            _ = try library.installedEditor(sepia, for: movie, settings: [])
        } catch {
            #expect(error.code == .invalidRequest && error.message.contains("does not edit movies"), "\(error)")
        }
        // Settings go to another program: bounded in count and length.
        for settings in [Array(repeating: "a=1", count: 101), ["a=" + String(repeating: "1", count: 1_000)]] {
            do {
                _ = try library.installedEditor(sepia, for: photo, settings: settings)
                Issue.record("\(settings.count) settings were taken")
            } catch {
                #expect(error.code == .invalidRequest, "\(error)")
            }
        }
        do {
            _ = try library.installedEditor("org.nobody.editor", for: photo, settings: [])
            Issue.record("an editor that is not installed was found")
        } catch {
            #expect(error.code == .editorNotFound && error.message.contains("org.nobody.editor"), "\(error)")
        }
    }
}
