import ArgumentParser
import Foundation
import Lightbox

#if canImport(Glibc)
import Glibc
#endif

struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import photos from files and folders (recursively).",
        discussion: """
            Formats are recognised from the bytes: JPEG, HEIC/HEIF, AVIF, PNG, WebP, TIFF, GIF. \
            Bytes the library already holds are skipped as duplicates. A file that cannot be \
            imported is reported with the reason, and the others go on. Exits 1 when any file failed.
            """)

    @OptionGroup var libraryOptions: LibraryOptions

    @Argument(help: ArgumentHelp("Files and folders to import.", valueName: "PATH"))
    var paths: [String]

    @Flag(help: "Move the files into the library instead of copying (each is deleted once the library holds it safely).")
    var move = false

    @Flag(help: "Print one JSON line per file: imported, duplicate or failed.")
    var json = false

    func run() async throws {
        let library = try libraryOptions.open()
        let urls = paths.map { URL(fileURLWithPath: $0) }
        let progressBar = ProgressBar.onTerminal()
        let json = self.json
        let summary = await library.importItems(at: urls, options: ImportOptions(shouldMoveFile: move)) {
            result, progress in
            if json {
                Output.jsonLine(ImportLine(result))
            } else if case .failed(let error) = result.outcome {
                progressBar?.clear()
                Output.message("error: \(error)")
            }
            progressBar?.update(progress)
        }
        progressBar?.finish()
        let p = summary.progress
        if !json {
            Output.message(
                "\(p.imported) imported, \(p.duplicates) duplicate\(p.duplicates == 1 ? "" : "s"), \(p.failed) failed")
        }
        if p.failed > 0 { throw ExitCode(1) }
    }
}

/// One JSON line of `lightbox import --json`.
struct ImportLine: Encodable {
    var path: String
    var status: String
    var localIdentifier: String?
    var error: ErrorDetail?
    var asset: Asset?

    struct ErrorDetail: Encodable {
        var code: String
        var message: String
    }

    init(_ result: ImportItemResult) {
        path = result.path
        switch result.outcome {
        case .imported(let asset):
            status = "imported"
            localIdentifier = asset.localIdentifier
            self.asset = asset
        case .duplicate(let existing):
            status = "duplicate"
            localIdentifier = existing
        case .failed(let failure):
            status = "failed"
            error = ErrorDetail(code: "\(failure.code)", message: failure.message)
        }
    }
}
