import Foundation
import Hummingbird
import Synchronization

/// Slows down password guessing, per account and per address: five failures are free, then
/// each further attempt waits twice as long as the one before (2 s, 4 s, ... at most 15
/// minutes) after the last failure, and is refused unheard (429 with `Retry-After`) until then.
/// Fifteen quiet minutes forget the failures; a success forgets them at once.
///
/// An attempt counts as a failure from the moment it is let through (``begin(_:_:)``), in the
/// same step that checks the wait, until it succeeds: checked first and recorded after the
/// password's hashing, twenty guesses sent at once were all heard.
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
        entries.withLock { Self.wait(for: keys, in: $0, now: now) }
    }

    private static func wait(for keys: [String], in entries: [String: Entry], now: Date) -> TimeInterval? {
        keys.compactMap { key -> TimeInterval? in
            guard let entry = entries[key], entry.failures >= Self.freeFailures else { return nil }
            let exponent = min(entry.failures - Self.freeFailures + 1, 20)
            let wait = min(Double(1 << exponent), Self.longestWait)
            let remaining = entry.last.addingTimeInterval(wait).timeIntervalSince(now)
            return remaining > 0 ? remaining : nil
        }.max()
    }

    /// Lets an attempt by `keys` be heard, counted as a failure until ``recordSuccess(_:)``;
    /// throws 429 with `Retry-After`, counting nothing, while any of `keys` must wait. `what`
    /// says what failed.
    func begin(_ keys: [String], _ what: String, now: Date = Date()) throws {
        let wait: TimeInterval? = entries.withLock { entries in
            if let wait = Self.wait(for: keys, in: entries, now: now) { return wait }
            Self.recordFailure(keys, in: &entries, now: now)
            return nil
        }
        guard let wait else { return }
        let seconds = String(Int(wait.rounded(.up)))
        throw HTTPError(
            .tooManyRequests, headers: [.retryAfter: seconds],
            message: "too many \(what): try again in \(seconds) seconds")
    }

    func recordFailure(_ keys: [String], now: Date = Date()) {
        entries.withLock { Self.recordFailure(keys, in: &$0, now: now) }
    }

    private static func recordFailure(_ keys: [String], in entries: inout [String: Entry], now: Date) {
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

    func recordSuccess(_ keys: [String]) {
        entries.withLock { entries in
            for key in keys { entries[key] = nil }
        }
    }
}
