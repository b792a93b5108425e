import CColour
import Synchronization

/// Transforms to sRGB (`CColour`: fixed point for a matrix/TRC profile, Little CMS for the
/// others), made once per ICC profile and kept for the process.
///
/// Photos from one camera carry one profile (every iPhone's Display P3 photo the same bytes),
/// and making a transform costs several times more than applying it to a small thumbnail
/// (docs/BENCHMARKS.md).
final class ColourTransforms: Sendable {
    static let shared = ColourTransforms(keeping: 32)

    /// Transforms by profile, as addresses (raw pointers are not `Sendable`); 0 for a profile
    /// Little CMS does not take. The list owns them.
    private let transforms = Mutex<[[UInt8]: UInt]>([:])
    private let keeping: Int

    /// At most `keeping` profiles are kept; transforms for others are made for each use.
    init(keeping: Int) {
        self.keeping = keeping
    }

    deinit {
        transforms.withLock { transforms in
            for address in transforms.values { ccolour_free(UnsafeMutableRawPointer(bitPattern: address)) }
        }
    }

    /// Runs `body` with a transform from the RGB space `profile` describes to sRGB, or returns
    /// nil without running it when Little CMS does not take the profile.
    func withTransformToSRGB<T>(
        from profile: [UInt8], _ body: (UnsafeMutableRawPointer) throws(ImagingError) -> T
    ) throws(ImagingError) -> T? {
        var address = transforms.withLock { $0[profile] }
        // A transform made here and not kept (no room, or another thread kept one first) is
        // freed after this one use.
        var unkept: UnsafeMutableRawPointer?
        defer { ccolour_free(unkept) }
        if address == nil {
            let made = profile.withUnsafeBytes { ccolour_rgb_to_srgb($0.baseAddress, $0.count) }
            let kept = transforms.withLock { transforms in
                guard transforms[profile] == nil, transforms.count < keeping else { return false }
                transforms[profile] = UInt(bitPattern: made)
                return true
            }
            if !kept { unkept = made }
            address = UInt(bitPattern: made)
        }
        guard let transform = address.flatMap({ UnsafeMutableRawPointer(bitPattern: $0) }) else { return nil }
        return try body(transform)
    }

    /// How many profiles have a kept answer.
    var count: Int { transforms.withLock { $0.count } }
}
