import ArgumentParser
import Foundation
import Lightbox

struct EditorsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "editors", abstract: "List the installed editors (docs/EDITORS.md).", subcommands: [List.self],
        defaultSubcommand: List.self)

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "ls",
            abstract: "List the editors installed for the system, the user and the library.",
            discussion: """
                Editors are folders holding an editor.json manifest (or NAME.json manifests) in \
                $XDG_DATA_DIRS/lightbox/editors (by default /usr/local/share and /usr/share), \
                $XDG_DATA_HOME/lightbox/editors (by default ~/.local/share) and the library's \
                editors/ folder; the library's replace the user's, which replace the system's, \
                of the same identifier. A manifest that cannot be read is reported with its path \
                and skipped.
                """)
        @OptionGroup var libraryOptions: LibraryOptions
        @Option(
            name: .customLong("for"),
            help: ArgumentHelp("Only the editors that can edit this asset.", valueName: "ID"))
        var asset: String?
        @Flag(help: "Print one JSON line per editor.") var json = false

        func run() async throws {
            let catalog: EditorCatalog
            let editors: [InstalledEditor]
            let current: Asset?
            let folder = libraryOptions.libraryPath
            if let asset, PhotoLibrary.isLibrary(folder) {
                // Only an asset needs the catalog: the editors are files, the library's in its folder.
                let library = try libraryOptions.open()
                catalog = library.installedEditors()
                let id = try Names(library: library).asset(asset)
                guard let found = try await library.asset(withLocalIdentifier: id) else {
                    throw CommandError("no asset has the identifier \(id) in \(library.url.path)")
                }
                editors = catalog.editors(for: found)
                current = found
            } else if asset != nil {
                throw CommandError("no library at \(folder) (lightbox import creates one)")
            } else {
                let library = PhotoLibrary.isLibrary(folder) ? URL(fileURLWithPath: folder) : nil
                catalog = EditorCatalog(folders: EditorCatalog.standardFolders(library: library))
                editors = catalog.editors
                current = nil
            }
            for problem in catalog.problems { Output.message("warning: \(problem.path): \(problem.message); skipped") }
            for editor in editors {
                if json {
                    Output.jsonLine(editor)
                    continue
                }
                let media = editor.manifest.mediaTypes.contains(.video) ? "photos, movies" : "photos"
                let continues = current.map { editor.mayContinue($0) ? "  continues its edit" : "" } ?? ""
                Output.line(
                    "\(editor.identifier)  \(editor.manifest.name) \(editor.manifest.version)  \(media)  "
                        + "\(editor.scope.rawValue): \(editor.manifestPath)\(continues)")
            }
            if !json && editors.isEmpty {
                let folders = catalog.folders.map(\.path).joined(separator: ", ")
                Output.message(
                    current == nil ? "no editor is installed (looked in \(folders))" : "no editor can edit it")
            }
        }
    }
}
