import Foundation
import Hummingbird
import NIOCore
import NIOHTTPTypes
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
    /// The fewest bytes a second a request's body must arrive at, over each span of
    /// `headerTimeout` in which the server waited for it; slower, the connection is closed. A
    /// byte now and then resets the idle timeout, so without it a trickled body held its
    /// connection for ever. Time the server itself takes to read is not counted.
    public var minimumBodyRate = 1_024
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

/// Closes a connection whose request body arrives slower than a rate, for
/// ``ServerLimits/minimumBodyRate``: over each span (the header timeout), the bytes that came
/// while the server was asking for more are compared with the time it waited for them. Time in
/// which the server did not ask (it was writing an upload to disk, or answering) is not the
/// client's, so a slow disk never closes a fast client.
final class BodyPaceHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let minimumRate: Int
    private let span: TimeAmount
    private var inBody = false
    private var waitingSince: NIODeadline?
    private var waited = TimeAmount.zero
    private var bytes = 0
    private var check: RepeatedTask?

    init(minimumRate: Int, span: TimeAmount) {
        self.minimumRate = max(1, minimumRate)
        self.span = span
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        check?.cancel()
        check = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if let since = waitingSince {
            waited = waited + (.now() - since)
            waitingSince = nil
        }
        switch unwrapInboundIn(data) {
        case .head:
            inBody = true
            (waited, bytes) = (.zero, 0)
            let channel = context.channel
            // Cancelled when the body ends or the handler goes, which ends the task's hold on it.
            let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
            check?.cancel()
            check = context.eventLoop.scheduleRepeatedTask(initialDelay: span, delay: span) { _ in
                handler.value.checkPace(channel)
            }
        case .body(let buffer):
            bytes += buffer.readableBytes
        case .end:
            inBody = false
            check?.cancel()
            check = nil
        }
        context.fireChannelRead(data)
    }

    func read(context: ChannelHandlerContext) {
        if inBody, waitingSince == nil { waitingSince = .now() }
        context.read()
    }

    private func checkPace(_ channel: any Channel) {
        let now = NIODeadline.now()
        let waitedNow = waited + (waitingSince.map { now - $0 } ?? .zero)
        let seconds = Double(waitedNow.nanoseconds) / 1e9
        // Judged only over a span mostly spent waiting on the client.
        if waitedNow * 2 >= span, Double(bytes) < Double(minimumRate) * seconds {
            channel.close(promise: nil)
        }
        (waited, bytes) = (.zero, 0)
        if waitingSince != nil { waitingSince = now }
    }
}

extension Duration {
    /// The same span for NIO.
    var timeAmount: TimeAmount {
        let (seconds, attoseconds) = components
        return .seconds(seconds) + .nanoseconds(attoseconds / 1_000_000_000)
    }
}
