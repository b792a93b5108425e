import ArgumentParser
import Foundation
import Lightbox

struct MigrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Move a library's catalog to PostgreSQL, and with --originals its files to S3-compatible storage.",
        discussion: """
            Files are uploaded (each checked against its SHA-256) before the catalog and the \
            accounts are copied, in one PostgreSQL transaction; then the folder names the new \
            places and its old files are set aside as *.migrated, to remove once the library is \
            checked (`lightbox check`). Its users' own libraries move too. Stopped or crashed, run \
            it again: it goes on from where it was. Stop servers and imports of the library first.
            """)

    @OptionGroup var libraryOptions: LibraryOptions

    @Option(
        help: ArgumentHelp(
            "The PostgreSQL database to move the catalog to, postgres://USER@HOST[:PORT]/DATABASE: empty, or holding this library's copy from an earlier run.",
            valueName: "URL"))
    var to: String

    func run() throws {
        guard libraryOptions.database == nil else {
            throw ValidationError("--database opens a library on PostgreSQL; the catalog to move to is --to")
        }
        let path = libraryOptions.libraryPath
        guard PhotoLibrary.isLibrary(path) else { throw CommandError("no library at \(path)") }
        let objectStorage = libraryOptions.originals.map {
            ObjectStorageSettings(url: $0, endpoint: libraryOptions.s3Endpoint, region: libraryOptions.s3Region)
        }
        do {
            let library = try PhotoLibrary(url: URL(fileURLWithPath: path))
            var last = ""
            let summary = try library.migrate(to: to, originals: objectStorage) { step in
                // A line per stage and table, and every 500 files.
                let line = "\(step.stage.rawValue): \(step.detail)"
                if step.stage == .catalog {
                    Output.message("catalog: \(step.detail), \(step.done) rows")
                } else if step.stage == .member {
                    Output.message("member library \(step.detail)")
                } else if step.done == step.total || step.done % 500 == 0 || last.isEmpty {
                    Output.message("\(step.stage.rawValue): \(step.done) of \(step.total)")
                }
                last = line
            }
            Output.message(
                (summary.resumed ? "Migrated, going on from where an earlier run stopped: " : "Migrated: ")
                    + "\(summary.originals) originals and the renders of \(summary.derivatives) assets uploaded, "
                    + "\(summary.rows) catalog rows copied, \(summary.members) member librar\(summary.members == 1 ? "y" : "ies"). "
                    + "The old files are set aside as *.migrated in \(path): remove them once `lightbox check` passes.")
        } catch let error as LibraryError {
            throw CommandError(error.description)
        }
    }
}
