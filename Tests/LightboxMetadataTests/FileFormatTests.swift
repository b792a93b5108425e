import LightboxMetadata
import LightboxTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("Recognising formats from bytes")
struct FileFormatTests {
    @Test(
        "Real files are recognised by their bytes",
        arguments: [
            ("lomiri/backgrounds/Dragonfly_by_Bolly.jpg", FileFormat.jpeg),
            ("forensics/original-files/pic1/IMG_1054.JPG", .jpeg),
            ("exiv2/data/2021-02-13-1929.heic", .heic),
            ("libheif/example.heic", .heic),
            ("gnome-docs/figures/screenshot-tool.png", .png),
            ("pillow/images/flower.webp", .webp),
            ("pillow/images/hopper.tif", .tiff),
            ("pillow/images/hopper.gif", .gif),
            ("forensics/original-files/movie1/VID_20191220_170832.mp4", .mp4),
            ("exiftool/images/CanonRaw.cr3", .cr3),
            ("exiftool/images/CanonRaw.cr2", .cr2),
            ("exiftool/images/Panasonic.rw2", .rw2),
            ("exiftool/images/FujiFilm.raf", .raf),
            ("exiftool/images/QuickTime.mov", .quickTime),
        ])
    func recognises(file: String, expected: FileFormat) throws {
        let bytes = try readPrefix(Corpus.path(file))
        #expect(FileFormat(sniffing: bytes) == expected)
    }

    /// Files that start like a TIFF: plain TIFFs from cameras (a Sony, two Nikon, a Canon), RAW
    /// files, and a NEF and a TIFF under each other's extension.
    static let tiffLike: [(file: String, name: String)] = [
        ("exiv2/data/test.tiff", "test.tiff"), ("exiv2/data/Reagan.tiff", "Reagan.tiff"),
        ("exiv2/data/ReaganLargeTiff.tiff", "ReaganLargeTiff.tiff"), ("exiftool/images/ExifTool.tif", "ExifTool.tif"),
        ("exiftool/images/Nikon.nef", "Nikon.nef"), ("exiftool/images/DNG.dng", "DNG.dng"),
        ("exiftool/images/Nikon.nef", "Nikon.tif"), ("exiv2/data/Reagan.tiff", "Reagan.NEF"),
        ("exiv2/data/test.tiff", "test.arw"), ("exiftool/images/DNG.dng", "DNG.tif"),
    ]

    @Test("TIFF or RAW is decided as exiftool's FileType decides it", arguments: tiffLike)
    func tiffOrRAW(file: String, name: String) throws {
        let folder = try TemporaryDirectory()
        let copy = try folder.copy(Corpus.path(file), as: name)
        let fileType = try #require(try ExifTool.tags(["FileType"], of: copy)["FileType"])
        let format = try MetadataReader.read(fileAtPath: copy).format
        #expect(format.rawValue.uppercased() == fileType, "\(name)")
    }

    @Test("The extension does not matter: a JPEG named .png is a JPEG")
    func ignoresExtension() throws {
        let folder = try TemporaryDirectory()
        let renamed = try folder.copy(Corpus.path("lomiri/backgrounds/Dragonfly_by_Bolly.jpg"), as: "photo.png")
        #expect(FileFormat(sniffing: try readPrefix(renamed)) == .jpeg)
    }

    @Test("Random bytes, text and empty files are not recognised")
    func rejectsOthers() throws {
        let folder = try TemporaryDirectory()
        #expect(FileFormat(sniffing: try readPrefix(folder.randomFile("noise.jpg", count: 4096))) == nil)
        #expect(FileFormat(sniffing: Array("hello, world\n".utf8)) == nil)
        #expect(FileFormat(sniffing: [UInt8]()) == nil)
    }

    private func readPrefix(_ path: String) throws -> [UInt8] {
        guard let handle = FileHandleReader(path: path) else { throw Corpus.Missing(path: path) }
        return handle.prefix
    }
}

/// Reads a file's first bytes without Foundation (this test target mirrors the module it tests).
struct FileHandleReader {
    let prefix: [UInt8]

    init?(path: String, count: Int = FileFormat.sniffLength) {
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var buffer = [UInt8](repeating: 0, count: count)
        let n = fread(&buffer, 1, count, file)
        prefix = Array(buffer.prefix(n))
    }
}

@Suite("Hostile containers")
struct HostileContainerTests {
    static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        let size = UInt32(payload.count + 8)
        return [UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)]
            + Array(type.utf8) + payload
    }

    // Ten minutes, not one: the billions of turns it guards against take hours, and a fresh-clone
    // run's parallel suites once kept this 0.03 s test from a thread for 206 s.
    @Test(
        "A HEIF item location list of zero-width fields ends with an error, not billions of turns",
        .timeLimit(.minutes(10)))
    func zeroWidthExtents() {
        // iloc version 2, every field size 0, 2^32-1 items of 65,535 extents each.
        var iloc: [UInt8] = [2, 0, 0, 0, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF]
        for _ in 0..<100_000 { iloc += [0, 0, 0, 1, 0, 0, 0, 0, 0xFF, 0xFF] }
        let bytes =
            Self.box("ftyp", Array("heic".utf8) + [0, 0, 0, 0] + Array("mif1heic".utf8))
            + Self.box("meta", [0, 0, 0, 0] + Self.box("iloc", iloc))
        #expect(throws: MetadataError.self) { try MetadataReader.read(ByteSource(bytes: bytes)) }
    }
}
