import Foundation

/// A photo a capture delivered (AVFoundation's `AVCapturePhoto`): the encoded file, ready to
/// save, with its preview and what it was taken with.
public struct CapturePhoto: Sendable {
    public let resolvedSettings: ResolvedPhotoSettings
    /// The device it was taken with.
    public let device: CaptureDevice
    /// The shutter's moment in the session's clock, in seconds since the session started.
    public let timestamp: Double
    /// The shutter's moment on the wall clock, and the time zone written into the photo.
    public let captureDate: Date
    public let timeZone: TimeZone
    /// 1-based place among the capture's photos (a bracket delivers several).
    public let photoCount: Int
    /// The exposure bias of a bracketed photo, in EV.
    public let exposureBias: Double?
    /// The encoded photo: HEIC or JPEG with EXIF, maker note and thumbnail.
    public let fileData: Data
    /// A JPEG of the preview size asked for; nil when none was.
    public let previewJPEG: Data?
    /// How sharp the frame was (the variance of its Laplacian): a burst's representative is its
    /// sharpest photo.
    public let sharpness: Double

    /// The encoded photo, as AVFoundation names it.
    public func fileDataRepresentation() -> Data { fileData }

    /// A file name for it, as a camera would give: "IMG_<id>.HEIC".
    public var suggestedFilename: String {
        "IMG_\(resolvedSettings.uniqueID)"
            + (photoCount > 1 || exposureBias != nil ? "_\(photoCount)" : "") + "."
            + resolvedSettings.format.filenameExtension
    }
}

/// What a photo capture reports, in this order (MODEL.md, Capture): ``willBeginCapture``,
/// ``willCapturePhoto``, ``didCapturePhoto``, ``didFinishProcessingPhoto`` (once per photo),
/// for Live Photos ``didFinishRecordingLivePhotoMovie`` and
/// ``didFinishProcessingLivePhotoMovie``, and last, always, ``didFinishCapture``.
public enum PhotoCaptureEvent: Sendable {
    case willBeginCapture(ResolvedPhotoSettings)
    case willCapturePhoto(ResolvedPhotoSettings)
    case didCapturePhoto(ResolvedPhotoSettings)
    /// A photo, or the error that kept it from being made.
    case didFinishProcessingPhoto(Result<CapturePhoto, CaptureError>)
    /// The movie's last frame was recorded; the file is being written.
    case didFinishRecordingLivePhotoMovie(URL, ResolvedPhotoSettings)
    /// The movie file is written: its duration and the still's moment in it, in seconds.
    case didFinishProcessingLivePhotoMovie(
        Result<LivePhotoMovie, CaptureError>, ResolvedPhotoSettings)
    /// The capture is over; the error says what failed, if anything did.
    case didFinishCapture(ResolvedPhotoSettings, CaptureError?)

    public var name: String {
        switch self {
        case .willBeginCapture: "willBeginCapture"
        case .willCapturePhoto: "willCapturePhoto"
        case .didCapturePhoto: "didCapturePhoto"
        case .didFinishProcessingPhoto: "didFinishProcessingPhoto"
        case .didFinishRecordingLivePhotoMovie: "didFinishRecordingLivePhotoMovie"
        case .didFinishProcessingLivePhotoMovie: "didFinishProcessingLivePhotoToMovieFile"
        case .didFinishCapture: "didFinishCapture"
        }
    }

    /// The error the event reports, if it reports one.
    public var error: CaptureError? {
        switch self {
        case .didFinishProcessingPhoto(.failure(let error)), .didFinishProcessingLivePhotoMovie(.failure(let error), _),
            .didFinishCapture(_, let error?):
            error
        default: nil
        }
    }

    public var resolvedSettings: ResolvedPhotoSettings? {
        switch self {
        case .willBeginCapture(let settings), .willCapturePhoto(let settings), .didCapturePhoto(let settings),
            .didFinishRecordingLivePhotoMovie(_, let settings), .didFinishProcessingLivePhotoMovie(_, let settings),
            .didFinishCapture(let settings, _):
            settings
        case .didFinishProcessingPhoto(let result): try? result.get().resolvedSettings
        }
    }
}

/// A Live Photo's movie as written.
public struct LivePhotoMovie: Sendable, Hashable {
    public let url: URL
    /// Seconds.
    public let duration: Double
    /// When the still was taken, in seconds from the movie's start (also recorded in the movie).
    public let photoDisplayTime: Double
}

/// Hears a capture's events (AVFoundation's `AVCapturePhotoCaptureDelegate`), one at a time, in
/// order, on the output's delegate queue. Implement what you need; the rest do nothing.
public protocol PhotoCaptureDelegate: AnyObject, Sendable {
    func photoOutput(_ output: PhotoOutput, willBeginCaptureFor settings: ResolvedPhotoSettings)
    func photoOutput(_ output: PhotoOutput, willCapturePhotoFor settings: ResolvedPhotoSettings)
    func photoOutput(_ output: PhotoOutput, didCapturePhotoFor settings: ResolvedPhotoSettings)
    func photoOutput(_ output: PhotoOutput, didFinishProcessingPhoto result: Result<CapturePhoto, CaptureError>)
    func photoOutput(
        _ output: PhotoOutput, didFinishRecordingLivePhotoMovieForEventualFileAt url: URL,
        resolvedSettings: ResolvedPhotoSettings)
    func photoOutput(
        _ output: PhotoOutput, didFinishProcessingLivePhotoToMovieFile result: Result<LivePhotoMovie, CaptureError>,
        resolvedSettings: ResolvedPhotoSettings)
    func photoOutput(
        _ output: PhotoOutput, didFinishCaptureFor settings: ResolvedPhotoSettings, error: CaptureError?)
}

extension PhotoCaptureDelegate {
    public func photoOutput(_ output: PhotoOutput, willBeginCaptureFor settings: ResolvedPhotoSettings) {}
    public func photoOutput(_ output: PhotoOutput, willCapturePhotoFor settings: ResolvedPhotoSettings) {}
    public func photoOutput(_ output: PhotoOutput, didCapturePhotoFor settings: ResolvedPhotoSettings) {}
    public func photoOutput(_ output: PhotoOutput, didFinishProcessingPhoto result: Result<CapturePhoto, CaptureError>)
    {}
    public func photoOutput(
        _ output: PhotoOutput, didFinishRecordingLivePhotoMovieForEventualFileAt url: URL,
        resolvedSettings: ResolvedPhotoSettings
    ) {}
    public func photoOutput(
        _ output: PhotoOutput, didFinishProcessingLivePhotoToMovieFile result: Result<LivePhotoMovie, CaptureError>,
        resolvedSettings: ResolvedPhotoSettings
    ) {}
    public func photoOutput(
        _ output: PhotoOutput, didFinishCaptureFor settings: ResolvedPhotoSettings, error: CaptureError?
    ) {}

    /// Hands `event` to the method that hears it.
    func deliver(_ event: PhotoCaptureEvent, from output: PhotoOutput) {
        switch event {
        case .willBeginCapture(let settings): photoOutput(output, willBeginCaptureFor: settings)
        case .willCapturePhoto(let settings): photoOutput(output, willCapturePhotoFor: settings)
        case .didCapturePhoto(let settings): photoOutput(output, didCapturePhotoFor: settings)
        case .didFinishProcessingPhoto(let result): photoOutput(output, didFinishProcessingPhoto: result)
        case .didFinishRecordingLivePhotoMovie(let url, let settings):
            photoOutput(output, didFinishRecordingLivePhotoMovieForEventualFileAt: url, resolvedSettings: settings)
        case .didFinishProcessingLivePhotoMovie(let result, let settings):
            photoOutput(output, didFinishProcessingLivePhotoToMovieFile: result, resolvedSettings: settings)
        case .didFinishCapture(let settings, let error):
            photoOutput(output, didFinishCaptureFor: settings, error: error)
        }
    }
}

/// A delegate that hands each of its methods' calls to one closure as a ``PhotoCaptureEvent``,
/// one at a time, in order: for code that treats every step alike (printing them, logging them).
public final class PhotoCaptureEventHandler: PhotoCaptureDelegate {
    private let handle: @Sendable (PhotoCaptureEvent) -> Void

    public init(_ handle: @escaping @Sendable (PhotoCaptureEvent) -> Void) {
        self.handle = handle
    }

    public func photoOutput(_ output: PhotoOutput, willBeginCaptureFor settings: ResolvedPhotoSettings) {
        handle(.willBeginCapture(settings))
    }
    public func photoOutput(_ output: PhotoOutput, willCapturePhotoFor settings: ResolvedPhotoSettings) {
        handle(.willCapturePhoto(settings))
    }
    public func photoOutput(_ output: PhotoOutput, didCapturePhotoFor settings: ResolvedPhotoSettings) {
        handle(.didCapturePhoto(settings))
    }
    public func photoOutput(_ output: PhotoOutput, didFinishProcessingPhoto result: Result<CapturePhoto, CaptureError>)
    {
        handle(.didFinishProcessingPhoto(result))
    }
    public func photoOutput(
        _ output: PhotoOutput, didFinishRecordingLivePhotoMovieForEventualFileAt url: URL,
        resolvedSettings: ResolvedPhotoSettings
    ) {
        handle(.didFinishRecordingLivePhotoMovie(url, resolvedSettings))
    }
    public func photoOutput(
        _ output: PhotoOutput, didFinishProcessingLivePhotoToMovieFile result: Result<LivePhotoMovie, CaptureError>,
        resolvedSettings: ResolvedPhotoSettings
    ) {
        handle(.didFinishProcessingLivePhotoMovie(result, resolvedSettings))
    }
    public func photoOutput(
        _ output: PhotoOutput, didFinishCaptureFor settings: ResolvedPhotoSettings, error: CaptureError?
    ) {
        handle(.didFinishCapture(settings, error))
    }
}
