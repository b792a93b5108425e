/// The EXIF fields Lightbox reads from a photo.
///
/// ```swift
/// let exif = try ExifMetadata(exifBlock: bytes)   // "Exif\0\0" + TIFF, or bare TIFF
/// exif.orientation        // 1...8
/// exif.dateTimeOriginal   // "2019:07:14 18:03:12"
/// ```
public struct ExifMetadata: Sendable, Hashable {
    /// TIFF Orientation (0x0112), 1...8; nil when absent or out of range.
    public var orientation: Int?
    /// Make (0x010F).
    public var make: String?
    /// Model (0x0110).
    public var model: String?
    /// DateTime (0x0132): when the file was last changed, local time, "YYYY:MM:DD HH:MM:SS".
    public var dateTime: String?
    /// DateTimeOriginal (0x9003): when the photo was taken, local time.
    public var dateTimeOriginal: String?
    /// SubSecTimeOriginal (0x9291): fractions of a second of ``dateTimeOriginal``, as digits.
    public var subSecTimeOriginal: String?
    /// OffsetTimeOriginal (0x9011): the UTC offset of ``dateTimeOriginal``, "+02:00".
    public var offsetTimeOriginal: String?

    /// Empty metadata: every field nil.
    public init() {}

    /// Parses an EXIF block: either "Exif\0\0" followed by a TIFF stream (as JPEG APP1 and
    /// libvips' `exif-data` hold it) or a bare TIFF stream.
    public init(exifBlock: [UInt8]) throws(MetadataError) {
        let header: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0x00, 0x00]
        let tiff = exifBlock.starts(with: header) ? Array(exifBlock.dropFirst(header.count)) : exifBlock
        let reader = try TIFFReader(tiff)
        guard let ifd0 = reader.firstIFDOffset else {
            throw MetadataError(.malformed, "TIFF header has no first IFD")
        }
        self.init()
        var exifIFD: Int?
        for entry in reader.entries(ofIFDAt: ifd0).entries {
            switch entry.tag {
            case 0x0112: orientation = reader.integer(entry).map(Int.init).flatMap { (1...8).contains($0) ? $0 : nil }
            case 0x010F: make = reader.string(entry)
            case 0x0110: model = reader.string(entry)
            case 0x0132: dateTime = reader.string(entry)
            case 0x8769: exifIFD = reader.integer(entry).map(Int.init)
            default: break
            }
        }
        if let exifIFD, exifIFD != ifd0 {
            for entry in reader.entries(ofIFDAt: exifIFD).entries {
                switch entry.tag {
                case 0x9003: dateTimeOriginal = reader.string(entry)
                case 0x9291: subSecTimeOriginal = reader.string(entry)
                case 0x9011: offsetTimeOriginal = reader.string(entry)
                default: break
                }
            }
        }
    }
}
