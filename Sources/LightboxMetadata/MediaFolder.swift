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
        companionExtensions.contains((path as NSString).pathExtension.lowercased())
    }

    /// The files under `folder`, recursively, sorted: regular files and links to them, as
    /// `folder` + "/" + their path inside it. Hidden files and folders (a name starting with a
    /// dot), companions, and `excluding` and what it holds (a library inside the folder it
    /// imports) are left out, and so are the folders `skipping` answers true for (given their
    /// path as listed). Nil when `folder` cannot be listed.
    public static func files(
        in folder: String, excluding: String? = nil, skipping: (String) -> Bool = { _ in false }
    ) -> [String]? {
        let manager = FileManager.default
        // Foundation's enumerator lists nothing, rather than failing, for a folder it cannot open.
        var isFolder: ObjCBool = false
        guard manager.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue,
            manager.isReadableFile(atPath: folder), manager.isExecutableFile(atPath: folder),
            let enumerator = manager.enumerator(atPath: folder)
        else { return nil }
        // Where `excluding` lies inside the folder, as the enumerator names it; nil when it
        // lies elsewhere.
        let root = URL(fileURLWithPath: folder).standardizedFileURL.path
        let excluded = excluding.flatMap { path -> String? in
            let standardized = URL(fileURLWithPath: path).standardizedFileURL.path
            let inside = root.hasSuffix("/") ? root : root + "/"
            return standardized.hasPrefix(inside) ? String(standardized.dropFirst(inside.count)) : nil
        }
        let prefix = folder.hasSuffix("/") ? folder : folder + "/"
        var found: [String] = []
        while let relative = enumerator.nextObject() as? String {
            if relative == excluded || (relative as NSString).lastPathComponent.hasPrefix(".") {
                // A folder's contents are not listed; a file is simply left out.
                enumerator.skipDescendants()
                continue
            }
            let path = prefix + relative
            guard manager.fileExists(atPath: path, isDirectory: &isFolder) else { continue }
            if isFolder.boolValue {
                if skipping(path) { enumerator.skipDescendants() }
                continue
            }
            guard !isCompanion(path) else { continue }
            found.append(path)
        }
        return found.sorted()
    }
}
