import Foundation

/// The files a folder of photos holds, as an import and the `lightbox` commands that take
/// folders walk it.
///
/// ```swift
/// let files = MediaFolder.files(in: "DCIM")   // sorted; no hidden files, no sidecars
/// ```
///
/// Cameras, phones and photo editors write files beside the photos that are not photos: an
/// XMP sidecar (`IMG_0001.xmp`, `IMG_0001.JPG.xmp`), which an import reads with its photo, and
/// the adjustments an iPhone's Photos app saved for an edited photo (`IMG_0001.AAE`, a
/// property list Lightbox does not apply). A walk passes them over instead of reporting each
/// as a file it cannot read: a phone's DCIM folder or an edited Lightroom folder is not a
/// folder of failures. A companion named on its own is not passed over.
public enum MediaFolder {
    /// The lowercased extensions of companion files.
    static let companionExtensions: Set<String> = ["xmp", "aae"]

    /// Whether the file at `path` is, by its name, a companion of photos rather than one.
    public static func isCompanion(_ path: String) -> Bool {
        companionExtensions.contains(PathString.pathExtension(path).lowercased())
    }

    /// What a walk of a folder found.
    public struct Listing: Sendable, Hashable {
        /// The files, sorted: regular files and links to them (and anything else that is not a
        /// folder, for its reader to refuse by name), as `folder` + "/" + their path inside it.
        public var files: [String] = []
        /// Entries whose names are not UTF-8 (a Latin-1 `é` from an old camera or a Windows
        /// share), sorted: a path cannot name them, so they are reported, never passed over in
        /// silence. Each is written with its undecodable bytes as `\xE9`.
        public var unreadableNames: [String] = []
        /// Folders inside that could not be listed (no permission to read them), sorted: what
        /// they hold is reported as unread, not passed over.
        public var unreadableFolders: [String] = []
    }

    /// The deepest folder a walk enters: no photo library nests deeper.
    public static let maximumDepth = 128

    /// The files under `folder`, recursively, sorted: regular files and links to them, as
    /// `folder` + "/" + their path inside it. Hidden files and folders (a name starting with a
    /// dot), companions, and `excluding` and what it holds (a library inside the folder it
    /// imports) are left out, and so are the folders `skipping` answers true for (given their
    /// path as listed). Nil when `folder` cannot be listed.
    public static func files(
        in folder: String, excluding: String? = nil, skipping: (String) -> Bool = { _ in false }
    ) -> [String]? {
        list(folder, excluding: excluding, skipping: skipping)?.files
    }

    /// The walk of ``files(in:excluding:skipping:)``, with the names it could not read.
    public static func list(
        _ folder: String, excluding: String? = nil, skipping: (String) -> Bool = { _ in false }
    ) -> Listing? {
        var status = stat()
        guard stat(folder, &status) == 0, status.st_mode & S_IFMT == S_IFDIR, access(folder, R_OK | X_OK) == 0
        else { return nil }
        let excluded = excluding.map { URL(fileURLWithPath: $0).standardizedFileURL.path }
        let prefix = folder.hasSuffix("/") ? String(folder.dropLast()) : folder
        var listing = Listing()
        var folders: [(path: String, depth: Int)] = [(prefix, 0)]
        var first = true
        while let (path, depth) = folders.popLast() {
            guard let directory = opendir(path.isEmpty ? "/" : path) else {
                if first { return nil }
                listing.unreadableFolders.append(path)
                continue
            }
            first = false
            defer { closedir(directory) }
            while let entry = readdir(directory) {
                let bytes = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
                guard bytes.first != UInt8(ascii: ".") else { continue }  // hidden, and "." and ".."
                guard let name = String(validating: bytes, as: UTF8.self) else {
                    listing.unreadableNames.append(path + "/" + escaped(bytes))
                    continue
                }
                let child = path + "/" + name
                guard lstat(child, &status) == 0 else { continue }
                if status.st_mode & S_IFMT == S_IFDIR {
                    let standardized = URL(fileURLWithPath: child).standardizedFileURL.path
                    guard standardized != excluded, !skipping(child), depth < maximumDepth else { continue }
                    folders.append((child, depth + 1))
                    continue
                }
                if status.st_mode & S_IFMT == S_IFLNK {
                    // A link to a folder is not followed (a link to its parent loops); one to
                    // nothing is no file.
                    guard stat(child, &status) == 0, status.st_mode & S_IFMT != S_IFDIR else { continue }
                }
                guard !isCompanion(child), URL(fileURLWithPath: child).standardizedFileURL.path != excluded else {
                    continue
                }
                listing.files.append(child)
            }
        }
        listing.files.sort()
        listing.unreadableNames.sort()
        listing.unreadableFolders.sort()
        return listing
    }

    /// What an import or a command says of a name in ``Listing/unreadableNames``.
    public static let unreadableNameReason =
        "the name is not UTF-8 (an old camera's or a Windows share's Latin-1, perhaps), so no path can name the file: rename it (convmv -f latin1 -t utf8 -r FOLDER --notest) and import it again"

    /// A name's bytes as text: UTF-8 where they decode, `\xE9` for each byte that does not.
    static func escaped(_ bytes: [UInt8]) -> String {
        var text = ""
        var index = 0
        while index < bytes.count {
            // The longest run that decodes, then one byte that does not.
            var end = bytes.count
            while end > index, String(validating: bytes[index..<end], as: UTF8.self) == nil { end -= 1 }
            text += String(decoding: bytes[index..<end], as: UTF8.self)
            if end < bytes.count {
                text += "\\x" + String(bytes[end], radix: 16, uppercase: true)
            }
            index = end + 1
        }
        return text
    }
}
