import Foundation
import LightboxMetadata
import Synchronization
import Testing

@Suite("The process's memory budget")
struct MemoryBudgetTests {
    struct Failure: Error { var refusal: MemoryBudget.Refusal }
    /// A value threads share.
    final class Shared<Value: Sendable>: Sendable {
        let value: Mutex<Value>
        init(_ value: Value) { self.value = Mutex(value) }
        var current: Value { value.withLock { $0 } }
    }
    static let megabyte = 1 << 20

    /// Runs `body` on a thread of its own; the returned semaphore is signalled when it ends.
    static func onThread(_ body: @escaping @Sendable () -> Void) -> DispatchSemaphore {
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            body()
            done.signal()
        }
        return done
    }

    /// Waits until `condition` holds, looking again every millisecond.
    static func waitUntil(_ condition: () -> Bool) {
        while !condition() { usleep(1_000) }
    }

    static func reserve(_ budget: MemoryBudget, _ megabytes: Int, _ body: () throws(Failure) -> Void) throws(Failure) {
        try budget.withReservation(megabytes * megabyte, for: "test work", refused: { Failure(refusal: $0) }, body)
    }

    @Test("More than the whole budget is refused at once, naming the work and the budget")
    func tooLarge() {
        let budget = MemoryBudget(limit: 64 * Self.megabyte)
        var ran = false
        let error = #expect(throws: Failure.self) {
            try budget.withReservation(
                100 * Self.megabyte, for: "decoding /photos/huge.png", refused: { Failure(refusal: $0) }
            ) { () throws(Failure) in ran = true }
        }
        #expect(!ran)
        #expect(error?.refusal.message.contains("decoding /photos/huge.png needs 100 MB") == true)
        #expect(error?.refusal.message.contains("memory budget of 64 MB") == true)
        #expect(budget.state.reserved == 0)
    }

    @Test("Work that does not fit waits until work ends, and never holds more than the budget")
    func waitsForRoom() throws {
        let budget = MemoryBudget(limit: 64 * Self.megabyte)
        let release = DispatchSemaphore(value: 0)
        let first = Self.onThread {
            try? Self.reserve(budget, 48) { release.wait() }
        }
        Self.waitUntil { budget.state.reserved == 48 * Self.megabyte }
        let secondRan = Shared(false)
        let second = Self.onThread {
            try? Self.reserve(budget, 32) { secondRan.value.withLock { $0 = true } }
        }
        Self.waitUntil { budget.state.waiting == 1 }
        #expect(!secondRan.current, "32 MB does not fit beside 48 MB of 64")
        release.signal()
        first.wait()
        second.wait()
        #expect(secondRan.current)
        #expect(budget.state.peak == 48 * Self.megabyte)
        #expect(budget.state.reserved == 0)
    }

    @Test("A thread that holds a reservation is not queued behind work that holds none")
    func nestedGoesFirst() throws {
        let budget = MemoryBudget(limit: 64 * Self.megabyte)
        let queued = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let nestedRan = Shared(false)
        let holder = Self.onThread {
            try? Self.reserve(budget, 40) { () throws(Failure) in
                queued.signal()
                proceed.wait()
                // 50 inside the 40 held is 10 more, which fit; a reservation of 30 waits in
                // line for them, and the 10 do not wait behind it.
                try Self.reserve(budget, 50) {
                    #expect(budget.state.reserved == 50 * Self.megabyte)
                    nestedRan.value.withLock { $0 = true }
                }
            }
        }
        queued.wait()
        let waiter = Self.onThread { try? Self.reserve(budget, 30) {} }
        Self.waitUntil { budget.state.waiting == 1 }
        proceed.signal()
        holder.wait()
        waiter.wait()
        #expect(nestedRan.current)
        #expect(budget.state.reserved == 0)
    }

    @Test("When every holder waits for more than is left, one is refused instead of all waiting forever")
    func heldByWaiters() throws {
        let budget = MemoryBudget(limit: 64 * Self.megabyte)
        let bothHold = DispatchSemaphore(value: 0)
        let outcomes = Shared<[String]>([])
        // Each asks, inside what it holds, for 20 MB more than that covers.
        func work(_ held: Int) -> DispatchSemaphore {
            Self.onThread {
                do throws(Failure) {
                    try Self.reserve(budget, held) { () throws(Failure) in
                        bothHold.signal()
                        Self.waitUntil { budget.state.reserved == 60 * Self.megabyte }
                        try Self.reserve(budget, held + 20) {}
                    }
                    outcomes.value.withLock { $0.append("done") }
                } catch {
                    outcomes.value.withLock { $0.append(error.refusal.message) }
                }
            }
        }
        let first = work(40)
        let second = work(20)
        bothHold.wait()
        bothHold.wait()
        first.wait()
        second.wait()
        let ended = outcomes.value.withLock { $0 }
        #expect(ended.filter { $0 == "done" }.count == 1, "\(ended)")
        #expect(ended.contains { $0.contains("held by work that waits for more itself") }, "\(ended)")
        #expect(budget.state.reserved == 0)
    }

    @Test("A reservation inside another is counted within it first: an edit's covers its decode")
    func nestedWithinOuter() throws {
        let budget = MemoryBudget(limit: 64 * Self.megabyte)
        try Self.reserve(budget, 40) { () throws(Failure) in
            try Self.reserve(budget, 30) {
                #expect(budget.state.reserved == 40 * Self.megabyte, "30 MB within the 40 held")
            }
            #expect(budget.state.reserved == 40 * Self.megabyte)
            try Self.reserve(budget, 50) {
                #expect(budget.state.reserved == 50 * Self.megabyte, "40 within, 10 more")
            }
        }
        #expect(budget.state.reserved == 0)
        #expect(budget.state.peak == 50 * Self.megabyte)
    }

    @Test("Work that outlives its thread takes what fits now, or nothing")
    func reserveNow() {
        let budget = MemoryBudget(limit: 64 * Self.megabyte)
        #expect(budget.reserveNow(60 * Self.megabyte))
        #expect(!budget.reserveNow(8 * Self.megabyte))
        budget.giveBack(60 * Self.megabyte)
        #expect(budget.reserveNow(8 * Self.megabyte))
        budget.giveBack(8 * Self.megabyte)
        #expect(budget.state.reserved == 0)
    }

    @Test(
        "Sizes as an operator writes them",
        arguments: [
            ("1G", 1 << 30), ("768M", 768 << 20), ("65536K", 64 << 20), ("2g", 2 << 30), ("1000000", 1_000_000),
        ])
    func sizes(text: String, bytes: Int) {
        #expect(MemoryBudget.bytes(from: text) == bytes)
    }

    @Test("Sizes that are not", arguments: ["", "G", "-1G", "1.5G", "0", "99999999999999999999", "1 GB", "١G"])
    func notSizes(text: String) {
        #expect(MemoryBudget.bytes(from: text) == nil)
    }
}
