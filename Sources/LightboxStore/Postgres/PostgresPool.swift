import Foundation

/// The connections a store's reads and writes take turns on: an idle one is reused, a new one
/// made while fewer than ``maximum`` are open, and otherwise the caller waits for one to come
/// back. A connection that broke is closed, not given back.
final class PostgresPool: @unchecked Sendable {
    // @unchecked: `idle` and `open` are read and written only while holding `condition`.
    let address: PostgresAddress
    let maximum: Int
    private let environment: [String: String]
    private let condition = NSCondition()
    private var idle: [PostgresLink] = []
    private var open = 0
    /// Connections ended snapshots left, for the next snapshot.
    private var spares: [PostgresLink] = []

    init(address: PostgresAddress, environment: [String: String], maximum: Int) {
        self.address = address
        self.environment = environment
        self.maximum = max(1, maximum)
    }

    /// Runs `body` on a connection of the pool, blocking the caller until one is free.
    func withLink<T>(_ body: (PostgresLink) throws -> T) throws -> T {
        let link = try take()
        defer { give(link) }
        return try body(link)
    }

    /// A new connection outside the pool's count, for a caller that keeps it (the listener).
    func connect() throws -> PostgresLink {
        try PostgresLink.connect(to: address, environment: environment)
    }

    /// A connection for a snapshot, which holds it as long as fetch results read it: one an
    /// ended snapshot left when there is one (a new connection is a new server process, which
    /// took more than a whole fetch), else a new one. Outside the pool's count, so that results
    /// kept alive never starve reads and writes.
    func takeSpare() throws -> PostgresLink {
        if let link = condition.withLock({ spares.popLast() }) { return link }
        return try connect()
    }

    /// Keeps an ended snapshot's connection, out of its transaction, for the next; a few at most.
    func giveSpare(_ link: PostgresLink) {
        guard !link.isClosed else { return }
        condition.withLock { if spares.count < maximum { spares.append(link) } }
    }

    private func take() throws -> PostgresLink {
        condition.lock()
        while idle.isEmpty && open >= maximum { condition.wait() }
        if let link = idle.popLast() {
            condition.unlock()
            return link
        }
        open += 1
        condition.unlock()
        do {
            return try connect()
        } catch {
            condition.lock()
            open -= 1
            condition.signal()
            condition.unlock()
            throw error
        }
    }

    private func give(_ link: PostgresLink) {
        condition.lock()
        if link.isClosed {
            open -= 1
        } else {
            idle.append(link)
        }
        condition.signal()
        condition.unlock()
    }
}
