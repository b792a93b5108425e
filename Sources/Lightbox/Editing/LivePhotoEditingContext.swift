import Foundation
import LightboxImaging
import LightboxMetadata
import LightboxStore
import Synchronization

/// Edits a Live Photo frame by frame (PhotoKit's `PHLivePhotoEditingContext`): the still and
/// every frame of its movie go through one ``frameProcessor``, so that the motion shows the
/// same edit as the photo.
///
/// ```swift
/// let context = try LivePhotoEditingContext(livePhotoEditingInput: input)
/// context.frameProcessor = { frame in try frame.image.applying(recipe) }
/// var output = ContentEditingOutput(contentEditingInput: input)
/// try await context.saveLivePhoto(to: output)
/// output.adjustmentData = AdjustmentData(recipe: recipe)
/// ```
///
/// The movie is decoded and re-encoded through FFmpeg's libraries (H.264 by libx264), upright,
/// with the source's frame times, dates, place and sound; the edited movie gets the Live
/// Photo's content identifier, so that the pair stays a pair when exported.
public final class LivePhotoEditingContext: Sendable {
    /// The input this context edits.
    public let input: ContentEditingInput
    /// The movie's duration, in seconds.
    public let duration: Double
    /// When the still was taken, in seconds from the movie's start: what the movie's
    /// `com.apple.quicktime.still-image-time` track says (iPhones and Lightbox's capture write
    /// it), else the middle of the movie, where an iPhone's still is (1.5 s into 3 s).
    public let photoTime: Double

    private struct Settings {
        var frameProcessor: (@Sendable (LivePhotoFrame) throws -> EditableImage)?
        var audioVolume: Float = 1
    }

    private let settings = Mutex(Settings())

    /// A context for `input`, which must be a Live Photo's (it has a movie).
    public init(livePhotoEditingInput input: ContentEditingInput) throws {
        guard let movie = input.livePhotoMovieURL, let still = input.fullSizeImageURL else {
            throw LibraryError(
                .invalidRequest, "asset \(input.assetLocalIdentifier) is not a Live Photo: it has no movie to edit")
        }
        self.input = input
        fullSizeImageURL = still
        let metadata = try? MetadataReader.read(fileAtPath: movie.path)
        let duration = metadata?.quickTime?.duration ?? 0
        self.duration = duration
        photoTime = metadata?.quickTime?.stillImageTime.map { Swift.min(Swift.max($0, 0), duration) } ?? duration / 2
    }

    /// The still's file and the orientation to show it in.
    public let fullSizeImageURL: URL
    public var orientation: Int { input.fullSizeImageOrientation }

    /// Called with the still and with every frame of the movie; returns the edited frame,
    /// upright. Nil leaves the frames as they are.
    public var frameProcessor: (@Sendable (LivePhotoFrame) throws -> EditableImage)? {
        get { settings.withLock { $0.frameProcessor } }
        set { settings.withLock { $0.frameProcessor = newValue } }
    }

    /// The movie's sound volume, from 0 (silent) to 1 (as recorded, copied unchanged); between
    /// them every sample is scaled and the sound encoded again. Outside 0...1 is refused when
    /// saving.
    public var audioVolume: Float {
        get { settings.withLock { $0.audioVolume } }
        set { settings.withLock { $0.audioVolume = newValue } }
    }

    /// A small Live Photo to play while editing: the display-size still and the movie, their
    /// long sides at most `maximumSide`, both through the frame processor. The movie is written
    /// to a temporary file the caller removes.
    public func prepareLivePhotoForPlayback(maximumSide: Int) async throws -> (photo: EncodedImage, movieURL: URL) {
        let (process, volume) = try processing()
        let display = try input.displaySizeImage.resized(maximumSide: maximumSide)
        let time = photoTime
        let photo = try await EditingWork.run {
            let frame = LivePhotoFrame(image: display, time: time, type: .photo, renderScale: display.scale)
            return try process(frame).encoded()
        }
        let folder = ProcessFolder.makeTemporaryFolder("live")
        let movie = folder.appendingPathComponent("preview.mov")
        do {
            try await renderMovie(
                to: movie, options: MovieEditOptions(audioVolume: volume, quality: 23, maximumSide: maximumSide),
                process: process)
        } catch {
            try? FileManager.default.removeItem(at: folder)
            throw error
        }
        return (photo, movie)
    }

    /// Renders the full-size still and movie into `output` (its ``ContentEditingOutput/renderedContentURL``
    /// and ``ContentEditingOutput/renderedLivePhotoMovieURL``). Set its adjustment data and
    /// land it as any edit.
    public func saveLivePhoto(to output: ContentEditingOutput) async throws {
        let (process, volume) = try processing()
        let source = fullSizeImageURL.path
        let orientation = self.orientation
        let time = photoTime
        let destination = output.renderedContentURL.path
        try await EditingWork.run {
            do {
                let photo = try EditableImage(
                    fileAt: source, maximumSide: RenderOptions.maximumSide, orientation: orientation)
                let edited = try process(LivePhotoFrame(image: photo, time: time, type: .photo, renderScale: 1))
                try edited.writeJPEG(to: destination, metadataFrom: source)
            } catch let error as ImagingError {
                throw LibraryError(
                    .corruptFile, "cannot render the Live Photo's still: \(error.message)", path: source,
                    underlying: error)
            }
        }
        try await renderMovie(
            to: output.renderedLivePhotoMovieURL, options: MovieEditOptions(audioVolume: volume), process: process)
    }

    /// The movie with every frame through `process`, at `url`, carrying the Live Photo's
    /// content identifier. Each frame's render scale is its size over the unedited still's
    /// (a recipe's lengths are in the still's pixels, before any crop).
    func renderMovie(
        to url: URL, options: MovieEditOptions, process: @escaping @Sendable (LivePhotoFrame) throws -> EditableImage
    ) async throws {
        guard let movie = input.livePhotoMovieURL else { return }
        let still = fullSizeImageURL.path
        let photoSide = fullSizePhotoSide()
        try await EditingWork.run {
            do {
                _ = try ImageFile.editMovie(
                    at: movie.path, to: url.path, photoSide: photoSide, options: options, process: process)
                try Self.pair(movieAt: url.path, still: still, sourceMovie: movie.path)
            } catch let error as ImagingError {
                try? FileManager.default.removeItem(at: url)
                if error.code == .cancelled { throw LibraryError(.cancelled, "the edit was cancelled") }
                throw LibraryError(
                    .corruptFile, "cannot edit the Live Photo's movie: \(error.message)", path: movie.path,
                    underlying: error)
            } catch {
                try? FileManager.default.removeItem(at: url)
                throw error
            }
        }
    }

    /// Gives an edited movie the Live Photo's content identifier: the still's, else the source
    /// movie's (FFmpeg does not write QuickTime's `mdta` keys, and an external editor may not).
    static func pair(movieAt path: String, still: String, sourceMovie: String) throws {
        let identifier =
            (try? MetadataReader.read(fileAtPath: still))?.exif?.apple?.contentIdentifier
            ?? (try? MetadataReader.read(fileAtPath: sourceMovie))?.quickTime?.contentIdentifier
        guard let identifier else { return }
        let bytes: [UInt8]
        do {
            bytes = try AppleMetadataWriter.movie(
                [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))), contentIdentifier: identifier)
        } catch {
            throw LibraryError(
                .corruptFile, "the edited Live Photo movie cannot carry the pair's identifier: \(error)", path: path)
        }
        try FileIO.writeAtomically(bytes, to: path)
    }

    /// The processor to use (the identity when none is set) and the sound's volume.
    private func processing() throws -> (@Sendable (LivePhotoFrame) throws -> EditableImage, Double) {
        let (processor, volume) = settings.withLock { ($0.frameProcessor, $0.audioVolume) }
        guard volume >= 0 && volume <= 1 else {
            throw LibraryError(.invalidRequest, "audioVolume \(volume) is outside 0...1 (0 silent, 1 as recorded)")
        }
        return (processor ?? { $0.image }, Double(volume))
    }

    /// The long side of the upright full-size still, from its header.
    private func fullSizePhotoSide() -> Int {
        let metadata = try? MetadataReader.read(fileAtPath: fullSizeImageURL.path)
        let side = max(metadata?.pixelWidth ?? 0, metadata?.pixelHeight ?? 0)
        return side > 0 ? side : max(input.displaySizeImage.pixelWidth, input.displaySizeImage.pixelHeight)
    }
}
