import CVideo
import Foundation

/// One frame of a Live Photo handed to a frame processor (PhotoKit's `PHLivePhotoFrame`): the
/// still, or one frame of the movie.
public struct LivePhotoFrame: @unchecked Sendable {
    // @unchecked: the image is read-only; a movie frame's pixels live only during the call.
    public enum FrameType: Sendable, Hashable {
        case photo
        case video
    }

    /// The frame, upright and sRGB. A movie frame's pixels are valid only during the call that
    /// receives it: return an image made from it, never keep it.
    public let image: EditableImage
    /// When the frame shows, in seconds from the movie's start (the still's time for the photo).
    public let time: Double
    public let type: FrameType
    /// The frame's size over the full-size photo's: a recipe's lengths in pixels scale by it
    /// (``EditableImage/applying(_:)`` does so).
    public let renderScale: Double

    public init(image: EditableImage, time: Double, type: FrameType, renderScale: Double) {
        self.image = image
        self.time = time
        self.type = type
        self.renderScale = renderScale
    }
}

/// How a movie is re-encoded after its frames are edited.
public struct MovieEditOptions: Sendable {
    /// The sound's volume, 0 to 1: 1 copies the sound unchanged (re-encoded only when trimmed),
    /// 0 leaves it out, a value between scales every sample and encodes it again (AAC).
    public var audioVolume = 1.0
    /// x264's constant rate factor: 18 is visually lossless, lower is larger.
    public var quality = 18
    /// The largest frame decoded, in pixels.
    public var maximumPixels = 64_000_000
    /// When set, frames larger than this on their long side are made smaller before they are
    /// processed (a playback preview).
    public var maximumSide: Int?
    /// The part kept, in seconds from the movie's start: frames shown from `start` until before
    /// `end` (nil: to the end); the sound is cut at the same times. The kept part starts at 0.
    public var start = 0.0
    public var end: Double?

    public init(
        audioVolume: Double = 1, quality: Int = 18, maximumSide: Int? = nil, start: Double = 0, end: Double? = nil
    ) {
        self.audioVolume = audioVolume
        self.quality = quality
        self.maximumSide = maximumSide
        self.start = start
        self.end = end
    }
}

extension ImageFile {
    /// Writes to `outputPath` a QuickTime movie of `inputPath`'s video with every frame passed
    /// through `process`, upright, encoded as H.264 (libx264, through FFmpeg's libraries) with
    /// the frame times, colour description and container metadata (dates, place) of the source,
    /// and its sound unless told otherwise. `photoSide` is the long side of the full-size photo
    /// the movie belongs to, from which each frame's render scale comes. Returns the frames'
    /// size and count. On failure the partial output is removed.
    public static func editMovie(
        at inputPath: String, to outputPath: String, photoSide: Int, options: MovieEditOptions = MovieEditOptions(),
        process: (LivePhotoFrame) throws -> EditableImage
    ) throws -> (width: Int, height: Int, frames: Int) {
        try Vips.ensureStarted()
        return try withoutActuallyEscaping(process) { process in
            let editing = FrameEditing(
                process: process, photoSide: Double(max(1, photoSide)), maximumSide: options.maximumSide)
            let longest = EditFilter.longestMovie
            guard (0...1).contains(options.audioVolume), options.start >= 0, options.start < longest,
                options.end.map({ $0 > options.start && $0 <= longest }) ?? true
            else {
                throw ImagingError(
                    .corrupt,
                    "cannot edit the movie: the volume must be from 0 to 1 and the part kept must end after it starts",
                    path: inputPath)
            }
            let entries = try FileBytes.checkStructure(inputPath)
            let pixels = MovieMemory.framePixels(of: inputPath, atMost: options.maximumPixels)
            var settings = cvideo_edit_options(
                audio_volume: options.audioVolume, quality: Int32(options.quality), max_pixels: pixels,
                start: options.start, end: options.end ?? 0)
            var message = [CChar](repeating: 0, count: 512)
            let context = Unmanaged.passUnretained(editing).toOpaque()
            let status = try MovieMemory.withReservation(
                entries: entries, pixels: pixels, bytesPerPixel: MovieMemory.editBytesPerPixel,
                for: "editing it", path: inputPath
            ) { () throws(ImagingError) in
                cvideo_edit_movie(inputPath, outputPath, &settings, editFrame, context, &message, message.count)
            }
            guard status == CVIDEO_OK else {
                unlink(outputPath)
                if let error = editing.error { throw error }
                let reason = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                let code: ImagingError.Code =
                    switch status {
                    case CVIDEO_UNREADABLE, CVIDEO_NO_VIDEO: .unreadable
                    case CVIDEO_TOO_LARGE: .tooLarge
                    case CVIDEO_UNAVAILABLE: .libraryUnavailable
                    case CVIDEO_WRITE_FAILED: .encodingFailed
                    default: .corrupt
                    }
                throw ImagingError(code, "cannot edit the movie: \(reason)", path: inputPath)
            }
            return (editing.width, editing.height, editing.frames)
        }
    }
}

/// What the C transcoder's frame callback reaches through its context pointer.
private final class FrameEditing {
    let process: (LivePhotoFrame) throws -> EditableImage
    let photoSide: Double
    let maximumSide: Int?
    var error: (any Error)?
    var frames = 0
    var width = 0
    var height = 0

    init(process: @escaping (LivePhotoFrame) throws -> EditableImage, photoSide: Double, maximumSide: Int?) {
        self.process = process
        self.photoSide = photoSide
        self.maximumSide = maximumSide
    }

    /// One frame: wrapped without a copy, turned upright, processed, written to new memory.
    func edit(_ pixels: UnsafePointer<UInt8>, _ width: Int, _ height: Int, _ rotation: Int, _ seconds: Double)
        throws -> (UnsafeMutableRawPointer, Int, Int)
    {
        var image = try Vips.borrowingFrame(pixels, width: width, height: height)
        image = try Vips.rotated(image, degrees: rotation, "turn a movie frame upright")
        if let maximumSide, max(image.width, image.height) > maximumSide {
            let factor = Double(maximumSide) / Double(max(image.width, image.height))
            image = try Vips.resize(
                image, width: max(2, Int((Double(image.width) * factor).rounded())),
                height: max(2, Int((Double(image.height) * factor).rounded())))
        }
        let scale = Double(max(image.width, image.height)) / photoSide
        let frame = LivePhotoFrame(
            image: EditableImage(image: image, scale: scale), time: seconds, type: .video, renderScale: scale)
        let edited = try RecipePipeline.prepare(try process(frame).image)
        // The transcoder frees the pixels with free().
        let (memory, _) = try Vips.computedPixels(edited, "an edited movie frame")
        frames += 1
        (self.width, self.height) = (edited.width, edited.height)
        return (memory, edited.width, edited.height)
    }
}

private let editFrame: cvideo_frame_editor = { context, pixels, width, height, rotation, seconds, out in
    guard let context, let pixels, let out else { return 1 }
    let editing = Unmanaged<FrameEditing>.fromOpaque(context).takeUnretainedValue()
    do {
        let (memory, w, h) = try editing.edit(pixels, Int(width), Int(height), Int(rotation), seconds)
        out.pointee.pixels = memory.assumingMemoryBound(to: UInt8.self)
        out.pointee.width = Int32(w)
        out.pointee.height = Int32(h)
        out.pointee.rotation = 0
        return 0
    } catch {
        editing.error = error
        return 1
    }
}
