import Foundation
import LightboxTestSupport
import Testing

@testable import LightboxMetadata

@Suite("Walking a folder of photos")
struct MediaFolderTests {
    @Test(
        "A walk lists photos, movies and other files, sorted; sidecars, iPhone adjustments, hidden files and the excluded folder are left out"
    )
    func walk() throws {
        let folder = try TemporaryDirectory()
        let root = folder.path("DCIM")
        func write(_ name: String) throws {
            let path = root + "/" + name
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data(name.utf8).write(to: URL(fileURLWithPath: path))
        }
        for name in [
            "IMG_0002.HEIC", "IMG_0002.MOV", "IMG_0002.AAE", "IMG_0001.JPG", "IMG_0001.xmp", "IMG_0001.JPG.XMP",
            "edited.aae", "notes.txt", ".hidden.jpg", ".thumbnails/IMG_0001.jpg", "100APPLE/IMG_0100.JPG",
            "Photos.lightbox/originals/IMG_0001.JPG",
        ] {
            try write(name)
        }
        try FileManager.default.createDirectory(atPath: root + "/empty", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: root + "/linked.jpg", withDestinationPath: root + "/IMG_0001.JPG")

        let found = try #require(MediaFolder.files(in: root, excluding: root + "/Photos.lightbox"))
        let expected = [
            "100APPLE/IMG_0100.JPG", "IMG_0001.JPG", "IMG_0002.HEIC", "IMG_0002.MOV", "linked.jpg", "notes.txt",
        ]
        .map { root + "/" + $0 }
        #expect(found == expected)

        // Without the exclusion the library's files are listed too; a trailing slash changes nothing.
        let everything = try #require(MediaFolder.files(in: root + "/"))
        #expect(everything.count == expected.count + 1)
        #expect(everything.contains(root + "/Photos.lightbox/originals/IMG_0001.JPG"))

        #expect(MediaFolder.files(in: root + "/missing") == nil)
        #expect(MediaFolder.isCompanion("IMG_0001.JPG.xmp"))
        #expect(MediaFolder.isCompanion("/a/IMG_0002.AAE"))
        #expect(!MediaFolder.isCompanion("IMG_0001.xmp.jpg"))
        #expect(!MediaFolder.isCompanion("xmp"))
    }

    @Test("A name that is not UTF-8 is listed as unreadable, escaped, never passed over; a named pipe is listed")
    func latin1Name() throws {
        let folder = try TemporaryDirectory()
        let root = folder.path("CARD")
        try FileManager.default.createDirectory(atPath: root + "/DCIM", withIntermediateDirectories: true)
        try Data("photo".utf8).write(to: URL(fileURLWithPath: root + "/DCIM/IMG_0001.JPG"))
        // "Été.jpg" as Latin-1 writes it: 0xC9 and 0xE9 begin no UTF-8 sequence here.
        let name: [UInt8] = Array((root + "/DCIM/").utf8) + [0xC9, 0x74, 0xE9] + Array(".jpg".utf8) + [0]
        let descriptor = name.withUnsafeBufferPointer {
            $0.withMemoryRebound(to: CChar.self) { creat($0.baseAddress!, 0o600) }
        }
        #expect(descriptor >= 0)
        close(descriptor)
        #expect(mkfifo(root + "/DCIM/pipe.jpg", 0o600) == 0)
        let listing = try #require(MediaFolder.list(root))
        #expect(listing.files == [root + "/DCIM/IMG_0001.JPG", root + "/DCIM/pipe.jpg"])
        #expect(listing.unreadableNames == [root + "/DCIM/\\xC9t\\xE9.jpg"])
        #expect(MediaFolder.escaped(Array("caf\u{E9}".utf8) + [0xFF]) == "caf\u{E9}\\xFF")
        #expect(listing.unreadableFolders.isEmpty)
        // A folder inside that cannot be listed is said, not passed over. Root lists any folder
        // whatever its mode, so only another user sees it refused.
        try FileManager.default.createDirectory(atPath: root + "/DCIM/locked", withIntermediateDirectories: true)
        #expect(chmod(root + "/DCIM/locked", 0) == 0)
        defer { chmod(root + "/DCIM/locked", 0o700) }
        if getuid() != 0 {
            #expect(MediaFolder.list(root)?.unreadableFolders == [root + "/DCIM/locked"])
        }
    }
}
