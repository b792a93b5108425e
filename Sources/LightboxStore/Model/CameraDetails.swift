import Foundation
import LightboxMetadata

/// What the camera wrote about an asset's original: the camera and lens, and the exposure. For
/// an info panel; PhotoKit leaves these in the image's properties, which Lightbox keeps out of
/// the catalog, so they are read from the original file when asked (the bounded metadata
/// reader: headers only, no decode).
public struct CameraDetails: Sendable, Hashable, Encodable {
    public var make: String?
    public var model: String?
    public var lensMake: String?
    public var lensModel: String?
    public var software: String?
    /// Seconds.
    public var exposureTime: Double?
    public var fNumber: Double?
    public var iso: Int?
    /// Millimetres, and its 35 mm equivalent.
    public var focalLength: Double?
    public var focalLengthIn35mmFormat: Int?

    public init() {}

    /// From a file's metadata; numbers outside what a camera can write are left out, never
    /// passed on (a file is untrusted input).
    package init(_ metadata: MediaMetadata) {
        // Control characters (a terminal's escapes among them) become spaces: the text is
        // shown by terminals and pages, and kept in the catalog for search.
        func text(_ value: String?) -> String? {
            guard let value else { return nil }
            let scalars = value.unicodeScalars.prefix(400).map {
                CharacterSet.controlCharacters.contains($0) ? " " : $0
            }
            let trimmed = String(String.UnicodeScalarView(scalars)).trimmingCharacters(in: .whitespacesAndNewlines)
            return trimmed.isEmpty ? nil : String(trimmed.prefix(200))
        }
        func positive(_ value: Double?, below limit: Double) -> Double? {
            guard let value, value.isFinite, value > 0, value < limit else { return nil }
            return value
        }
        if let exif = metadata.exif {
            make = text(exif.make)
            model = text(exif.model)
            lensMake = text(exif.lensMake)
            lensModel = text(exif.lensModel)
            software = text(exif.software)
            exposureTime = positive(exif.exposureTime, below: 100_000)
            fNumber = positive(exif.fNumber, below: 1_000)
            iso = exif.iso.flatMap { (1...10_000_000).contains($0) ? $0 : nil }
            focalLength = positive(exif.focalLength, below: 100_000)
            focalLengthIn35mmFormat = exif.focalLengthIn35mmFormat.flatMap { (1...100_000).contains($0) ? $0 : nil }
        }
        if let keys = metadata.quickTime?.keys {
            make = make ?? text(keys["com.apple.quicktime.make"])
            model = model ?? text(keys["com.apple.quicktime.model"])
            software = software ?? text(keys["com.apple.quicktime.software"])
        }
    }
}
