import Foundation
import LightboxMetadata

/// The memory decodes may hold at once, shared by every render in the process.
///
/// Each decode reserves its bytes from the process's ``MemoryBudget`` first, then takes its
/// turn here: this is the share of that budget decodes run side by side in, so that a batch's
/// decodes do not crowd out the rest of the process's work.
///
/// A decode reserves what it will hold before it starts and waits, in arrival order, until
/// that fits beside the decodes already running; one larger than the whole limit runs alone.
/// Without it, memory adds up with every decode in flight: two HEICs decoded whole side by
/// side (libheif decodes the whole image, then converts it to RGB) peaked far above one at a
/// time, and an import keeps several files in flight. JPEGs decoded at a reduced scale
/// reserve little and run side by side.
final class DecodeMemory: @unchecked Sendable {
    // @unchecked: `inUse`, `queue` and `nextTicket` are used only while holding `condition`.
    /// Room for a large progressive JPEG at 1/2 beside a 24 MP baseline one at a reduced scale,
    /// not for two 12 MP HEICs decoded whole.
    static let shared = DecodeMemory(limit: 100 << 20)

    /// The most one decode may reserve: past it, the decode is refused as too large before it
    /// starts, not run alone. A 200 MP photo decoded whole as 8-bit RGB needs 600 MB.
    static let largestDecode = 1 << 30

    let limit: Int
    private let condition = NSCondition()
    private var inUse = 0
    private var queue: [Int] = []
    private var nextTicket = 0
    /// The last reservation of each file decoded lately, by path, in two generations of up to
    /// 256 files (the older dropped when the newer is full, so the last 256 are always kept):
    /// what a test reads to know a decode fits, whatever other decodes the process runs.
    private var recent: [String: Int] = [:]
    private var older: [String: Int] = [:]

    /// The process's budget, which each decode reserves from before its turn here.
    let budget: MemoryBudget

    init(limit: Int, budget: MemoryBudget = .shared) {
        self.limit = limit
        self.budget = budget
    }

    /// The bytes the last decode of `path` reserved, if it was among the last 256 files.
    func lastReservation(forPath path: String) -> Int? {
        condition.lock()
        defer { condition.unlock() }
        return recent[path] ?? older[path]
    }

    /// What is reserved now, and how many decodes wait.
    var state: (reserved: Int, waiting: Int) {
        condition.lock()
        defer { condition.unlock() }
        return (inUse, queue.count)
    }

    /// Reserves `bytes` when they fit beside the decodes running and none waits, without
    /// waiting; a decode's helper thread takes its decoder's memory so. Given back by
    /// ``giveBack(_:)``.
    func reserveNow(_ bytes: Int) -> Bool {
        let share = max(0, bytes)
        condition.lock()
        defer { condition.unlock() }
        guard queue.isEmpty, inUse + share <= limit, budget.reserveNow(share) else { return false }
        inUse += share
        return true
    }

    func giveBack(_ bytes: Int) {
        budget.giveBack(max(0, bytes))
        condition.lock()
        inUse -= max(0, bytes)
        condition.broadcast()
        condition.unlock()
    }

    /// Runs `body` once `bytes` (at most the limit) are reserved, and frees them after.
    /// Throws `cancelled` if `monitor` cancels the render while it waits, and `tooLarge`, at
    /// once, for more than ``largestDecode``.
    func withReservation<T>(
        _ bytes: Int, monitor: RenderMonitor?, path: String, _ body: () throws(ImagingError) -> T
    ) throws(ImagingError) -> T {
        guard bytes <= Self.largestDecode else {
            throw ImagingError(
                .tooLarge,
                "decoding it needs \(bytes >> 20) MB at once, more than the \(Self.largestDecode >> 20) MB one decode may hold",
                path: path)
        }
        return try budget.withReservation(
            bytes, for: "decoding it", isCancelled: { monitor?.isCancelled() == true },
            refused: { ImagingError($0.isCancellation ? .cancelled : .tooLarge, $0.message, path: path) }
        ) { () throws(ImagingError) -> T in
            try inTurn(bytes, monitor: monitor, path: path, body)
        }
    }

    /// Runs `body` once `bytes` fit beside the decodes running (one larger than the limit alone).
    private func inTurn<T>(
        _ bytes: Int, monitor: RenderMonitor?, path: String, _ body: () throws(ImagingError) -> T
    ) throws(ImagingError) -> T {
        let share = min(max(0, bytes), limit)
        condition.lock()
        if recent.count >= 256 { (older, recent) = (recent, [:]) }
        recent[path] = share
        guard share > 0 else {
            condition.unlock()
            return try body()
        }
        let ticket = nextTicket
        nextTicket += 1
        queue.append(ticket)
        while queue.first != ticket || (inUse > 0 && inUse + share > limit) {
            if monitor?.isCancelled() == true {
                queue.removeAll { $0 == ticket }
                condition.broadcast()
                condition.unlock()
                throw ImagingError(.cancelled, "the render was cancelled", path: path)
            }
            // Woken when a decode ends; the timeout only looks at cancellation again.
            _ = condition.wait(until: Date(timeIntervalSinceNow: 0.05))
        }
        queue.removeFirst()
        inUse += share
        // The next in line may fit beside this one.
        condition.broadcast()
        condition.unlock()
        defer {
            condition.lock()
            inUse -= share
            condition.broadcast()
            condition.unlock()
        }
        return try body()
    }
}
