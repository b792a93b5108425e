import LightboxImaging
import LightboxStore
import Synchronization

/// An image manager that prepares images ahead (PhotoKit's `PHCachingImageManager`): a grid
/// starts caching the rows about to scroll into view and stops for those that scrolled away,
/// so that requesting them later, with the same size, content mode and options, is a memory
/// cache hit.
///
/// Caching renders at background priority: every request a person is waiting for starts
/// first, and stopping a cache request stops its work.
public final class CachingImageManager: ImageManager, @unchecked Sendable {
    private struct Job {
        let control: ImageRequest.Control
        let task: Task<Void, Never>
    }

    private let jobs = Mutex<[String: Job]>([:])
    private let highQuality = Atomic<Bool>(true)

    /// Whether caching prepares final images (the default). When false, it prepares only the
    /// quick ones resized from the library's thumbnails, which costs far less.
    public var allowsCachingHighQualityImages: Bool {
        get { highQuality.load(ordering: .relaxed) }
        set { highQuality.store(newValue, ordering: .relaxed) }
    }

    /// Starts preparing the images later requests with these parameters will ask for.
    public func startCachingImages(
        for assets: [Asset], targetSize: PixelSize, contentMode: ContentMode = .aspectFit,
        options: ImageRequestOptions = ImageRequestOptions()
    ) {
        guard (try? Self.validate(targetSize, options)) != nil else { return }
        let highQuality = allowsCachingHighQualityImages
        for asset in assets {
            let jobKey = Self.jobKey(asset, targetSize, contentMode, options)
            // Already being prepared: starting it again would throw away the work under way
            // (a grid asking every 50 ms would then never get its image).
            if jobs.withLock({ $0[jobKey].map { !$0.control.isCancelled } ?? false }) { continue }
            let control = ImageRequest.Control(
                id: ImageRequestID(rawValue: 0), continuation: AsyncStream<ImageResult>.makeStream().continuation)
            let task = Task(priority: .background) { [self] in
                // Done: forget the job, unless a newer start for the same image replaced it.
                defer { jobs.withLock { if $0[jobKey]?.control === control { $0[jobKey] = nil } } }
                guard let source = try? self.source(of: asset, version: options.version) else { return }
                let render = Self.renderOptions(targetSize, contentMode, options, orientation: source.orientation)
                let key = DerivativeKey.make(contentHash: source.contentHash, options: render)
                if highQuality {
                    if (try? await cached(key, asset.localIdentifier, render)) != nil { return }
                    _ = try? await renderFinal(
                        asset.localIdentifier, source, render, key: key, priority: .background, control: control,
                        progress: nil)
                } else if memoryCache.image(forKey: Self.quickKey(key)) == nil,
                    let quick = try? await quickImage(asset, source, render, control)
                {
                    memoryCache.insert(quick.image, forKey: Self.quickKey(key))
                }
            }
            let replaced = jobs.withLock { $0.updateValue(Job(control: control, task: task), forKey: jobKey) }
            replaced?.control.cancel()  // a stopped job that had not yet left the table
        }
    }

    /// Stops preparing these images; what is already cached stays.
    public func stopCachingImages(
        for assets: [Asset], targetSize: PixelSize, contentMode: ContentMode = .aspectFit,
        options: ImageRequestOptions = ImageRequestOptions()
    ) {
        let keys = assets.map { Self.jobKey($0, targetSize, contentMode, options) }
        let stopped = jobs.withLock { jobs in keys.compactMap { jobs.removeValue(forKey: $0) } }
        stop(stopped)
    }

    /// Stops preparing every image.
    public func stopCachingImagesForAllAssets() {
        let stopped = jobs.withLock { jobs in
            defer { jobs.removeAll() }
            return Array(jobs.values)
        }
        stop(stopped)
    }

    /// Images being prepared now.
    public var cachingCount: Int { jobs.withLock { $0.count } }

    private func stop(_ stopped: [Job]) {
        for job in stopped {
            job.control.cancel()
            job.task.cancel()
        }
        renderQueue.dropCancelled()
    }

    /// Waits until every image being prepared is ready (or stopped): for tests and tools.
    public func waitForCaching() async {
        while true {
            let tasks = jobs.withLock { $0.values.map(\.task) }
            guard !tasks.isEmpty else { return }
            for task in tasks { await task.value }
        }
    }

    /// A job's key: the asset in its current state (an edit gives another key), and the request.
    static func jobKey(_ asset: Asset, _ size: PixelSize, _ mode: ContentMode, _ options: ImageRequestOptions) -> String
    {
        let state = asset.currentImageResource?.sha256.prefix(16) ?? ""
        return "\(asset.localIdentifier) \(state) \(size.width)x\(size.height) \(mode.rawValue) \(options.hashValue)"
    }
}
