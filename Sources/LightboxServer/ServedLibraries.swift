import Foundation
import Lightbox
import Logging
import Synchronization

/// Every user's library: the server's own for its first user (and for the local owner of a
/// library without users), `users/ID` inside it for each other user, opened on first use and
/// kept open. A user reaches only their own: no identifier names another's.
final class ServedLibraries: Sendable {
    let home: ServedLibrary
    let waitingRenders: Int
    private let opened = Mutex<[String: ServedLibrary]>([:])

    init(home: PhotoLibrary, waitingRenders: Int) {
        self.home = ServedLibrary(library: home, waitingRenders: waitingRenders)
        self.waitingRenders = waitingRenders
        Self.readCameras(of: home)
    }

    /// Reads the cameras and lenses of the assets a library imported before the catalog kept
    /// them, in the background, so that search finds them; logs when it starts and ends.
    static func readCameras(of library: PhotoLibrary) {
        guard let waiting = try? library.captureDetailsBacklogCount(), waiting > 0 else { return }
        Task.detached(priority: .background) {
            let logger = ServerLogHandler.logger(label: "Lightbox")
            logger.info("reading the camera and lens of \(waiting) assets imported before search had them")
            do {
                let read = try await library.fillCaptureDetails()
                logger.info("read the camera and lens of \(read) assets")
            } catch {
                logger.error("reading cameras and lenses stopped: \(error)")
            }
        }
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
        let url = try user.libraryURL(inside: home.library.url)
        return try opened.withLock { opened in
            if let served = opened[user.id] { return served }
            let served = ServedLibrary(library: try PhotoLibrary(url: url), waitingRenders: waitingRenders)
            opened[user.id] = served
            Self.readCameras(of: served.library)
            return served
        }
    }
}
