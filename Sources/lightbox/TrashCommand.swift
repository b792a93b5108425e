import ArgumentParser
import Foundation
import Lightbox

struct DeleteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Move assets to Recently Deleted (or delete them for good, with --permanently).",
        discussion: """
            A deleted asset leaves every list and album but stays in Recently Deleted, with its \
            files, edits and albums, for the library's retention (30 days unless set): \
            `lightbox restore ID` brings it back, `lightbox trash ls` lists what is there. \
            --permanently removes the assets and their originals now, after saying what it \
            removes and asking (--yes answers for you).
            """)

    @OptionGroup var libraryOptions: LibraryOptions

    @Argument(help: "The assets: identifiers, or their first characters.")
    var ids: [String]

    @Flag(help: "Remove the assets and their original files now, whether in Recently Deleted or not.")
    var permanently = false

    @Flag(help: "With --permanently, do not ask.")
    var yes = false

    func run() async throws {
        let library = try libraryOptions.open()
        let names = Names(library: library)
        guard permanently else {
            let ids = try names.assets(ids)
            try await Changes.perform(library) { changes in changes.deleteAssets(ids) }
            Output.message(
                "\(ids.count) asset\(ids.count == 1 ? "" : "s") moved to Recently Deleted (lightbox restore brings "
                    + "\(ids.count == 1 ? "it" : "them") back)")
            return
        }
        let ids = try ids.map { try names.asset($0, includingTrash: true) }
        try Confirmation.ask(
            "Delete \(ids.count) asset\(ids.count == 1 ? "" : "s") and \(ids.count == 1 ? "its" : "their") original files "
                + "for good? They cannot be brought back.", listing: ids, in: library, yes: yes)
        try await Changes.perform(library) { changes in changes.purgeAssets(ids) }
        Output.message("\(ids.count) asset\(ids.count == 1 ? "" : "s") deleted for good")
    }
}

struct RestoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Bring assets back from Recently Deleted, into the albums they were in.")

    @OptionGroup var libraryOptions: LibraryOptions

    @Argument(help: "Assets in Recently Deleted: identifiers, or their first characters (lightbox trash ls).")
    var ids: [String]

    func run() async throws {
        let library = try libraryOptions.open()
        let names = Names(library: library)
        let ids = try ids.map(names.trashedAsset)
        try await Changes.perform(library) { changes in changes.restoreAssets(ids) }
        Output.message("\(ids.count) asset\(ids.count == 1 ? "" : "s") restored")
    }
}

struct TrashCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trash",
        abstract: "Recently Deleted: list it, or empty it.",
        subcommands: [List.self, Empty.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "ls",
            abstract: "List the assets in Recently Deleted, the last deleted first, with the days they have left.")
        @OptionGroup var libraryOptions: LibraryOptions
        @Flag(help: "Print one JSON line per asset.") var json = false

        func run() async throws {
            let library = try libraryOptions.open()
            let retention = try library.trashRetention()
            let album = try library.fetchAssetCollections(with: .smartAlbum, subtype: .smartAlbumRecentlyDeleted)
            guard let trash = album.firstObject else { return }
            for asset in try library.fetchAssets(in: trash) {
                if json {
                    Output.jsonLine(asset)
                } else {
                    let deleted = asset.trashedDate ?? Date()
                    let left = max(
                        0, Int((deleted.addingTimeInterval(retention).timeIntervalSinceNow / 86400).rounded(.up)))
                    Output.line(
                        AssetText.summary(asset) + "  deleted \(ISO8601.localString(from: deleted)), "
                            + "\(left) day\(left == 1 ? "" : "s") left")
                }
            }
        }
    }

    struct Empty: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "empty", abstract: "Delete every asset in Recently Deleted for good, with its original files.")
        @OptionGroup var libraryOptions: LibraryOptions
        @Flag(help: "Do not ask.") var yes = false

        func run() async throws {
            let library = try libraryOptions.open()
            let ids = try library.trashedAssetIdentifiers()
            guard !ids.isEmpty else { return Output.message("Recently Deleted is empty") }
            try Confirmation.ask(
                "Delete the \(ids.count) asset\(ids.count == 1 ? "" : "s") in Recently Deleted and their original files "
                    + "for good? They cannot be brought back.", listing: ids, in: library, yes: yes)
            let purged = try library.emptyTrash()
            Output.message("\(purged.count) asset\(purged.count == 1 ? "" : "s") deleted for good")
        }
    }
}

/// The question a command asks before it removes what cannot be brought back.
enum Confirmation {
    /// Prints what will go (the first ten assets, by name) and `question`, and reads the
    /// answer; anything but "y" or "yes" stops the command. With `yes`, or without a terminal
    /// to ask on, nothing is read: without `yes` the command stops, saying so.
    static func ask(_ question: String, listing ids: [String], in library: PhotoLibrary, yes: Bool) throws {
        if yes { return }
        for id in ids.prefix(10) {
            let asset = try library.asset(withLocalIdentifier: id)
            Output.message("  " + (asset.map(AssetText.summary) ?? id))
        }
        if ids.count > 10 { Output.message("  and \(ids.count - 10) more") }
        guard isatty(STDIN_FILENO) == 1 else {
            throw CommandError("nothing was deleted: give --yes to confirm without a terminal")
        }
        FileHandle.standardError.write(Data((question + " [y/N] ").utf8))
        let answer = readLine()?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        guard answer == "y" || answer == "yes" else { throw CommandError("nothing was deleted") }
    }
}
