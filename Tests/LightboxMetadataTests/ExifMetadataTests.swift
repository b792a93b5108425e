import Foundation
import LightboxMetadata
import LightboxTestSupport
import Testing

@Suite("Reading EXIF")
struct ExifMetadataTests {
    /// JPEGs from phones and cameras, compared field by field with exiftool.
    static let jpegs = [
        "forensics/original-files/pic1/IMG_1054.JPG",
        "forensics/original-files/pic1/IMG_20200827_231612.jpg",
        "forensics/original-files/pic2/IMG_20200124_231153.jpg",
        "digikam/body-background.jpg",
        "exiv2/data/exiv2-nikon-d70.jpg",
        "exiv2/data/exiv2-canon-eos-300d.jpg",
        "exiftool/images/Apple.jpg",
        "exiftool/images/Pentax.jpg",
        "exiftool/images/Nikon.jpg",
        "exiftool/images/Canon.jpg",
    ]

    @Test("Orientation, camera and capture time agree with exiftool", arguments: jpegs)
    func agreesWithExiftool(file: String) throws {
        let path = try Corpus.path(file)
        let exif = try ExifMetadata(exifBlock: try Self.app1Exif(ofJPEGAt: path))
        let oracle = try ExifTool.tags(
            ["IFD0:Orientation", "IFD0:Make", "IFD0:Model", "ExifIFD:DateTimeOriginal", "ExifIFD:OffsetTimeOriginal"],
            of: path)
        #expect(exif.orientation.map(String.init) == oracle["Orientation"])
        #expect(exif.make == oracle["Make"])
        #expect(exif.model == oracle["Model"])
        #expect(exif.dateTimeOriginal == oracle["DateTimeOriginal"])
        #expect(exif.offsetTimeOriginal == oracle["OffsetTimeOriginal"])
    }

    @Test("Hostile bytes give an error or empty fields, never a crash")
    func survivesHostileInput() throws {
        let real = try Self.app1Exif(ofJPEGAt: Corpus.path("digikam/body-background.jpg"))
        // Every truncation of a real block, and the block with bytes flipped throughout.
        for length in stride(from: 0, through: real.count, by: max(1, real.count / 200)) {
            _ = try? ExifMetadata(exifBlock: Array(real.prefix(length)))
        }
        var state: UInt64 = 1
        for _ in 0..<300 {
            var mutated = real
            for _ in 0..<8 {
                state = state &* 6_364_136_223_846_793_005 &+ 1
                mutated[Int(state >> 33) % mutated.count] = UInt8(truncatingIfNeeded: state >> 17)
            }
            _ = try? ExifMetadata(exifBlock: mutated)
        }
        #expect(throws: MetadataError.self) { try ExifMetadata(exifBlock: [0x00, 0x01, 0x02]) }
        #expect(throws: MetadataError.self) { try ExifMetadata(exifBlock: Array("Exif\0\0XX\0*".utf8)) }
    }

    @Test("EXIF dates parse with sub-seconds and offsets, and impossible ones are refused")
    func parsesDates() {
        let date = ExifDate("2021:02:13 11:03:31", subSeconds: "25", offset: "-06:00")
        #expect(date?.year == 2021 && date?.month == 2 && date?.day == 13)
        #expect(date?.hour == 11 && date?.minute == 3 && date?.second == 31)
        #expect(date?.fraction == 0.25)
        #expect(date?.utcOffsetSeconds == -21600)
        #expect(ExifDate("0000:00:00 00:00:00") == nil)
        #expect(ExifDate("    :  :     :  :  ") == nil)
        #expect(ExifDate("2020:13:01 00:00:00") == nil)
        #expect(ExifDate("2020-05-01 10:00:00")?.month == 5)
    }

    /// The EXIF block of a JPEG's APP1 segment, found by walking the markers.
    static func app1Exif(ofJPEGAt path: String) throws -> [UInt8] {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        var offset = 2
        while offset + 4 <= bytes.count, bytes[offset] == 0xFF {
            let marker = bytes[offset + 1]
            let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            if marker == 0xE1, bytes[(offset + 4)...].starts(with: Array("Exif\0\0".utf8)) {
                return Array(bytes[(offset + 4)..<min(bytes.count, offset + 2 + length)])
            }
            if marker == 0xDA { break }
            offset += 2 + length
        }
        struct NoExif: Error {}
        throw NoExif()
    }
}
