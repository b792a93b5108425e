/// One key of a fetch's order (PhotoKit's `NSSortDescriptor`).
///
/// Sorts are total: after the descriptors, ties break on the row id, so the same fetch always
/// gives the same order.
public struct FetchSortDescriptor: Sendable, Hashable {
    /// The key, one of the class's ``FetchKeys``.
    public var key: String
    /// Smallest first when true.
    public var ascending: Bool

    /// Sorts by `key`, smallest first unless `ascending` is false.
    public init(key: String, ascending: Bool = true) {
        self.key = key
        self.ascending = ascending
    }

    /// Parses the text form: `"creationDate desc, pixelWidth asc"` (the direction defaults to
    /// ascending; `ascending`/`descending` are accepted too).
    public static func parse(_ text: String) throws -> [FetchSortDescriptor] {
        try text.split(separator: ",").map { part in
            let words = part.split(whereSeparator: \.isWhitespace)
            guard let key = words.first, words.count <= 2 else {
                throw LibraryError(.invalidPredicate, "sort \"\(part)\": expected KEY [asc|desc]")
            }
            let direction = words.count == 2 ? words[1].lowercased() : "asc"
            switch direction {
            case "asc", "ascending": return FetchSortDescriptor(key: String(key), ascending: true)
            case "desc", "descending": return FetchSortDescriptor(key: String(key), ascending: false)
            default:
                throw LibraryError(
                    .invalidPredicate, "sort \"\(part)\": the direction is asc or desc, not \(direction)")
            }
        }
    }
}
