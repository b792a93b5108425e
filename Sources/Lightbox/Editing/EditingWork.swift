import Foundation
import LightboxStore

/// Edits' long work off Swift's cooperative pool: a photo decoded for editing, previews,
/// full-size renders, external editors, a Live Photo's frames, a movie's playable copy. A pool of its own
/// (``WorkPool``), so that edits, which may run for minutes (an external editor, an 8K movie's
/// frames), never hold the lanes of ``BlockingWork`` that catalog reads and commits need.
enum EditingWork {
    /// Four lanes at least, one a processor past that: a slow editor leaves previews room.
    private static let pool = WorkPool(
        label: "lightbox.editing", lanes: max(4, ProcessInfo.processInfo.activeProcessorCount))

    static func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await pool.run(work)
    }
}
