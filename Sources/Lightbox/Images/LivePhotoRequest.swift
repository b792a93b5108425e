import Foundation
import LightboxImaging
import LightboxStore

/// A Live Photo as one object (PhotoKit's `PHLivePhoto`): its still at the size asked and its
/// movie, ready to play.
public struct LivePhoto: Sendable {
    /// The still, as the image request made it.
    public var image: EncodedImage
    /// The movie, a file a browser or player plays (the stored one, or an H.264 copy of an
    /// iPhone's HEVC, no larger than asked); nil in the degraded result, which comes before the
    /// movie is ready.
    public var movieURL: URL?
    /// The still's own size, as the asset has it.
    public var pixelWidth: Int
    public var pixelHeight: Int
}

/// One result of ``ImageManager/requestLivePhoto(for:targetSize:contentMode:options:)``.
public struct LivePhotoResult: Sendable {
    /// Nil for a failed or cancelled request.
    public var livePhoto: LivePhoto?
    /// As an image result's: `isDegraded` for the quick one, `error` when it failed.
    public var info: ImageResultInfo
}

extension ImageManager {
    /// Requests an asset's Live Photo (PhotoKit's `requestLivePhoto`): with opportunistic
    /// delivery (the default), a degraded one first (a quick still, no movie) when the final
    /// one is not at hand, then the final one (the still at `targetSize` and the movie, no
    /// larger than the target's long side rounded up to an export preset: a copy is made when
    /// the stored movie is larger, or is HEVC and browsers cannot play it). An asset that is not
    /// a Live Photo gives one result with an error. Ending the loop early cancels the request.
    public func requestLivePhoto(
        for asset: Asset, targetSize: PixelSize, contentMode: ContentMode = .aspectFit,
        options: ImageRequestOptions = ImageRequestOptions()
    ) -> AsyncStream<LivePhotoResult> {
        let (stream, continuation) = AsyncStream.makeStream(of: LivePhotoResult.self, bufferingPolicy: .unbounded)
        let library = self.library
        let images = requestImage(for: asset, targetSize: targetSize, contentMode: contentMode, options: options)
        let task = Task {
            defer { continuation.finish() }
            guard asset.mediaSubtypes.contains(.photoLive), asset.currentMovieResource != nil else {
                images.cancel()
                continuation.yield(
                    LivePhotoResult(
                        livePhoto: nil,
                        info: ImageResultInfo(
                            requestID: images.id, isDegraded: false, isCancelled: false,
                            error: LibraryError(
                                .invalidRequest, "asset \(asset.localIdentifier) is not a Live Photo"),
                            source: nil)))
                return
            }
            for await result in images {
                guard let image = result.image, result.info.error == nil, !result.info.isCancelled else {
                    continuation.yield(LivePhotoResult(livePhoto: nil, info: result.info))
                    return
                }
                var livePhoto = LivePhoto(
                    image: image, movieURL: nil, pixelWidth: asset.pixelWidth, pixelHeight: asset.pixelHeight)
                if result.info.isDegraded {
                    continuation.yield(LivePhotoResult(livePhoto: livePhoto, info: result.info))
                    continue
                }
                do {
                    let side =
                        targetSize == .maximum
                        ? nil : max(targetSize.width, targetSize.height)
                    let movie = try await library.playableMovie(
                        for: asset, current: options.version == .current, maximumSide: side, wait: .seconds(86_400))
                    livePhoto.movieURL =
                        switch movie {
                        case .stored(let resource): try await library.fileURL(for: resource)
                        case .transcoded(let path, _): URL(fileURLWithPath: path)
                        case .preparing, nil: nil
                        }
                    continuation.yield(LivePhotoResult(livePhoto: livePhoto, info: result.info))
                } catch {
                    var info = result.info
                    info.error =
                        error as? LibraryError
                        ?? LibraryError(.unreadableFile, "the Live Photo's movie cannot be read: \(error)")
                    continuation.yield(LivePhotoResult(livePhoto: nil, info: info))
                }
            }
        }
        continuation.onTermination = { termination in
            if case .cancelled = termination {
                images.cancel()
                task.cancel()
            }
        }
        return stream
    }
}
