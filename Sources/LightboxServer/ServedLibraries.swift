import Foundation
import Lightbox
import LightboxAnalysis
import Logging
import Synchronization

/// Every user's library: the server's own for its first user (and for the local owner of a
/// library without users), `users/ID` inside it for each other user, opened on first use and
/// kept open. A user reaches only their own: no identifier names another's.
final class ServedLibraries: Sendable {
    let home: ServedLibrary
    let waitingRenders: Int
    private let opened = Mutex<[String: ServedLibrary]>([:])

    /// Jobs each library's runner does at once; 0: none (workers do them).
    let jobs: Int
    /// What finds faces for the runners; nil: the faces job waits for a worker with one.
    let analyzer: (any PhotoAnalyzing)?
    /// The libraries' job runners, cancelled when the server goes.
    private let runners = Mutex<[Task<Void, Never>]>([])

    init(home: PhotoLibrary, waitingRenders: Int, jobs: Int = 0, analyzer: (any PhotoAnalyzing)? = nil) {
        self.home = ServedLibrary(library: home, waitingRenders: waitingRenders)
        self.waitingRenders = waitingRenders
        self.jobs = jobs
        self.analyzer = analyzer
        runJobs(of: home)
    }

    deinit {
        for runner in runners.withLock({ $0 }) { runner.cancel() }
    }

    /// Runs a library's jobs in the background while the server lives, when it runs any (a
    /// server alone; beside workers it may leave them theirs), logging each.
    private func runJobs(of library: PhotoLibrary) {
        guard jobs > 0 else { return }
        let options = PhotoLibrary.JobRunnerOptions(concurrency: jobs, analyzer: analyzer)
        let runner = Task.detached(priority: .background) {
            let logger = ServerLogHandler.logger(label: "Lightbox")
            do {
                try await library.runJobs(options) { event in
                    if case .idle = event { return }
                    if case .failed = event { logger.error("job \(event)") } else { logger.info("job \(event)") }
                }
            } catch is CancellationError {
            } catch {
                logger.error("running jobs stopped: \(error)")
            }
        }
        runners.withLock { $0.append(runner) }
    }

    /// Limited views, by token and by share: each keeps its image manager between requests.
    private let limited = Mutex<[String: ServedLibrary]>([:])

    /// The library `caller` works in: their own, seen through their token's selection when it
    /// has one (``LimitedSelection``); the owner's, seen through the album alone, when the
    /// caller reaches an album shared with them.
    func library(for caller: Caller) throws -> ServedLibrary {
        if let shared = caller.sharedAlbum { return try library(for: shared) }
        let own = try ownLibrary(for: caller.user)
        guard case .token(let token) = caller.credential, let identifiers = token.limitedTo else { return own }
        if let served = limited.withLock({ $0[token.id] }) { return served }
        let albums = try own.library.albumIdentifiers(among: identifiers)
        let selection = LimitedSelection(
            assetIdentifiers: identifiers.filter { !albums.contains($0) }, albumIdentifiers: Array(albums))
        let served = ServedLibrary(library: own.library.limited(to: selection), waitingRenders: waitingRenders)
        return limited.withLock { cache in
            if cache.count >= 1000 { cache.removeAll() }
            if let existing = cache[token.id] { return existing }
            cache[token.id] = served
            return served
        }
    }

    /// A shared album as its audience sees it: the owner's library limited to the album's
    /// assets, whose uploads go into the owner's library.
    func library(for shared: SharedAlbum) throws -> ServedLibrary {
        let key = "share:" + shared.share.id
        if let served = limited.withLock({ $0[key] }) { return served }
        let owner = try ownLibrary(for: shared.owner)
        let served = ServedLibrary(
            library: owner.library.limited(to: LimitedSelection(albumIdentifiers: [shared.share.albumIdentifier])),
            uploads: owner.uploads, waitingRenders: waitingRenders)
        return limited.withLock { cache in
            if cache.count >= 1000 { cache.removeAll() }
            if let existing = cache[key] { return existing }
            cache[key] = served
            return served
        }
    }

    private func ownLibrary(for user: UserAccount?) throws -> ServedLibrary {
        guard let user, !user.libraryFolder.isEmpty else { return home }
        return try opened.withLock { opened in
            if let served = opened[user.id] { return served }
            let library = try home.library.memberLibrary(folder: user.libraryFolder)
            let served = ServedLibrary(library: library, waitingRenders: waitingRenders)
            opened[user.id] = served
            runJobs(of: served.library)
            return served
        }
    }
}
