import Synchronization

/// Lightbox's own C that does work a linked library also does. Each is kept only while it
/// gains at least a quarter on the figure it was written for (docs/ARCHITECTURE.md, Why each
/// C target exists); `lightbox-bench own-code` turns each off in turn to measure that gain,
/// in one process on the same files.
@_spi(Benchmarks)
public enum OwnCode: String, CaseIterable, Sendable {
    /// `cjpeg_fast.c`: JPEGs decoded at 1/8 scale; otherwise libjpeg-turbo's DCT scaling.
    case jpegEighth = "cjpeg_fast"
    /// `cheif_tiles.c`: a phone HEIC's grid decoded tile by tile with FFmpeg; otherwise libheif.
    case heifTiles = "cheif_tiles"
    /// `cresample.c`: 8-bit downsizing with Lanczos-3 in SIMD; otherwise `vips_thumbnail_image`.
    case lanczos = "cresample"
    /// `ccolour.c`: colour profiles to sRGB with a transform kept per profile; otherwise
    /// `vips_icc_transform`.
    case colour = "ccolour"
    /// `corient.c`: 8-bit pixels turned upright; otherwise `vips_autorot`.
    case orientation = "corient"

    private static let off = Mutex<Set<OwnCode>>([])

    /// The pieces turned off: the library does their work instead. Empty unless a benchmark
    /// sets it; renders read it as they start each step.
    public static var turnedOff: Set<OwnCode> {
        get { off.withLock { $0 } }
        set { off.withLock { $0 = newValue } }
    }

    /// Whether this piece does its work (it is not turned off).
    var isOn: Bool { !Self.off.withLock { $0.contains(self) } }
}
