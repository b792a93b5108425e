import Crypto
import Foundation
import GRDB
import LightboxImaging
import LightboxTestSupport
import Testing

@testable import Lightbox
@testable import LightboxStore

/// An asset's orientation and image data (PhotoKit's `requestImageDataAndOrientation`): the
/// bytes as stored, and the EXIF orientation exiftool reads from them, kept in the catalog
/// for the asset's JSON and `show`, and read anew for a library imported before it kept them.
@Suite("Orientation and image data")
struct ImageDataTests {
    /// Photos in every orientation: Pillow's test images (2 to 8), a phone's upside-down photo,
    /// an upright one, and an iPhone HEIC turned right by its container.
    static let photos =
        (2...8).map { "pillow/images/hopper_orientation_\($0).jpg" } + [
            "forensics/original-files/pic2/IMG_20200124_231153.jpg", "exiv2/data/2021-02-13-1929.heic",
            "forensics/original-files/pic2/IMG_20191224_234846.jpg",
        ]

    /// The orientation to show a file's decoded pixels in: exiftool's EXIF Orientation (1 when
    /// it states none); a HEIF's is 1, as decoders apply its container's rotation (`irot`) and
    /// its EXIF tag (6 for this iPhone's) only describes it.
    static func exiftoolOrientation(_ path: String) throws -> Int {
        if path.lowercased().hasSuffix(".heic") { return 1 }
        let value = try ExifTool.tags(["Orientation"], of: path)["Orientation"].flatMap { Int($0) } ?? 1
        return (1...8).contains(value) ? value : 1
    }

    static func library() async throws -> (PhotoLibrary, [(Asset, String)], TemporaryDirectory) {
        let folder = try TemporaryDirectory()
        let library = try folder.makeLibrary()
        var imported: [(Asset, String)] = []
        for relative in photos {
            let path = try Corpus.path(relative)
            let summary = await library.importItems(at: [URL(fileURLWithPath: path)])
            guard case .imported(let asset) = try #require(summary.results.first).outcome else {
                Issue.record("\(relative) did not import")
                continue
            }
            imported.append((asset, path))
        }
        return (library, imported, folder)
    }

    @Test("Each asset's orientation is exiftool's; its image data is the file's bytes with it; an edit is upright")
    func orientationAndData() async throws {
        let (library, imported, folder) = try await Self.library()
        defer { withExtendedLifetime(folder) {} }
        let manager = ImageManager(library: library)
        for (asset, path) in imported {
            let expected = try Self.exiftoolOrientation(path)
            #expect(asset.orientation == expected, "\(path)")
            let json = try JSONSerialization.jsonObject(with: try JSONEncoder().encode(asset)) as? [String: Any]
            #expect(json?["orientation"] as? Int == expected)
            let data = try await manager.requestImageDataAndOrientation(for: asset)
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            #expect(data.orientation == expected && data.bytes == bytes)
        }
        // The HEIC edits upright, in its displayed size (it was refused as turned, its render
        // carrying the EXIF tag 6, then turned twice).
        let (heic, _) = try #require(imported.first { $0.1.hasSuffix(".heic") })
        let upright = try await library.edit(heic, with: RecipeEditor(adding: [.exposure(0.2)]))
        #expect(upright.pixelWidth == heic.pixelWidth && upright.pixelHeight == heic.pixelHeight)
        #expect(heic.pixelWidth < heic.pixelHeight, "the iPhone's photo is portrait")
        let render = try await library.fileURL(for: try #require(upright.resource(ofType: .fullSizePhoto))).path
        #expect(try ExifTool.tags(["Orientation"], of: render)["Orientation"] == "1")

        // Edited: the render is upright; the original version keeps the file's orientation.
        let (turned, path) = try #require(imported.first { $0.0.orientation == 6 })
        let edited = try await library.edit(turned, with: RecipeEditor(adding: [.exposure(0.2)]))
        #expect(edited.orientation == 1 && edited.orientation(for: .original) == 6)
        let current = try await manager.requestImageDataAndOrientation(for: edited)
        #expect(current.orientation == 1 && current.uniformTypeIdentifier == "public.jpeg")
        var original = ImageRequestOptions()
        original.version = .original
        let unedited = try await manager.requestImageDataAndOrientation(for: edited, options: original)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(unedited.orientation == 6 && unedited.bytes == bytes)
    }

    @Test("A library whose catalog lacks orientations has them read from its originals")
    func backfill() async throws {
        let (library, imported, folder) = try await Self.library()
        defer { withExtendedLifetime(folder) {} }
        // As schema step v20 leaves an older library: no orientation, every asset to read.
        try library.withCatalog { db in
            try db.execute("UPDATE asset SET fileOrientation = NULL")
            try db.execute(
                """
                INSERT INTO libraryState (key, value)
                VALUES ('captureDetailsThrough', (SELECT MAX(id) FROM asset)), ('captureDetailsAfter', 0)
                ON CONFLICT (key) DO UPDATE SET value = excluded.value
                """)
        }
        let reopened = try PhotoLibrary(url: library.url)
        #expect(try reopened.fetchAssets().allSatisfy { $0.orientation == 1 })
        #expect(try await reopened.fillCaptureDetails() == imported.count)
        for (asset, path) in imported {
            let read = try #require(try reopened.fetchAssets(withLocalIdentifiers: [asset.localIdentifier]).first)
            let expected = try Self.exiftoolOrientation(path)
            #expect(read.orientation == expected, "\(path)")
        }
    }
}

extension ImageDataTests {
    @Test("lightbox image-data writes the bytes and names the orientation; show and --json carry it")
    func commandLine() async throws {
        let (library, imported, folder) = try await Self.library()
        let (asset, path) = try #require(imported.first { $0.0.orientation == 8 })
        let out = folder.path("data.jpg")
        let run = try CommandLineTests.run([
            "image-data", "--library", library.url.path, asset.localIdentifier, "--out", out, "--json",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let line = try #require(try run.jsonLines().first)
        #expect(line["orientation"] as? Int == 8 && line["uniformTypeIdentifier"] as? String == "public.jpeg")
        #expect(try Data(contentsOf: URL(fileURLWithPath: out)) == (try Data(contentsOf: URL(fileURLWithPath: path))))
        let shown = try CommandLineTests.run(["show", "--library", library.url.path, asset.localIdentifier])
        #expect(shown.stdout.contains("orientation      8 (left)"), "\(shown.stdout)")
        let listed = try CommandLineTests.run(["ls", "--library", library.url.path, "--json"])
        #expect(
            try listed.jsonLines().first { $0["localIdentifier"] as? String == asset.localIdentifier }?["orientation"]
                as? Int == 8)
    }
}
