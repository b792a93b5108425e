import Foundation
import LightboxCapture
import LightboxMetadata
import LightboxStore

extension PhotoLibrary {
    /// Saves a captured photo as a new asset in one `performChanges`: the photo file as its
    /// `.photo` resource and, for a Live Photo, the movie as its `.pairedVideo`, so that it
    /// arrives paired. Date, time zone and camera come from the photo's EXIF block, as for any
    /// import. The movie is moved into the library unless `keepMovie`.
    @discardableResult
    public func saveCapture(_ photo: CapturePhoto, livePhotoMovie: URL? = nil, keepMovie: Bool = false) async throws
        -> Asset
    {
        var identifier = ""
        try await performChanges { changes in
            identifier = Self.addCreation(of: photo, movie: livePhotoMovie, keepMovie: keepMovie, to: changes)
        }
        guard let asset = try await asset(withLocalIdentifier: identifier) else {
            throw LibraryError(.assetNotFound, "the captured photo \(photo.suggestedFilename) was not saved")
        }
        return asset
    }

    /// Saves a burst's photos as one burst in one `performChanges`: they share its identifier
    /// (in their maker notes), and the representative the capture chose is marked `.autoPick`,
    /// so that fetches show it for the burst. Returns the assets in the order taken.
    @discardableResult
    public func saveBurst(_ burst: CapturedBurst) async throws -> [Asset] {
        var identifiers: [String] = []
        try await performChanges { changes in
            identifiers = burst.photos.map { Self.addCreation(of: $0, movie: nil, keepMovie: true, to: changes) }
            if burst.photos.indices.contains(burst.representativeIndex) {
                changes.changeRequest(forAssetWithLocalIdentifier: identifiers[burst.representativeIndex])
                    .burstSelectionTypes = .autoPick
            }
        }
        var assets: [Asset] = []
        for identifier in identifiers {
            if let asset = try await asset(withLocalIdentifier: identifier) { assets.append(asset) }
        }
        return assets
    }

    private static func addCreation(of photo: CapturePhoto, movie: URL?, keepMovie: Bool, to changes: ChangeRequests)
        -> String
    {
        let request = changes.creationRequestForAsset()
        request.addResource(
            with: .photo, data: photo.fileData,
            options: AssetResourceCreationOptions(originalFilename: photo.suggestedFilename))
        if let movie {
            let name = PathString.deletingPathExtension(photo.suggestedFilename) + ".MOV"
            request.addResource(
                with: .pairedVideo, fileURL: movie,
                options: AssetResourceCreationOptions(shouldMoveFile: !keepMovie, originalFilename: name))
        }
        return request.placeholderForCreatedAsset.localIdentifier
    }
}

/// What ``PhotoLibrary/capture(_:events:)`` takes: a photo, a Live Photo or a burst, with which
/// camera, in which format.
public struct CaptureRequest: Sendable {
    public var device: CaptureDevice
    /// A microphone for a Live Photo's sound, when the camera has none.
    public var microphone: CaptureDevice?
    public var format: PhotoFormat
    public var preset: CaptureSession.Preset
    public var live: Bool
    /// A burst of this many photos; nil for one.
    public var burst: Int?

    public init(
        device: CaptureDevice, microphone: CaptureDevice? = nil, format: PhotoFormat = .heic,
        preset: CaptureSession.Preset = .photo, live: Bool = false, burst: Int? = nil
    ) {
        self.device = device
        self.microphone = microphone
        self.format = format
        self.preset = preset
        self.live = live
        self.burst = burst
    }
}

/// What a capture saved: its assets in the order taken and, for a burst, its identifier and
/// representative.
public struct CaptureResult: Sendable {
    public let assets: [Asset]
    public let burstIdentifier: String?
    public let representative: Asset?
}

extension PhotoLibrary {
    /// Runs a session on the request's camera, takes what it asks for and saves it: what
    /// `lightbox capture` and `POST /api/capture` do. A Live Photo waits until the camera has run
    /// the movie's first half; its movie is made in a temporary folder and moved into the
    /// library. `events` hears each step as it happens, one at a time. A capture that fails
    /// throws its ``CaptureError``, and nothing is saved.
    public func capture(
        _ request: CaptureRequest, events: @escaping @Sendable (PhotoCaptureEvent) -> Void = { _ in }
    ) async throws -> CaptureResult {
        let session = CaptureSession(preset: request.preset)
        let output = PhotoOutput()
        output.isLivePhotoCaptureEnabled = request.live
        try session.addInput(request.device)
        if let microphone = request.microphone { try session.addInput(microphone) }
        try session.addOutput(output)
        try session.startRunning()
        defer { session.stopRunning() }
        if let count = request.burst {
            let burst = try await output.captureBurst(
                count: count, settings: PhotoSettings(format: request.format),
                delegate: PhotoCaptureEventHandler(events))
            let assets = try await saveBurst(burst)
            return CaptureResult(
                assets: assets, burstIdentifier: burst.identifier,
                representative: assets.indices.contains(burst.representativeIndex)
                    ? assets[burst.representativeIndex] : nil)
        }
        var settings = PhotoSettings(format: request.format)
        var folder: URL?
        defer { if let folder { try? FileManager.default.removeItem(at: folder) } }
        if request.live {
            let made = FileManager.default.temporaryDirectory.appendingPathComponent(
                "lightbox-capture-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: made, withIntermediateDirectories: false)
            folder = made
            settings.livePhotoMovieFileURL = made.appendingPathComponent("IMG_\(settings.uniqueID).MOV")
            // The movie's first half is what the camera saw before the shutter.
            try await Task.sleep(for: .seconds(PhotoOutput.livePhotoHalfDuration + 0.2))
        }
        var photo: CapturePhoto?
        var movie: URL?
        var failure: CaptureError?
        for await event in try output.capturePhoto(with: settings) {
            events(event)
            switch event {
            case .didFinishProcessingPhoto(.success(let value)): photo = value
            case .didFinishProcessingLivePhotoMovie(.success(let value), _): movie = value.url
            case .didFinishCapture(_, let error): failure = error
            default: break
            }
        }
        if let failure { throw failure }
        guard let photo else { throw CaptureError(.processingFailed, "the capture delivered no photo") }
        let asset = try await saveCapture(photo, livePhotoMovie: movie)
        return CaptureResult(assets: [asset], burstIdentifier: nil, representative: nil)
    }
}
