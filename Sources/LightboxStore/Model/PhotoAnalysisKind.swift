import Foundation

/// A kind of analysis a library's photos get, one row an asset recording which model looked and
/// when (docs/ANALYSIS.md): the text read in them, the things found in them. Each kind has its
/// job, its switch, and its backlog: the photos its model has yet to see. (Faces, older, keep
/// their own record, `assetAnalysis`.)
public enum PhotoAnalysisKind: String, Sendable, Hashable, Codable, CaseIterable {
    case text
    case things
    /// CLIP's embedding of each photo, for content search, where the operator gave the analysis
    /// service a model.
    case clip

    /// The job that does it.
    public var job: JobKind {
        switch self {
        case .text: .text
        case .things: .things
        case .clip: .clip
        }
    }

    /// The kind a job does, nil for a job that is no analysis of photos.
    public init?(job: JobKind) {
        guard let kind = Self.allCases.first(where: { $0.job == job }) else { return nil }
        self = kind
    }

    /// What it is, for a person: "text", "things", "content (CLIP)".
    public var summary: String { self == .clip ? "content (CLIP)" : rawValue }

    /// The table of who looked at each asset, and the tables of what was found.
    var readingTable: String {
        switch self {
        case .text: "assetText"
        case .things: "assetThings"
        case .clip: "assetClip"
        }
    }

    var foundTables: [String] {
        switch self {
        case .text: ["textLine"]
        case .things: ["thingTerm", "thing"]
        case .clip: ["clipEmbedding"]
        }
    }

    /// Its switch in `libraryState`.
    var flag: String { rawValue + "Enabled" }
}
