import Synchronization

/// The most pixels one decode may produce, checked from a file's header before any pixel is
/// decoded: a 35-byte GIF may declare 65535x65535 (4.3 billion pixels, 17 GB of RGBA).
final class PixelBudget: Sendable {
    static let shared = PixelBudget()

    /// 200 MP: well above any camera's (a 102 MP medium format, a 61 MP full frame, a 200 MP
    /// phone sensor) and a stitched panorama of a few of them.
    static let defaultMaximum = 200_000_000

    private let maximum = Mutex(defaultMaximum)

    var maximumPixels: Int {
        get { maximum.withLock { $0 } }
        set { maximum.withLock { $0 = max(1, newValue) } }
    }

    /// Throws ``ImagingError/Code-swift.struct/tooLarge`` when `width` by `height` (read from
    /// a file) is past the budget, or not a size at all.
    func check(width: Int, height: Int, path: String) throws(ImagingError) {
        let limit = maximumPixels
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        guard width > 0, height > 0, !overflow, pixels <= limit else {
            throw ImagingError(
                .tooLarge,
                "the image is \(width)x\(height), more than the \(limit / 1_000_000) megapixels Lightbox decodes "
                    + "(ImageFile.maximumPixels)",
                path: path)
        }
    }
}
