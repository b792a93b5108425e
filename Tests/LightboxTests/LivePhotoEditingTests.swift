import Foundation
import Lightbox
import LightboxImaging
import LightboxTestSupport
import Synchronization
import Testing

/// Live Photos edited frame by frame: the still and every frame of the movie get the edit; the
/// movie keeps its frames, times, sound and the pair's identifier. The movie is a real phone
/// movie (1920x1080, 41 frames, AAC sound) paired with a real still.
@Suite("Editing Live Photos")
struct LivePhotoEditingTests {
    static let identifier = "4F1B1A43-5D0D-4C6A-9B85-1F2A0E5C3D21"

    static func livePhoto() async throws -> (PhotoLibrary, Asset, movie: String, TemporaryDirectory) {
        let folder = try TemporaryDirectory()
        let library = try folder.makeLibrary()
        let (still, movie) = try PairingTests.livePair(in: folder, identifier: identifier)
        let imported = PairingTests.assets(await library.importItems(at: PairingTests.urls([still, movie])))
        let live = try #require(imported.first { $0.mediaSubtypes.contains(.photoLive) })
        return (library, live, movie, folder)
    }

    /// Frame `index` of the source movie made grey and cropped to the central 80% by libvips,
    /// one operation at a time, as the recipe describes.
    static func referenceFrame(_ index: Int, of movie: String, in folder: TemporaryDirectory) throws -> String {
        try FFmpeg.frame(index, of: movie, to: folder.path("source-\(index).png"))
        let luma = try VipsTool.matrix(
            [[0.2126, 0.7152, 0.0722], [0.2126, 0.7152, 0.0722], [0.2126, 0.7152, 0.0722]], at: folder.path("luma.mat"))
        try VipsTool.run("recomb", folder.path("source-\(index).png"), folder.path("grey.v"), luma)
        try VipsTool.run("linear", "--uchar", "--", folder.path("grey.v"), folder.path("grey8.v"), "1", "0.5")
        // crop=0.1,0.1,0.8,0.8 of 1920x1080: from (192, 108), 1536x864.
        try VipsTool.run(
            "extract_area", folder.path("grey8.v"), folder.path("reference-\(index).v"), "192", "108", "1536", "864")
        return folder.path("reference-\(index).v")
    }

    @Test(
        "A recipe edits the still and every movie frame; the pair keeps its identifier, sound and frames; revert restores both"
    )
    func recipeEditsMovie() async throws {
        let (library, live, movie, folder) = try await Self.livePhoto()
        let edited = try await library.edit(
            live,
            with: RecipeEditor(adding: [.mono(1), .crop(NormalizedRect(x: 0.1, y: 0.1, width: 0.8, height: 0.8))]))
        #expect(edited.mediaSubtypes.contains(.photoLive))
        #expect(edited.resource(ofType: .pairedVideo)?.sha256 == live.resource(ofType: .pairedVideo)?.sha256)
        let editedMovie = try #require(edited.resource(ofType: .fullSizePairedVideo))
        #expect(editedMovie.pixelWidth == 1536 && editedMovie.pixelHeight == 864)
        let moviePath = try await library.fileURL(for: editedMovie).path

        // Every frame is there, with the sound; frames agree with libvips' grey crop of the
        // source's frames, within what H.264 at CRF 18 loses.
        let source = try FFmpeg.probe(movie)
        let probe = try FFmpeg.probe(moviePath)
        #expect(probe.frames == source.frames && probe.frames == 41)
        #expect(probe.width == 1536 && probe.height == 864 && probe.hasAudio)
        for index in [0, 20, 40] {
            let reference = try Self.referenceFrame(index, of: movie, in: folder)
            try FFmpeg.frame(index, of: moviePath, to: folder.path("edited-\(index).png"))
            let difference = try ImageComparison.meanAbsoluteDifference(
                ofFileAt: folder.path("edited-\(index).png"), reference)
            #expect(difference < 2.5, "frame \(index) is \(difference) from libvips' grey crop")
            // The unedited frame, cropped alike, is much further: the edit is really there.
            try VipsTool.run(
                "extract_area", folder.path("source-\(index).png"), folder.path("colour.v"), "192", "108", "1536", "864"
            )
            #expect(
                try ImageComparison.meanAbsoluteDifference(
                    ofFileAt: folder.path("colour.v"), folder.path("edited-\(index).png")) > 3 * difference)
        }

        // The current export is the edited pair, carrying one content identifier.
        let out = try TemporaryDirectory()
        let written = try await library.export(
            localIdentifiers: [edited.localIdentifier], to: out.url, version: .current)
        #expect(written.map(\.resourceType) == [.fullSizePhoto, .fullSizePairedVideo])
        let stillTags = try ExifTool.tags(["MediaGroupUUID"], of: written[0].path)
        let movieTags = try ExifTool.tags(["ContentIdentifier", "ImageWidth"], of: written[1].path)
        #expect(stillTags["MediaGroupUUID"] == Self.identifier && movieTags["ContentIdentifier"] == Self.identifier)
        #expect(movieTags["ImageWidth"] == "1536")

        // A second edit continues the recipe from the original movie; the first edited movie goes.
        let again = try await library.edit(edited, with: RecipeEditor(adding: [.exposure(0.3)]))
        let secondMovie = try #require(again.resource(ofType: .fullSizePairedVideo))
        #expect(secondMovie.sha256 != editedMovie.sha256 && again.resource(ofType: .adjustmentBasePairedVideo) == nil)
        #expect(!FileManager.default.fileExists(atPath: moviePath))
        let secondPath = try await library.fileURL(for: secondMovie).path

        try await library.performChanges { $0.changeRequest(for: again).revertAssetContentToOriginal() }
        let original = try #require(try await library.asset(withLocalIdentifier: live.localIdentifier))
        #expect(!original.hasAdjustments && original.resource(ofType: .fullSizePairedVideo) == nil)
        #expect(original.resource(ofType: .pairedVideo)?.sha256 == live.resource(ofType: .pairedVideo)?.sha256)
        #expect(!FileManager.default.fileExists(atPath: secondPath))
    }

    @Test(
        "The context hands the processor the still and each frame in order; silence, a preview, half the volume"
    )
    func contextLifecycle() async throws {
        let (library, live, movie, folder) = try await Self.livePhoto()
        defer { withExtendedLifetime(folder) {} }
        let input = try await library.requestContentEditingInput(for: live)
        let context = try LivePhotoEditingContext(livePhotoEditingInput: input)
        #expect(abs(context.duration - 1.6) < 0.1)
        let seen = Mutex<[(LivePhotoFrame.FrameType, Double, Double)]>([])
        let sepia = EditRecipe(filters: [.sepia(1)])
        context.frameProcessor = { frame in
            seen.withLock { $0.append((frame.type, frame.time, frame.renderScale)) }
            return try frame.image.applying(sepia)
        }
        context.audioVolume = 0
        let output = ContentEditingOutput(contentEditingInput: input)
        defer { output.discard() }
        try await context.saveLivePhoto(to: output)
        let calls = seen.withLock { $0 }
        let frames = calls.filter { $0.0 == .video }
        #expect(calls.filter { $0.0 == .photo }.count == 1 && calls.first?.2 == 1)
        #expect(frames.count == 41)
        #expect(zip(frames, frames.dropFirst()).allSatisfy { $0.1 < $1.1 }, "frame times increase")
        // A 1920 px frame of a 4032 px still: the recipe's lengths scale by 1920 / 4032.
        #expect(frames.allSatisfy { abs($0.2 - 1920.0 / 4032) < 1e-9 })
        let probe = try FFmpeg.probe(output.renderedLivePhotoMovieURL.path)
        #expect(probe.frames == 41 && !probe.hasAudio, "audioVolume 0 leaves the sound out")
        #expect(
            try ExifTool.tags(["ContentIdentifier"], of: output.renderedLivePhotoMovieURL.path)["ContentIdentifier"]
                == Self.identifier)

        // A small preview to play while editing.
        let preview = try await context.prepareLivePhotoForPlayback(maximumSide: 320)
        defer { try? FileManager.default.removeItem(at: preview.movieURL.deletingLastPathComponent()) }
        let small = try FFmpeg.probe(preview.movieURL.path)
        #expect(max(small.width, small.height) <= 320 && small.frames == 41)
        #expect(max(preview.photo.pixelWidth, preview.photo.pixelHeight) <= 320)

        // Half the volume halves the sound's RMS, by ffmpeg's decoding of both.
        context.audioVolume = 0.5
        let half = ContentEditingOutput(contentEditingInput: input)
        defer { half.discard() }
        try await context.saveLivePhoto(to: half)
        let halved = half.renderedLivePhotoMovieURL.path
        let ratio = try FFmpeg.soundRMS(of: halved) / FFmpeg.soundRMS(of: movie)
        #expect(abs(ratio - 0.5) < 0.02, "RMS ratio \(ratio)")
        #expect(try FFmpeg.probe(halved).frames == 41)
        #expect(abs(try FFmpeg.streamDuration(of: halved, "a") - FFmpeg.streamDuration(of: movie, "a")) < 0.05)
        context.audioVolume = 1.5
        await #expect(throws: LibraryError.self, "a volume past 1 is refused") {
            try await context.saveLivePhoto(to: ContentEditingOutput(contentEditingInput: input))
        }
    }

    @Test("A Live Photo edit refused in its transaction (its input is stale) leaves no file behind")
    func staleEditLeavesNothing() async throws {
        let (library, live, _, folder) = try await Self.livePhoto()
        defer { withExtendedLifetime(folder) {} }
        let input = try await library.requestContentEditingInput(for: live)
        // Another edit lands first: the input no longer shows the asset as it is.
        _ = try await library.edit(live, with: RecipeEditor(adding: [.mono(1)]))
        let context = try LivePhotoEditingContext(livePhotoEditingInput: input)
        let sepia = EditRecipe(filters: [.sepia(1)])
        context.frameProcessor = { try $0.image.applying(sepia) }
        var output = ContentEditingOutput(contentEditingInput: input)
        defer { output.discard() }
        try await context.saveLivePhoto(to: output)
        output.adjustmentData = AdjustmentData(recipe: sepia)
        let originals = library.url.appendingPathComponent("originals").path
        let before = try FileManager.default.subpathsOfDirectory(atPath: originals).sorted()
        await #expect(throws: LibraryError.self) {
            try await library.performChanges { $0.changeRequest(for: live).contentEditingOutput = output }
        }
        #expect(try FileManager.default.subpathsOfDirectory(atPath: originals).sorted() == before)
    }

    @Test("An edited movie on a photo that is not a Live Photo is refused, and nothing is stored")
    func movieOnStillRefused() async throws {
        let (library, asset, _, folder) = try await EditingTests.library()
        defer { withExtendedLifetime(folder) {} }
        let input = try await library.requestContentEditingInput(for: asset)
        var output = ContentEditingOutput(contentEditingInput: input)
        defer { output.discard() }
        try FileManager.default.copyItem(
            atPath: try Corpus.path(PairingTests.movie), toPath: output.renderedLivePhotoMovieURL.path)
        _ = try ImageFile.renderEdit(
            ofFileAt: try #require(input.fullSizeImageURL).path, recipe: EditRecipe(filters: [.mono(1)]),
            toJPEGAt: output.renderedContentURL.path)
        output.adjustmentData = AdjustmentData(recipe: EditRecipe(filters: [.mono(1)]))
        let before = try FileManager.default.subpathsOfDirectory(
            atPath: library.url.appendingPathComponent("originals").path
        ).sorted()
        await #expect(throws: LibraryError.self) {
            try await library.performChanges { $0.changeRequest(for: asset).contentEditingOutput = output }
        }
        let after = try FileManager.default.subpathsOfDirectory(
            atPath: library.url.appendingPathComponent("originals").path
        ).sorted()
        #expect(before == after)
    }
}
