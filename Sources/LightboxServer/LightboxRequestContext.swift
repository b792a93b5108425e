import Foundation
import Hummingbird
import Lightbox
import NIOCore

/// The context of every request: who sent it (set by ``AccessMiddleware``) and the library it
/// reaches, their own.
public struct LightboxRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The client's IP address, for sign-in throttling and the list of sessions: the peer's, or
    /// what a trusted proxy says in `X-Forwarded-For`. Formatted when asked, not for every
    /// request.
    public internal(set) var remoteAddress: String {
        get { forwardedAddress ?? peer?.ipAddress ?? "" }
        set { forwardedAddress = newValue }
    }
    private let peer: SocketAddress?
    private var forwardedAddress: String?
    /// The authenticated caller; nil before authentication, and on public routes without
    /// credentials.
    public internal(set) var caller: Caller?
    /// The caller's library, with its image manager.
    var served: ServedLibrary?
    /// Whether the request came over TLS (a trusted proxy's `X-Forwarded-Proto`).
    var isSecure = false

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        peer = source.channel.remoteAddress
    }

    /// The caller's library; a route that is not public never runs without one.
    func library() throws -> ServedLibrary {
        guard let served else { throw HTTPError(.unauthorized, message: "sign in first") }
        return served
    }
}

/// A library as the server serves it: the library, and its image manager and edit previews,
/// made once and shared by every request to it.
final class ServedLibrary: Sendable {
    let library: PhotoLibrary
    let images: CachingImageManager
    let previews: EditPreviews
    /// Where uploads go: the library's own, or for an album shared to contribute to, its
    /// owner's.
    let uploads: UploadStaging

    init(library: PhotoLibrary, uploads: UploadStaging? = nil, waitingRenders: Int) {
        self.library = library
        self.uploads = uploads ?? UploadStaging(library: library)
        images = CachingImageManager(library: library, waitingRenders: waitingRenders)
        previews = EditPreviews(library: library)
    }
}
