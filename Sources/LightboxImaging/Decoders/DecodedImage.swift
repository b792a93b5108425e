/// An upright image in memory, at some scale of the full image, and the full image's size.
struct DecodedImage {
    let image: VipsImageRef
    let properties: ImageProperties
    /// The upright size of the full image.
    let uprightWidth: Int
    let uprightHeight: Int
    /// An ICC profile still to convert from (JPEG path); nil once the pixels are sRGB.
    let iccProfile: [UInt8]?
}

/// An EXIF orientation given by a caller, nil unless it is one of 1...8.
func validOrientation(_ value: Int?) -> Int? {
    value.flatMap { (1...8).contains($0) ? $0 : nil }
}
