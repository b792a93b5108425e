import Foundation
import Hummingbird
import Synchronization

/// Slows down password guessing, per account and per address: five failures are free, then
/// each further attempt waits twice as long as the one before (2 s, 4 s, ... at most 15
/// minutes) after the last failure, and is refused unheard (429 with `Retry-After`) until then.
/// Fifteen quiet minutes forget the failures; a success forgets them at once.
///
/// Kept in memory: a restart forgives, which costs a guesser a restart they cannot cause.
final class SignInThrottle: Sendable {
    struct Entry {
        var failures: Int
        var last: Date
    }

    static let freeFailures = 5
    static let longestWait: TimeInterval = 15 * 60
    static let forgetAfter: TimeInterval = 15 * 60
    /// The most names and addresses remembered: past it, the quiet ones are forgotten first.
    static let capacity = 100_000

    private let entries = Mutex<[String: Entry]>([:])

    /// The seconds to wait before any of `keys` may try again; nil when none must wait.
    func wait(for keys: [String], now: Date = Date()) -> TimeInterval? {
        entries.withLock { entries in
            keys.compactMap { key -> TimeInterval? in
                guard let entry = entries[key], entry.failures >= Self.freeFailures else { return nil }
                let exponent = min(entry.failures - Self.freeFailures + 1, 20)
                let wait = min(Double(1 << exponent), Self.longestWait)
                let remaining = entry.last.addingTimeInterval(wait).timeIntervalSince(now)
                return remaining > 0 ? remaining : nil
            }.max()
        }
    }

    /// Throws 429 with `Retry-After` while any of `keys` must wait; `what` says what failed.
    func check(_ keys: [String], _ what: String) throws {
        guard let wait = wait(for: keys) else { return }
        let seconds = String(Int(wait.rounded(.up)))
        throw HTTPError(
            .tooManyRequests, headers: [.retryAfter: seconds],
            message: "too many \(what): try again in \(seconds) seconds")
    }

    func recordFailure(_ keys: [String], now: Date = Date()) {
        entries.withLock { entries in
            if entries.count >= Self.capacity {
                entries = entries.filter { now.timeIntervalSince($0.value.last) < Self.forgetAfter }
                if entries.count >= Self.capacity { entries.removeAll() }
            }
            for key in keys {
                var entry = entries[key] ?? Entry(failures: 0, last: now)
                if now.timeIntervalSince(entry.last) >= Self.forgetAfter { entry.failures = 0 }
                entry.failures += 1
                entry.last = now
                entries[key] = entry
            }
        }
    }

    func recordSuccess(_ keys: [String]) {
        entries.withLock { entries in
            for key in keys { entries[key] = nil }
        }
    }
}
