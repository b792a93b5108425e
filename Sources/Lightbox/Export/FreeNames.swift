import LightboxMetadata
import LightboxStore

/// The file names given out in one run, compared without case (a case-insensitive file system
/// would put two of them in one file), and a free name for one already given: `NAME-1.EXT`,
/// `NAME-2.EXT`... The search for a name goes on after the number it last gave, so that
/// thousands of files of one name (`IMG_0001.JPG` from several cameras) cost one look each.
/// What `OutputFolder` plans and what a download's archive names.
public struct FreeNames: Sendable {
    private var names: Set<String> = []
    private var nextNumber: [String: Int] = [:]

    public init() {}

    /// Whether `name` was given out.
    public func contains(_ name: String) -> Bool { names.contains(name.lowercased()) }

    /// Gives out `name` as it is.
    public mutating func insert(_ name: String) { names.insert(name.lowercased()) }

    /// `name` when it is not given out yet and `available` takes it, else ``numbered(_:available:)``.
    public mutating func claim(_ name: String, available: (String) -> Bool = { _ in true }) -> String {
        if !contains(name), available(name) {
            insert(name)
            return name
        }
        return numbered(name, available: available)
    }

    /// The first `NAME-N.EXT` not given out that `available` takes (the caller's own test: not
    /// on disk, not an input), given out.
    public mutating func numbered(_ name: String, available: (String) -> Bool = { _ in true }) -> String {
        let base = PathString.deletingPathExtension(name)
        let ext = PathString.pathExtension(name)
        let key = name.lowercased()
        var number = nextNumber[key] ?? 1
        while true {
            let free = "\(base)-\(number)" + (ext.isEmpty ? "" : "." + ext)
            number += 1
            if !contains(free) && available(free) {
                insert(free)
                nextNumber[key] = number
                return free
            }
        }
    }
}
