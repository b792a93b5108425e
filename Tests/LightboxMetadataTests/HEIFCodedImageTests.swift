import Foundation
import LightboxMetadata
import LightboxTestSupport
import Testing

@Suite("Where a HEIF's HEVC pictures lie")
struct HEIFCodedImageTests {
    private func bytes(_ file: String) throws -> [UInt8] {
        [UInt8](try #require(FileManager.default.contents(atPath: try Corpus.path(file))))
    }

    /// exiftool's value of `tag` for a file, as text.
    private func exiftool(_ tag: String, _ file: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/exiftool")
        process.arguments = ["-s3", "-n", "-" + tag, try Corpus.path(file)]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Every range inside the file, the configuration just after an `hvcC` box's header.
    private func expectInside(_ layout: HEIFCodedImage, _ bytes: [UInt8], _ label: String) {
        for range in layout.pictures.joined() + [layout.configuration] {
            #expect(range.lowerBound >= 0 && range.upperBound <= bytes.count && !range.isEmpty, "\(label): \(range)")
        }
    }

    @Test("An iPhone HEIC: a grid of 8 x 6 pictures of 512 px at exiftool's size, and a 320x240 thumbnail")
    func iPhoneGrid() throws {
        let file = "exiv2/data/IMG_3578.heic"
        let bytes = try bytes(file)
        let layout = try #require(HEIFCodedImage.read(bytes, image: .primary))
        #expect((layout.columns, layout.rows, layout.pictures.count) == (8, 6, 48))
        #expect("\(layout.width)" == (try exiftool("ImageWidth", file)))
        #expect("\(layout.height)" == (try exiftool("ImageHeight", file)))
        #expect((layout.pictureWidth, layout.pictureHeight, layout.quarterTurns) == (512, 512, 0))
        #expect(
            Array(bytes[(layout.configuration.lowerBound - 4)..<layout.configuration.lowerBound]) == Array("hvcC".utf8))
        // An iPhone's colour is its ICC profile; its tiles say nothing of a matrix in the boxes.
        #expect(layout.colourMatrix == nil)
        expectInside(layout, bytes, file)
        let pictures = layout.pictures.joined().sorted { $0.lowerBound < $1.lowerBound }
        #expect(
            zip(pictures, pictures.dropFirst()).allSatisfy { $0.upperBound <= $1.lowerBound }, "pictures do not overlap"
        )

        let thumbnail = try #require(HEIFCodedImage.read(bytes, image: .thumbnail))
        let metadata = try MetadataReader.read(fileAtPath: try Corpus.path(file))
        #expect((thumbnail.columns, thumbnail.rows, thumbnail.pictures.count) == (1, 1, 1))
        #expect((thumbnail.width, thumbnail.height) == (metadata.heifThumbnailWidth, metadata.heifThumbnailHeight))
        #expect(thumbnail.item != layout.item)

        // Both images carry the Display P3 profile exiftool extracts, and both are read at once.
        let icc = try ExifTool.binary("ICC_Profile", of: try Corpus.path(file))
        #expect(icc.count > 500)
        #expect(layout.profile.map { Array(bytes[$0]) } == icc)
        #expect(thumbnail.profile.map { Array(bytes[$0]) } == icc)
        let both = try #require(HEIFCodedImage.readPrimaryAndThumbnail(bytes))
        #expect(both.primary == layout && both.thumbnail == thumbnail)
    }

    @Test(
        "From the file, the boxes alone are read; the thumbnail's bytes gathered are its picture, configuration and profile, 1% of the file"
    )
    func gatheredThumbnail() throws {
        for file in ["exiv2/data/IMG_3578.heic", "exiv2/data/2021-02-13-1929.heic"] {
            let path = try Corpus.path(file)
            let bytes = try bytes(file)
            let source = try ByteSource(fileAtPath: path)
            let fromFile = try #require(HEIFCodedImage.readPrimaryAndThumbnail(source))
            let fromMemory = try #require(HEIFCodedImage.readPrimaryAndThumbnail(bytes))
            #expect(fromFile.primary == fromMemory.primary && fromFile.thumbnail == fromMemory.thumbnail, "\(file)")
            let thumbnail = try #require(fromFile.thumbnail)
            let (gathered, moved) = try thumbnail.gathered(from: source)
            #expect(gathered.count * 50 < bytes.count, "\(file): \(gathered.count) of \(bytes.count) bytes")
            #expect(Array(gathered[moved.configuration]) == Array(bytes[thumbnail.configuration]))
            #expect(moved.profile.map { Array(gathered[$0]) } == thumbnail.profile.map { Array(bytes[$0]) })
            #expect(moved.profile != nil)
            #expect(moved.pictures.count == thumbnail.pictures.count)
            for (ours, theirs) in zip(moved.pictures, thumbnail.pictures) {
                #expect(ours.map { Array(gathered[$0]) } == theirs.map { Array(bytes[$0]) })
            }
            #expect((moved.width, moved.height, moved.item) == (thumbnail.width, thumbnail.height, thumbnail.item))
        }
    }

    @Test(
        "One picture with its nclx colour, turned by its irot as written; a crop or a sequence is not the simple form")
    func singlePictures() throws {
        let stonehenge = try bytes("exiv2/data/Stonehenge.heic")
        let layout = try #require(HEIFCodedImage.read(stonehenge, image: .primary))
        #expect((layout.columns, layout.rows, layout.width, layout.height) == (1, 1, 300, 200))
        // Its colour is nclx alone: no profile, as exiftool finds none.
        #expect(layout.profile == nil)
        #expect(try ExifTool.binary("ICC_Profile", of: try Corpus.path("exiv2/data/Stonehenge.heic")).isEmpty)
        #expect(
            HEIFCodedImage.readPrimaryAndThumbnail(stonehenge).map { $0.primary == layout && $0.thumbnail == nil }
                == true)
        #expect(
            layout.colourMatrix.map(String.init) == (try exiftool("MatrixCoefficients", "exiv2/data/Stonehenge.heic")))
        #expect(layout.fullRange == true)
        #expect(HEIFCodedImage.read(stonehenge, image: .thumbnail) == nil, "it has no thumbnail")
        // Its irot's angle byte, rewritten: the reader gives each quarter turn back.
        let irot = try #require(
            (0..<(stonehenge.count - 4)).first { Array(stonehenge[$0..<($0 + 4)]) == Array("irot".utf8) })
        for turns in 0..<4 {
            var turned = stonehenge
            turned[irot + 4] = UInt8(turns)
            #expect(HEIFCodedImage.read(turned, image: .primary)?.quarterTurns == turns)
        }
        #expect(
            HEIFCodedImage.read(try bytes("sigal/pictures/dir1/test1/outdoor.heic"), image: .primary) == nil, "clap")
        #expect(HEIFCodedImage.read(try bytes("pillow/images/avif/hopper.avif"), image: .primary) == nil, "AV1")
    }

    @Test("Pictures naming the same bytes again and again are refused before they are gathered")
    func repeatedPictures() throws {
        let file = "exiv2/data/IMG_3578.heic"
        let bytes = try bytes(file)
        let source = ByteSource(bytes: bytes)
        let thumbnail = try #require(HEIFCodedImage.read(bytes, image: .thumbnail))
        let gathered = try thumbnail.gathered(from: source)
        #expect(gathered.bytes.count < bytes.count / 10)
        // A grid of 256 x 256 tiles, each the whole file: 65,536 times its bytes were reserved.
        var hostile = thumbnail
        hostile.pictures = Array(repeating: [0..<bytes.count], count: 256 * 256)
        let error = #expect(throws: MetadataError.self) { try hostile.gathered(from: source) }
        #expect(error?.message.contains("pictures name") == true, "\(error?.message ?? "")")
    }

    @Test("Damaged and cut-short HEIFs give no layout or one inside the file", .timeLimit(.minutes(2)))
    func damagedFiles() throws {
        for file in ["exiv2/data/IMG_3578.heic", "exiv2/data/Stonehenge.heic", "exiv2/data/heic.heic"] {
            let original = try bytes(file)
            var state: UInt64 = 0x9E37_79B9_7F4A_7C15
            func next() -> Int {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return Int(state >> 33)
            }
            var kept = 0
            for round in 0..<2_000 {
                var damaged = original
                // Bytes changed where the boxes are, a quarter of the rounds cut short too.
                for _ in 0..<(1 + next() % 4) {
                    damaged[next() % min(8_192, damaged.count)] = UInt8(truncatingIfNeeded: next())
                }
                if round % 4 == 0 { damaged = Array(damaged.prefix(1 + next() % damaged.count)) }
                for image in [HEIFCodedImage.Image.primary, .thumbnail] {
                    guard let layout = HEIFCodedImage.read(damaged, image: image) else { continue }
                    kept += 1
                    expectInside(layout, damaged, "\(file), round \(round)")
                    #expect(layout.pictures.count == layout.columns * layout.rows)
                }
            }
            #expect(kept > 100, "\(file): most single-byte damage leaves the boxes readable")
        }
    }
}
