import Foundation
import LightboxStore

/// Watches the library's change log and tells observers of each new transaction.
///
/// While anyone listens it looks at the last transaction id whenever the store says a commit
/// may have landed (``LibraryStore/waitForChanges(upTo:)``): ten times a second on SQLite, so
/// commits by other processes (the CLI in another terminal, a server) are heard within a
/// second; on PostgreSQL when a commit's notification arrives, from any machine, and every few
/// seconds besides. It stops when the last listener goes.
final class ChangeMonitor: @unchecked Sendable {
    // @unchecked: every mutable field is read and written only while holding `lock`.
    private let lock = NSLock()
    private var observers: [ObjectIdentifier: WeakObserver] = [:]
    private var streams: [UUID: AsyncStream<PhotoLibraryChange>.Continuation] = [:]
    private var task: Task<Void, Never>?
    private var lastToken: PersistentChangeToken?

    private struct WeakObserver {
        weak var observer: (any PhotoLibraryChangeObserver)?
    }

    func register(_ observer: any PhotoLibraryChangeObserver, library: PhotoLibrary) throws {
        try startIfNeeded(library) {
            observers[ObjectIdentifier(observer)] = WeakObserver(observer: observer)
        }
    }

    func unregister(_ observer: any PhotoLibraryChangeObserver) {
        lock.lock()
        observers[ObjectIdentifier(observer)] = nil
        lock.unlock()
    }

    func stream(library: PhotoLibrary) throws -> AsyncStream<PhotoLibraryChange> {
        let (stream, continuation) = AsyncStream<PhotoLibraryChange>.makeStream(bufferingPolicy: .unbounded)
        let id = UUID()
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            self.lock.lock()
            self.streams[id] = nil
            self.lock.unlock()
        }
        try startIfNeeded(library) { streams[id] = continuation }
        return stream
    }

    /// Adds a listener (under the lock) and starts polling from the present token when idle.
    private func startIfNeeded(_ library: PhotoLibrary, add: () -> Void) throws {
        let token = try library.currentChangeToken()
        lock.lock()
        defer { lock.unlock() }
        add()
        guard task == nil else { return }
        lastToken = token
        task = Task.detached { [weak self, weak library] in
            while let self, let library, self.hasListeners() {
                await self.poll(library)
                await library.store.waitForChanges()
            }
            self?.stopped()
        }
    }

    private func hasListeners() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        observers = observers.filter { $0.value.observer != nil }
        return !observers.isEmpty || !streams.isEmpty
    }

    private func stopped() {
        lock.lock()
        task = nil
        lock.unlock()
    }

    private func poll(_ library: PhotoLibrary) async {
        let since = lock.withLock { lastToken ?? PersistentChangeToken(rawValue: 0) }
        guard let current = try? await library.store.read({ try $0.lastChangeTransaction() }),
            current > since.rawValue
        else { return }
        var changes: [PersistentChange]
        do {
            changes = try await library.read { try $0.fetchPersistentChanges(since: since) }
        } catch {
            // History was pruned past our token: one change with no details stands for all that
            // was missed, so listeners still fetch again (their fetch result details compare
            // the results themselves).
            changes = [
                PersistentChange(
                    changeToken: PersistentChangeToken(rawValue: current), date: Date(), author: nil, details: [:])
            ]
        }
        let (listeners, continuations) = lock.withLock {
            lastToken = changes.last?.changeToken ?? PersistentChangeToken(rawValue: current)
            return (observers.values.compactMap(\.observer), Array(streams.values))
        }
        for persistent in changes {
            let change = PhotoLibraryChange(persistentChange: persistent, library: library)
            for observer in listeners { observer.photoLibraryDidChange(change) }
            for continuation in continuations { continuation.yield(change) }
        }
    }
}

extension PhotoLibrary {
    /// Registers an observer of every committed transaction (PhotoKit's `register(_:)`).
    /// The library holds it weakly.
    public func register(_ observer: any PhotoLibraryChangeObserver) throws {
        try changeMonitor.register(observer, library: self)
    }

    /// Stops telling an observer of changes.
    public func unregister(_ observer: any PhotoLibraryChangeObserver) {
        changeMonitor.unregister(observer)
    }

    /// The library's changes from now on, one per committed transaction, whoever commits it.
    ///
    /// ```swift
    /// for await change in try library.changes() {
    ///     if let details = change.details(for: result) { result = details.fetchResultAfterChanges }
    /// }
    /// ```
    public func changes() throws -> AsyncStream<PhotoLibraryChange> {
        try changeMonitor.stream(library: self)
    }
}
