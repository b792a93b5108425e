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
        } else if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A]) {
            self = .tiff
        } else if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) {
            self = .gif
        } else if starts(Array("ftyp".utf8), at: 4), let brand = Self.isoBrand(in: b) {
            self = brand
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
            default: continue
            }
        }
        if brands.contains(where: { $0 == "mif1" || $0 == "msf1" }) { return .heif }
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
        }
    }

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
        }
    }
}
