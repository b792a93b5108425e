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
            Formats are recognised from the bytes: JPEG, HEIC/HEIF, AVIF, PNG, WebP, TIFF, GIF, \
            camera RAW, QuickTime and MP4. Bytes the library already holds are skipped as \
            duplicates. Files in folders that are neither photos nor movies (documents, notes, \
            editors' projects) are skipped and counted. A file that cannot be imported, a damaged \
            photo, is reported once with the reason, and the others go on. Exits 1 when any file \
            failed.
            """)

    @OptionGroup var libraryOptions: LibraryOptions

    @Argument(help: ArgumentHelp("Files and folders to import.", valueName: "PATH"))
    var paths: [String]

    @Flag(
        help: "Move the files into the library instead of copying (each is deleted once the library holds it safely).")
    var move = false

    @Flag(
        help:
            "Print one JSON line per file (imported, paired, duplicate, skipped or failed), then one with the summary.")
    var json = false

    func run() async throws {
        let library = try libraryOptions.open(creating: true)
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
        if json {
            let failures = summary.results.compactMap { result -> (String, LibraryError)? in
                if case .failed(let error) = result.outcome { (result.path, error) } else { nil }
            }
            Output.jsonLine(SummaryLine(p, failures: failures))
        } else {
            // Each failure was printed as it came, with its file: the summary counts them.
            Output.message(
                "\(p.imported) imported, \(p.paired) paired, \(p.duplicates) duplicate\(p.duplicates == 1 ? "" : "s"), "
                    + "\(p.skipped) skipped (not photos or movies), \(p.failed) failed")
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
        var skipped: Int
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
            files: progress.total, imported: progress.imported, paired: progress.paired,
            duplicates: progress.duplicates,
            failed: progress.failed, skipped: progress.skipped,
            failures: failures.map { Failure(path: $0.0, code: "\($0.1.code)", message: $0.1.message) })
    }
}

/// One JSON line of `lightbox import --json`.
struct ImportLine: Encodable {
    var path: String
    var status: String
    var localIdentifier: String?
    var error: ErrorDetail?
    /// Why a file was skipped.
    var reason: String?
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
        case .skipped(let reason):
            status = "skipped"
            self.reason = reason
        }
    }
}
