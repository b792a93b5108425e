import Foundation
import LightboxImaging
import LightboxMetadata
import LightboxStore
import Synchronization

/// Images of assets at any size (PhotoKit's `PHImageManager`).
///
/// ```swift
/// let manager = ImageManager(library: library)
/// for await result in manager.requestImage(for: asset, targetSize: PixelSize(width: 600, height: 600)) {
///     show(result.image, degraded: result.info.isDegraded)
/// }
/// ```
///
/// A request is an `AsyncSequence` of results. With the default opportunistic delivery, a
/// request whose final image is not cached first delivers a degraded one, resized from the
/// thumbnails the import keeps (a millisecond or two), then the final one, rendered from the
/// asset's file on one of a few render slots (one per processor). Finals are kept in a
/// memory cache bounded in bytes, and those of 2048 pixels a side or less in the library's
/// `derivatives/` folder, so a later request with the same parameters is a cache hit, in this
/// process or the next.
///
/// Cancelling a request (``cancelImageRequest(_:)``, ``ImageRequest/cancel()``, or ending
/// the loop over it) stops its work: a render waiting for a slot never starts, and one under
/// way stops between two rows of blocks. The sequence then ends with one result that has no
/// image and `isCancelled` set.
public class ImageManager: @unchecked Sendable {
    /// The library whose assets this manager renders.
    public let library: PhotoLibrary
    let memoryCache: MemoryImageCache
    let renderQueue: RenderQueue
    private let nextRequestID = Atomic<Int>(1)
    private let active = Mutex<[Int: ImageRequest.Control]>([:])

    /// The largest side a final image is stored in `derivatives/` at; larger ones (and the full
    /// image) are kept in memory only.
    public static let largestStoredSide = 2048

    /// The largest side a request may ask for, short of ``PixelSize/maximum`` (the full image).
    public static let maximumTargetSide = 8192

    /// A manager for `library`, holding at most `memoryCacheLimit` bytes of encoded images
    /// and rendering at most `concurrentRenders` at a time (one per processor by default),
    /// with at most `waitingRenders` requests waiting for a slot: past that, a request fails
    /// with ``LibraryError/Code-swift.struct/busy``.
    public init(
        library: PhotoLibrary, memoryCacheLimit: Int = 128 << 20,
        concurrentRenders: Int = ProcessInfo.processInfo.activeProcessorCount, waitingRenders: Int = 256
    ) {
        self.library = library
        memoryCache = MemoryImageCache(limit: memoryCacheLimit)
        renderQueue = RenderQueue(width: concurrentRenders, capacity: waitingRenders)
    }

    // MARK: - Requests

    /// Requests an image of `asset` fitting or filling `targetSize` (pixels; ``PixelSize/maximum``
    /// for the full image). `progress` is called with the fraction of the final render done,
    /// from the rendering thread.
    public func requestImage(
        for asset: Asset, targetSize: PixelSize, contentMode: ContentMode = .aspectFit,
        options: ImageRequestOptions = ImageRequestOptions(), progress: (@Sendable (Double) -> Void)? = nil
    ) -> ImageRequest {
        let id = ImageRequestID(rawValue: nextRequestID.add(1, ordering: .relaxed).oldValue)
        let (stream, continuation) = AsyncStream.makeStream(of: ImageResult.self, bufferingPolicy: .unbounded)
        let control = ImageRequest.Control(id: id, continuation: continuation)
        active.withLock { $0[id.rawValue] = control }
        let task = Task { [self] in
            await self.serve(asset, targetSize, contentMode, options, progress, control)
            control.finish()
            _ = active.withLock { $0.removeValue(forKey: id.rawValue) }
        }
        control.attach(task) { [renderQueue] in renderQueue.dropCancelled() }
        continuation.onTermination = { termination in
            if case .cancelled = termination { control.cancel() }
        }
        return ImageRequest(id: id, stream: stream, control: control)
    }

    /// A request's final image, waited for (high-quality delivery, no degraded image): for
    /// callers with nothing to show meanwhile, such as a command writing a file. Throws the
    /// request's error.
    public func finalImage(
        for asset: Asset, targetSize: PixelSize, contentMode: ContentMode = .aspectFit,
        options: ImageRequestOptions = ImageRequestOptions()
    ) async throws -> (image: EncodedImage, source: ImageResultSource) {
        var options = options
        options.deliveryMode = .highQualityFormat
        var last: ImageResult?
        for await result in requestImage(for: asset, targetSize: targetSize, contentMode: contentMode, options: options)
        {
            last = result
        }
        if let error = last?.info.error { throw error }
        guard let image = last?.image, let source = last?.info.source else {
            throw LibraryError(.cancelled, "the image request was cancelled")
        }
        return (image, source)
    }

    /// Cancels a request: its work stops and it delivers nothing more but a last, image-less
    /// result with `isCancelled` set. Cancelling a finished request does nothing.
    public func cancelImageRequest(_ id: ImageRequestID) {
        let control = active.withLock { $0[id.rawValue] }
        control?.cancel()
    }

    /// The photo's bytes as stored, their type and the orientation to show them in (PhotoKit's
    /// `requestImageDataAndOrientation`). The current version is the rendered edit when the
    /// asset has one, else the original; the original version's orientation is the file's own.
    public func requestImageDataAndOrientation(
        for asset: Asset, options: ImageRequestOptions = ImageRequestOptions()
    ) async throws -> ImageData {
        let (resource, orientation) = try await imageDataSource(for: asset, version: options.version)
        let path = try await library.fileURL(for: resource).path
        return try await BlockingWork.run {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw LibraryError(.unreadableFile, "cannot read the asset's photo", path: path)
            }
            return ImageData(
                bytes: [UInt8](data), uniformTypeIdentifier: resource.uniformTypeIdentifier, orientation: orientation)
        }
    }

    /// What ``requestImageDataAndOrientation(for:options:)`` reads, without reading it: the
    /// resource of the version's photo, and the orientation to show it in (a sidecar's
    /// correction, else the file's own, read from its header). For a server that streams the
    /// bytes. A movie has no image data: it is refused.
    public func imageDataSource(for asset: Asset, version: ImageRequestOptions.Version) async throws -> (
        resource: AssetResource, orientation: Int
    ) {
        guard asset.mediaType == .image else {
            throw LibraryError(
                .invalidRequest, "asset \(asset.localIdentifier) is a movie: it has no image data (request its movie)")
        }
        let source = try self.source(of: asset, version: version)
        // The catalog knows it (a render is upright, a correction or the file's own is kept):
        // only an asset of a library whose originals were not read again yet needs the header.
        if source.orientation != nil || source.photo.type == .fullSizePhoto || asset.fileOrientation != nil {
            return (source.photo, asset.orientation(for: version))
        }
        let path = try await library.fileURL(for: source.photo).path
        let own = try await BlockingWork.run {
            (try? MetadataReader.read(fileAtPath: path)).flatMap(AssetMetadata.fileOrientation)
        }
        return (source.photo, own ?? 1)
    }

    /// What names a request's final image: its cache key (the same photo rendered the same
    /// way gives the same bytes) and what the caches need to find it. Made once per request, for
    /// the entity tag and the lookup both.
    public struct FinalImageKey: Sendable {
        let key: String
        let localIdentifier: String
        let render: RenderOptions

        /// The HTTP entity tag of the final image: its cache key, quoted.
        public var entityTag: String { "\"" + key + "\"" }
    }

    /// The key of a request's final image, known without rendering; nil when the asset has no
    /// photo. Throws for a size or options no request may ask for.
    public func finalImageKey(
        for asset: Asset, targetSize: PixelSize, contentMode: ContentMode = .aspectFit,
        options: ImageRequestOptions = ImageRequestOptions()
    ) throws -> FinalImageKey? {
        try Self.validate(targetSize, options)
        guard let source = try? source(of: asset, version: options.version) else { return nil }
        let render = Self.renderOptions(targetSize, contentMode, options, orientation: source.orientation)
        return FinalImageKey(
            key: DerivativeKey.make(contentHash: source.contentHash, options: render),
            localIdentifier: asset.localIdentifier, render: render)
    }

    /// The final image `key` names when a cache holds it; nil on a miss.
    public func cachedImage(for key: FinalImageKey) async throws -> (image: EncodedImage, source: ImageResultSource)? {
        try await cached(key.key, key.localIdentifier, key.render)
    }

    // MARK: - Serving one request

    /// What an asset's image is rendered from: known from the asset alone, so that a cache
    /// hit reads no database; the file's path is looked up only to render.
    struct Source: Sendable {
        var photo: AssetResource
        var contentHash: String
        var uniformTypeIdentifier: String
        /// The orientation to show it in instead of the file's own, if any.
        var orientation: Int?
    }

    func source(of asset: Asset, version: ImageRequestOptions.Version) throws -> Source {
        // Current: an edited asset's render, upright already; else, like the other versions,
        // a photo's photo and a movie's first frame.
        let photo = version == .current ? asset.currentImageResource : asset.imageResource
        guard let photo else {
            throw LibraryError(
                .invalidRequest, "no image of asset \(asset.localIdentifier): it has neither photo nor movie")
        }
        let orientation: Int? =
            switch version {
            case .current: asset.currentOrientationOverride
            case .unadjusted: asset.orientationOverride
            case .original: nil
            }
        return Source(
            photo: photo, contentHash: photo.sha256, uniformTypeIdentifier: photo.uniformTypeIdentifier,
            orientation: orientation)
    }

    /// The render options of a request.
    static func renderOptions(
        _ targetSize: PixelSize, _ contentMode: ContentMode, _ options: ImageRequestOptions, orientation: Int?
    ) -> RenderOptions {
        RenderOptions(
            width: targetSize.width, height: targetSize.height, contentMode: contentMode, format: options.format,
            quality: options.quality, allowsUpscaling: options.allowsUpscaling, orientation: orientation,
            resizeMode: options.resizeMode, normalizedCropRect: options.normalizedCropRect)
    }

    static func validate(_ targetSize: PixelSize, _ options: ImageRequestOptions) throws {
        let sides = 1...maximumTargetSide
        guard targetSize.isMaximum || (sides.contains(targetSize.width) && sides.contains(targetSize.height)) else {
            throw LibraryError(
                .invalidRequest,
                "target size \(targetSize.width)x\(targetSize.height) must be 1...\(sides.upperBound) pixels a side, or the maximum"
            )
        }
        guard (1...100).contains(options.quality) else {
            throw LibraryError(.invalidRequest, "quality \(options.quality) must be 1...100")
        }
        if let crop = options.normalizedCropRect, !crop.isValid {
            throw LibraryError(.invalidRequest, "the crop rectangle \(crop.text) must lie inside the unit square")
        }
    }

    private func serve(
        _ asset: Asset, _ targetSize: PixelSize, _ contentMode: ContentMode, _ options: ImageRequestOptions,
        _ progress: (@Sendable (Double) -> Void)?, _ control: ImageRequest.Control
    ) async {
        do {
            try Self.validate(targetSize, options)
            let source = try self.source(of: asset, version: options.version)
            let render = Self.renderOptions(targetSize, contentMode, options, orientation: source.orientation)
            let key = DerivativeKey.make(contentHash: source.contentHash, options: render)
            if options.deliveryMode != .fastFormat, let found = try await cached(key, asset.localIdentifier, render) {
                control.deliver(found.image, degraded: false, source: found.source)
                return
            }
            var quick: (image: EncodedImage, source: ImageResultSource)?
            if options.deliveryMode != .highQualityFormat {
                quick = memoryCache.image(forKey: Self.quickKey(key)).map { ($0, .thumbnail) }
                if quick == nil { quick = try await quickImage(asset, source, render, control) }
            }
            if let quick {
                control.deliver(quick.image, degraded: options.deliveryMode == .opportunistic, source: quick.source)
                if options.deliveryMode == .fastFormat { return }
            }
            if control.isCancelled { throw CancellationError() }
            // With nothing stored to resize, a fast-format request renders from the file, fast.
            var finalRender = render
            if options.deliveryMode == .fastFormat { finalRender.resizeMode = .fast }
            let final = try await renderFinal(
                asset.localIdentifier, source, finalRender,
                key: DerivativeKey.make(contentHash: source.contentHash, options: finalRender),
                priority: .userInitiated,
                control: control, progress: progress)
            control.deliver(final, degraded: false, source: .rendered)
        } catch {
            control.fail(error)
        }
    }

    /// The final image from the memory cache, or from `derivatives/` (then kept in memory).
    func cached(_ key: String, _ localIdentifier: String, _ render: RenderOptions) async throws
        -> (image: EncodedImage, source: ImageResultSource)?
    {
        if let image = memoryCache.image(forKey: key) { return (image, .memoryCache) }
        guard Self.isStored(render) else { return nil }
        let derivatives = library.derivatives
        let found = try await BlockingWork.run {
            derivatives.cachedImage(localIdentifier: localIdentifier, key: key, format: render.format)
        }
        guard let found else { return nil }
        memoryCache.insert(found, forKey: key)
        return (found, .diskCache)
    }

    /// The memory cache key of a quick image prepared for `key`'s request.
    static func quickKey(_ key: String) -> String { "quick:" + key }

    /// Whether finals of these options are stored in `derivatives/`.
    static func isStored(_ render: RenderOptions) -> Bool {
        !render.isMaximumSize && max(render.width, render.height) <= largestStoredSide
    }

    /// A quick image resized from the thumbnails the import stored (the 1000 px preview, or the
    /// 360 px grid square when the request is a fill that small), fast-resized; nil when the
    /// asset has none that suits.
    func quickImage(
        _ asset: Asset, _ source: Source, _ render: RenderOptions, _ control: ImageRequest.Control
    ) async throws -> (image: EncodedImage, source: ImageResultSource)? {
        let fitsGrid =
            render.contentMode == .aspectFill && render.normalizedCropRect == nil
            && max(render.width, render.height) <= RenderOptions.grid.width
        let candidates: [RenderOptions] = fitsGrid ? [.grid, .preview] : [.preview]
        let derivatives = library.derivatives
        let localIdentifier = asset.localIdentifier
        let hash = source.contentHash
        let stored: EncodedImage? = try await BlockingWork.run {
            for var candidate in candidates {
                candidate.orientation = source.orientation
                let key = DerivativeKey.make(contentHash: hash, options: candidate)
                guard let bytes = derivatives.cached(localIdentifier: localIdentifier, key: key) else { continue }
                var quick = render
                quick.resizeMode = .fast
                quick.orientation = nil
                if control.isCancelled { throw CancellationError() }
                return try? ImageFile.thumbnail(ofEncoded: bytes, options: quick)
            }
            return nil
        }
        if let stored { return (stored, .thumbnail) }
        // Nothing stored (derivatives/ was emptied): the thumbnail the file itself embeds.
        let path = try await library.fileURL(for: source.photo).path
        let embedded: EncodedImage? = try await BlockingWork.run {
            if control.isCancelled { throw CancellationError() }
            return try? ImageFile.embeddedThumbnail(ofFileAt: path, options: render)
        }
        return embedded.map { ($0, .embeddedThumbnail) }
    }

    /// Renders the final image from the asset's file on a render slot, and caches it.
    func renderFinal(
        _ localIdentifier: String, _ source: Source, _ render: RenderOptions, key: String,
        priority: RenderQueue.Priority, control: ImageRequest.Control?, progress: (@Sendable (Double) -> Void)?
    ) async throws -> EncodedImage {
        let monitor = RenderMonitor(isCancelled: { control?.isCancelled ?? false }, progress: progress)
        let path = try await library.fileURL(for: source.photo).path
        let derivatives = library.derivatives
        let stored = Self.isStored(render)
        let image: EncodedImage
        do {
            image = try await renderQueue.run(priority: priority, isCancelled: { control?.isCancelled ?? false }) {
                let image = try ImageFile.thumbnail(ofFileAt: path, options: render, monitor: monitor)
                // A cache that cannot be written (disk full) still gives the caller its image.
                if stored { try? derivatives.store(image.bytes, localIdentifier: localIdentifier, key: key) }
                return image
            }
        } catch let full as RenderQueue.Full {
            throw LibraryError(.busy, "\(full.waiting) images are waiting to be rendered; ask again in a moment")
        } catch let error as ImagingError {
            if error.code == .cancelled { throw CancellationError() }
            let code: LibraryError.Code = error.code == .unreadable ? .unreadableFile : .corruptFile
            throw LibraryError(code, error.message, path: path, underlying: error)
        }
        memoryCache.insert(image, forKey: key)
        return image
    }
}

/// A running image request: an `AsyncSequence` of its results, degraded first when there is
/// one, final last. Ending the loop early cancels the request.
public struct ImageRequest: AsyncSequence, Sendable {
    public typealias Element = ImageResult

    public let id: ImageRequestID
    let stream: AsyncStream<ImageResult>
    let control: Control

    public func makeAsyncIterator() -> AsyncStream<ImageResult>.Iterator { stream.makeAsyncIterator() }

    /// Cancels the request (see ``ImageManager/cancelImageRequest(_:)``).
    public func cancel() { control.cancel() }

    /// The results, collected: for tests and callers that want them all at once.
    public func results() async -> [ImageResult] {
        var all: [ImageResult] = []
        for await result in self { all.append(result) }
        return all
    }

    /// One request's state: its stream's continuation, whether it was cancelled, its task.
    final class Control: Sendable {
        let id: ImageRequestID
        private let continuation: AsyncStream<ImageResult>.Continuation
        private let cancelled = Atomic<Bool>(false)
        private let finished = Atomic<Bool>(false)
        private let task = Mutex<(task: Task<Void, Never>, onCancel: @Sendable () -> Void)?>(nil)

        init(id: ImageRequestID, continuation: AsyncStream<ImageResult>.Continuation) {
            self.id = id
            self.continuation = continuation
        }

        var isCancelled: Bool { cancelled.load(ordering: .relaxed) }

        func attach(_ task: Task<Void, Never>, onCancel: @escaping @Sendable () -> Void) {
            self.task.withLock { $0 = (task, onCancel) }
            if isCancelled { task.cancel() }
        }

        func cancel() {
            guard !cancelled.exchange(true, ordering: .relaxed) else { return }
            let attached = task.withLock { $0 }
            attached?.task.cancel()
            attached?.onCancel()
        }

        func deliver(_ image: EncodedImage, degraded: Bool, source: ImageResultSource) {
            // Nothing more once cancelled: the last result says so.
            guard !isCancelled, !finished.load(ordering: .relaxed) else { return }
            continuation.yield(
                ImageResult(
                    image: image,
                    info: ImageResultInfo(
                        requestID: id, isDegraded: degraded, isCancelled: false, error: nil, source: source)))
        }

        func fail(_ error: any Error) {
            guard !isCancelled else { return }
            let libraryError =
                error as? LibraryError
                ?? LibraryError(.invalidRequest, "the image request failed: \(error)", underlying: error)
            continuation.yield(
                ImageResult(
                    image: nil,
                    info: ImageResultInfo(
                        requestID: id, isDegraded: false, isCancelled: false, error: libraryError, source: nil)))
        }

        func finish() {
            guard !finished.exchange(true, ordering: .relaxed) else { return }
            if isCancelled {
                continuation.yield(
                    ImageResult(
                        image: nil,
                        info: ImageResultInfo(
                            requestID: id, isDegraded: false, isCancelled: true,
                            error: LibraryError(.cancelled, "the image request was cancelled"), source: nil)))
            }
            continuation.finish()
        }
    }
}
