import Foundation
import LightboxImaging

/// The library's `derivatives/` folder: rendered thumbnails, cached by asset, size, content
/// mode, format and render version. Everything here can be deleted and made again.
struct DerivativeStore: Sendable {
    /// Bumped whenever the way thumbnails are rendered changes, so old renders are not served.
    static let renderVersion = 1

    let root: String

    init(root: String) throws {
        self.root = root
        try FileIO.makeDirectory(root)
    }

    /// The cache key of a thumbnail, also used as its HTTP entity tag.
    static func key(contentHash: String, options: ThumbnailOptions) -> String {
        let size = options.isMaximumSize ? "full" : "\(options.width)x\(options.height)"
        let crop = options.normalizedCropRect.map { rect in
            "-c" + [rect.x, rect.y, rect.width, rect.height].map { String(format: "%.4f", $0) }.joined(separator: "_")
        }
        return "\(contentHash.prefix(16))-\(size)-\(options.contentMode.rawValue)"
            + (options.resizeMode == .exact ? "" : "-\(options.resizeMode.rawValue)") + (crop ?? "")
            + (options.allowsUpscaling ? "-up" : "") + "-q\(options.quality)" + (options.orientation.map { "-o\($0)" } ?? "")
            + "-v\(renderVersion).\(options.format.filenameExtension)"
    }

    /// The HTTP entity tag of a thumbnail: its cache key, quoted.
    static func entityTag(contentHash: String, options: ThumbnailOptions) -> String {
        "\"\(key(contentHash: contentHash, options: options))\""
    }

    /// Cached files of an asset live in a folder named after it: `derivatives/AB/ABCD...-uuid/`.
    /// Only identifiers the database handed out reach here, never raw user input.
    func path(localIdentifier: String, key: String) -> (folder: String, file: String) {
        let folder = root + "/" + localIdentifier.prefix(2) + "/" + localIdentifier
        return (folder, folder + "/" + key)
    }

    func cached(localIdentifier: String, key: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path(localIdentifier: localIdentifier, key: key).file).map { [UInt8]($0) }
    }

    /// A cached image with its size, read from the bytes already in memory (no second open,
    /// no decode); nil when absent or not an image.
    func cachedImage(localIdentifier: String, key: String, format: EncodedImageFormat) -> EncodedImage? {
        guard let bytes = cached(localIdentifier: localIdentifier, key: key),
            let size = try? ImageFile.size(ofEncoded: bytes)
        else { return nil }
        return EncodedImage(bytes: bytes, format: format, pixelWidth: size.width, pixelHeight: size.height)
    }

    func store(_ bytes: [UInt8], localIdentifier: String, key: String) throws {
        let (folder, file) = path(localIdentifier: localIdentifier, key: key)
        try FileIO.makeDirectory(folder)
        try FileIO.writeAtomically(bytes, to: file)
    }

    /// Removes every cached image of one file of an asset (a render an edit replaced).
    func removeImages(localIdentifier: String, contentHash: String) {
        let folder = path(localIdentifier: localIdentifier, key: "").folder
        let prefix = contentHash.prefix(16) + "-"
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        for name in names where name.hasPrefix(prefix) { unlink(folder + "/" + name) }
    }
}
