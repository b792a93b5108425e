import Foundation
import Lightbox
import LightboxImaging
import LightboxTestSupport
import Testing

/// Movie requests (PhotoKit's `requestAVAsset`, `requestExportSession` and `requestLivePhoto`):
/// a movie as stored, at a preset's size or as H.264, and a Live Photo as one object, a quick
/// still first; sizes and codecs as ffprobe reads them.
@Suite("Movie and Live Photo requests")
struct MovieRequestTests {
    /// How long a test waits for a copy: under the whole suite the blocking work queues (a
    /// copy waited past the default 20 s in a fresh-clone run).
    static let wait = Duration.seconds(600)

    @Test("A movie at a size, as H.264, or as stored; the command writes each")
    func sizedMovies() async throws {
        let (library, video, source, folder) = try await MovieEditTests.library()
        // As stored: a phone's H.264 plays as it is.
        guard case .stored(let stored) = try await library.playableMovie(for: video) else {
            Issue.record("the phone's H.264 movie was copied")
            return
        }
        #expect(stored.sha256 == video.resource(ofType: .video)?.sha256)
        // At most 700 px: the 640 preset, its shape kept; the same copy again.
        guard
            case .transcoded(let small, let tag) = try await library.playableMovie(
                for: video, maximumSide: 700, wait: Self.wait)
        else {
            Issue.record("no sized copy")
            return
        }
        let probe = try FFmpeg.probe(small)
        #expect(probe.width == 640 && probe.height == 360 && probe.hasAudio)
        let sourceFrames = try FFmpeg.probe(source).frames
        #expect(probe.frames == sourceFrames)
        #expect(try FFmpeg.videoCodec(small).codec == "h264")
        guard
            case .transcoded(let again, let sameTag) = try await library.playableMovie(
                for: video, maximumSide: 640, wait: Self.wait)
        else {
            Issue.record("no sized copy the second time")
            return
        }
        #expect(again == small && sameTag == tag)
        // Larger than the movie: as stored; transcoded when asked, at its own size.
        guard case .stored = try await library.playableMovie(for: video, maximumSide: 3840) else {
            Issue.record("a movie smaller than asked was copied")
            return
        }
        guard
            case .transcoded(let full, _) = try await library.playableMovie(
                for: video, transcode: true, wait: Self.wait)
        else {
            Issue.record("transcode gave no copy")
            return
        }
        #expect(try FFmpeg.probe(full).width == 1920)

        let out = folder.path("small.mov")
        let run = try CommandLineTests.run([
            "movie", "--library", library.url.path, video.localIdentifier, "--size", "1000", "--out", out,
        ])
        #expect(run.status == 0 && run.stdout.contains("H.264 copy"), "\(run.stderr)")
        #expect(try FFmpeg.probe(out).width == 960)
        let whole = folder.path("whole.mp4")
        let plain = try CommandLineTests.run([
            "movie", "--library", library.url.path, video.localIdentifier, "--out", whole,
        ])
        #expect(plain.status == 0)
        let (written, original) = (
            try Data(contentsOf: URL(fileURLWithPath: whole)), try Data(contentsOf: URL(fileURLWithPath: source))
        )
        #expect(written == original)
    }

    @Test("A Live Photo: a quick still first, then the still at the size and its movie no larger")
    func livePhoto() async throws {
        let (library, live, movie, folder) = try await LivePhotoEditingTests.livePhoto()
        defer { withExtendedLifetime(folder) {} }
        let manager = ImageManager(library: library)
        var results: [LivePhotoResult] = []
        for await result in manager.requestLivePhoto(for: live, targetSize: PixelSize(width: 640, height: 640)) {
            results.append(result)
        }
        try #require(results.count == 2, "\(results.map(\.info.isDegraded))")
        #expect(results[0].info.isDegraded && results[0].livePhoto?.movieURL == nil)
        let final = try #require(results[1].livePhoto)
        #expect(!results[1].info.isDegraded && results[1].info.error == nil)
        #expect(max(final.image.pixelWidth, final.image.pixelHeight) >= 640)
        let moviePath = try #require(final.movieURL).path
        let probe = try FFmpeg.probe(moviePath)
        let sourceFrames = try FFmpeg.probe(movie).frames
        #expect(max(probe.width, probe.height) == 640 && probe.frames == sourceFrames)
        #expect(final.pixelWidth == live.pixelWidth)

        // A photo that is not a Live Photo: one result, an error.
        let photo = try folder.copy(Corpus.path(EditingTests.photo))
        let still = try #require(
            PairingTests.assets(await library.importItems(at: [URL(fileURLWithPath: photo)])).first)
        var refused: [LivePhotoResult] = []
        for await result in manager.requestLivePhoto(for: still, targetSize: PixelSize(width: 640, height: 640)) {
            refused.append(result)
        }
        #expect(refused.count == 1 && refused[0].livePhoto == nil && refused[0].info.error != nil)
    }
}
