import Foundation
import Lightbox
import LightboxTestSupport
import Testing

/// Movies a browser can play: the stored file when its codec is one browsers decode, else an
/// H.264 copy made once and kept (what the web page's viewer asks for).
@Suite("Playable movies: HEVC copied as H.264 for browsers")
struct PlayableMovieTests {
    @Test("An iPhone's HEVC movie and Live Photo get an H.264 copy, made once; an H.264 movie is served as it is")
    func hevcIsCopied() async throws {
        let folder = try TemporaryDirectory()
        let library = try folder.makeLibrary()
        let phoneMovie = try Corpus.path(Corpus.livePhotoMovie)
        let hevc = folder.path("HEVC_0001.MOV")
        try FFmpeg.hevc(phoneMovie, to: hevc)
        #expect(try FFmpeg.videoCodec(hevc).codec == "hevc")
        // A Live Photo whose movie is that HEVC clip, paired by Lightbox's own writers.
        let pair = try Corpus.livePhotoPair(
            in: folder, identifier: UUID().uuidString, name: "IMG_0002", moviePath: hevc)
        let summary = await library.importItems(
            at: [hevc, phoneMovie, pair.still, pair.movie].map(URL.init(fileURLWithPath:)))
        #expect(summary.progress.failed == 0)
        let assets = Array(try library.fetchAssets())
        let movies = assets.filter { $0.mediaType == .video }
        let live = try #require(assets.first { $0.mediaSubtypes.contains(.photoLive) })
        let source = try FFmpeg.probe(hevc)
        for asset in movies + [live] {
            let name = asset.originalMovieResource?.originalFilename ?? ""
            let stored = try await library.fileURL(for: try #require(asset.originalMovieResource)).path
            let isHEVC = try FFmpeg.videoCodec(stored).codec == "hevc"
            // However busy the machine: the copy is waited for, never "preparing".
            let movie = try await library.playableMovie(for: asset, wait: .seconds(900))
            switch movie {
            case .stored(let resource):
                #expect(!isHEVC, "\(name): HEVC served as it is")
                #expect(resource == asset.originalMovieResource)
            case .transcoded(let path, _):
                #expect(isHEVC, "\(name): copied though browsers play it")
                let (codec, seconds) = try FFmpeg.videoCodec(path)
                #expect(codec == "h264", "\(name)")
                let original = try FFmpeg.videoCodec(stored)
                #expect(abs(seconds - original.seconds) <= 1.0 / 25, "\(name): \(seconds) s, not \(original.seconds)")
                let copy = try FFmpeg.probe(path)
                #expect(copy.frames == source.frames && copy.hasAudio == source.hasAudio, "\(name)")
                #expect(max(copy.width, copy.height) <= 1920)
                // Made once: asked again, the same file, untouched.
                let made = try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date
                guard case .transcoded(let again, _) = try await library.playableMovie(for: asset, wait: .seconds(900))
                else {
                    Issue.record("\(name): not the copy the second time")
                    continue
                }
                #expect(again == path)
                #expect(try FileManager.default.attributesOfItem(atPath: again)[.modificationDate] as? Date == made)
            case .preparing, nil:
                Issue.record("\(name): \(String(describing: movie))")
            }
        }
        #expect(movies.count == 2)
    }
}
