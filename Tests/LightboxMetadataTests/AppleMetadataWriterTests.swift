import Foundation
import LightboxTestSupport
import Testing

@testable import LightboxMetadata

/// The writers that make Live Photo pairs and bursts, checked with exiftool (the oracle) and
/// with Lightbox's own reader.
@Suite("Writing Apple identifiers")
struct AppleMetadataWriterTests {
    static let contentIdentifier = "2F9B7C1A-4D1E-4C55-9C8E-6A2B1F3D0E47"
    static let burst = "C2D3E4F5-0617-4829-8A3B-4C5D6E7F8091"

    /// The bytes from the start-of-scan marker on: the image data.
    static func scan(_ bytes: [UInt8]) -> ArraySlice<UInt8> {
        var offset = 2
        while offset + 4 <= bytes.count, bytes[offset] == 0xFF, bytes[offset + 1] != 0xDA {
            offset += 2 + Int(bytes.u16(at: offset + 2)!)
        }
        return bytes[offset...]
    }

    @Test(
        "A JPEG gets the content identifier and burst UUID; its image data and other tags stay",
        arguments: [
            "digikam/body-background.jpg",  // an iPhone: big-endian EXIF, Apple maker note kept
            "forensics/original-files/pic1/IMG_1054.JPG",  // Canon: little-endian, a thumbnail
            "forensics/original-files/pic1/IMG_20200827_231612.jpg",  // Xiaomi: GPS, a thumbnail
            "lomiri/backgrounds/Dragonfly_by_Bolly.jpg",  // no EXIF at all
        ])
    func jpeg(file: String) throws {
        let original = try Corpus.path(file)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: original)))
        let written = try AppleMetadataWriter.jpeg(
            bytes, contentIdentifier: Self.contentIdentifier, burstUUID: Self.burst)
        let folder = try TemporaryDirectory()
        let path = folder.path("written.jpg")
        try Data(written).write(to: URL(fileURLWithPath: path))

        #expect(Self.scan(written) == Self.scan(bytes), "the image data is untouched")
        let kept = [
            "Make", "Model", "Orientation", "DateTimeOriginal", "OffsetTimeOriginal", "ExposureTime", "FNumber", "ISO",
            "FocalLength", "LensModel", "GPSLatitude", "GPSLongitude", "GPSAltitude", "ThumbnailLength", "ImageWidth",
            "ImageHeight", "AccelerationVector", "RunTimeValue", "FocusPosition",
        ]
        let before = try ExifTool.tags(kept, of: original)
        let after = try ExifTool.tags(kept + ["MediaGroupUUID", "BurstUUID", "Warning"], of: path)
        for tag in kept { #expect(after[tag] == before[tag], "\(file): \(tag)") }
        #expect(after["MediaGroupUUID"] == Self.contentIdentifier)
        #expect(after["BurstUUID"] == Self.burst)
        #expect(after["Warning"] == nil, "exiftool finds nothing wrong: \(after["Warning"] ?? "")")

        let read = try MetadataReader.read(fileAtPath: path)
        #expect(read.exif?.apple?.contentIdentifier == Self.contentIdentifier)
        #expect(read.exif?.apple?.burstUUID == Self.burst)
        // Writing again replaces, never duplicates.
        let again = try AppleMetadataWriter.jpeg(written, contentIdentifier: "AGAIN", burstUUID: nil)
        let reread = try MetadataReader.read(ByteSource(bytes: again))
        #expect(reread.exif?.apple?.contentIdentifier == "AGAIN")
        #expect(reread.exif?.apple?.burstUUID == Self.burst)
    }

    @Test(
        "A movie gets the QuickTime content identifier; its samples stay where its chunk offsets say",
        arguments: ["forensics/original-files/movie1/VID_20191220_170832.mp4", "exiftool/images/QuickTime.mov"])
    func movie(file: String) throws {
        let original = try Corpus.path(file)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: original)))
        let written = try AppleMetadataWriter.movie(bytes, contentIdentifier: Self.contentIdentifier)
        let folder = try TemporaryDirectory()
        let path = folder.path("written.mov")
        try Data(written).write(to: URL(fileURLWithPath: path))

        let tags = [
            "ContentIdentifier", "Duration", "ImageWidth", "ImageHeight", "CreateDate", "GPSCoordinates", "Warning",
        ]
        let before = try ExifTool.tags(tags, of: original)
        let after = try ExifTool.tags(tags, of: path)
        #expect(after["ContentIdentifier"] == Self.contentIdentifier)
        for tag in tags where tag != "ContentIdentifier" { #expect(after[tag] == before[tag], "\(file): \(tag)") }
        #expect(try MetadataReader.read(fileAtPath: path).quickTime?.contentIdentifier == Self.contentIdentifier)

        // Every chunk offset still points at the same sample bytes.
        let old = try Self.chunks(bytes)
        let new = try Self.chunks(written)
        #expect(old.count == new.count)
        if file.hasSuffix(".mp4") { #expect(old.count >= 2, "a real movie has chunks") }  // exiftool's sample is stripped
        for (a, b) in zip(old, new) {
            #expect(bytes[a..<min(a + 64, bytes.count)] == written[b..<min(b + 64, written.count)])
        }
    }

    /// Every chunk offset of every track (stco and co64).
    static func chunks(_ bytes: [UInt8]) throws -> [Int] {
        let source = ByteSource(bytes: bytes)
        var offsets: [Int] = []
        func walk(_ boxes: [ISOBox]) throws {
            for box in boxes {
                switch box.type {
                case "moov", "trak", "mdia", "minf", "stbl": try walk(try box.children(of: source))
                case "stco", "co64":
                    let payload = try box.payload(of: source, limit: 64 << 20)
                    let count = Int(payload.u32(at: 4)!)
                    for index in 0..<count {
                        offsets.append(
                            box.type == "co64"
                                ? Int(payload.u64(at: 8 + index * 8)!) : Int(payload.u32(at: 8 + index * 4)!))
                    }
                default: break
                }
            }
        }
        try walk(try ISOBox.children(of: source, in: 0..<bytes.count))
        return offsets
    }
}
