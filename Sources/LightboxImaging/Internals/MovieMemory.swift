import LightboxMetadata

/// What FFmpeg holds while Lightbox reads a movie, reserved from the process's
/// ``MemoryBudget`` before FFmpeg opens the file: the index it builds of every sample the
/// tables list (``MetadataReader/checkStructure(_:)`` counts them) and the frames its decoder
/// keeps, for the frame size the movie's header states. FFmpeg is told that size, so a frame
/// larger than what was reserved is refused before it is allocated.
enum MovieMemory {
    /// FFmpeg's index entry and the tables' own arrays for one sample.
    static let bytesPerIndexEntry = 64
    /// A poster frame: the decoder's reference frames (10-bit 4:2:0 HEVC, two bytes a sample)
    /// and the frame in RGB, with room over what a 4K HEVC movie's was measured to hold
    /// (docs/BENCHMARKS.md, The memory budget).
    static let posterBytesPerPixel = 20
    /// A movie edited frame by frame: the decoder's threads and reference frames, the frame as
    /// RGB, its render and the encoder's pictures.
    static let editBytesPerPixel = 48
    /// The frame size assumed when the header states none: 4K.
    static let unstatedPixels = 3840 * 2160

    /// The pixels a frame of the movie at `path` may have: what its header states, a quarter
    /// more for the rows and columns a codec pads to its blocks, at most `maximum`.
    static func framePixels(of path: String, atMost maximum: Int) -> Int {
        let metadata = try? MetadataReader.read(fileAtPath: path)
        guard let width = metadata?.pixelWidth, let height = metadata?.pixelHeight, width > 0, height > 0,
            width <= 65_536, height <= 65_536
        else { return min(maximum, unstatedPixels) }
        return min(maximum, width * height + width * height / 4)
    }

    /// Runs `body` with the memory for a movie of `entries` index entries and frames of
    /// `pixels` reserved, `bytesPerPixel` a frame pixel; `work` names it in a refusal.
    static func withReservation<T>(
        entries: Int, pixels: Int, bytesPerPixel: Int, for work: String, path: String,
        _ body: () throws(ImagingError) -> T
    ) throws(ImagingError) -> T {
        let (tables, overflowA) = max(0, entries).multipliedReportingOverflow(by: bytesPerIndexEntry)
        let (frames, overflowB) = max(0, pixels).multipliedReportingOverflow(by: bytesPerPixel)
        let (bytes, overflowC) = tables.addingReportingOverflow(frames)
        guard !overflowA, !overflowB, !overflowC else {
            throw ImagingError(.tooLarge, "\(work) would need more memory than can be counted", path: path)
        }
        return try MemoryBudget.shared.withReservation(
            bytes, for: work,
            refused: { ImagingError($0.isCancellation ? .cancelled : .tooLarge, $0.message, path: path) }, body)
    }
}
