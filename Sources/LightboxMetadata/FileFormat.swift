/// A file format recognised from a file's first bytes, never from its name.
///
/// ```swift
/// let format = FileFormat(sniffing: firstBytes)  // .jpeg, .heic, ... or nil
/// ```
public enum FileFormat: String, Sendable, Hashable, CaseIterable, Codable {
    case jpeg
    case heic
    case heif
    case avif
    case png
    case webp
    case tiff
    case gif
    /// Adobe Digital Negative, and the TIFF-based RAW formats of Canon (CR2), Nikon (NEF),
    /// Sony (ARW), Olympus (ORF), Panasonic (RW2) and Pentax (PEF).
    case dng
    case cr2
    case nef
    case arw
    case orf
    case rw2
    case pef
    /// Canon's ISO-BMFF RAW format.
    case cr3
    /// Fujifilm RAW.
    case raf
    /// A QuickTime movie (iPhone videos and Live Photo movies).
    case quickTime
    /// An MPEG-4 movie (Android phones, cameras).
    case mp4

    /// Whether the format holds a still image, a RAW image or a movie.
    public enum Kind: Sendable, Hashable {
        case image
        case raw
        case video
    }

    /// Whether the format holds a still image, a RAW image or a movie.
    public var kind: Kind {
        switch self {
        case .jpeg, .heic, .heif, .avif, .png, .webp, .tiff, .gif: .image
        case .dng, .cr2, .nef, .arw, .orf, .rw2, .pef, .cr3, .raf: .raw
        case .quickTime, .mp4: .video
        }
    }

    /// How many leading bytes ``init(sniffing:)`` needs to recognise every format.
    public static let sniffLength = 32

    /// Recognises a format from the first bytes of a file (at least ``sniffLength`` of them
    /// when the file is that long). Returns nil for anything Lightbox does not import.
    public init?(sniffing bytes: some Collection<UInt8>) {
        let b = Array(bytes.prefix(Self.sniffLength))
        func starts(_ prefix: [UInt8], at offset: Int = 0) -> Bool {
            b.count >= offset + prefix.count && Array(b[offset..<offset + prefix.count]) == prefix
        }
        if starts([0xFF, 0xD8, 0xFF]) {
            self = .jpeg
        } else if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            self = .png
        } else if starts(Array("RIFF".utf8)) && starts(Array("WEBP".utf8), at: 8) {
            self = .webp
        } else if starts([0x49, 0x49, 0x2A, 0x00]) && starts(Array("CR".utf8), at: 8) {
            self = .cr2
        } else if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A]) {
            // NEF, ARW, PEF and DNG start like any TIFF: MetadataReader tells them apart.
            self = .tiff
        } else if starts(Array("IIRO".utf8)) || starts(Array("IIRS".utf8)) || starts(Array("MMOR".utf8)) {
            self = .orf
        } else if starts([0x49, 0x49, 0x55, 0x00]) {
            self = .rw2
        } else if starts(Array("FUJIFILMCCD-RAW".utf8)) {
            self = .raf
        } else if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) {
            self = .gif
        } else if starts(Array("ftyp".utf8), at: 4), let brand = Self.isoBrand(in: b) {
            self = brand
        } else if ["moov", "mdat", "wide", "free", "skip", "pnot"].contains(where: { starts(Array($0.utf8), at: 4) }) {
            self = .quickTime  // old QuickTime files have no ftyp box
        } else {
            return nil
        }
    }

    /// The image brand of an ISO base media file: the major brand, else the first compatible
    /// brand Lightbox knows. `mif1`/`msf1` alone mean a generic HEIF image.
    private static func isoBrand(in b: [UInt8]) -> FileFormat? {
        guard b.count >= 12 else { return nil }
        let boxSize = Int(b[0]) << 24 | Int(b[1]) << 16 | Int(b[2]) << 8 | Int(b[3])
        var brands: [String] = [String(decoding: b[8..<12], as: UTF8.self)]
        var offset = 16  // skip the minor version
        while offset + 4 <= min(b.count, max(boxSize, 16)) {
            brands.append(String(decoding: b[offset..<offset + 4], as: UTF8.self))
            offset += 4
        }
        for brand in brands {
            switch brand {
            case "heic", "heix", "heim", "heis", "hevc", "hevx": return .heic
            case "avif", "avis": return .avif
            case "crx ": return .cr3
            default: continue
            }
        }
        if brands.contains(where: { $0 == "mif1" || $0 == "msf1" }) { return .heif }
        if brands[0] == "qt  " { return .quickTime }
        let movieBrands: Set = [
            "isom", "iso2", "iso4", "iso5", "iso6", "mp41", "mp42", "avc1", "M4V ", "M4VH", "3gp4", "3gp5", "3gp6",
            "3g2a", "MSNV", "XAVC", "dash",
        ]
        if brands.contains(where: movieBrands.contains) { return .mp4 }
        return nil
    }

    /// The Uniform Type Identifier Apple's frameworks use for this format.
    public var uniformTypeIdentifier: String {
        switch self {
        case .jpeg: "public.jpeg"
        case .heic: "public.heic"
        case .heif: "public.heif"
        case .avif: "public.avif"
        case .png: "public.png"
        case .webp: "org.webmproject.webp"
        case .tiff: "public.tiff"
        case .gif: "com.compuserve.gif"
        case .dng: "com.adobe.raw-image"
        case .cr2: "com.canon.cr2-raw-image"
        case .nef: "com.nikon.raw-image"
        case .arw: "com.sony.arw-raw-image"
        case .orf: "com.olympus.raw-image"
        case .rw2: "com.panasonic.rw2-raw-image"
        case .pef: "com.pentax.raw-image"
        case .cr3: "com.canon.cr3-raw-image"
        case .raf: "com.fuji.raw-image"
        case .quickTime: "com.apple.quicktime-movie"
        case .mp4: "public.mpeg-4"
        }
    }

    /// The format a Uniform Type Identifier names, or nil.
    public init?(uniformTypeIdentifier: String) {
        guard let format = Self.allCases.first(where: { $0.uniformTypeIdentifier == uniformTypeIdentifier }) else {
            return nil
        }
        self = format
    }

    /// The media type a download of this format is sent as; RAW formats as their registered
    /// types where there is one, else as bytes.
    public var mimeType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .heic: "image/heic"
        case .heif: "image/heif"
        case .avif: "image/avif"
        case .png: "image/png"
        case .webp: "image/webp"
        case .tiff: "image/tiff"
        case .gif: "image/gif"
        case .dng: "image/x-adobe-dng"
        case .cr2: "image/x-canon-cr2"
        case .nef: "image/x-nikon-nef"
        case .arw: "image/x-sony-arw"
        case .orf: "image/x-olympus-orf"
        case .rw2: "image/x-panasonic-rw2"
        case .pef: "image/x-pentax-pef"
        case .cr3: "image/x-canon-cr3"
        case .raf: "image/x-fuji-raf"
        case .quickTime: "video/quicktime"
        case .mp4: "video/mp4"
        }
    }

    /// The RAW format a file that starts like a TIFF is by its name's extension (any case,
    /// without the dot): NEF and NRW, ARW, SRF and SR2, PEF; nil for any other.
    public static func tiffBasedRAW(filenameExtension: String) -> FileFormat? {
        switch filenameExtension.lowercased() {
        case "nef", "nrw": .nef
        case "arw", "srf", "sr2": .arw
        case "pef": .pef
        default: nil
        }
    }

    /// Lowercased extensions of photo and movie files, those Lightbox imports and others
    /// (older RAW and video formats): a file with one of these is taken for a photo or movie
    /// even when its bytes are not recognised, so that a damaged or unsupported one is
    /// reported rather than passed over like a document.
    public static let mediaFilenameExtensions: Set<String> = [
        "jpg", "jpeg", "jpe", "jfif", "heic", "heif", "hif", "avif", "png", "webp", "tif", "tiff", "gif", "bmp", "jxl",
        "dng", "cr2", "cr3", "crw", "nef", "nrw", "arw", "srf", "sr2", "orf", "rw2", "raw", "pef", "raf", "x3f", "srw",
        "erf", "kdc", "mrw", "3fr", "iiq", "mov", "mp4", "m4v", "3gp", "3g2", "avi", "mts", "m2ts", "mkv", "wmv", "mpg",
        "mpeg",
    ]

    /// The usual file name extension, without the dot.
    public var preferredFilenameExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .heic: "heic"
        case .heif: "heif"
        case .avif: "avif"
        case .png: "png"
        case .webp: "webp"
        case .tiff: "tiff"
        case .gif: "gif"
        case .dng: "dng"
        case .cr2: "cr2"
        case .nef: "nef"
        case .arw: "arw"
        case .orf: "orf"
        case .rw2: "rw2"
        case .pef: "pef"
        case .cr3: "cr3"
        case .raf: "raf"
        case .quickTime: "mov"
        case .mp4: "mp4"
        }
    }
}
