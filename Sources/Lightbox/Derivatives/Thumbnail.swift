import LightboxImaging

/// A rendered thumbnail of an asset.
public struct Thumbnail: Sendable, Hashable {
    /// The encoded image.
    public var image: EncodedImage
    /// A strong validator of the bytes: the same asset content rendered the same way gives the
    /// same tag, so HTTP clients can revalidate with `If-None-Match`.
    public var entityTag: String
    /// True when it came from the `derivatives/` cache rather than a fresh render.
    public var wasCached: Bool
}

extension ThumbnailOptions {
    /// The thumbnail the web grid shows; imports render it ahead so the first view is instant.
    public static let grid = ThumbnailOptions(width: 360, height: 360, contentMode: .aspectFill)
    /// The image a detail view shows first; imports render it ahead too, and the grid
    /// thumbnail from it, with one decode of the file. 1000 pixels: a 12 MP phone photo
    /// (4000 or 4032 wide) decodes straight to it at a quarter of its size, the JPEG
    /// decoder's cheapest scale that is large enough (1024 would take half size and a resize).
    public static let preview = ThumbnailOptions(width: 1000, height: 1000, contentMode: .aspectFit)
}
