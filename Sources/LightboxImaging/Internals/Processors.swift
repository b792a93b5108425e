import CHEIF
import Foundation
import Synchronization

/// The processors the process's renders share.
///
/// A render holds one, on its caller's thread, while it decodes and while it encodes. A decode
/// whose work splits (a HEIF grid's tiles) borrows those no render holds, one helper thread
/// each, and gives each back when its helper ends: the last photo of a batch, or a single
/// photo opened full screen, is decoded on every processor instead of one, while a batch
/// with a file per processor is left one thread a file. Holding never waits: more renders than
/// processors (an import's files in flight) only leave none to borrow.
final class Processors: Sendable {
    static let shared = Processors(limit: ProcessInfo.processInfo.activeProcessorCount)

    private struct State {
        var limit: Int
        var busy = 0
    }

    private let state: Mutex<State>

    init(limit: Int) {
        state = Mutex(State(limit: max(1, limit)))
    }

    /// How many processors renders and their helpers use together at most.
    var limit: Int {
        get { state.withLock { $0.limit } }
        set { state.withLock { $0.limit = max(1, newValue) } }
    }

    /// Free processors: the limit less those held and borrowed, below 0 when more threads work.
    var spare: Int { state.withLock { $0.limit - $0.busy } }

    /// Runs `body` holding a processor.
    func holding<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        state.withLock { $0.busy += 1 }
        defer { state.withLock { $0.busy -= 1 } }
        return try body()
    }

    /// Takes a free processor for a helper thread; false when none is free.
    func borrow() -> Bool {
        state.withLock { state in
            guard state.busy < state.limit else { return false }
            state.busy += 1
            return true
        }
    }

    func giveBack() {
        state.withLock { $0.busy -= 1 }
    }
}

/// Lends a HEIF's tile-by-tile decode helper threads (`cheif_helpers`): a processor from
/// `processors` and, for the helper's decoder, `memory` bytes from `decodeMemory` when they fit
/// at once.
final class DecodeHelpers: Sendable {
    let memory: Int
    let processors: Processors
    let decodeMemory: DecodeMemory

    init(memory: Int, processors: Processors = .shared, decodeMemory: DecodeMemory = .shared) {
        self.memory = memory
        self.processors = processors
        self.decodeMemory = decodeMemory
    }

    /// Runs `body` with the C callbacks, whose context is this object, valid for the call.
    func withHelpers<T>(_ body: (UnsafePointer<cheif_helpers>) throws -> T) rethrows -> T {
        try withExtendedLifetime(self) {
            var helpers = cheif_helpers(
                spare: { context in Int32(clamping: DecodeHelpers.from(context).processors.spare) },
                borrow: { context in
                    let lender = DecodeHelpers.from(context)
                    guard lender.processors.borrow() else { return 0 }
                    guard lender.decodeMemory.reserveNow(lender.memory) else {
                        lender.processors.giveBack()
                        return 0
                    }
                    return 1
                },
                give_back: { context in
                    let lender = DecodeHelpers.from(context)
                    lender.decodeMemory.giveBack(lender.memory)
                    lender.processors.giveBack()
                },
                context: Unmanaged.passUnretained(self).toOpaque())
            return try body(&helpers)
        }
    }

    private static func from(_ context: UnsafeMutableRawPointer?) -> DecodeHelpers {
        // Always this object's pointer, from `withHelpers`.
        Unmanaged<DecodeHelpers>.fromOpaque(context!).takeUnretainedValue()
    }
}
