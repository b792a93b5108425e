/// Follows a render: told how far it has got, asked whether to go on.
///
/// A render asks between rows of decoded blocks (a JPEG) or tiles (libvips), so a cancelled
/// render of a large photo stops within milliseconds and throws
/// ``ImagingError/Code-swift.struct/cancelled``.
public struct RenderMonitor: Sendable {
    /// True when the work should stop.
    public var isCancelled: @Sendable () -> Bool
    /// Called with the fraction done, 0...1, one call at a time, from the rendering thread or
    /// a helper thread of its decode (a HEIF grid's tiles).
    public var progress: (@Sendable (Double) -> Void)?
    /// How long the render may take: past it, it stops as if cancelled and throws
    /// ``ImagingError/Code-swift.struct/timedOut``. A render without a monitor has
    /// ``defaultTimeLimit``.
    public var timeLimit: Duration

    /// Two minutes: a 200-megapixel photo renders in a few seconds on one core; a render
    /// still going after that is one a hostile file keeps busy.
    public static let defaultTimeLimit: Duration = .seconds(120)

    public init(
        isCancelled: @escaping @Sendable () -> Bool, progress: (@Sendable (Double) -> Void)? = nil,
        timeLimit: Duration = RenderMonitor.defaultTimeLimit
    ) {
        self.isCancelled = isCancelled
        self.progress = progress
        self.timeLimit = timeLimit
    }

    /// This monitor (or, for nil, one that is never cancelled) also stopping the work at its
    /// time limit, counted from now; ``timedOut(_:path:)`` turns the stop into its error.
    static func bounded(_ monitor: RenderMonitor?) -> (monitor: RenderMonitor, deadline: ContinuousClock.Instant) {
        let given = monitor ?? RenderMonitor(isCancelled: { false })
        let deadline = ContinuousClock.now.advanced(by: given.timeLimit)
        var bounded = given
        bounded.isCancelled = { given.isCancelled() || ContinuousClock.now >= deadline }
        return (bounded, deadline)
    }

    /// `error`, or `timedOut` when it is a stop that came from the time limit of `bounded`.
    static func explain(
        _ error: ImagingError, given: RenderMonitor?, deadline: ContinuousClock.Instant, path: String
    ) -> ImagingError {
        guard error.code == .cancelled, given?.isCancelled() != true, ContinuousClock.now >= deadline else {
            return error
        }
        let limit = given?.timeLimit ?? defaultTimeLimit
        return ImagingError(.timedOut, "the render took longer than its limit of \(limit) and was stopped", path: path)
    }

    /// Calls through from C: the context is an unretained `RenderMonitorBox`.
    static let callback: @convention(c) (UnsafeMutableRawPointer?, Double) -> Int32 = { context, fraction in
        guard let context else { return 0 }
        let monitor = Unmanaged<RenderMonitorBox>.fromOpaque(context).takeUnretainedValue().monitor
        monitor.progress?(min(1, max(0, fraction)))
        return monitor.isCancelled() ? 1 : 0
    }
}

/// A ``RenderMonitor`` with a stable address for C callbacks.
final class RenderMonitorBox {
    let monitor: RenderMonitor

    init(_ monitor: RenderMonitor) {
        self.monitor = monitor
    }

    /// Runs `body` with an opaque pointer to this box, valid for the call.
    func withContext<T, E: Error>(_ body: (UnsafeMutableRawPointer) throws(E) -> T) throws(E) -> T {
        try withExtendedLifetime(self) { () throws(E) -> T in
            try body(Unmanaged.passUnretained(self).toOpaque())
        }
    }
}
