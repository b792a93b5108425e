import Foundation
import LightboxTestSupport
import Testing

@testable import LightboxImaging

/// A movie edited frame by frame through FFmpeg's libraries, against ffmpeg's own frames.
@Suite("Movies edited frame by frame")
struct MovieEditingTests {
    @Test(
        "Frames come upright as ffmpeg shows them, and unchanged frames re-encode close to the source",
        arguments: [0, 90])
    func uprightFrames(rotation: Int) throws {
        let folder = try TemporaryDirectory()
        var movie = try Corpus.path("forensics/original-files/movie1/VID_20191220_170832.mp4")
        if rotation != 0 {
            // The same frames, with a track that says to turn them.
            let rotated = folder.path("rotated.mp4")
            try FFmpeg.run(["-i", movie, "-c", "copy", "-metadata:s:v:0", "rotate=\(rotation)", rotated])
            movie = rotated
        }
        let output = folder.path("edited.mov")
        var sizes: [(Int, Int)] = []
        let result = try ImageFile.editMovie(at: movie, to: output, photoSide: 4032) { frame in
            sizes.append((frame.image.pixelWidth, frame.image.pixelHeight))
            #expect(frame.type == .video && abs(frame.renderScale - 1920.0 / 4032) < 1e-9)
            return frame.image
        }
        let upright = rotation == 90 ? (1080, 1920) : (1920, 1080)
        #expect(result.frames == 41 && sizes.count == 41)
        #expect(sizes.allSatisfy { $0 == upright })
        let probe = try FFmpeg.probe(output)
        #expect((probe.width, probe.height) == upright && probe.frames == 41 && probe.hasAudio)
        for index in [0, 30] {
            try FFmpeg.frame(index, of: movie, to: folder.path("source.png"))
            try FFmpeg.frame(index, of: output, to: folder.path("edited.png"))
            let difference = try ImageComparison.meanAbsoluteDifference(
                ofFileAt: folder.path("source.png"), folder.path("edited.png"))
            #expect(difference < 2, "frame \(index) re-encoded is \(difference) from the source")
        }
    }

    @Test("A processor that throws stops the edit, its error comes back, and no file is left")
    func processorError() throws {
        struct Stop: Error {}
        let folder = try TemporaryDirectory()
        let movie = try Corpus.path("forensics/original-files/movie1/VID_20191220_170832.mp4")
        let output = folder.path("edited.mov")
        var calls = 0
        #expect(throws: Stop.self) {
            try ImageFile.editMovie(at: movie, to: output, photoSide: 1920) { frame in
                calls += 1
                if calls == 5 { throw Stop() }
                return frame.image
            }
        }
        #expect(calls == 5 && !FileManager.default.fileExists(atPath: output))
        // The first 2% of a movie: a clean error naming it, and no file.
        let cut = try folder.truncatedCopy(of: movie, fraction: 0.02, as: "cut.mp4")
        let error = #expect(throws: ImagingError.self) {
            try ImageFile.editMovie(at: cut, to: output, photoSide: 1920) { $0.image }
        }
        #expect(error?.path == cut && !FileManager.default.fileExists(atPath: output))
    }
}
