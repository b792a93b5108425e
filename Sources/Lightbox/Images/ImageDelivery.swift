import Foundation
import LightboxImaging
import LightboxStore

/// An image for a caller that takes one answer (an HTTP request): what the image manager's
/// stream would end with, as one value, with what a client caches it by.
public struct DeliveredImage: Sendable {
    public var image: EncodedImage
    /// The final image's entity tag (its cache key, quoted); nil for a degraded image, which a
    /// client should not keep.
    public var entityTag: String?
    /// True for a quick image standing in for the final one.
    public var isDegraded: Bool
    /// Where it came from.
    public var source: ImageResultSource?
}

/// The answer to a request for one image.
public enum ImageDelivery: Sendable {
    /// The caller holds the final image already: the entity tag it sent matched.
    case notModified(entityTag: String)
    case delivered(DeliveredImage)
}

extension CachingImageManager {
    /// One image of `asset`, delivered by `options.deliveryMode` for a caller that takes one
    /// answer: the image manager's delivery policy, in one place for every edge.
    ///
    /// - `.highQualityFormat`: the final image, from a cache or rendered.
    /// - `.fastFormat`: a quick image resized from the thumbnails the library stored.
    /// - `.opportunistic`: the final image when a cache holds it, else the quick one now while
    ///   this manager prepares the final one in the background, so that a request a moment
    ///   later is a hit.
    ///
    /// `holds` says whether the caller holds an entity tag already (an HTTP `If-None-Match`):
    /// then the answer is `.notModified`, and nothing is read or rendered. Throws what the
    /// request failed with (``LibraryError``: `.busy` when too many renders wait).
    public func deliverImage(
        for asset: Asset, targetSize: PixelSize, contentMode: ContentMode = .aspectFit,
        options: ImageRequestOptions = ImageRequestOptions(), holds: (String) -> Bool = { _ in false }
    ) async throws -> ImageDelivery {
        let fast = options.deliveryMode == .fastFormat
        let key = try finalImageKey(for: asset, targetSize: targetSize, contentMode: contentMode, options: options)
        if !fast, let tag = key?.entityTag, holds(tag) { return .notModified(entityTag: tag) }
        // A final image a cache holds answers at once, whatever the delivery but fast: no
        // request, no stream (what every grid tile asks, again and again).
        if !fast, let key, let hit = try await cachedImage(for: key) {
            return .delivered(
                DeliveredImage(image: hit.image, entityTag: key.entityTag, isDegraded: false, source: hit.source))
        }
        // Fast, or opportunistic on a miss: the quick image now, and the miss's final is then
        // prepared by the caching manager alone, so that it is rendered once.
        let high = options.deliveryMode == .highQualityFormat
        var oneShot = options
        oneShot.deliveryMode = high ? .highQualityFormat : .fastFormat
        var last: ImageResult?
        for await result in requestImage(for: asset, targetSize: targetSize, contentMode: contentMode, options: oneShot)
        {
            last = result
        }
        guard let last else { throw LibraryError(.storageFailed, "the image request gave no result") }
        if let error = last.info.error { throw error }
        guard let image = last.image else { throw LibraryError(.cancelled, "the image request was cancelled") }
        if options.deliveryMode == .opportunistic {
            startCachingImages(for: [asset], targetSize: targetSize, contentMode: contentMode, options: options)
        }
        return .delivered(
            DeliveredImage(
                image: image, entityTag: high ? key?.entityTag : nil, isDegraded: !high, source: last.info.source))
    }
}
