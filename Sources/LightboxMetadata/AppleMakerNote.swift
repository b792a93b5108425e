/// What Lightbox reads from the maker note iPhones and iPads write ("Apple iOS").
///
/// Its IFD is big-endian after a 14-byte header, with offsets relative to the start of the
/// maker note.
public struct AppleMakerNote: Sendable, Hashable {
    /// Tag 0x0011: the content identifier that pairs a Live Photo's still with its movie
    /// (exiftool: `MediaGroupUUID` in 12.57, `ContentIdentifier` later).
    public var contentIdentifier: String?
    /// Tag 0x000B: the UUID every frame of one burst shares.
    public var burstUUID: String?
    /// Tag 0x000A: 3 for an HDR image, 4 for the original an HDR image was made from.
    public var hdrImageType: Int?
    /// Tag 0x0014: 1 ProRAW, 2 portrait, 10 photo, 11 manual focus, 12 scene.
    public var imageCaptureType: Int?
    /// Tag 0x0017: the Live Photo's video index, when the still is part of one.
    public var livePhotoVideoIndex: Int?

    /// The maker note's header: "Apple iOS\0".
    static let signature = Array("Apple iOS\0".utf8)

    public init(contentIdentifier: String? = nil, burstUUID: String? = nil) {
        self.contentIdentifier = contentIdentifier
        self.burstUUID = burstUUID
    }

    /// Reads the maker note an EXIF MakerNote entry holds; nil when it is not Apple's.
    init?(_ entry: TIFFReader.Entry, _ exif: TIFFReader) {
        let start = exif.base + entry.valueOffset
        guard entry.count > 16, let header = try? exif.source.bytes(at: start, count: 14),
            header.starts(with: Self.signature)
        else { return nil }
        let reader = TIFFReader(source: exif.source, base: start, bigEndian: header[12] != 0x49)
        var walk = IFDWalk()
        guard let ifd = walk.visit(reader, at: 14) else { return nil }
        for entry in ifd.entries {
            switch entry.tag {
            case 0x0011: contentIdentifier = reader.string(entry)
            case 0x000B: burstUUID = reader.string(entry)
            case 0x000A: hdrImageType = reader.integer(entry)
            case 0x0014: imageCaptureType = reader.integer(entry)
            case 0x0017: livePhotoVideoIndex = reader.integer(entry)
            default: break
            }
        }
    }
}
