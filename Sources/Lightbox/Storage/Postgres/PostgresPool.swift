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

    /// A new connection outside the pool's count, for a caller that keeps it (a snapshot).
    func connect() throws -> PostgresLink {
        try PostgresLink.connect(to: address, environment: environment)
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
