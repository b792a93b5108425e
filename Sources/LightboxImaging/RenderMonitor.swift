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

    public init(isCancelled: @escaping @Sendable () -> Bool, progress: (@Sendable (Double) -> Void)? = nil) {
        self.isCancelled = isCancelled
        self.progress = progress
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
