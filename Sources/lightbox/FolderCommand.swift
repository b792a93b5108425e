import ArgumentParser
import Foundation
import Lightbox

struct FolderCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "folder",
        abstract: "Create folders of albums and folders, fill, order, rename, delete and list them.",
        subcommands: [Create.self, Add.self, Remove.self, Move.self, Rename.self, Delete.self, List.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "create", abstract: "Create a folder; prints it, with its localIdentifier.")
        @OptionGroup var libraryOptions: LibraryOptions
        @Argument(help: "The folder's title.") var title: String
        @Flag(help: "Print the folder as one JSON line.") var json = false

        func run() async throws {
            let library = try libraryOptions.open()
            var id = ""
            try await Changes.perform(library) { changes in
                id = changes.creationRequestForCollectionList(withTitle: title).localIdentifier
            }
            FolderText.print(
                .collectionList(try library.fetchCollectionLists(withLocalIdentifiers: [id])[0]), json: json)
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add", abstract: "Add albums or folders at the end of a folder.")
        @OptionGroup var libraryOptions: LibraryOptions
        @Argument(help: "The folder: its title, its identifier or the start of it.") var folder: String
        @Argument(help: "Albums or folders: titles, identifiers or their starts.") var ids: [String]

        func run() async throws {
            let library = try libraryOptions.open()
            let names = Names(library: library)
            let (folder, ids) = (try names.folder(folder), try ids.map(names.albumOrFolder))
            try await Changes.perform(library) { changes in
                changes.changeRequest(forCollectionListWithLocalIdentifier: folder).addChildCollections(ids)
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove", abstract: "Take albums or folders out of a folder, to the top level.")
        @OptionGroup var libraryOptions: LibraryOptions
        @Argument(help: "The folder: its title, its identifier or the start of it.") var folder: String
        @Argument(help: "Albums or folders: titles, identifiers or their starts.") var ids: [String]

        func run() async throws {
            let library = try libraryOptions.open()
            let names = Names(library: library)
            let (folder, ids) = (try names.folder(folder), try ids.map(names.albumOrFolder))
            try await Changes.perform(library) { changes in
                changes.changeRequest(forCollectionListWithLocalIdentifier: folder).removeChildCollections(ids)
            }
        }
    }

    struct Move: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "move", abstract: "Move the child at index FROM to index TO.")
        @OptionGroup var libraryOptions: LibraryOptions
        @Argument(help: "The folder: its title, its identifier or the start of it.") var folder: String
        @Argument(help: "The child's index now.") var from: Int
        @Argument(help: "Its index afterwards.") var to: Int

        func run() async throws {
            let library = try libraryOptions.open()
            let folder = try Names(library: library).folder(folder)
            try await Changes.perform(library) { changes in
                changes.changeRequest(forCollectionListWithLocalIdentifier: folder).moveChildCollections(
                    at: [from], to: to)
            }
        }
    }

    struct Rename: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rename", abstract: "Give a folder a new title.")
        @OptionGroup var libraryOptions: LibraryOptions
        @Argument(help: "The folder: its title, its identifier or the start of it.") var folder: String
        @Argument(help: "The new title.") var title: String

        func run() async throws {
            let library = try libraryOptions.open()
            let folder = try Names(library: library).folder(folder)
            try await Changes.perform(library) { changes in
                changes.changeRequest(forCollectionListWithLocalIdentifier: folder).title = title
            }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete", abstract: "Delete a folder; what it held goes to the top level.")
        @OptionGroup var libraryOptions: LibraryOptions
        @Argument(help: "The folder: its title, its identifier or the start of it.") var folder: String

        func run() async throws {
            let library = try libraryOptions.open()
            let folder = try Names(library: library).folder(folder)
            try await Changes.perform(library) { changes in changes.deleteCollectionLists([folder]) }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "ls", abstract: "List the top level (albums and folders), or a folder's children with --in.")
        @OptionGroup var libraryOptions: LibraryOptions
        @Option(name: .customLong("in"), help: "List this folder's children, in its order (a title or an identifier).")
        var folder: String?
        @Flag(help: "Print JSON lines.") var json = false

        func run() async throws {
            let library = try libraryOptions.open()
            do {
                let collections: FetchResult<PhotoCollection>
                if let folder {
                    let folder = try Names(library: library).folder(folder)
                    guard let list = try library.fetchCollectionLists(withLocalIdentifiers: [folder]).firstObject else {
                        throw CommandError("no folder has the identifier \(folder)")
                    }
                    collections = try library.fetchCollections(in: list)
                } else {
                    collections = try library.fetchTopLevelUserCollections()
                }
                for collection in collections { FolderText.print(collection, json: json) }
            } catch let error as LibraryError {
                throw CommandError(error.message)
            }
        }
    }
}

/// Albums and folders on the terminal and in JSON Lines.
enum FolderText {
    static func print(_ collection: PhotoCollection, json: Bool) {
        switch collection {
        case .assetCollection(let album):
            if json { Output.jsonLine(album) } else { AlbumText.print(album, json: false) }
        case .collectionList(let list):
            if json {
                Output.jsonLine(list)
            } else {
                Output.line("\(list.localIdentifier)  folder  \(list.localizedTitle ?? "")")
            }
        }
    }
}
