import ArgumentParser
import Foundation
import Lightbox

struct CheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check the library's health: its database, every original's file and SHA-256, nothing stray.",
        discussion: """
            Reads every original and compares it with the SHA-256 it was stored with (--quick \
            skips that), checks the database's integrity, and finds files in originals/ and \
            derivatives/ that belong to no asset. Each problem is a line on standard output; the \
            exit status is 1 when any remains. --repair removes the stray files and makes \
            writable originals read-only again; a missing or damaged original is reported, to \
            be imported again from its source.
            """)

    @OptionGroup var libraryOptions: LibraryOptions

    @Flag(help: "Remove files that belong to no asset, and make writable originals read-only.")
    var repair = false

    @Flag(help: "Do not read the originals to compare their SHA-256.")
    var quick = false

    func run() async throws {
        let library = try libraryOptions.open()
        let bar = ProgressBar.onTerminal()
        let report = try library.check(repairing: repair, verifyingHashes: !quick) { done, total in
            bar?.update(bytes: done, of: total, doing: "checking")
        }
        bar?.clear()
        for problem in report.repaired { Output.line("repaired \(problem)") }
        for problem in report.problems { Output.line(String(describing: problem)) }
        let size = String(format: "%.1f MB", Double(report.bytes) / 1_000_000)
        let checked =
            "\(report.originals) original\(report.originals == 1 ? "" : "s") (\(size))"
            + (report.verifiedHashes ? ", every SHA-256 compared" : ", present (--quick: not hashed)")
        let repaired = report.repaired.isEmpty ? "" : ", \(report.repaired.count) repaired"
        if report.problems.isEmpty {
            Output.line("\(checked): no problem\(repaired)")
            return
        }
        let mendable = report.problems.filter(\.isRepairable).count
        Output.line(
            "\(checked): \(report.problems.count) problem\(report.problems.count == 1 ? "" : "s")\(repaired)"
                + (mendable > 0 && !repair ? " (lightbox check --repair mends \(mendable))" : ""))
        throw ExitCode(1)
    }
}
