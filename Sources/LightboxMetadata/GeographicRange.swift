/// The ranges a position read from a file must lie in: EXIF, XMP and QuickTime values alike.
/// A value outside them (a hostile sidecar's `1e999` metres, a latitude of 1000) is dropped,
/// never stored: the library keeps only places on the globe.
enum GeographicRange {
    static let latitude = -90.0...90.0
    static let longitude = -180.0...180.0
    /// From the deepest trench to well above any aircraft or balloon a camera flies in.
    static let altitude = -12_000.0...100_000.0
}

extension Optional where Wrapped == Double {
    /// The value when it is a number inside `range`, else nil (NaN and infinities included):
    /// how a number read from a file is kept or dropped before it is stored or converted.
    func within(_ range: ClosedRange<Double>) -> Double? {
        guard let value = self, value.isFinite, range.contains(value) else { return nil }
        return value
    }
}
