import ArgumentParser
import Foundation
import Lightbox
import LightboxImaging
import Synchronization

/// Runs one change block for a command, turning a refused request into a clean error.
enum Changes {
    static func perform(_ library: PhotoLibrary, _ block: (ChangeRequests) throws -> Void) async throws {
        do {
            try await library.performChanges(block)
        } catch let error as LibraryError {
            throw CommandError(error.message)
        }
    }
}

struct FavoriteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "favorite", abstract: "Mark assets as favourites (or not, with --off).")

    @OptionGroup var libraryOptions: LibraryOptions

    @Argument(help: "The assets: identifiers, or their first characters.")
    var ids: [String]

    @Flag(help: "Remove the mark instead.")
    var off = false

    func run() async throws {
        let library = try libraryOptions.open()
        let ids = try Names(library: library).assets(ids)
        try await Changes.perform(library) { changes in
            for id in ids { changes.changeRequest(forAssetWithLocalIdentifier: id).isFavorite = !off }
        }
    }
}

struct HideCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hide", abstract: "Hide assets from the library's views (or show them, with --off).")

    @OptionGroup var libraryOptions: LibraryOptions

    @Argument(help: "The assets: identifiers, or their first characters.")
    var ids: [String]

    @Flag(help: "Show them again instead.")
    var off = false

    func run() async throws {
        let library = try libraryOptions.open()
        let ids = try Names(library: library).assets(ids)
        try await Changes.perform(library) { changes in
            for id in ids { changes.changeRequest(forAssetWithLocalIdentifier: id).isHidden = !off }
        }
    }
}

struct HistoryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "Print the transactions committed since a change token (and the current token).")

    @OptionGroup var libraryOptions: LibraryOptions

    @Option(help: "A token printed earlier; 0 for all the history kept.")
    var since: String = "0"

    @Flag(help: "Print one JSON line per transaction.")
    var json = false

    func run() async throws {
        guard let token = PersistentChangeToken(since) else {
            throw ValidationError("--since takes a change token, a number printed by lightbox history")
        }
        let library = try libraryOptions.open()
        let changes: [PersistentChange]
        do {
            changes = try library.fetchPersistentChanges(since: token)
        } catch let error as LibraryError {
            throw CommandError(error.message)
        }
        for change in changes {
            if json {
                Output.jsonLine(change)
            } else {
                let summary = PersistentObjectType.allCases.compactMap { type -> String? in
                    let details = change.changeDetails(for: type)
                    let counts = [
                        ("inserted", details.insertedLocalIdentifiers.count),
                        ("updated", details.updatedLocalIdentifiers.count),
                        ("deleted", details.deletedLocalIdentifiers.count),
                    ].filter { $0.1 > 0 }.map { "\($0.1) \($0.0)" }
                    return counts.isEmpty ? nil : "\(type.rawValue): " + counts.joined(separator: ", ")
                }
                Output.line(
                    "\(change.changeToken)  \(ISO8601.localString(from: change.date))  \(change.author ?? "")  "
                        + summary.joined(separator: "; "))
            }
        }
        if !json { Output.message("current token: \(try library.currentChangeToken())") }
    }
}

struct EditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "edit",
        abstract: "Edit a photo or a movie without touching its original: filters added to its recipe.",
        discussion: """
            Filters apply in the order given, after those of an earlier Lightbox edit, which the \
            edit continues: \(EditFilter.names.joined(separator: ", ")). For example: \
            --filter exposure=0.5 --filter straighten=3 --filter crop=0.1,0.1,0.8,0.8 (the crop \
            as X,Y,W,H in unit coordinates). A movie gets them on every frame, and trim=START,END \
            keeps the part between those seconds. The render is written at full size, the original \
            stays as it was, and `lightbox revert` brings it back. With --editor, an installed \
            editor or another program makes the edit (docs/EDITORS.md), under a memory and a time \
            limit; Ctrl-C cancels it. Prints the edited asset.
            """)

    @OptionGroup var libraryOptions: LibraryOptions

    @Argument(help: "The asset: its identifier, or its first characters.")
    var id: String

    @Option(
        name: .customLong("filter"),
        help: ArgumentHelp("A filter, NAME=VALUE (repeat, in order).", valueName: "NAME=VALUE"))
    var filters: [String] = []

    @Option(
        help: ArgumentHelp(
            "An installed editor's identifier (lightbox editors ls), or a program speaking Lightbox's editor protocol (docs/EDITORS.md); the filters are its settings.",
            valueName: "EDITOR"))
    var editor: String?

    @Option(
        help: ArgumentHelp(
            "A program editor's memory limit, in MiB (an installed one's is in its manifest).", valueName: "MIB"))
    var editorMemory = 512

    @Option(
        help: ArgumentHelp(
            "A program editor's time limit, in seconds (an installed one's is in its manifest).", valueName: "SECONDS"))
    var editorTime = 60.0

    @Flag(help: "Print the edited asset as one JSON line.")
    var json = false

    func run() async throws {
        let library = try libraryOptions.open()
        let id = try Names(library: library).asset(id)
        guard let asset = try await library.asset(withLocalIdentifier: id) else {
            throw CommandError("no asset has the identifier \(id) in \(library.url.path)")
        }
        let controller: any ContentEditingController
        let catalog = editor.map { _ in library.installedEditors() }
        if let identifier = editor, catalog?.editor(withIdentifier: identifier) != nil {
            do {
                controller = try library.installedEditor(identifier, for: asset, settings: filters)
            } catch {
                throw CommandError(error.message)
            }
        } else if let editor {
            guard (16...1_048_576).contains(editorMemory), editorTime > 0, editorTime <= 86_400 else {
                throw ValidationError(
                    "--editor-memory must be 16...1048576 MiB and --editor-time more than 0 and at most 86400 s")
            }
            controller = ExternalEditor(
                program: try Self.program(editor, catalog: catalog), filters: filters, memoryLimit: editorMemory << 20,
                timeLimit: editorTime)
        } else {
            let recipe: EditRecipe
            do {
                recipe = try EditRecipe(parsing: filters)
            } catch {
                throw ValidationError(error.message)
            }
            guard !recipe.filters.isEmpty else { throw ValidationError("give at least one --filter NAME=VALUE") }
            controller = RecipeEditor(adding: recipe.filters)
        }
        let edited: Asset
        do {
            edited = try await Self.editCancellable(asset, with: controller, in: library)
        } catch let error as LibraryError where error.code == .cancelled {
            Output.message("The edit was cancelled; \(asset.localIdentifier) is as it was.")
            throw ExitCode(130)
        } catch let error as LibraryError {
            throw CommandError(error.message)
        }
        if json {
            Output.jsonLine(edited)
        } else {
            Output.line("\(edited.localIdentifier)  edited, \(edited.pixelWidth)x\(edited.pixelHeight)")
        }
    }
}

extension EditCommand {
    /// The edit, cancelled by Ctrl-C. When the editor has work to lose
    /// (`shouldShowCancelConfirmation`) and a person is at the terminal, Ctrl-C asks first.
    static func editCancellable(
        _ asset: Asset, with controller: any ContentEditingController, in library: PhotoLibrary
    ) async throws -> Asset {
        let task = Task { try await library.edit(asset, with: controller) }
        // A handler that only notes the signal (all a handler may do); a watcher acts on it.
        // A dispatch signal source missed it: the process's other threads took the signal.
        Interrupts.count.store(0, ordering: .relaxed)
        signal(SIGINT) { _ in Interrupts.count.add(1, ordering: .relaxed) }
        defer { signal(SIGINT, SIG_DFL) }
        if let external = controller as? ExternalEditor {
            Output.message("Editing with \(external.installed?.manifest.name ?? external.program)… (Ctrl-C cancels)")
        }
        let watcher = Task.detached {
            var seen = 0
            while !Task.isCancelled {
                try? await Task.sleep(nanoseconds: 50_000_000)
                let now = Interrupts.count.load(ordering: .relaxed)
                guard now > seen else { continue }
                seen = now
                if controller.shouldShowCancelConfirmation, isatty(STDIN_FILENO) != 0, isatty(STDERR_FILENO) != 0 {
                    FileHandle.standardError.write(Data("\nDiscard the edit in progress? [y/N] ".utf8))
                    guard (readLine() ?? "").lowercased().hasPrefix("y") else { continue }
                }
                task.cancel()
                return
            }
        }
        defer { watcher.cancel() }
        do {
            return try await task.value
        } catch  where task.isCancelled {
            // Cancelled by Ctrl-C, whatever the step it stopped (a catalog's query on PostgreSQL
            // ends with its own error): the edit was cancelled, and nothing was written.
            if let error = error as? LibraryError, error.code == .cancelled { throw error }
            throw LibraryError(.cancelled, "the edit was cancelled (\(error))")
        }
    }

    /// The editor program's absolute path: a file from the current folder, as the shell finds
    /// `./editor.py` or `tools/editor.py`; else a bare name looked up in `$PATH`.
    static func program(_ given: String, catalog: EditorCatalog? = nil) throws -> String {
        let manager = FileManager.default
        var isFolder: ObjCBool = false
        if manager.fileExists(atPath: given, isDirectory: &isFolder), !isFolder.boolValue {
            let absolute = URL(fileURLWithPath: given).standardizedFileURL.path
            guard manager.isExecutableFile(atPath: absolute) else {
                throw CommandError("the editor \(given) is not executable (chmod +x \(given))")
            }
            return absolute
        }
        if !given.contains("/") {
            let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
            if let found = folders.map({ "\($0)/\(given)" }).first(where: manager.isExecutableFile(atPath:)) {
                return found
            }
        }
        let problems = (catalog?.problems ?? []).map { "\n  skipped \($0.path): \($0.message)" }.joined()
        throw CommandError(
            "no installed editor has the identifier \(given), and no editor program is at \(given) "
                + "(lightbox editors ls lists the installed ones)\(problems)")
    }
}

struct RevertCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "revert", abstract: "Remove every edit of assets: they show their originals again.")

    @OptionGroup var libraryOptions: LibraryOptions

    @Argument(help: "The assets: identifiers, or their first characters.")
    var ids: [String]

    func run() async throws {
        let library = try libraryOptions.open()
        let ids = try Names(library: library).assets(ids)
        try await Changes.perform(library) { changes in
            for id in ids { changes.changeRequest(forAssetWithLocalIdentifier: id).revertAssetContentToOriginal() }
        }
    }
}

/// How many times Ctrl-C was pressed during an edit: written by the signal handler.
enum Interrupts {
    static let count = Atomic<Int>(0)
}
