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
            + (options.allowsUpscaling ? "-up" : "") + "-q\(options.quality)"
            + (options.orientation.map { "-o\($0)" } ?? "")
            + "-v\(renderVersion).\(options.format.filenameExtension)"
    }

    /// Cached files of an asset live in a folder named after it: `derivatives/AB/ABCD...-uuid/`.
    /// Only identifiers the database handed out reach here, never raw user input.
    func path(localIdentifier: String, key: String) -> (folder: String, file: String) {
        let folder = root + "/" + localIdentifier.prefix(2) + "/" + localIdentifier
        return (folder, folder + "/" + key)
    }

    /// A cached file's bytes; nil when absent, or not whole (cut short by a crash: see ``store``).
    func cached(localIdentifier: String, key: String) -> [UInt8]? {
        guard let data = FileManager.default.contents(atPath: path(localIdentifier: localIdentifier, key: key).file)
        else {
            return nil
        }
        let bytes = [UInt8](data)
        return Self.isWhole(bytes) ? bytes : nil
    }

    /// Whether encoded bytes run to their format's end: a JPEG to its end-of-image marker, a
    /// WebP to the length its RIFF header states. A file cut short, or empty, is not whole.
    static func isWhole(_ bytes: [UInt8]) -> Bool {
        let count = bytes.count
        if count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 {
            return bytes[count - 2] == 0xFF && bytes[count - 1] == 0xD9
        }
        if count >= 12, bytes[0..<4].elementsEqual("RIFF".utf8), bytes[8..<12].elementsEqual("WEBP".utf8) {
            let stated = Int(bytes[4]) | Int(bytes[5]) << 8 | Int(bytes[6]) << 16 | Int(bytes[7]) << 24
            return stated + 8 == count
        }
        return false
    }

    /// A cached image with its size, read from the bytes already in memory (no second open,
    /// no decode); nil when absent or not an image.
    func cachedImage(localIdentifier: String, key: String, format: EncodedImageFormat) -> EncodedImage? {
        guard let bytes = cached(localIdentifier: localIdentifier, key: key),
            let size = try? ImageFile.size(ofEncoded: bytes)
        else { return nil }
        return EncodedImage(bytes: bytes, format: format, pixelWidth: size.width, pixelHeight: size.height)
    }

    /// Stores a rendered image, renamed into place but not fsynced: everything here can be
    /// made again, and waiting for the disk twice per photo (the file, then the rename) cost
    /// an import of 12 MP JPEGs a tenth of its speed (docs/BENCHMARKS.md). A crash may lose the
    /// files written last, or leave one empty or short, which ``cached`` takes for a miss.
    func store(_ bytes: [UInt8], localIdentifier: String, key: String) throws {
        let (folder, file) = path(localIdentifier: localIdentifier, key: key)
        try FileIO.makeDirectory(folder)
        try FileIO.writeAtomically(bytes, to: file, syncing: false)
    }

    /// Removes every cached image of one file of an asset (a render an edit replaced).
    func removeImages(localIdentifier: String, contentHash: String) {
        let folder = path(localIdentifier: localIdentifier, key: "").folder
        let prefix = contentHash.prefix(16) + "-"
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        for name in names where name.hasPrefix(prefix) { unlink(folder + "/" + name) }
    }
}

extension ThumbnailOptions {
    /// The square the web grid shows; imports (and edits) render it ahead so the first view is
    /// instant, and the image manager resizes quick images from it.
    public static let grid = ThumbnailOptions(width: 360, height: 360, contentMode: .aspectFill)
    /// The image a detail view shows first; rendered ahead with the grid square from one
    /// decode. 1000 pixels: a 12 MP phone photo (4000 or 4032 wide) decodes straight to it at
    /// a quarter of its size, the JPEG decoder's cheapest scale that is large enough.
    public static let preview = ThumbnailOptions(width: 1000, height: 1000, contentMode: .aspectFit)
}
