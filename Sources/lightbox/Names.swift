import Foundation
import Lightbox

/// What a person types for an asset, an album or a folder, turned into its local identifier:
/// the identifier itself, an album's or folder's title (any case), or, as git takes a commit,
/// the first characters of an identifier (four or more) that no other shares.
struct Names {
    let library: PhotoLibrary

    /// The shortest identifier prefix taken, as git's.
    static let shortestPrefix = 4

    /// The asset `text` names: its identifier, or a unique prefix of it. Hidden assets and
    /// every burst frame count; with `includingTrash`, assets in Recently Deleted too.
    func asset(_ text: String, includingTrash: Bool = false) throws -> String {
        if try library.asset(withLocalIdentifier: text) != nil { return text }
        let prefix = text.uppercased()
        guard prefix.count >= Self.shortestPrefix, prefix.allSatisfy({ $0.isHexDigit || $0 == "-" }) else {
            throw CommandError("no asset has the identifier \(text) in \(library.url.path)")
        }
        let options = FetchOptions(
            predicate: try FetchPredicate("localIdentifier BEGINSWITH \"\(prefix)\""), includeHiddenAssets: true,
            includeAllBurstAssets: true, fetchLimit: 6)
        var found = try library.fetchAssets(options: options).map(\.localIdentifier)
        if includingTrash { found += try library.trashedAssetIdentifiers().filter { $0.hasPrefix(prefix) } }
        return try Self.one(of: found, for: text, kind: "asset", listing: "lightbox ls")
    }

    /// The asset in Recently Deleted that `text` names: its identifier, or a unique prefix.
    func trashedAsset(_ text: String) throws -> String {
        let trashed = try library.trashedAssetIdentifiers()
        if let exact = trashed.first(where: { $0.caseInsensitiveCompare(text) == .orderedSame }) { return exact }
        let prefixed =
            text.count >= Self.shortestPrefix ? trashed.filter { $0.uppercased().hasPrefix(text.uppercased()) } : []
        return try Self.one(of: prefixed, for: text, kind: "asset in Recently Deleted", listing: "lightbox trash ls")
    }

    /// The assets `texts` name, in order.
    func assets(_ texts: [String]) throws -> [String] {
        try texts.map { try asset($0) }
    }

    /// The album, smart album or moment `text` names: its identifier, its title (albums and
    /// smart albums) or a unique prefix of an album's identifier. A moment (`moment-...`) is
    /// named by its identifier alone.
    func assetCollection(_ text: String) throws -> String {
        if text.hasPrefix("moment-") { return text }
        var candidates: [(String, String?)] = []
        for type in [AssetCollectionType.album, .smartAlbum] {
            candidates += try library.fetchAssetCollections(with: type).map { ($0.localIdentifier, $0.localizedTitle) }
        }
        return try Self.resolve(text, among: candidates, kind: "album", listing: "lightbox album ls [--smart]")
    }

    /// The person `text` names: their identifier, their name or a unique prefix of their
    /// identifier; hidden people too.
    func person(_ text: String) throws -> String {
        let candidates = try library.fetchPeople(options: FetchOptions(includeHiddenAssets: true)).map {
            ($0.localIdentifier, $0.localizedTitle)
        }
        return try Self.resolve(text, among: candidates, kind: "person", listing: "lightbox people")
    }

    /// The folder `text` names: its identifier, its title or a unique prefix of its identifier.
    func folder(_ text: String) throws -> String {
        let candidates = try library.fetchCollectionLists(with: .folder).map { ($0.localIdentifier, $0.localizedTitle) }
        return try Self.resolve(text, among: candidates, kind: "folder", listing: "lightbox folder ls")
    }

    /// The album or folder `text` names, as the child of a folder.
    func albumOrFolder(_ text: String) throws -> String {
        var candidates = try library.fetchAssetCollections(with: .album).map { ($0.localIdentifier, $0.localizedTitle) }
        candidates += try library.fetchCollectionLists(with: .folder).map { ($0.localIdentifier, $0.localizedTitle) }
        return try Self.resolve(text, among: candidates, kind: "album or folder", listing: "lightbox folder ls")
    }

    /// The candidate `text` names: by identifier, then by title, then by identifier prefix.
    private static func resolve(
        _ text: String, among candidates: [(identifier: String, title: String?)], kind: String, listing: String
    ) throws -> String {
        if let exact = candidates.first(where: { $0.identifier.caseInsensitiveCompare(text) == .orderedSame }) {
            return exact.identifier
        }
        let wanted = text.trimmingCharacters(in: .whitespaces)
        let titled = candidates.filter { ($0.title ?? "").caseInsensitiveCompare(wanted) == .orderedSame }
        if !titled.isEmpty { return try one(of: titled.map(\.identifier), for: text, kind: kind, listing: listing) }
        let prefixed =
            text.count >= shortestPrefix
            ? candidates.filter { $0.identifier.uppercased().hasPrefix(text.uppercased()) }.map(\.identifier) : []
        return try one(of: prefixed, for: text, kind: kind, listing: listing)
    }

    /// The one identifier found, or an error saying there was none or more than one.
    private static func one(of found: [String], for text: String, kind: String, listing: String) throws -> String {
        switch found.count {
        case 1:
            return found[0]
        case 0:
            throw CommandError("no \(kind) is called or identified by \"\(text)\" (\(listing) lists them)")
        default:
            let shown = found.prefix(5).joined(separator: ", ") + (found.count > 5 ? ", ..." : "")
            throw CommandError("\"\(text)\" names more than one \(kind): \(shown); give more of an identifier")
        }
    }
}
