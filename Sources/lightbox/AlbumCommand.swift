import ArgumentParser
import Foundation
import Lightbox

struct AlbumCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "album",
        abstract: "Create, fill, order, rename, delete and list albums.",
        subcommands: [Create.self, Add.self, Remove.self, Move.self, Rename.self, Delete.self, List.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "create", abstract: "Create an album; prints it, with its localIdentifier.")
        @OptionGroup var libraryOptions: LibraryOptions
        @Argument(help: "The album's title.") var title: String
        @Flag(help: "Print the album as one JSON line.") var json = false

        func run() async throws {
            let library = try libraryOptions.open()
            var id = ""
            try await Changes.perform(library) { changes in
                id = changes.creationRequestForAssetCollection(withTitle: title).localIdentifier
            }
            let album = try library.fetchAssetCollections(withLocalIdentifiers: [id])[0]
            AlbumText.print(album, json: json)
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add", abstract: "Add assets at the end of an album.")
        @OptionGroup var libraryOptions: LibraryOptions
        @Argument(help: "The album: its title, its identifier or the start of it.") var album: String
        @Argument(help: "The assets: identifiers, or their first characters.") var ids: [String]

        func run() async throws {
            let library = try libraryOptions.open()
            let names = Names(library: library)
            let (album, ids) = (try names.assetCollection(album), try names.assets(ids))
            try await Changes.perform(library) { changes in
                changes.changeRequest(forAssetCollectionWithLocalIdentifier: album).addAssets(ids)
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove", abstract: "Remove assets from an album (they stay in the library).")
        @OptionGroup var libraryOptions: LibraryOptions
        @Argument(help: "The album: its title, its identifier or the start of it.") var album: String
        @Argument(help: "The assets: identifiers, or their first characters.") var ids: [String]

        func run() async throws {
            let library = try libraryOptions.open()
            let names = Names(library: library)
            let (album, ids) = (try names.assetCollection(album), try names.assets(ids))
            try await Changes.perform(library) { changes in
                changes.changeRequest(forAssetCollectionWithLocalIdentifier: album).removeAssets(ids)
            }
        }
    }

    struct Move: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "move", abstract: "Move the asset at index FROM to index TO (0 is the first).")
        @OptionGroup var libraryOptions: LibraryOptions
        @Argument(help: "The album: its title, its identifier or the start of it.") var album: String
        @Argument(help: "The asset's index now.") var from: Int
        @Argument(help: "Its index afterwards.") var to: Int

        func run() async throws {
            let library = try libraryOptions.open()
            let album = try Names(library: library).assetCollection(album)
            try await Changes.perform(library) { changes in
                changes.changeRequest(forAssetCollectionWithLocalIdentifier: album).moveAssets(at: [from], to: to)
            }
        }
    }

    struct Rename: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rename", abstract: "Give an album a new title.")
        @OptionGroup var libraryOptions: LibraryOptions
        @Argument(help: "The album: its title, its identifier or the start of it.") var album: String
        @Argument(help: "The new title.") var title: String

        func run() async throws {
            let library = try libraryOptions.open()
            let album = try Names(library: library).assetCollection(album)
            try await Changes.perform(library) { changes in
                changes.changeRequest(forAssetCollectionWithLocalIdentifier: album).title = title
            }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete", abstract: "Delete an album; its assets stay in the library.")
        @OptionGroup var libraryOptions: LibraryOptions
        @Argument(help: "The album: its title, its identifier or the start of it.") var album: String

        func run() async throws {
            let library = try libraryOptions.open()
            let album = try Names(library: library).assetCollection(album)
            try await Changes.perform(library) { changes in changes.deleteAssetCollections([album]) }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "ls", abstract: "List albums, or the assets of one with --in.")
        @OptionGroup var libraryOptions: LibraryOptions
        @Option(name: .customLong("in"), help: "List this album's assets, in its order (a title or an identifier).")
        var album: String?
        @Flag(help: "List the smart albums the library keeps (Favorites, Videos, ...) instead.") var smart = false
        @Flag(help: "List the moments (assets grouped by time and place) instead.") var moments = false
        @Flag(help: "Print JSON lines.") var json = false

        func run() async throws {
            let library = try libraryOptions.open()
            do {
                if let album {
                    let album = try Names(library: library).assetCollection(album)
                    for asset in try library.fetchAssets(inCollectionWithLocalIdentifier: album) {
                        if json { Output.jsonLine(asset) } else { Output.line(AssetText.summary(asset)) }
                    }
                    return
                }
                let type: AssetCollectionType = moments ? .moment : (smart ? .smartAlbum : .album)
                for collection in try library.fetchAssetCollections(with: type) {
                    AlbumText.print(collection, json: json)
                }
            } catch let error as LibraryError {
                throw CommandError(error.message)
            }
        }
    }
}

/// Albums on the terminal and in JSON Lines.
enum AlbumText {
    static func print(_ album: AssetCollection, json: Bool) {
        if json {
            Output.jsonLine(album)
        } else {
            let count = album.estimatedAssetCount
            Output.line(
                "\(album.localIdentifier)  \(count) asset\(count == 1 ? "" : "s")  \(album.localizedTitle ?? "")")
        }
    }
}
