import Foundation
import LightboxImaging
import LightboxStore

/// The keys images rendered from an asset are stored under: the photo's content, the size,
/// mode, crop, quality, format and orientation they were made with, and the render version.
enum DerivativeKey {
    /// Bumped whenever the way thumbnails are rendered changes, so old renders are not served.
    static let renderVersion = 1

    /// The key of an image made with `options` from the content with this hash; also its HTTP
    /// entity tag.
    static func make(contentHash: String, options: RenderOptions) -> String {
        let size = options.isMaximumSize ? "full" : "\(options.width)x\(options.height)"
        let crop = options.normalizedCropRect.map { rect in
            "-c" + [rect.x, rect.y, rect.width, rect.height].map { String(format: "%.4f", $0) }.joined(separator: "_")
        }
        return "\(contentHash.prefix(16))-\(size)-\(options.contentMode.rawValue)"
            + (options.resizeMode == .exact ? "" : "-\(options.resizeMode.rawValue)") + (crop ?? "")
            + (options.allowsUpscaling ? "-up" : "") + "-q\(options.quality)"
            + (options.orientation.map { "-o\($0)" } ?? "")
            + "-v\(renderVersion).\(options.format.filenameExtension)"
    }
}

extension RenderOptions {
    /// The square the web grid shows; imports (and edits) render it ahead so the first view is
    /// instant, and the image manager resizes quick images from it.
    public static let grid = RenderOptions(width: 360, height: 360, contentMode: .aspectFill)
    /// The image a detail view shows first; rendered ahead with the grid square from one
    /// decode. 1000 pixels: a 12 MP phone photo (4000 or 4032 wide) decodes straight to it at
    /// a quarter of its size, the JPEG decoder's cheapest scale that is large enough.
    public static let preview = RenderOptions(width: 1000, height: 1000, contentMode: .aspectFit)
}
