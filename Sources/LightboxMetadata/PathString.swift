/// A path's or a file name's parts, taken apart on "/" with Swift's own strings.
///
/// Foundation's `NSString` path methods on Linux stop the process on some names (a precondition
/// in its slash fixing: `"//é"`, `"x//é"` and `"é/"` among them, found by the request fuzz
/// target through an upload's name). Names come from outside (uploads, files on disk, a
/// library's records), so Lightbox takes them apart here and never with those methods. The
/// results are `NSString`'s for the paths it does not stop on.
public enum PathString {
    /// The path without the slashes that end it ("/" stays "/").
    static func trimmingTrailingSlashes(_ path: String) -> Substring {
        // Linear in the slashes: `count` on a substring would walk it on every step.
        var trimmed = Substring(path)
        while trimmed.last == "/", trimmed.index(after: trimmed.startIndex) != trimmed.endIndex {
            trimmed = trimmed.dropLast()
        }
        return trimmed
    }

    /// The last component: `"a/b.jpg"` → `"b.jpg"`, `"a/b/"` → `"b"`, `"/"` → `"/"`.
    public static func lastComponent(_ path: String) -> String {
        let trimmed = trimmingTrailingSlashes(path)
        if trimmed == "/" { return "/" }
        guard let slash = trimmed.lastIndex(of: "/") else { return String(trimmed) }
        return String(trimmed[trimmed.index(after: slash)...])
    }

    /// The path without its last component: `"a/b"` → `"a"`, `"/a"` → `"/"`, `"a"` → `""`.
    public static func deletingLastComponent(_ path: String) -> String {
        let trimmed = trimmingTrailingSlashes(path)
        if trimmed == "/" { return "/" }
        guard let slash = trimmed.lastIndex(of: "/") else { return "" }
        var parent = trimmed[..<slash]
        while parent.hasSuffix("/") { parent = parent.dropLast() }
        return parent.isEmpty ? "/" : String(parent)
    }

    /// The last component's extension, without its dot: `"a/b.tar.gz"` → `"gz"`; none for
    /// `".profile"` or `"b."`.
    public static func pathExtension(_ path: String) -> String {
        let name = lastComponent(path)
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return String(name[name.index(after: dot)...])
    }

    /// The path without its last component's extension: `"a/b.jpg"` → `"a/b"`, `"b."` → `"b"`
    /// (runs of slashes are kept, where NSString makes them one).
    public static func deletingPathExtension(_ path: String) -> String {
        let trimmed = String(trimmingTrailingSlashes(path))
        let name = lastComponent(trimmed)
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return trimmed }
        return String(trimmed.dropLast(name.distance(from: dot, to: name.endIndex)))
    }

    /// The last component without its extension: `"a/IMG_0001.JPG"` → `"IMG_0001"`.
    public static func stem(_ path: String) -> String {
        deletingPathExtension(lastComponent(path))
    }

    /// `path` and `component` joined by one slash.
    public static func appending(_ path: String, _ component: String) -> String {
        if path.isEmpty { return component }
        return path.hasSuffix("/") ? path + component : path + "/" + component
    }
}
