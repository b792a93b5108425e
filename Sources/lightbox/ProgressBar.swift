import Foundation
import Lightbox

#if canImport(Glibc)
    import Glibc
#endif

/// A one-line progress bar on standard error, redrawn at most ten times a second, with files
/// per second and the time left. Only shown when standard error is a terminal.
final class ProgressBar: @unchecked Sendable {
    // @unchecked: every mutable field is touched only while holding `lock`.
    private let lock = NSLock()
    private let start = Date()
    private var lastDraw = Date.distantPast
    private var lastLine = ""

    /// A bar when standard error is a terminal, else nil.
    static func onTerminal() -> ProgressBar? {
        isatty(STDERR_FILENO) != 0 ? ProgressBar() : nil
    }

    func update(_ progress: ImportProgress) {
        lock.lock()
        defer { lock.unlock() }
        let now = Date()
        guard now.timeIntervalSince(lastDraw) >= 0.1 || progress.completed == progress.total else { return }
        lastDraw = now
        let elapsed = max(now.timeIntervalSince(start), 0.001)
        let rate = Double(progress.completed) / elapsed
        let fraction = progress.total > 0 ? Double(progress.completed) / Double(progress.total) : 1
        let width = 30
        let filled = Int(fraction * Double(width))
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        let remaining = rate > 0 ? Double(progress.total - progress.completed) / rate : 0
        let line = String(
            format: "\r%@ %d/%d  %.1f files/s  %.0f MB  ~%@ left  (%d new, %d paired, %d dup, %d skipped, %d failed)",
            bar,
            progress.completed, progress.total, rate, Double(progress.bytes) / 1_000_000, Self.duration(remaining),
            progress.imported, progress.paired, progress.duplicates, progress.skipped, progress.failed)
        lastLine = line
        FileHandle.standardError.write(Data(line.utf8))
    }

    /// Draws the bar of a piece of work measured in bytes (`lightbox check` reading originals).
    func update(bytes done: Int64, of total: Int64, doing: String) {
        lock.lock()
        defer { lock.unlock() }
        let now = Date()
        guard now.timeIntervalSince(lastDraw) >= 0.1 || done == total else { return }
        lastDraw = now
        let elapsed = max(now.timeIntervalSince(start), 0.001)
        let rate = Double(done) / elapsed
        let fraction = total > 0 ? min(Double(done) / Double(total), 1) : 1
        let filled = Int(fraction * 30)
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: 30 - filled)
        let remaining = rate > 0 ? Double(total - done) / rate : 0
        let line = String(
            format: "\r%@ %@ %.0f/%.0f MB  %.0f MB/s  ~%@ left", bar, doing, Double(done) / 1_000_000,
            Double(total) / 1_000_000, rate / 1_000_000, Self.duration(remaining))
        lastLine = line
        FileHandle.standardError.write(Data(line.utf8))
    }

    /// Erases the bar so that a message can be printed on a clean line.
    func clear() {
        lock.lock()
        defer { lock.unlock() }
        guard !lastLine.isEmpty else { return }
        FileHandle.standardError.write(Data(("\r" + String(repeating: " ", count: lastLine.count) + "\r").utf8))
        lastLine = ""
    }

    func finish() {
        lock.lock()
        defer { lock.unlock() }
        if !lastLine.isEmpty { FileHandle.standardError.write(Data("\n".utf8)) }
    }

    private static func duration(_ seconds: Double) -> String {
        let s = Int(seconds.rounded())
        return s >= 3600 ? "\(s / 3600)h\(s % 3600 / 60)m" : s >= 60 ? "\(s / 60)m\(s % 60)s" : "\(s)s"
    }
}
