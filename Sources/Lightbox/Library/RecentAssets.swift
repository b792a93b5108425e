import Foundation
import LightboxStore
import Synchronization

/// Assets read lately, kept to answer the same identifiers again without a read of the
/// catalog: what a server asks for every image of a grid, again and again.
///
/// What it holds is true while no write has run in this process (``LibraryStore/localWrites``,
/// checked on every call) and no other process has committed (the last transaction, read again
/// at most every ``checkInterval``): any change empties it. So a change made here is seen at
/// once, one made by another process within ``checkInterval``.
final class RecentAssets: Sendable {
    /// How often the last transaction is read again, for other processes' commits.
    static let checkInterval: Duration = .milliseconds(100)
    /// The most assets held; past it, the memory starts again.
    static let capacity = 50_000

    private struct State {
        var assets: [String: Asset?] = [:]
        var localWrites: UInt64 = 0
        var transaction: Int64 = -1
        var checked: ContinuousClock.Instant?
        /// Whether a request is reading the last transaction now.
        var checking = false
    }

    private let state = Mutex(State())
    /// How many assets were read from the catalog: the misses.
    let catalogReads = Atomic<Int>(0)

    /// What the memory says of an identifier.
    private enum Lookup {
        /// Read lately: the asset, or nil for none.
        case found(Asset?)
        /// Not read lately.
        case missing
        /// Time to read the last transaction again first.
        case due
    }

    /// The asset with this identifier in `store` (nil when there is none), from memory when it
    /// is still true.
    func asset(withLocalIdentifier localIdentifier: String, in store: any LibraryStore) async throws -> Asset? {
        let now = ContinuousClock.now
        let writes = store.localWrites
        let lookup = state.withLock { state -> Lookup in
            if state.localWrites != writes {
                state.assets.removeAll(keepingCapacity: true)
                state.localWrites = writes
            }
            // While one request reads the last transaction, the others answer from memory: a
            // check is at most one read in flight, not one for every request that finds it due.
            if state.checking || state.checked.map({ now - $0 < Self.checkInterval }) == true {
                return state.assets[localIdentifier].map(Lookup.found) ?? .missing
            }
            state.checking = true
            return .due
        }
        switch lookup {
        case .found(let asset): return asset
        case .missing: break
        case .due:
            let transaction: Int64
            do {
                transaction = try await store.read { try $0.lastChangeTransaction() }
            } catch {
                state.withLock { $0.checking = false }
                throw error
            }
            let found = state.withLock { state -> Asset?? in
                state.checking = false
                if state.transaction != transaction {
                    state.assets.removeAll(keepingCapacity: true)
                    state.transaction = transaction
                }
                state.checked = now
                return state.assets[localIdentifier]
            }
            if let found { return found }
        }
        // The count is taken before the read: a write that ends meanwhile leaves a count that
        // no longer matches, and what was read is not kept.
        let before = store.localWrites
        catalogReads.add(1, ordering: .relaxed)
        let asset = try await store.read { try $0.asset(withLocalIdentifier: localIdentifier) }
        state.withLock { state in
            guard state.localWrites == before, store.localWrites == before else { return }
            if state.assets.count >= Self.capacity { state.assets.removeAll(keepingCapacity: true) }
            state.assets[localIdentifier] = .some(asset)
        }
        return asset
    }
}

extension PhotoLibrary {
    /// The asset with this identifier, or nil, as read lately: answered from memory while
    /// nothing has changed the library since (a change by this process is seen at once, one
    /// by another process within 0.1 s). For a server answering the same assets over and over,
    /// such as the image requests of a grid; ``asset(withLocalIdentifier:)`` reads the catalog.
    public func recentAsset(withLocalIdentifier localIdentifier: String) async throws -> Asset? {
        try await recentAssets.asset(withLocalIdentifier: localIdentifier, in: store)
    }
}
