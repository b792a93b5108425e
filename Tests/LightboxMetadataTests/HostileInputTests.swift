import Foundation
import LightboxMetadata
import LightboxTestSupport
import Testing

/// Numbers a hostile file chooses, which once trapped a whole process: each is refused or
/// dropped, never used in arithmetic that can overflow, never stored out of range.
@Suite("Hostile numbers in files")
struct HostileInputTests {
    static func sidecar(_ attributes: String) -> [UInt8] {
        Array(
            """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
            <rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/"
              xmlns:exif="http://ns.adobe.com/exif/1.0/" \(attributes)/>
            </rdf:RDF></x:xmpmeta>
            """.utf8)
    }

    @Test(
        "A rating that is no number from -1 to 5 is no rating",
        arguments: ["nan", "inf", "-inf", "1e300", "-1e300", "9223372036854775808", "6", "-2", "3.4"])
    func rating(text: String) {
        let xmp = XMPMetadata(packet: Self.sidecar("xmp:Rating=\"\(text)\""))
        #expect(xmp.rating == (text == "3.4" ? 3 : nil))
    }

    @Test("A position off the globe, or an altitude no camera reaches, is dropped")
    func position() {
        let far = XMPMetadata(
            packet: Self.sidecar(#"exif:GPSLatitude="1000" exif:GPSLongitude="10" exif:GPSAltitude="1e999""#))
        #expect(far.latitude == nil && far.longitude == nil && far.altitude == nil)
        let nan = XMPMetadata(
            packet: Self.sidecar(#"exif:GPSLatitude="nan" exif:GPSLongitude="10" exif:GPSAltitude="-1/0""#))
        #expect(nan.latitude == nil && nan.altitude == nil)
        let fine = XMPMetadata(
            packet: Self.sidecar(#"exif:GPSLatitude="64,8.5N" exif:GPSLongitude="21,56W" exif:GPSAltitude="1234/10""#))
        #expect(fine.latitude != nil && fine.longitude != nil && fine.altitude == 123.4)
    }

    /// `ftyp` of `brand`, then a box whose 64-bit size is Int.max: 104 bytes.
    static func isoFile(brand: String) -> [UInt8] {
        var bytes: [UInt8] = [0, 0, 0, 20] + Array("ftyp".utf8) + Array(brand.utf8) + [0, 0, 0, 0] + Array(brand.utf8)
        bytes += [0, 0, 0, 1] + Array("meta".utf8) + [0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]
        bytes += [UInt8](repeating: 0, count: 104 - bytes.count)
        return bytes
    }

    @Test("A box whose 64-bit size is Int.max ends at its container", arguments: ["heic", "avif", "isom", "qt  "])
    func hugeBox(brand: String) {
        // An error or metadata, never a trap.
        _ = try? MetadataReader.read(ByteSource(bytes: Self.isoFile(brand: brand)))
        let moov: [UInt8] = [0, 0, 0, 1] + Array("moov".utf8) + [0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xF0]
        _ = try? MetadataReader.read(
            ByteSource(bytes: [0, 0, 0, 20] + Array("ftypqt  ".utf8) + [0, 0, 0, 0] + Array("qt  ".utf8) + moov))
    }

    @Test("A TIFF whose width times height passes Int's range gives no size, not a trap", arguments: ["tif", "nef"])
    func hugeTIFF(filenameExtension: String) throws {
        func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8((value >> (8 * $0)) & 0xFF) } }
        func entry(_ tag: UInt16, _ value: UInt32) -> [UInt8] {
            [UInt8(tag & 0xFF), UInt8(tag >> 8), 4, 0] + le32(1) + le32(value)
        }
        let bytes: [UInt8] =
            Array("II".utf8) + [42, 0] + le32(8) + [2, 0] + entry(0x0100, 0xC000_0000) + entry(0x0101, 0xC000_0000)
            + le32(0)
        let metadata = try MetadataReader.read(ByteSource(bytes: bytes), filenameExtension: filenameExtension)
        #expect(metadata.pixelWidth == nil && metadata.pixelHeight == nil)
    }
}

/// XMP whose text would make the scanner's work or memory grow faster than its bytes.
@Suite("Swollen XMP")
struct SwollenXMPTests {
    @Test("A namespace of a long URI and thousands of attributes keep what they may, the rest is read")
    func longNamespace() {
        // Each key repeats its namespace's URI: 5,000 keys of a 2,000-byte URI were 10 MB kept,
        // and an 8 MB URI and a million attributes would be 8 TB.
        let xmp = XMPMetadata(packet: HostileFiles.swollenXMP(uriLength: 2_000, attributes: 5_000))
        #expect(xmp.rating == 3)
        #expect(xmp.properties.count <= 4_096)
        #expect(xmp.properties.keys.allSatisfy { $0.utf8.count < 1_100 })
        let real = XMPMetadata(packet: HostileFiles.swollenXMP(uriLength: 40, attributes: 5_000))
        #expect(real.properties.count == 4_096, "a real namespace's attributes are kept up to the bound")
        #expect(real.rating == 3, "properties read before the bound stay")
    }

    @Test("A namespace within 1 KB of bytes that are not UTF-8 is measured as decoded, three times longer")
    func namespaceNotUTF8() {
        // Found by the xmp fuzz target: each byte that is not UTF-8 decodes to U+FFFD, so a
        // URI of 1,000 such bytes became a 3,000-byte key prefix past the bound.
        var packet = Array(#"<rdf:Description xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmp:Rating="3" xmlns:h=""#.utf8)
        packet += [UInt8](repeating: 0xFF, count: 1_000)
        packet += Array(#"" h:a="1" h:b="2"/>"#.utf8)
        let xmp = XMPMetadata(packet: packet)
        #expect(xmp.rating == 3)
        #expect(xmp.properties.keys.allSatisfy { $0.utf8.count < 1_100 }, "\(xmp.properties.keys.map(\.utf8.count))")
        #expect(xmp.properties.count == 1)
    }

    @Test("The shape that never finished, carried in a real PNG, gives its rating and a bounded rest")
    func inPNG() throws {
        let photo = [UInt8](try Data(contentsOf: URL(fileURLWithPath: try Corpus.path("pillow/images/hopper.png"))))
        let packet = HostileFiles.swollenXMP(uriLength: 8 << 20, attributes: 100_000)
        let file = HostileFiles.png(photo, inserting: HostileFiles.xmpChunk(packet))
        let metadata = try MetadataReader.read(ByteSource(bytes: file), filenameExtension: "png")
        #expect(metadata.pixelWidth == 128)
        #expect(metadata.xmp?.rating == 3)
        #expect((metadata.xmp?.properties.count ?? 0) <= 4_096)
    }

    @Test("A HEIF item's extents naming the same bytes again and again are summed before any is read")
    func repeatedExtents() throws {
        let packet = HostileFiles.swollenXMP(uriLength: 300_000, attributes: 0)
        // 65,535 extents of 300 KB: 19.7 GB were asked for, from a file of 824 KB.
        let hostile = HostileFiles.heifWithXMPItem(packet: packet, extents: 65_535)
        #expect(hostile.count < 1 << 20)
        let refused = try MetadataReader.read(ByteSource(bytes: hostile))
        #expect(refused.format == .heic && refused.xmp == nil, "\(refused.format)")
        // The same item named once is read.
        let real = try MetadataReader.read(ByteSource(bytes: HostileFiles.heifWithXMPItem(packet: packet, extents: 1)))
        #expect(real.xmp?.rating == 3)
    }

    @Test("Declarations that never close or never name a prefix are passed over once, not once each")
    func unclosedDeclarations() {
        for unit in ["xmlns:a=\"", "xmlns:", "xmlns:a='"] {
            var packet = Array("<x:xmpmeta xmlns:xmp=\"http://ns.adobe.com/xap/1.0/\" xmp:Rating=\"2\"/>".utf8)
            for _ in 0..<20_000 { packet += Array(unit.utf8) }
            let xmp = XMPMetadata(packet: packet)
            #expect(xmp.rating == 2, "\(unit)")
        }
    }

    /// A movie of an `ftyp` and a `moov` holding a version 1 `mvhd` (64-bit times) created at
    /// `created` seconds from QuickTime's epoch, 1904.
    static func movie(created: UInt64) -> [UInt8] {
        func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
            let size = UInt32(8 + payload.count)
            return [24, 16, 8, 0].map { UInt8(size >> $0 & 0xFF) } + Array(type.utf8) + payload
        }
        func be64(_ value: UInt64) -> [UInt8] { (0..<8).reversed().map { UInt8(value >> ($0 * 8) & 0xFF) } }
        // Version, flags; creation, modification; timescale 600; duration 600; then rate,
        // volume, reserved, matrix, pre-defined and the next track's ID, zeros here.
        let mvhd = box(
            "mvhd",
            [1, 0, 0, 0] + be64(created) + be64(created) + [0, 0, 2, 0x58] + be64(600)
                + [UInt8](repeating: 0, count: 80))
        return box("ftyp", Array("qt  ".utf8) + [0, 0, 0, 0] + Array("qt  ".utf8)) + box("moov", mvhd)
    }

    @Test("A movie created after the year 9999 (a 64-bit field says any time) has no creation date")
    func movieCreation() throws {
        // 2019-07-14T16:03:12Z, as a camera writes it, is read as written.
        let real = try MetadataReader.read(ByteSource(bytes: Self.movie(created: 1_563_120_192 + 2_082_844_800)))
        #expect(real.quickTime?.creationDate == Date(timeIntervalSince1970: 1_563_120_192))
        for created: UInt64 in [253_402_300_800 + 2_082_844_800, 1 << 62] {
            let far = try MetadataReader.read(ByteSource(bytes: Self.movie(created: created)))
            #expect(far.quickTime != nil && far.quickTime?.creationDate == nil, "\(created)")
        }
    }
}
