import Foundation
import LightboxImaging

extension PhotoLibrary {
    /// The largest thumbnail side a request may ask for.
    public static let maximumThumbnailSide = 8192

    /// A thumbnail of an asset's current image (its rendered edit, else its photo): served from `derivatives/` when rendered before, else
    /// rendered with libvips (shrink-on-load, upright, sRGB) and cached.
    ///
    /// Runs libvips and file I/O off the caller's executor.
    public func thumbnail(for localIdentifier: String, options: ThumbnailOptions) async throws -> Thumbnail {
        guard (1...Self.maximumThumbnailSide).contains(options.width),
            (1...Self.maximumThumbnailSide).contains(options.height), (1...100).contains(options.quality)
        else {
            throw LibraryError(
                .invalidRequest,
                "thumbnail size must be 1...\(Self.maximumThumbnailSide) pixels a side, quality 1...100")
        }
        guard let asset = try await asset(withLocalIdentifier: localIdentifier) else {
            throw LibraryError(.assetNotFound, "no asset has the identifier \(localIdentifier)")
        }
        guard let photo = asset.currentImageResource else {
            throw LibraryError(.invalidRequest, "asset \(localIdentifier) has no photo or movie to make a thumbnail of")
        }
        let source = try await fileURL(for: photo).path
        let derivatives = self.derivatives
        let options = Self.renderOptions(options, for: asset)
        return try await BlockingWork.run {
            try Self.renderThumbnail(
                localIdentifier: asset.localIdentifier, contentHash: photo.sha256, source: source, options: options,
                derivatives: derivatives)
        }
    }

    /// The entity tag ``thumbnail(for:options:)`` would give, known without rendering, so a
    /// server can answer `If-None-Match` at once. Nil when the asset has no photo.
    public func thumbnailEntityTag(for asset: Asset, options: ThumbnailOptions) -> String? {
        let options = Self.renderOptions(options, for: asset)
        return asset.currentImageResource.map { DerivativeStore.entityTag(contentHash: $0.sha256, options: options) }
    }

    /// The options a thumbnail of `asset` is rendered and cached with: the caller's, in the
    /// orientation a sidecar corrected the photo to when it did (a rendered edit is upright).
    static func renderOptions(_ options: ThumbnailOptions, for asset: Asset) -> ThumbnailOptions {
        var options = options
        options.orientation = asset.currentOrientationOverride
        return options
    }

    /// Renders (or finds in the cache) one thumbnail. Blocking.
    static func renderThumbnail(
        localIdentifier: String, contentHash: String, source: String, options: ThumbnailOptions,
        derivatives: DerivativeStore
    ) throws -> Thumbnail {
        let key = DerivativeStore.key(contentHash: contentHash, options: options)
        let entityTag = DerivativeStore.entityTag(contentHash: contentHash, options: options)
        if let image = derivatives.cachedImage(localIdentifier: localIdentifier, key: key, format: options.format) {
            return Thumbnail(image: image, entityTag: entityTag, wasCached: true)
        }
        let image: EncodedImage
        do {
            image = try ImageFile.thumbnail(ofFileAt: source, options: options)
        } catch {
            throw LibraryError(.corruptFile, error.message, path: source, underlying: error)
        }
        // A cache that cannot be written (disk full) still gives the caller its thumbnail.
        try? derivatives.store(image.bytes, localIdentifier: localIdentifier, key: key)
        return Thumbnail(image: image, entityTag: entityTag, wasCached: false)
    }
}
