import Foundation
import Lightbox
import LightboxImaging
import LightboxTestSupport
import Synchronization
import Testing

/// The host's side of an editor's life (PhotoKit's `PHContentEditingController`): a placeholder
/// image to show while it loads, and a cancel that asks first when work would be lost.
@Suite("Editor lifecycle: placeholder and cancel")
struct EditorLifecycleTests {
    /// Records the placeholder it was started with, then edits as the recipe editor does.
    final class Recorder: ContentEditingController, @unchecked Sendable {
        let placeholder = Mutex<EncodedImage?>(nil)
        let inner = RecipeEditor(adding: [.mono(1)])

        func canHandle(_ adjustmentData: AdjustmentData) -> Bool { inner.canHandle(adjustmentData) }
        func startContentEditing(with input: ContentEditingInput, placeholderImage: EncodedImage?) async throws {
            placeholder.withLock { $0 = placeholderImage }
            try await inner.startContentEditing(with: input, placeholderImage: placeholderImage)
        }
        func finishContentEditing() async throws -> ContentEditingOutput { try await inner.finishContentEditing() }
        func cancelContentEditing() { inner.cancelContentEditing() }
        var shouldShowCancelConfirmation: Bool { inner.shouldShowCancelConfirmation }
    }

    @Test("An editor starts with the asset as it looks now, at preview size")
    func placeholder() async throws {
        let (library, asset, _, folder) = try await EditingTests.library()
        defer { withExtendedLifetime(folder) {} }
        let editor = Recorder()
        #expect(!editor.shouldShowCancelConfirmation, "nothing to lose before it starts")
        let edited = try await library.edit(asset, with: editor)
        let placeholder = try #require(editor.placeholder.withLock { $0 })
        #expect(max(placeholder.pixelWidth, placeholder.pixelHeight) >= 1000)
        // The asset's look: nearer the original's picture than the mono edit's (a 1000 px JPEG
        // made small again differs by a few levels in 255), then, editing again, the edit's.
        let small = RenderOptions(width: 64, height: 64, contentMode: .aspectFill)
        let original = try ImageFile.thumbnail(
            ofFileAt: try await library.fileURL(for: try #require(asset.resource(ofType: .photo))).path, options: small)
        let render = try ImageFile.thumbnail(
            ofFileAt: try await library.fileURL(for: try #require(edited.resource(ofType: .fullSizePhoto))).path,
            options: small)
        let first = try ImageFile.thumbnail(ofEncoded: placeholder.bytes, options: small)
        let (toOriginal, toEdit) = (
            try ImageComparison.meanAbsoluteDifference(first, original),
            try ImageComparison.meanAbsoluteDifference(first, render)
        )
        #expect(toOriginal < 8 && toOriginal * 2 < toEdit, "\(toOriginal) from the original, \(toEdit) from the edit")
        let again = Recorder()
        _ = try await library.edit(edited, with: again)
        let second = try ImageFile.thumbnail(
            ofEncoded: try #require(again.placeholder.withLock { $0 }).bytes, options: small)
        let (secondToEdit, secondToOriginal) = (
            try ImageComparison.meanAbsoluteDifference(second, render),
            try ImageComparison.meanAbsoluteDifference(second, original)
        )
        #expect(secondToEdit < 8 && secondToEdit * 2 < secondToOriginal, "\(secondToEdit), \(secondToOriginal)")
    }

    @Test("An external editor at work asks before a cancel; the cancelled edit stops it and changes nothing")
    func cancelWhileRunning() async throws {
        let (library, asset, _, folder) = try await EditingTests.library()
        defer { withExtendedLifetime(folder) {} }
        // It keeps the placeholder it was given, then works for a long time.
        let sleeper = try EditingTests.script(
            "#!/bin/sh\ncat > \"$TMPDIR/request.json\"\nsleep 60\n", named: "slow.sh", in: folder)
        let editor = ExternalEditor(program: sleeper, timeLimit: 120)
        #expect(!editor.shouldShowCancelConfirmation)
        let task = Task { try await library.edit(asset, with: editor) }
        // Up to five minutes: under the whole suite the input's blocking work queues.
        var waited = 0
        while !editor.shouldShowCancelConfirmation && waited < 6_000 {
            try await Task.sleep(nanoseconds: 50_000_000)
            waited += 1
        }
        try #require(editor.shouldShowCancelConfirmation, "work would be lost while it runs")
        task.cancel()
        let error = await #expect(throws: LibraryError.self) { try await task.value }
        #expect(error?.code == .cancelled, "\(error?.message ?? "")")
        #expect(!editor.shouldShowCancelConfirmation)
        #expect(EditingTests.processes(withArgument: sleeper).isEmpty, "the editor outlived its cancel")
        #expect(try await library.asset(withLocalIdentifier: asset.localIdentifier)?.hasAdjustments == false)
    }

    @Test("lightbox edit: Ctrl-C without a terminal cancels at once, says so, and changes nothing")
    func commandLineInterrupt() async throws {
        let (library, asset, _, folder) = try await EditingTests.library()
        let sleeper = try EditingTests.script(
            "#!/bin/sh\ncat > /dev/null\nsleep 60\n", named: "slow-cli.sh", in: folder)
        let (process, said) = try CommandLineTests.start(
            ["edit", "--library", library.url.path, asset.localIdentifier, "--editor", sleeper],
            until: "Ctrl-C cancels")
        #expect(said.contains("Editing with \(sleeper)"), "\(said)")
        // The editor's run under way (its program started), then Ctrl-C.
        var waited = 0
        // The editor's own process: the command names the script too.
        let editors = { EditingTests.processes(withArgument: sleeper).filter { $0 != "\(process.processIdentifier)" } }
        while editors().isEmpty && waited < 6_000 {
            try await Task.sleep(nanoseconds: 50_000_000)
            waited += 1
        }
        process.interrupt()
        process.waitUntilExit()
        let rest = (process.standardError as? Pipe)?.fileHandleForReading.readDataToEndOfFile() ?? Data()
        #expect(process.terminationStatus == 130, "\(said)\(String(decoding: rest, as: UTF8.self))")
        #expect(editors().isEmpty, "the editor outlived the cancel")
        let reopened = try PhotoLibrary(url: library.url)
        #expect(try await reopened.asset(withLocalIdentifier: asset.localIdentifier)?.hasAdjustments == false)
    }
}
