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

    @Flag(help: "Print one JSON line per file (imported, paired, duplicate or failed), then one with the summary.")
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
        let failures = summary.results.compactMap { result -> (String, LibraryError)? in
            if case .failed(let error) = result.outcome { (result.path, error) } else { nil }
        }
        if json {
            Output.jsonLine(SummaryLine(p, failures: failures))
        } else {
            Output.message(
                "\(p.imported) imported, \(p.paired) paired, \(p.duplicates) duplicate\(p.duplicates == 1 ? "" : "s"), "
                    + "\(p.failed) failed")
            if !failures.isEmpty {
                Output.message("Failed:")
                for (path, error) in failures { Output.message("  \(path): \(error.message)") }
            }
        }
        if p.failed > 0 { throw ExitCode(1) }
    }
}

/// The last JSON line of `lightbox import --json`: the counts and every failure.
struct SummaryLine: Encodable {
    struct Counts: Encodable {
        var files: Int
        var imported: Int
        var paired: Int
        var duplicates: Int
        var failed: Int
        var failures: [Failure]
    }

    struct Failure: Encodable {
        var path: String
        var code: String
        var message: String
    }

    var summary: Counts

    init(_ progress: ImportProgress, failures: [(String, LibraryError)]) {
        summary = Counts(
            files: progress.total, imported: progress.imported, paired: progress.paired, duplicates: progress.duplicates,
            failed: progress.failed,
            failures: failures.map { Failure(path: $0.0, code: "\($0.1.code)", message: $0.1.message) })
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
        case .paired(let asset):
            status = "paired"
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
