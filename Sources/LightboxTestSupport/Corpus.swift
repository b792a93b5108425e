import Foundation

/// The real camera and phone files in `.corpus/`, fetched by `scripts/fetch-corpus`.
public enum Corpus {
    /// The package's root folder (where Package.swift is).
    public static let packageRoot: URL = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url }
        }
        return URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    }()

    /// The `.corpus/` folder.
    public static let root = packageRoot.appendingPathComponent(".corpus")

    /// Thrown when a file is missing: the corpus was not fetched.
    public struct Missing: Error, CustomStringConvertible {
        /// The missing file.
        public var path: String

        /// The missing file at `path`.
        public init(path: String) { self.path = path }
        public var description: String { "\(path) is missing: run scripts/fetch-corpus (make test does)" }
    }

    /// The path of a corpus file, e.g. `Corpus.path("lomiri/backgrounds/Dragonfly_by_Bolly.jpg")`.
    public static func path(_ relative: String) throws -> String {
        let path = root.appendingPathComponent(relative).path
        guard FileManager.default.fileExists(atPath: path) else { throw Missing(path: path) }
        return path
    }

    /// Real photos covering the formats and cameras a first import must handle: phones with
    /// GPS and orientation, a DSLR, an iPhone, progressive JPEGs without EXIF, iPhone and
    /// camera HEIC, PNG screenshots, WebP.
    public static let photos: [String] = [
        "forensics/original-files/pic1/IMG_1054.JPG",
        "forensics/original-files/pic1/IMG_20200827_231612.jpg",
        "forensics/original-files/pic2/IMG_20191224_234846.jpg",
        "forensics/original-files/pic2/IMG_20200124_231153.jpg",
        "forensics/original-files/pic2/IMG_20200608_111614.jpg",
        "digikam/body-background.jpg",
        "lomiri/backgrounds/Dragonfly_by_Bolly.jpg",
        "lomiri/backgrounds/Wine_by_Jakkub_Mede.jpg",
        "lomiri/backgrounds/sunset_by_Aitzol_Berasategi.jpg",
        "exiv2/data/exiv2-nikon-d70.jpg",
        "exiv2/data/exiv2-canon-eos-300d.jpg",
        "exiv2/data/2021-02-13-1929.heic",
        "exiv2/data/IMG_3578.heic",
        "libheif/example.heic",
        "gnome-docs/figures/screenshot-tool.png",
        "pillow/images/flower.webp",
        "pillow/images/hopper_orientation_6.webp",
    ]

    /// The files behind `photos`, as paths; throws ``Missing`` when the corpus is not fetched.
    public static func photoPaths() throws -> [String] {
        try photos.map(path)
    }

    /// File name extensions of the images and movies cameras and phones write.
    public static let mediaExtensions: Set<String> = [
        "jpg", "jpeg", "mpo", "heic", "heif", "hif", "avif", "png", "webp", "gif", "tif", "tiff", "dng", "cr2", "cr3",
        "nef", "arw", "orf", "rw2", "pef", "raf", "mov", "mp4",
    ]

    /// Every file under `folder` of the corpus (all of it by default), sorted, whose extension
    /// is in `extensions` (any file when nil). Throws ``Missing`` when the corpus is not fetched.
    public static func files(under folder: String = "", extensions: Set<String>? = mediaExtensions) throws -> [String] {
        let base = folder.isEmpty ? root.path : try path(folder)
        guard FileManager.default.fileExists(atPath: base) else { throw Missing(path: base) }
        var found: [String] = []
        let enumerator = FileManager.default.enumerator(atPath: base)
        while let relative = enumerator?.nextObject() as? String {
            let full = base + "/" + relative
            var isFolder: ObjCBool = false
            guard !relative.split(separator: "/").contains(where: { $0.hasPrefix(".") }),
                FileManager.default.fileExists(atPath: full, isDirectory: &isFolder), !isFolder.boolValue
            else { continue }
            if let extensions, !extensions.contains((relative as NSString).pathExtension.lowercased()) { continue }
            found.append(full)
        }
        return found.sorted()
    }
}
