import Foundation

/// The memory the process's expensive work may hold at once, in bytes: one budget for decodes,
/// XMP packets, movies probed and their frames, edits rendered and photos captured.
///
/// Each piece of work reserves what it will hold before it starts and gives it back when it
/// ends. Work that does not fit beside what runs waits, in arrival order; work larger than the
/// whole budget is refused at once with a message that names it. Without one budget, each kind
/// kept a bound of its own and hostile files of every kind at once added them up: three
/// interlaced PNGs, a movie's swollen tables and a burst at 8K took a server past 5 GB.
///
/// A reservation made while the same thread holds one is counted within that one first: an
/// edit's reservation covers the photo its render decodes, so the decode's own reservation
/// takes from it and adds nothing. Only what the outer one cannot cover is reserved, and that
/// does not queue behind work that holds nothing: it waits only for room, and when every holder
/// waits so, for room none will give back, it is refused instead of waiting forever.
///
/// The budget is 1 GiB unless `LIGHTBOX_MEMORY_BUDGET` says otherwise (`768M`, `2G`, bytes);
/// `lightbox serve --memory-budget` and `lightbox worker --memory-budget` set it too.
public final class MemoryBudget: @unchecked Sendable {
    // @unchecked: every stored property but `condition` is used only while holding `condition`.

    /// Why a reservation was not made.
    public struct Refusal: Error, Sendable, CustomStringConvertible {
        /// A sentence a person can act on.
        public var message: String
        /// Whether the work was cancelled while it waited, rather than refused.
        public var isCancellation: Bool

        public var description: String { message }
    }

    /// 1 GiB: room for a 200 MP photo decoded whole (600 MB) beside the rest of a server's work.
    public static let defaultLimit = 1 << 30
    /// The smallest budget that may be set: less could not decode a 12 MP photo whole.
    public static let smallestLimit = 64 << 20

    /// The process's budget.
    public static let shared = MemoryBudget(
        limit: ProcessInfo.processInfo.environment["LIGHTBOX_MEMORY_BUDGET"].flatMap(bytes(from:)) ?? defaultLimit)

    private let condition = NSCondition()
    private var currentLimit: Int
    private var inUse = 0
    private var highest = 0
    private var queue: [Int] = []
    private var nextTicket = 0
    /// A reservation a thread holds: its bytes, how many of them the reservations made inside
    /// it took, how many it took from the one it was made inside, and what it added to `inUse`.
    private struct Held {
        var bytes: Int
        var lent = 0
        var taken: Int
        var added: Int
    }
    /// Reservations held by threads now, by thread, the innermost last.
    private var holders: [pthread_t: [Held]] = [:]
    /// Threads that hold a reservation and wait for another.
    private var nestedWaiting = 0
    /// Reservations held apart from any thread (a capture's frames until its photo is encoded).
    private var detached = 0

    /// A budget of `limit` bytes (at least ``smallestLimit``).
    public init(limit: Int) {
        currentLimit = max(Self.smallestLimit, limit)
    }

    /// The budget in bytes; work already running keeps what it holds when it is lowered.
    public var limit: Int {
        get { locked { currentLimit } }
        set {
            locked { currentLimit = max(Self.smallestLimit, newValue) }
            condition.broadcast()
        }
    }

    /// What is reserved now, the most that was reserved at once, and how many wait.
    public var state: (reserved: Int, peak: Int, waiting: Int) {
        locked { (inUse, highest, queue.count + nestedWaiting) }
    }

    /// A size such as `1G`, `768M`, `65536K` or a count of bytes; nil for anything else.
    public static func bytes(from text: String) -> Int? {
        let trimmed = text.trimmingCharacters(in: .whitespaces).uppercased()
        let shifts: [Character: Int] = ["K": 10, "M": 20, "G": 30, "T": 40]
        var digits = Substring(trimmed)
        var shift = 0
        if let last = digits.last, let found = shifts[last] {
            shift = found
            digits = digits.dropLast()
        }
        guard !digits.isEmpty, digits.count <= 12, digits.allSatisfy(\.isASCII), let count = Int(digits),
            count > 0, count <= Int.max >> shift
        else { return nil }
        return count << shift
    }

    /// Runs `body` once `bytes` are reserved, and gives them back after. Refused at once when
    /// `bytes` is more than the whole budget, and while waiting when `isCancelled` says so or
    /// when every holder waits for more (see the type's documentation); `refused` turns the
    /// refusal into the caller's error. `work` names what reserves in the message, with the
    /// file it reads: "decoding /photos/a.png".
    public func withReservation<T, E: Error>(
        _ bytes: Int, for work: @autoclosure () -> String, isCancelled: () -> Bool = { false },
        refused: (Refusal) -> E, _ body: () throws(E) -> T
    ) throws(E) -> T {
        guard bytes > 0 else { return try body() }
        do {
            try reserve(bytes, for: work, isCancelled: isCancelled)
        } catch {
            throw refused(error)
        }
        defer { release() }
        return try body()
    }

    /// Reserves `bytes` for work that outlives the caller's thread when they fit now beside
    /// what runs and nothing waits; false, without waiting, when they do not. Given back by
    /// ``giveBack(_:)``.
    public func reserveNow(_ bytes: Int) -> Bool {
        let share = max(0, bytes)
        return locked {
            guard queue.isEmpty, nestedWaiting == 0, inUse + share <= currentLimit else { return false }
            inUse += share
            highest = max(highest, inUse)
            detached += 1
            return true
        }
    }

    /// Gives back what ``reserveNow(_:)`` reserved.
    public func giveBack(_ bytes: Int) {
        locked {
            inUse -= max(0, bytes)
            detached -= 1
        }
        condition.broadcast()
    }

    private func reserve(_ bytes: Int, for work: () -> String, isCancelled: () -> Bool) throws(Refusal) {
        let thread = pthread_self()
        condition.lock()
        defer { condition.unlock() }
        guard bytes <= currentLimit else {
            throw Refusal(
                message: "\(work()) needs \(Self.megabytes(bytes)) at once, more than the memory budget of "
                    + "\(Self.megabytes(currentLimit)) (LIGHTBOX_MEMORY_BUDGET, --memory-budget)",
                isCancellation: false)
        }
        var stack = holders[thread] ?? []
        var taken = 0
        if let outer = stack.last {
            taken = min(bytes, outer.bytes - outer.lent)
            if bytes > taken { try waitNested(bytes - taken, for: work, isCancelled: isCancelled) }
            stack[stack.count - 1].lent += taken
        } else {
            try waitInTurn(bytes, isCancelled: isCancelled)
        }
        inUse += bytes - taken
        highest = max(highest, inUse)
        stack.append(Held(bytes: bytes, taken: taken, added: bytes - taken))
        holders[thread] = stack
        // The next in line may fit beside this one.
        condition.broadcast()
    }

    /// Waits, holding `condition`, until `bytes` are first in line and fit.
    private func waitInTurn(_ bytes: Int, isCancelled: () -> Bool) throws(Refusal) {
        let ticket = nextTicket
        nextTicket += 1
        queue.append(ticket)
        while queue.first != ticket || inUse + bytes > currentLimit {
            if isCancelled() {
                queue.removeAll { $0 == ticket }
                condition.broadcast()
                throw Refusal(message: "cancelled while waiting for memory", isCancellation: true)
            }
            // Woken when work ends; the timeout only looks at cancellation again.
            _ = condition.wait(until: Date(timeIntervalSinceNow: 0.05))
        }
        queue.removeFirst()
    }

    /// Waits, holding `condition`, until `bytes` fit, for a thread that holds a reservation.
    private func waitNested(_ bytes: Int, for work: () -> String, isCancelled: () -> Bool) throws(Refusal) {
        guard inUse + bytes > currentLimit else { return }
        nestedWaiting += 1
        defer { nestedWaiting -= 1 }
        while inUse + bytes > currentLimit {
            if isCancelled() {
                throw Refusal(message: "cancelled while waiting for memory", isCancellation: true)
            }
            if nestedWaiting >= holders.count && detached == 0 {
                throw Refusal(
                    message: "\(work()) needs \(Self.megabytes(bytes)) more, and the memory budget of "
                        + "\(Self.megabytes(currentLimit)) is held by work that waits for more itself: try again",
                    isCancellation: false)
            }
            _ = condition.wait(until: Date(timeIntervalSinceNow: 0.05))
        }
    }

    private func release() {
        let thread = pthread_self()
        locked {
            guard var stack = holders[thread], let held = stack.popLast() else { return }
            inUse -= held.added
            if stack.isEmpty {
                holders[thread] = nil
            } else {
                stack[stack.count - 1].lent -= held.taken
                holders[thread] = stack
            }
        }
        condition.broadcast()
    }

    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        condition.lock()
        defer { condition.unlock() }
        return try body()
    }

    static func megabytes(_ bytes: Int) -> String { "\((bytes + (1 << 20) - 1) >> 20) MB" }
}
