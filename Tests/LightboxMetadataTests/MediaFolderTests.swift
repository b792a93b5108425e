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
}
