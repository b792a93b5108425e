import Crypto
import Foundation
import Lightbox
import LightboxImaging
import LightboxTestSupport
import Testing

/// Movies edited as photos are: a recipe on every frame, a trim, the original kept; checked
/// against ffmpeg's reading of the source and the result (frames, times, sound) and libvips'
/// operations on the source's frames. The movie is a real phone's (1920x1080, 41 frames at
/// 30 per second after a first one, AAC sound, 1.5 s).
@Suite("Editing movies")
struct MovieEditTests {
    static let movie = Corpus.livePhotoMovie
    /// The part kept: frames shown from 0.3 s until before 1.2 s, the source's frames 5 to 31.
    static let trim = (start: 0.3, end: 1.2)
    static let firstKept = 5
    static let keptFrames = 27
    static let frame = 1.0 / 30

    static func library() async throws -> (PhotoLibrary, Asset, source: String, TemporaryDirectory) {
        let folder = try TemporaryDirectory()
        let library = try folder.makeLibrary()
        let clip = try folder.copy(Corpus.path(movie), as: "clip.mp4")
        let video = try #require(PairingTests.assets(await library.importItems(at: [URL(fileURLWithPath: clip)])).first)
        #expect(video.mediaType == .video)
        return (library, video, clip, folder)
    }

    static func sha256(_ path: String) throws -> String {
        SHA256.hash(data: try Data(contentsOf: URL(fileURLWithPath: path))).map { String(format: "%02x", $0) }.joined()
    }

    @Test("A recipe and a trim: frames as libvips makes them, the trimmed length, the sound, the poster; revert")
    func recipeAndTrim() async throws {
        let (library, video, source, folder) = try await Self.library()
        let recipe: [EditFilter] = [
            .mono(1), .crop(NormalizedRect(x: 0.1, y: 0.1, width: 0.8, height: 0.8)),
            .trim(start: Self.trim.start, end: Self.trim.end),
        ]
        let edited = try await library.edit(video, with: RecipeEditor(adding: recipe))
        #expect(edited.hasAdjustments && edited.pixelWidth == 1536 && edited.pixelHeight == 864)
        #expect(edited.resource(ofType: .video)?.sha256 == video.resource(ofType: .video)?.sha256)
        let render = try #require(edited.resource(ofType: .fullSizeVideo))
        let path = try await library.fileURL(for: render).path

        // The trimmed length, within one frame, in the catalog and in the file as ffprobe reads it.
        let kept = Self.trim.end - Self.trim.start
        #expect(abs(edited.duration - kept) <= Self.frame, "duration \(edited.duration)")
        #expect(abs(try FFmpeg.streamDuration(of: path, "v") - kept) <= Self.frame)
        let probe = try FFmpeg.probe(path)
        #expect(probe.frames == Self.keptFrames && probe.width == 1536 && probe.height == 864 && probe.hasAudio)

        // Frames: libvips' grey crop of the source's frame shown at the same time, within what
        // H.264 at CRF 18 loses (a mean of 2.5 levels of 255); the unedited frame is far off.
        for index in [0, 13, Self.keptFrames - 1] {
            let reference = try LivePhotoEditingTests.referenceFrame(index + Self.firstKept, of: source, in: folder)
            try FFmpeg.frame(index, of: path, to: folder.path("edited-\(index).png"))
            let difference = try ImageComparison.meanAbsoluteDifference(
                ofFileAt: folder.path("edited-\(index).png"), reference)
            #expect(difference < 2.5, "frame \(index) is \(difference) from libvips' grey crop")
            let other = try LivePhotoEditingTests.referenceFrame(index, of: source, in: folder)
            #expect(
                try ImageComparison.meanAbsoluteDifference(ofFileAt: folder.path("edited-\(index).png"), other)
                    > difference, "frame \(index) is the one shown at its time, not the untrimmed one")
        }

        // The sound is kept, cut to the same part: its length, and its loudness there.
        #expect(abs(try FFmpeg.streamDuration(of: path, "a") - kept) < 0.03)
        let loudness =
            try FFmpeg.soundRMS(of: path) / FFmpeg.soundRMS(of: source, seconds: Self.trim.start...Self.trim.end)
        #expect(abs(loudness - 1) < 0.05, "RMS ratio \(loudness)")

        // The poster follows the edit: the asset's image is the edited movie's first frame.
        let manager = ImageManager(library: library)
        let image = try #require(
            await manager.requestImage(for: edited, targetSize: PixelSize(width: 256, height: 256)).results().last?
                .image)
        #expect(image.pixelWidth == 256 && image.pixelHeight == 144)
        let poster = try ImageFile.thumbnail(ofFileAt: path, options: RenderOptions(width: 256, height: 256))
        #expect(try ImageComparison.meanAbsoluteDifference(image, poster) < 2)

        // The current version exports as the edited movie, with its sound and the source's
        // dates and place (exiftool reads both).
        let out = try TemporaryDirectory()
        let written = try await library.export(
            localIdentifiers: [edited.localIdentifier], to: out.url, version: .current)
        #expect(written.map(\.resourceType) == [.fullSizeVideo])
        #expect(written.first.map { ($0.path as NSString).lastPathComponent } == "clip.mov")
        let tags = ["CreateDate", "GPSCoordinates"]
        let exported = try ExifTool.tags(tags, of: try #require(written.first).path)
        #expect(exported == (try ExifTool.tags(tags, of: source)) && exported.count == 2)
        #expect(try FFmpeg.probe(try #require(written.first).path).hasAudio)

        // Continued: the next edit starts from the original with the recipe, trim and all.
        let again = try await library.edit(edited, with: RecipeEditor(adding: [.exposure(0.3)]))
        #expect(again.resource(ofType: .adjustmentBaseVideo) == nil)
        #expect(abs(again.duration - kept) <= Self.frame)
        #expect(!FileManager.default.fileExists(atPath: path), "the first render went")

        // Reverted: the original's size and length, and its bytes, as imported.
        try await library.performChanges { $0.changeRequest(for: again).revertAssetContentToOriginal() }
        let reverted = try #require(try await library.asset(withLocalIdentifier: video.localIdentifier))
        #expect(!reverted.hasAdjustments && reverted.resource(ofType: .fullSizeVideo) == nil)
        #expect(reverted.duration == video.duration && reverted.pixelWidth == 1920 && reverted.pixelHeight == 1080)
        let originals = try TemporaryDirectory()
        let original = try await library.export(
            localIdentifiers: [video.localIdentifier], to: originals.url, version: .original)
        #expect(try Self.sha256(try #require(original.first).path) == (try Self.sha256(try Corpus.path(Self.movie))))
    }

    @Test("Trims are refused where they keep nothing, and on a photo")
    func trimsRefused() async throws {
        let (library, video, _, folder) = try await Self.library()
        defer { withExtendedLifetime(folder) {} }
        // The second trim's times are in the first's part: 0.5 s from a part 0.4 s long.
        await #expect(throws: LibraryError.self) {
            try await library.edit(
                video, with: RecipeEditor(adding: [.trim(start: 0.2, end: 0.6), .trim(start: 0.5, end: 0.9)]))
        }
        #expect(throws: ImagingError.self) { try EditRecipe(parsing: ["trim=2,1"]) }
        #expect(throws: ImagingError.self) { try EditRecipe(parsing: ["trim=-1,1"]) }
        // Times no movie has are refused before they reach the C's arithmetic.
        let source = try await library.fileURL(for: try #require(video.resource(ofType: .video))).path
        for options in [MovieEditOptions(start: 1e300), MovieEditOptions(start: 1, end: 1e18)] {
            #expect(throws: ImagingError.self) {
                try ImageFile.editMovie(at: source, to: folder.path("never.mov"), photoSide: 1920, options: options) {
                    $0.image
                }
            }
        }
        #expect(!FileManager.default.fileExists(atPath: folder.path("never.mov")))
        let composed = try #require(try EditRecipe(parsing: ["trim=0.2,0.6", "trim=0.1,0.3"]).keptTime)
        #expect(abs(composed.start - 0.3) < 1e-9 && abs(composed.end - 0.5) < 1e-9)
        let photo = try folder.copy(Corpus.path(EditingTests.photo))
        let imported = try #require(
            PairingTests.assets(await library.importItems(at: [URL(fileURLWithPath: photo)])).first)
        let error = await #expect(throws: LibraryError.self) {
            try await library.edit(imported, with: RecipeEditor(adding: [.trim(start: 0, end: 1)]))
        }
        #expect(error?.message.contains("trim keeps part of a movie") == true)
        #expect(try await library.asset(withLocalIdentifier: video.localIdentifier)?.hasAdjustments == false)
    }
}
