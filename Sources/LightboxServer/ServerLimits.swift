import Foundation
import Hummingbird
import NIOCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// What one server lets its clients hold: connections in all and from one address, how long a
/// connection may stay silent, and how many renders may wait for a slot.
///
/// Without them, 20,000 idle connections stopped the server answering (each held a file
/// descriptor, and accept failed in a loop burning a core), and a slow client could hold a
/// connection forever by sending a header a byte at a time.
public struct ServerLimits: Sendable {
    /// The most connections open at once; past it, new ones wait in the listen backlog.
    /// Lowered at start to half the descriptors the process may open.
    public var connections = 4096
    /// The most connections open at once from one IP address; past it, a new one is closed.
    public var connectionsPerAddress = 64
    /// A connection that sends nothing for this long (before its request's head is complete,
    /// between two parts of its body, or between requests) is closed.
    public var idleTimeout: Duration = .seconds(30)
    /// A new connection whose first request's head is not complete by then is closed, however
    /// it trickles: slots held by clients that never ask are freed sooner than idle ones.
    public var headerTimeout: Duration = .seconds(10)
    /// The most image requests that wait for a render slot; past it, 503 with `Retry-After`.
    public var waitingRenders = 256
    /// The largest file one upload may be.
    public var maximumUploadSize: Int64 = 64 << 30
    /// The most upload bodies one user sends at once; past it, 429.
    public var uploadsPerUser = 4

    public init() {}

    /// `connections`, bounded by the descriptors this process may open (raised to its hard
    /// limit first): each connection holds one, and the library needs some of its own.
    var effectiveConnections: Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return min(connections, 512) }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = min(limit.rlim_max, 1 << 20)
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        let descriptors = Int(clamping: limit.rlim_cur)
        return max(1, min(connections, descriptors / 2))
    }
}

/// Counts the open connections of each address, for ``ServerLimits/connectionsPerAddress``.
///
/// A reverse proxy on the same machine carries every client's connections from a loopback
/// address: behind a trusted proxy (`--trust-proxy`), loopback is not counted, or 64
/// connections would be the whole site's.
final class AddressConnections: Sendable {
    private let counts = Mutex<[String: Int]>([:])
    let limit: Int
    let exemptsLoopback: Bool

    init(limit: Int, exemptingLoopback: Bool = false) {
        self.limit = max(1, limit)
        exemptsLoopback = exemptingLoopback
    }

    /// Counts a new connection from `address`; false (and not counted) when it has `limit`.
    func open(_ address: String) -> Bool {
        if exemptsLoopback && AccessPolicy.isLoopback(address) { return true }
        return counts.withLock { counts in
            let count = counts[address, default: 0]
            guard count < limit else { return false }
            counts[address] = count + 1
            return true
        }
    }

    func close(_ address: String) {
        if exemptsLoopback && AccessPolicy.isLoopback(address) { return }
        counts.withLock { counts in
            let count = counts[address, default: 1] - 1
            counts[address] = count > 0 ? count : nil
        }
    }

    /// A handler for each connection's pipeline: it closes the connection at once when its
    /// address has too many.
    func handler() -> Handler { Handler(connections: self) }

    final class Handler: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = Any
        let connections: AddressConnections

        init(connections: AddressConnections) {
            self.connections = connections
        }

        func handlerAdded(context: ChannelHandlerContext) {
            guard let address = context.channel.remoteAddress?.ipAddress else { return }
            guard connections.open(address) else {
                context.close(promise: nil)
                return
            }
            context.channel.closeFuture.whenComplete { [connections] _ in connections.close(address) }
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            context.fireChannelRead(data)
            // Counted: later reads need not pass through it (the close is watched without it).
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        }
    }
}

/// Closes a connection whose first request has not given its head within `timeout`: the
/// HTTP decoder before it passes nothing on until a head is whole, so a header sent a byte at
/// a time, or never, reaches the deadline.
final class HeaderTimeoutHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = Any
    private let timeout: TimeAmount
    private var deadline: Scheduled<Void>?

    init(timeout: TimeAmount) {
        self.timeout = timeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let channel = context.channel
        deadline = context.eventLoop.scheduleTask(in: timeout) { channel.close(promise: nil) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        deadline?.cancel()
        deadline = nil
        context.fireChannelRead(data)
        // Its work is done: later reads need not pass through it.
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }
}

extension Duration {
    /// The same span for NIO.
    var timeAmount: TimeAmount {
        let (seconds, attoseconds) = components
        return .seconds(seconds) + .nanoseconds(attoseconds / 1_000_000_000)
    }
}
