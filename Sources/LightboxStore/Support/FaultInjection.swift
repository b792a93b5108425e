import Foundation

/// Named points where a test can stop a Lightbox process to kill it there: with
/// `LIGHTBOX_TEST_PAUSE_AT=NAME` in its environment, a process reaching point NAME writes
/// `lightbox: paused at NAME` to standard error and sleeps for a minute. Without the variable
/// (always, outside tests) a point costs one comparison.
package enum FaultInjection {
    private static let target = ProcessInfo.processInfo.environment["LIGHTBOX_TEST_PAUSE_AT"]

    /// The points: a change block with its files stored, its rows written but not committed,
    /// and committed with its old files not yet removed; the removal of the originals a
    /// transaction let go, before each file; an imported file's original stored, and its row
    /// committed with a moved source not yet removed; a job taken, its run recorded, its work
    /// not started; a migration's catalog copied, the folder not yet switched.
    package enum Point: String {
        case importStored = "import-stored"
        case importCommitted = "import-committed"
        case changesPrepared = "changes-prepared"
        case changesApplied = "changes-applied"
        case changesCommitted = "changes-committed"
        case removingOriginals = "removing-originals"
        case jobStarted = "job-started"
        case migrateCopied = "migrate-copied"
    }

    package static func pause(at point: Point) {
        guard let target, target == point.rawValue else { return }
        FileHandle.standardError.write(Data("lightbox: paused at \(point.rawValue)\n".utf8))
        sleep(60)
    }
}
