import ArgumentParser
import Foundation
import Lightbox

struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Print how a fetch changes with each committed transaction, until interrupted.",
        discussion: """
            One line per transaction that changes the fetch: token, count, hasIncrementalChanges, \
            removedIndexes (in the fetch before), insertedIndexes and changedIndexes (in the fetch \
            after), and moves as [from, to] pairs, applied in that order (RICE).
            """)

    @OptionGroup var libraryOptions: LibraryOptions

    @Option(help: "Only the assets this predicate selects.")
    var predicate: String?

    @Option(help: ArgumentHelp("The order: \"KEY asc|desc, ...\" (default: creationDate desc).", valueName: "S"))
    var sort: String?

    @Option(name: .customLong("in"), help: "Watch the assets of this album.")
    var album: String?

    @Flag(help: "Print one JSON line per transaction (RICE: removed, inserted, changed indexes, moves).")
    var json = false

    func run() async throws {
        let library = try libraryOptions.open()
        var options = FetchOptions()
        do {
            options.predicate = try predicate.map { try FetchPredicate($0) }
            options.sortDescriptors =
                try sort.map { try FetchSortDescriptor.parse($0) }
                ?? (album == nil ? [FetchSortDescriptor(key: "creationDate", ascending: false)] : [])
            var result =
                try album.map {
                    try library.fetchAssets(
                        inCollectionWithLocalIdentifier: try Names(library: library).assetCollection($0),
                        options: options)
                }
                ?? library.fetchAssets(options: options)
            let changes = try library.changes()
            Output.message(
                "watching \(result.count) assets from token \(try library.currentChangeToken()) (Ctrl-C stops)")
            for await change in changes {
                guard let details = change.details(for: result) else { continue }
                if json {
                    Output.jsonLine(WatchLine(token: change.changeToken, details: details))
                } else {
                    Output.line(Self.text(token: change.changeToken, details: details))
                }
                result = details.fetchResultAfterChanges
            }
        } catch let error as LibraryError {
            throw CommandError(error.message)
        }
    }
}

extension WatchCommand {
    /// A transaction's changes to the fetch for a person: what was removed, inserted and
    /// changed, by identifier, and how many moved. For example:
    /// `token 42: inserted 6A1B2C3D, 7E8F9A0B; changed 1C2D3E4F; 12 assets`.
    static func text(token: PersistentChangeToken, details: FetchResultChangeDetails<Asset>) -> String {
        guard details.hasIncrementalChanges else {
            return "token \(token): changed too much to list; \(details.fetchResultAfterChanges.count) assets"
        }
        func names(_ assets: [Asset]) -> String {
            let shown = assets.prefix(10).map { String($0.localIdentifier.prefix(8)) }.joined(separator: ", ")
            return assets.count > 10 ? shown + " and \(assets.count - 10) more" : shown
        }
        var parts: [String] = []
        for (verb, assets) in [
            ("removed", details.removedObjects), ("inserted", details.insertedObjects),
            ("changed", details.changedObjects),
        ] where !assets.isEmpty {
            parts.append("\(verb) \(names(assets))")
        }
        if details.hasMoves { parts.append("\(details.moves.count) moved") }
        let count = details.fetchResultAfterChanges.count
        return "token \(token): " + parts.joined(separator: "; ") + "; \(count) asset\(count == 1 ? "" : "s")"
    }
}

/// One line of `lightbox watch --json`.
struct WatchLine: Encodable {
    var token: PersistentChangeToken
    var count: Int
    var hasIncrementalChanges: Bool
    var removedIndexes: [Int]
    var insertedIndexes: [Int]
    var changedIndexes: [Int]
    var moves: [[Int]]

    init(token: PersistentChangeToken, details: FetchResultChangeDetails<Asset>) {
        self.token = token
        count = details.fetchResultAfterChanges.count
        hasIncrementalChanges = details.hasIncrementalChanges
        removedIndexes = details.removedIndexes
        insertedIndexes = details.insertedIndexes
        changedIndexes = details.changedIndexes
        moves = details.moves.map { [$0.from, $0.to] }
    }
}
