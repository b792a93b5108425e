import Crypto
import Foundation
import LightboxTestSupport
import Testing

@testable import Lightbox
@testable import LightboxStore

@Suite("ZIP archives, streamed")
struct ZipArchiveTests {
    static func sha256(_ bytes: [UInt8]) -> String {
        SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
    }

    /// An archive of `files` written by `zip`, as one file.
    static func archive(_ files: [(String, [UInt8])], _ zip: inout ZipArchiveWriter, at path: String) throws {
        var bytes: [UInt8] = []
        var components = DateComponents()
        (components.year, components.month, components.day) = (2021, 7, 3)
        (components.hour, components.minute, components.second) = (23, 40, 17)
        for (name, content) in files {
            var crc = CRC32()
            crc.update(content)
            bytes += zip.header(name: name, size: UInt64(content.count), crc32: crc.checksum, modified: components)
            bytes += content
        }
        bytes += zip.finish()
        #expect(zip.offset == UInt64(bytes.count))
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    @Test("CRC-32 eight bytes a step equals the bitwise one, at every length and alignment")
    func crc() {
        var check = CRC32()
        check.update(Array("123456789".utf8))
        #expect(check.checksum == 0xCBF4_3926)
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<4099).map { _ in UInt8.random(in: 0...255, using: &generator) }
        for length in [0, 1, 7, 8, 9, 15, 16, 17, 1000, 4099] {
            for start in [0, 1, 3] where start + length <= bytes.count {
                let slice = Array(bytes[start..<start + length])
                var crc = CRC32()
                // In two parts: the state carries over.
                crc.update(Array(slice.prefix(length / 3)))
                crc.update(Array(slice.dropFirst(length / 3)))
                #expect(crc.checksum == HostileFiles.crc32(slice), "length \(length) at \(start)")
            }
        }
    }

    @Test("Python's zipfile reads the archive: names in UTF-8, contents, CRCs, dates; classic and ZIP64")
    func readByPython() throws {
        let folder = try TemporaryDirectory()
        let photo = [UInt8](try Data(contentsOf: URL(fileURLWithPath: try Corpus.photoPaths()[0])))
        let files: [(String, [UInt8])] = [
            ("IMG_0001.JPG", photo), ("Zürich été 🌄.jpg", Array(photo.prefix(1000))), ("empty.txt", []),
        ]
        for classicLimit: UInt64 in [0xFFFF_FFFF, 100] {
            var zip = ZipArchiveWriter(classicLimit: classicLimit)
            let path = folder.path("archive-\(classicLimit).zip")
            try Self.archive(files, &zip, at: path)
            let entries = try ZipOracle.entries(of: path)
            #expect(entries.map(\.name) == files.map(\.0))
            #expect(entries.map(\.size) == files.map(\.1.count))
            #expect(entries.map(\.sha256) == files.map { Self.sha256($0.1) })
            #expect(entries.allSatisfy { $0.date == "2021-07-03 23:40:16" })
            let raw = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            // The ZIP64 end record is there only when a field needs it.
            let hasZip64End = raw.indices.dropLast(3).contains { raw[$0..<$0 + 4] == [0x50, 0x4B, 0x06, 0x06] }
            #expect(hasZip64End == (classicLimit == 100))
        }
    }

    @Test("An entry's name is one file at the top: no folders, no way out, no controls, 255 bytes at most")
    func names() {
        #expect(ZipArchiveWriter.entryName("../../etc/passwd") == "_.._etc_passwd")
        #expect(ZipArchiveWriter.entryName("C:\\Windows\\x.jpg") == "C__Windows_x.jpg")
        #expect(ZipArchiveWriter.entryName("..") == "file")
        #expect(ZipArchiveWriter.entryName("a\u{0}b\nc.jpg") == "a_b_c.jpg")
        let long = ZipArchiveWriter.entryName(String(repeating: "é", count: 300) + ".HEIC")
        #expect(long.utf8.count <= 255 && long.hasSuffix(".HEIC"))
    }

    @Test("A name taken gets the next free one, without case, each search going on where the last stopped")
    func freeNames() {
        var names = FreeNames()
        #expect(names.claim("IMG_0001.JPG") == "IMG_0001.JPG")
        #expect(names.claim("img_0001.jpg") == "img_0001-1.jpg")
        #expect(names.claim("IMG_0001.JPG") == "IMG_0001-2.JPG")
        #expect(names.claim("README") == "README")
        #expect(names.claim("README") == "README-1")
        // The caller's own test of a name: one taken elsewhere is passed over.
        #expect(names.claim("a.txt", available: { $0 != "a.txt" && $0 != "a-1.txt" }) == "a-2.txt")
        // Ten thousand of one name: each claimed once, the last numbered 9,999.
        var many = FreeNames()
        let claimed = (0..<10_000).map { _ in many.claim("IMG_0001.JPG") }
        #expect(Set(claimed.map { $0.lowercased() }).count == 10_000)
        #expect(claimed.last == "IMG_0001-9999.JPG")
    }
}
