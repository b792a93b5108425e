import Crypto
import Foundation
import Lightbox
import LightboxImaging
import LightboxTestSupport
import Synchronization
import Testing

/// A third-party editor with its own recipe format: it turns the photo black and white (with
/// Lightbox's renderer, to keep the test small) and records its own adjustment data.
final class ForeignEditor: ContentEditingController, @unchecked Sendable {
    static let format = "com.example.mono"
    let started = Mutex<ContentEditingInput?>(nil)

    func canHandle(_ adjustmentData: AdjustmentData) -> Bool { adjustmentData.formatIdentifier == Self.format }

    func startContentEditing(with input: ContentEditingInput, placeholderImage: EncodedImage?) async throws {
        started.withLock { $0 = input }
    }

    func finishContentEditing() async throws -> ContentEditingOutput {
        let input = try #require(started.withLock { $0 })
        var output = ContentEditingOutput(contentEditingInput: input)
        try ImageFile.renderEdit(
            ofFileAt: try #require(input.fullSizeImageURL).path, recipe: EditRecipe(filters: [.mono(1)]),
            toJPEGAt: output.renderedContentURL.path, orientation: input.fullSizeImageOrientation)
        output.adjustmentData = AdjustmentData(
            formatIdentifier: Self.format, formatVersion: "3.1", data: Data("mono".utf8))
        return output
    }

    func cancelContentEditing() {}
    var shouldShowCancelConfirmation: Bool { false }
}

@Suite("Editing: adjustment data, renders, revert, chained editors")
struct EditingTests {
    static let photo = "forensics/original-files/pic2/IMG_20191224_234846.jpg"

    static func library() async throws -> (PhotoLibrary, Asset, source: String, TemporaryDirectory) {
        let folder = try TemporaryDirectory()
        let library = try folder.makeLibrary()
        let source = try folder.copy(Corpus.path(photo))
        let summary = await library.importItems(at: [URL(fileURLWithPath: source)])
        guard case .imported(let asset) = try #require(summary.results.first).outcome else {
            throw LibraryError(.invalidRequest, "\(source) did not import")
        }
        return (library, asset, source, folder)
    }

    static func sha256(_ path: String) throws -> String {
        SHA256.hash(data: try Data(contentsOf: URL(fileURLWithPath: path))).map { String(format: "%02x", $0) }.joined()
    }

    /// The stored files of an asset's resources, by type.
    static func files(_ library: PhotoLibrary, _ asset: Asset) async throws -> [AssetResourceType: String] {
        var files: [AssetResourceType: String] = [:]
        for resource in asset.resources { files[resource.type] = try await library.fileURL(for: resource).path }
        return files
    }

    @Test("An edit: render and recipe stored, original untouched, sizes and versions right; revert: the original again")
    func editAndRevert() async throws {
        let (library, asset, source, folder) = try await Self.library()
        defer { withExtendedLifetime(folder) {} }
        let originalHash = try Self.sha256(source)
        let editor = RecipeEditor(adding: [
            .exposure(0.5), .straighten(3), .crop(NormalizedRect(x: 0.1, y: 0.1, width: 0.8, height: 0.5)),
        ])
        let edited = try await library.edit(asset, with: editor)

        #expect(edited.hasAdjustments && edited.adjustmentFormatIdentifier == EditRecipe.formatIdentifier)
        #expect(Set(edited.resources.map(\.type)) == [.photo, .fullSizePhoto, .adjustmentData])
        let files = try await Self.files(library, edited)
        let render = try #require(files[.fullSizePhoto])
        let photo = try #require(files[.photo])
        #expect(try Self.sha256(photo) == originalHash, "the original is untouched")
        // The render: a JPEG of the edited size, which the asset now reports.
        let properties = try ImageFile.properties(ofFileAt: render)
        #expect((edited.pixelWidth, edited.pixelHeight) == (properties.storedWidth, properties.storedHeight))
        #expect(edited.pixelWidth < asset.pixelWidth && Double(edited.pixelWidth) / Double(edited.pixelHeight) > 2)
        // The adjustment data reads back as the recipe, which another Lightbox can continue.
        let input = try await library.requestContentEditingInput(for: edited)
        #expect(input.adjustmentData?.recipe == editor.recipe)
        #expect(try #require(input.fullSizeImageURL).path == photo, "a handled recipe continues from the original")

        // Versions: current is the render, unadjusted the original.
        let manager = ImageManager(library: library)
        let size = PixelSize(width: 512, height: 512)
        var options = ImageRequestOptions()
        options.deliveryMode = .highQualityFormat
        options.resizeMode = .exact
        let current = try #require(
            await manager.requestImage(for: edited, targetSize: size, options: options).results().last?.image)
        options.version = .unadjusted
        let unadjusted = try #require(
            await manager.requestImage(for: edited, targetSize: size, options: options).results().last?.image)
        #expect(Double(current.pixelWidth) / Double(current.pixelHeight) > 2)
        let aspect: Double = Double(unadjusted.pixelWidth) / Double(unadjusted.pixelHeight)
        #expect(abs(aspect - 4.0 / 3) < 0.01)
        // Each is what the renderer makes of that file.
        let thumbnail = RenderOptions(width: 512, height: 512, quality: options.quality)
        #expect(current.bytes == (try ImageFile.thumbnail(ofFileAt: render, options: thumbnail)).bytes)
        #expect(unadjusted.bytes == (try ImageFile.thumbnail(ofFileAt: photo, options: thumbnail)).bytes)
        let data = try await manager.requestImageDataAndOrientation(for: edited)
        #expect(data.bytes == Array(try Data(contentsOf: URL(fileURLWithPath: render))) && data.orientation == 1)

        // Export: current is the render, named after the photo; original the photo's bytes.
        let exportedCurrent = try await library.export(
            localIdentifiers: [edited.localIdentifier], to: folder.url.appendingPathComponent("current"),
            version: .current)
        #expect(exportedCurrent.map(\.resourceType) == [.fullSizePhoto])
        #expect(try Self.sha256(exportedCurrent[0].path) == edited.resource(ofType: .fullSizePhoto)?.sha256)
        #expect((exportedCurrent[0].path as NSString).lastPathComponent == "IMG_20191224_234846.jpg")
        let exportedOriginal = try await library.export(
            localIdentifiers: [edited.localIdentifier], to: folder.url.appendingPathComponent("original"),
            version: .original)
        #expect(try exportedOriginal.map { try Self.sha256($0.path) } == [originalHash])

        // Revert: the original's look and size, the edit's files gone, the original's bytes as imported.
        try await library.performChanges { changes in
            changes.changeRequest(for: edited).revertAssetContentToOriginal()
        }
        let reverted = try #require(try await library.asset(withLocalIdentifier: asset.localIdentifier))
        #expect(!reverted.hasAdjustments && reverted.adjustmentFormatIdentifier == nil)
        #expect(reverted.resources.map(\.type) == [.photo])
        #expect((reverted.pixelWidth, reverted.pixelHeight) == (asset.pixelWidth, asset.pixelHeight))
        #expect(!FileManager.default.fileExists(atPath: render), "the render's file is removed")
        #expect(try Self.sha256(photo) == originalHash)
        let exported = try await library.export(
            localIdentifiers: [asset.localIdentifier], to: folder.url.appendingPathComponent("out"), version: .current)
        #expect(try Self.sha256(exported[0].path) == originalHash, "the current version is the original again")
        options.version = .current
        let after = try #require(
            await manager.requestImage(for: reverted, targetSize: size, options: options).results().last?.image)
        #expect(after.bytes == unadjusted.bytes)
    }

    @Test("An editor that cannot continue the recipe edits the render, which is kept as the adjustment base")
    func chainedEditors() async throws {
        let (library, asset, _, folder) = try await Self.library()
        defer { withExtendedLifetime(folder) {} }
        let first = try await library.edit(
            asset, with: RecipeEditor(adding: [.vignette(0.8), .rotate(quarterTurns: 1)]))
        let firstRender = try #require(first.resource(ofType: .fullSizePhoto))

        // A foreign editor cannot read Lightbox's recipe: it gets the render and chains on it.
        let foreign = ForeignEditor()
        let second = try await library.edit(first, with: foreign)
        let input = try #require(foreign.started.withLock { $0 })
        #expect(input.adjustmentData == nil && input.fullSizeImageOrientation == 1)
        #expect(second.adjustmentFormatIdentifier == ForeignEditor.format)
        #expect(second.resource(ofType: .adjustmentBasePhoto)?.sha256 == firstRender.sha256)
        #expect((second.pixelWidth, second.pixelHeight) == (first.pixelWidth, first.pixelHeight), "the turn is kept")

        // The same foreign editor again continues its own data, from the adjustment base.
        let again = ForeignEditor()
        let third = try await library.edit(second, with: again)
        let continued = try #require(again.started.withLock { $0 })
        #expect(continued.adjustmentData?.formatIdentifier == ForeignEditor.format)
        let base = try #require(second.resource(ofType: .adjustmentBasePhoto))
        #expect(try #require(continued.fullSizeImageURL).path == (try await library.fileURL(for: base)).path)
        #expect(third.resource(ofType: .adjustmentBasePhoto)?.sha256 == firstRender.sha256)

        // Lightbox's editor cannot read the foreign recipe: it chains on the foreign render.
        let fourth = try await library.edit(third, with: RecipeEditor(adding: [.contrast(0.3)]))
        #expect(fourth.resource(ofType: .adjustmentBasePhoto)?.sha256 == third.resource(ofType: .fullSizePhoto)?.sha256)
        #expect(fourth.adjustmentFormatIdentifier == EditRecipe.formatIdentifier)
        // Revert removes every edit, bases included.
        try await library.performChanges { $0.changeRequest(for: fourth).revertAssetContentToOriginal() }
        let reverted = try #require(try await library.asset(withLocalIdentifier: asset.localIdentifier))
        #expect(reverted.resources.map(\.type) == [.photo] && !reverted.hasAdjustments)
    }

    @Test("A recipe of another major version is not handled: the edit chains on the render")
    func unknownMajorVersion() async throws {
        let (library, asset, _, folder) = try await Self.library()
        defer { withExtendedLifetime(folder) {} }
        // A future Lightbox wrote version 2.0 of the recipe.
        let input = try await library.requestContentEditingInput(for: asset)
        var output = ContentEditingOutput(contentEditingInput: input)
        defer { output.discard() }
        try ImageFile.renderEdit(
            ofFileAt: try #require(input.fullSizeImageURL).path, recipe: EditRecipe(filters: [.sepia(1)]),
            toJPEGAt: output.renderedContentURL.path)
        output.adjustmentData = AdjustmentData(
            formatIdentifier: EditRecipe.formatIdentifier, formatVersion: "2.0",
            data: Data(#"{"version":"2.0","filters":[]}"#.utf8))
        try await library.performChanges { $0.changeRequest(for: asset).contentEditingOutput = output }
        let future = try #require(try await library.asset(withLocalIdentifier: asset.localIdentifier))

        let editor = RecipeEditor(adding: [.exposure(-0.5)])
        #expect(
            !editor.canHandle(
                try #require(
                    try await library.requestContentEditingInput(
                        for: future, options: .init(canHandleAdjustmentData: { _ in true })
                    ).adjustmentData)))
        let edited = try await library.edit(future, with: editor)
        #expect(
            edited.resource(ofType: .adjustmentBasePhoto)?.sha256 == future.resource(ofType: .fullSizePhoto)?.sha256)
        #expect(editor.recipe.filters == [.exposure(-0.5)], "nothing is inherited from a recipe it cannot read")
    }

    @Test("Refused edits change nothing: no adjustment data, a stale input, a render that is not a JPEG")
    func refusedEdits() async throws {
        let (library, asset, _, folder) = try await Self.library()
        defer { withExtendedLifetime(folder) {} }
        let input = try await library.requestContentEditingInput(for: asset)
        var output = ContentEditingOutput(contentEditingInput: input)
        defer { output.discard() }
        try ImageFile.renderEdit(
            ofFileAt: try #require(input.fullSizeImageURL).path, recipe: EditRecipe(filters: [.blur(4)]),
            toJPEGAt: output.renderedContentURL.path)
        let before = try await Self.originalsCount(library)

        await #expect(throws: LibraryError.self, "an edit without adjustment data") {
            try await library.performChanges { $0.changeRequest(for: asset).contentEditingOutput = output }
        }
        var png = ContentEditingOutput(contentEditingInput: input)
        defer { png.discard() }
        png.adjustmentData = AdjustmentData(recipe: EditRecipe(filters: [.blur(4)]))
        try FileManager.default.copyItem(
            atPath: try Corpus.path("pillow/images/hopper.png"), toPath: png.renderedContentURL.path)
        await #expect(throws: LibraryError.self, "a PNG render") {
            try await library.performChanges { $0.changeRequest(for: asset).contentEditingOutput = png }
        }
        let unchanged = try #require(try await library.asset(withLocalIdentifier: asset.localIdentifier))
        #expect(!unchanged.hasAdjustments && unchanged.resources.count == 1)
        #expect(try await Self.originalsCount(library) == before, "nothing is left in originals/")

        // An edit lands; the output made from the older input is then refused.
        output.adjustmentData = AdjustmentData(recipe: EditRecipe(filters: [.blur(4)]))
        _ = try await library.edit(asset, with: RecipeEditor(adding: [.mono(1)]))
        await #expect(throws: LibraryError.self, "a stale input") {
            try await library.performChanges { $0.changeRequest(for: asset).contentEditingOutput = output }
        }
        let current = try #require(try await library.asset(withLocalIdentifier: asset.localIdentifier))
        #expect(current.adjustmentFormatIdentifier == EditRecipe.formatIdentifier)
        #expect(
            try #require(try await library.requestContentEditingInput(for: current).adjustmentData?.recipe).filters == [
                .mono(1)
            ])
    }

    @Test("An iPhone HEIC turned by its container edits upright, in its displayed size, its render tagged 1")
    func heicEditsUpright() async throws {
        let folder = try TemporaryDirectory()
        let library = try folder.makeLibrary()
        // EXIF Orientation 6, describing the container's irot, which decoders apply.
        let source = try folder.copy(Corpus.path("exiv2/data/2021-02-13-1929.heic"))
        let heic = try #require(
            PairingTests.assets(await library.importItems(at: [URL(fileURLWithPath: source)])).first)
        #expect(heic.pixelWidth == 3024 && heic.pixelHeight == 4032)
        let edited = try await library.edit(heic, with: RecipeEditor(adding: [.exposure(0.2)]))
        #expect(edited.pixelWidth == 3024 && edited.pixelHeight == 4032)
        let render = try await library.fileURL(for: try #require(edited.resource(ofType: .fullSizePhoto))).path
        #expect(try ExifTool.tags(["Orientation", "Model"], of: render) == ["Orientation": "1", "Model": "iPhone XR"])
        // Its pixels are the original's, turned as libvips shows it, a little brighter.
        try VipsTool.run("thumbnail", source, folder.path("original.png"), "96")
        try VipsTool.run("thumbnail", render, folder.path("render.png"), "96")
        let (_, width, height, _) = try ImageComparison.pixels(ofFileAt: folder.path("render.png"))
        #expect(width < height)
        #expect(try VipsTool.average(folder.path("render.png")) > VipsTool.average(folder.path("original.png")))
    }

    @Test("Observers hear an edit as a content change")
    func observedEdit() async throws {
        let (library, asset, _, folder) = try await Self.library()
        defer { withExtendedLifetime(folder) {} }
        let changes = try library.changes()
        let edit = Task { try await library.edit(asset, with: RecipeEditor(adding: [.sepia(0.5)])) }
        var iterator = changes.makeAsyncIterator()
        let change = try #require(await iterator.next())
        _ = try await edit.value
        let details = try #require(change.details(for: asset))
        #expect(details.assetContentChanged)
        #expect(details.objectAfterChanges?.hasAdjustments == true)
    }

    // MARK: - External editors

    /// Writes an executable script into `folder`.
    static func script(_ text: String, named name: String, in folder: TemporaryDirectory) throws -> String {
        let path = folder.path(name)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        guard chmod(path, 0o755) == 0 else { throw LibraryError(.storageFailed, "cannot make \(path) executable") }
        return path
    }

    @Test("An external editor edits through the JSON protocol, and continues its own recipe")
    func externalEditor() async throws {
        let (library, asset, source, folder) = try await Self.library()
        defer { withExtendedLifetime(folder) {} }
        let program = Corpus.packageRoot.appendingPathComponent("examples/editors/negative/negative.sh").path
        let edited = try await library.edit(asset, with: ExternalEditor(program: program, filters: ["strength=1"]))
        #expect(edited.adjustmentFormatIdentifier == "org.lightbox.example.negative")
        let render = try await library.fileURL(for: try #require(edited.resource(ofType: .fullSizePhoto))).path
        // The oracle: libvips' own invert of the original.
        try VipsTool.run("invert", source, folder.path("inverted.jpg[Q=95]"))
        let options = RenderOptions(width: 256, height: 256, quality: 95)
        let ours = try ImageFile.thumbnail(ofFileAt: render, options: options)
        let oracle = try ImageFile.thumbnail(ofFileAt: folder.path("inverted.jpg"), options: options)
        #expect(try ImageComparison.meanAbsoluteDifference(ours, oracle) < 1.5)

        // It can continue its own recipe: it gets the original and the recipe, and the
        // strengths multiply (0.5 of a full negative).
        let editor = ExternalEditor(program: program, filters: ["strength=0.5"])
        let again = try await library.edit(edited, with: editor)
        #expect(again.resource(ofType: .adjustmentBasePhoto) == nil, "no chaining: it continued its recipe")
        let input = try await library.requestContentEditingInput(
            for: again, options: .init(canHandleAdjustmentData: editor.canHandle))
        let recipe =
            try JSONSerialization.jsonObject(with: try #require(input.adjustmentData).data) as? [String: Double]
        #expect(recipe?["strength"] == 0.5)
    }

    @Test("An external editor past its memory or time limit is stopped, and the asset is unchanged")
    func externalEditorLimits() async throws {
        let (library, asset, _, folder) = try await Self.library()
        defer { withExtendedLifetime(folder) {} }
        let hog = try Self.script(
            "#!/usr/bin/env python3\nimport sys\nsys.stdin.read()\nblocks = [bytearray(64 << 20) for _ in range(64)]\nprint('{}')\n",
            named: "hog.py", in: folder)
        // It starts a child of its own, and sleeps on.
        let marker = "301.\(getpid() % 1000)"
        let sleeper = try Self.script(
            "#!/bin/sh\ncat > /dev/null\nsleep \(marker) &\nsleep 30\n", named: "sleeper.sh", in: folder)
        let liar = try Self.script("#!/bin/sh\ncat > /dev/null\necho 'not json'\n", named: "liar.sh", in: folder)
        let before = try await Self.originalsCount(library)

        do {
            _ = try await library.edit(asset, with: ExternalEditor(program: hog, memoryLimit: 128 << 20))
            Issue.record("the memory hog's edit landed")
        } catch let error as LibraryError {
            #expect(error.message.contains("memory") && error.message.contains("128 MiB"), "\(error.message)")
        }
        do {
            _ = try await library.edit(asset, with: ExternalEditor(program: sleeper, timeLimit: 1))
            Issue.record("the sleeper's edit landed")
        } catch let error as LibraryError {
            #expect(error.message.contains("time limit of 1 s"), "\(error.message)")
        }
        // Its child was killed with it.
        #expect(Self.processes(withArgument: marker).isEmpty, "the editor's child outlived it")
        await #expect(throws: LibraryError.self, "an answer that is not JSON") {
            try await library.edit(asset, with: ExternalEditor(program: liar))
        }
        let unchanged = try #require(try await library.asset(withLocalIdentifier: asset.localIdentifier))
        #expect(!unchanged.hasAdjustments && unchanged.resources.map(\.type) == [.photo])
        #expect(try await Self.originalsCount(library) == before)
    }

    @Test(
        "An external editor is confined: it writes nowhere but its folder, all its processes share the limits, none outlives it"
    )
    func externalEditorConfined() async throws {
        let (library, asset, _, folder) = try await Self.library()
        defer { withExtendedLifetime(folder) {} }
        let original = try await library.fileURL(for: try #require(asset.resource(ofType: .photo))).path
        let database = library.url.appendingPathComponent(PhotoLibrary.databaseFilename).path
        // The catalog's file, when it is one (SQLite's).
        func catalogSize() throws -> Int? {
            FileManager.default.fileExists(atPath: database) ? try Self.size(database) : nil
        }
        let (originalHash, databaseSize) = (try Self.sha256(original), try catalogSize())
        let escaped = folder.path("escaped")

        // A vandal: it writes over the original and the catalog, and leaves a file outside.
        let vandal = try Self.script(
            "#!/bin/sh\ncat > /dev/null\nchmod 644 \"$1\"; echo x >> \"$1\"; echo x >> \"$2\"; touch \"$3\"\necho '{}'\n",
            named: "vandal.sh", in: folder)
        await #expect(throws: LibraryError.self) {
            try await library.edit(
                asset, with: ExternalEditor(program: vandal, arguments: [original, database, escaped]))
        }
        #expect(try Self.sha256(original) == originalHash, "the original is untouched")
        #expect(try catalogSize() == databaseSize, "the catalog is untouched")
        #expect(!FileManager.default.fileExists(atPath: escaped), "nothing is written outside the editor's folder")

        // Four children of 200 MB each, under a limit of 512 MiB for them all.
        let forker = try Self.script(
            "#!/usr/bin/env python3\nimport os, sys, time\nsys.stdin.read()\nfor _ in range(4):\n"
                + "    if os.fork() == 0:\n        b = bytearray(200 << 20)\n"
                + "        for i in range(0, len(b), 4096): b[i] = 1\n        time.sleep(30)\n        os._exit(0)\n"
                + "time.sleep(30)\nprint('{}')\n",
            named: "forker.py", in: folder)
        do {
            _ = try await library.edit(
                asset, with: ExternalEditor(program: forker, memoryLimit: 512 << 20, timeLimit: 20))
            Issue.record("the forking editor's edit landed")
        } catch let error as LibraryError {
            #expect(error.message.contains("memory limit of 512 MiB"), "\(error.message)")
        }

        // A child in a session of its own, past the time limit: killed with the rest.
        let marker = "297.\(getpid() % 1000)"
        let escaper = try Self.script(
            "#!/bin/sh\ncat > /dev/null\nsetsid sleep \(marker) &\nsleep 30\n", named: "escaper.sh", in: folder)
        do {
            _ = try await library.edit(asset, with: ExternalEditor(program: escaper, timeLimit: 1))
            Issue.record("the escaper's edit landed")
        } catch let error as LibraryError {
            #expect(error.message.contains("time limit of 1 s"), "\(error.message)")
        }
        #expect(Self.processes(withArgument: marker).isEmpty, "no process of the editor outlives it")

        // Gigabytes on standard output stop at the file limit; a render that is a named pipe is
        // refused, not read forever.
        let flood = try Self.script(
            "#!/bin/sh\ncat > /dev/null\nhead -c 2000000000 /dev/zero\n", named: "flood.sh", in: folder)
        await #expect(throws: LibraryError.self) { try await library.edit(asset, with: ExternalEditor(program: flood)) }
        let piper = try Self.script(
            "#!/usr/bin/env python3\nimport json, os, sys\nrequest = json.load(sys.stdin)\n"
                + "os.mkfifo(request['output']['renderedContent'])\n"
                + "print(json.dumps({'adjustmentData': {'formatIdentifier': 'pipe', 'formatVersion': '1', 'data': ''}}))\n",
            named: "piper.py", in: folder)
        do {
            _ = try await library.edit(asset, with: ExternalEditor(program: piper))
            Issue.record("a named pipe landed as a render")
        } catch let error as LibraryError {
            #expect(error.message.contains("named pipe"), "\(error.message)")
        }
        let unchanged = try #require(try await library.asset(withLocalIdentifier: asset.localIdentifier))
        #expect(!unchanged.hasAdjustments)
    }

    static func size(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? -1
    }

    /// The processes whose command line has `argument`.
    static func processes(withArgument argument: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).filter { name in
            guard name.first?.isNumber == true, let data = FileManager.default.contents(atPath: "/proc/\(name)/cmdline")
            else { return false }
            return data.split(separator: 0).contains { String(decoding: $0, as: UTF8.self) == argument }
        }
    }

    // MARK: - Crashes

    @Test(
        "A process killed while an edit commits leaves the old edit or the new one, whole",
        arguments: ["changes-prepared", "changes-applied", "changes-committed"])
    func killedDuringCommit(point: String) async throws {
        let (library, asset, source, folder) = try await Self.library()
        defer { withExtendedLifetime(folder) {} }
        let originalHash = try Self.sha256(source)
        let old = try await library.edit(asset, with: RecipeEditor(adding: [.exposure(0.5)]))
        let oldRender = try #require(old.resource(ofType: .fullSizePhoto))

        // `lightbox edit` in its own process, stopped at `point` and killed there.
        let said = try CommandLineTests.runKilled(
            ["edit", "--library", library.url.path, asset.localIdentifier, "--filter", "mono=1"], at: point)
        #expect(said.contains("paused at \(point)"), "the edit reached \(point): \(said)")

        // The library opens, and the asset is in one state or the other, whole.
        let reopened = try PhotoLibrary(url: library.url)
        let after = try #require(try await reopened.asset(withLocalIdentifier: asset.localIdentifier))
        let input = try await reopened.requestContentEditingInput(for: after)
        let filters = try #require(input.adjustmentData?.recipe).filters
        if point == "changes-committed" {
            #expect(filters == [.exposure(0.5), .mono(1)], "committed: the new edit")
            #expect(after.resource(ofType: .fullSizePhoto)?.sha256 != oldRender.sha256)
        } else {
            #expect(filters == [.exposure(0.5)], "not committed: the old edit")
            #expect(after.resource(ofType: .fullSizePhoto)?.sha256 == oldRender.sha256)
        }
        #expect(Set(after.resources.map(\.type)) == [.photo, .fullSizePhoto, .adjustmentData])
        for resource in after.resources {
            let path = try await reopened.fileURL(for: resource).path
            #expect(try Self.sha256(path) == resource.sha256, "\(resource.type)'s file is whole")
        }
        let render = try #require(after.resource(ofType: .fullSizePhoto))
        #expect((after.pixelWidth, after.pixelHeight) == (render.pixelWidth, render.pixelHeight))
        #expect(
            try Self.sha256(try await reopened.fileURL(for: try #require(after.resource(ofType: .photo))).path)
                == originalHash)
        // And it edits again.
        let again = try await reopened.edit(after, with: RecipeEditor(adding: [.vignette(0.3)]))
        #expect(again.hasAdjustments)
    }

    static func originalsCount(_ library: PhotoLibrary) async throws -> Int {
        let root = library.url.appendingPathComponent("originals").path
        let enumerator = FileManager.default.enumerator(atPath: root)
        var count = 0
        while let name = enumerator?.nextObject() as? String {
            if !name.hasPrefix(".") && name.contains(".") { count += 1 }
        }
        return count
    }
}
