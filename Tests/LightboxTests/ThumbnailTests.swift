import Foundation
import Lightbox
import LightboxImaging
import LightboxTestSupport
import Testing

/// A library's image as tests ask for it: the image manager's final one (every image of a
/// library comes from it), with its source and entity tag.
struct FinalImage {
    var image: EncodedImage
    var source: ImageResultSource
    var entityTag: String?
    /// Whether it came from a cache rather than a render.
    var wasCached: Bool { source == .diskCache || source == .memoryCache }
}

extension PhotoLibrary {
    /// The final image of `options`' size, mode, format and resize: through a new image
    /// manager each time, so that a hit is derivatives/'s (what the next process finds), not
    /// memory's.
    func finalImage(of localIdentifier: String, _ options: RenderOptions) async throws -> FinalImage {
        guard let asset = try await asset(withLocalIdentifier: localIdentifier) else {
            throw LibraryError(.assetNotFound, "no asset has the identifier \(localIdentifier)")
        }
        let manager = ImageManager(library: self)
        let size = PixelSize(width: options.width, height: options.height)
        let request = ImageRequestOptions(
            resizeMode: options.resizeMode, format: options.format, quality: options.quality,
            allowsUpscaling: options.allowsUpscaling)
        let final = try await manager.finalImage(
            for: asset, targetSize: size, contentMode: options.contentMode, options: request)
        return FinalImage(
            image: final.image, source: final.source,
            entityTag: try manager.finalImageKey(
                for: asset, targetSize: size, contentMode: options.contentMode, options: request)?.entityTag)
    }
}

@Suite("Thumbnails of library assets, from the image manager")
struct ThumbnailTests {
    /// Photos whose EXIF orientation turns them a quarter turn: a Nikon D70 JPEG (6), an iPhone
    /// HEIC (6), and a real photo whose orientation tag exiftool sets to 8.
    static func rotatedPhotos(in folder: TemporaryDirectory) throws -> [String] {
        let eight = try folder.copy(Corpus.path("lomiri/backgrounds/Dragonfly_by_Bolly.jpg"), as: "eight.jpg")
        try ExifTool.write(["Orientation#": "8"], to: eight)
        return [
            try Corpus.path("exiv2/data/exiv2-nikon-d70.jpg"), try Corpus.path("exiv2/data/2021-02-13-1929.heic"),
            eight,
        ]
    }

    @Test("A photo with EXIF orientation 6 or 8 comes out upright, pixel for pixel like libvips' autorotated thumbnail")
    func orientedThumbnailsAreUpright() async throws {
        let folder = try TemporaryDirectory()
        let library = try folder.makeLibrary()
        for path in try Self.rotatedPhotos(in: folder) {
            let summary = await library.importItems(at: [URL(fileURLWithPath: path)])
            guard case .imported(let asset) = try #require(summary.results.first).outcome else {
                Issue.record("\(path) did not import")
                continue
            }
            let tag = try ExifTool.tags(["Orientation"], of: path)["Orientation"]
            #expect(tag == "6" || tag == "8", "\(path) has orientation \(tag ?? "none")")

            let thumbnail = try await library.finalImage(
                of: asset.localIdentifier, RenderOptions(width: 640, height: 640))
            let upright = try ImageComparison.referenceThumbnail(
                ofFileAt: path, width: thumbnail.image.pixelWidth, height: thumbnail.image.pixelHeight)
            let upsideDown = try ImageComparison.referenceThumbnail(
                ofFileAt: path, width: thumbnail.image.pixelWidth, height: thumbnail.image.pixelHeight,
                rotatedHalfTurn: true)
            // Portrait, as displayed.
            #expect(
                (thumbnail.image.pixelWidth < thumbnail.image.pixelHeight) == (asset.pixelWidth < asset.pixelHeight))
            #expect(asset.pixelWidth < asset.pixelHeight, "\(path) is displayed in portrait")
            let near = try ImageComparison.meanAbsoluteDifference(thumbnail.image, upright)
            let far = try ImageComparison.meanAbsoluteDifference(thumbnail.image, upsideDown)
            #expect(near < 6, "\(path): mean difference to the upright reference is \(near)")
            #expect(
                far > near * 3, "\(path): the upside-down reference is as close (\(far)) as the upright one (\(near))")
        }
    }

    /// A library in `folder` holding one imported iPhone photo.
    static func importedPhoto(in folder: TemporaryDirectory) async throws -> (PhotoLibrary, Asset) {
        let library = try folder.makeLibrary()
        let summary = await library.importItems(at: [
            URL(fileURLWithPath: try Corpus.path("digikam/body-background.jpg"))
        ])
        guard case .imported(let asset) = try #require(summary.results.first).outcome else {
            throw LibraryError(.corruptFile, "did not import")
        }
        return (library, asset)
    }

    @Test(
        "A cached thumbnail cut short or emptied (a crash before the disk had it) is a miss, made again",
        arguments: ["jpeg", "webp"])
    func cutShortIsAMiss(format: String) async throws {
        let folder = try TemporaryDirectory()
        let (library, asset) = try await Self.importedPhoto(in: folder)
        let options = RenderOptions(
            width: 300, height: 200, format: try #require(EncodedImageFormat(rawValue: format)))
        let first = try await library.finalImage(of: asset.localIdentifier, options)
        let key = String(try #require(first.entityTag).dropFirst().dropLast())
        let derivatives = library.url.appendingPathComponent("derivatives").path
        let file = try #require(
            FileManager.default.subpaths(atPath: derivatives)?.first { $0.hasSuffix("/" + key) }.map {
                derivatives + "/" + $0
            })
        for damaged in [Array(first.image.bytes.dropLast(100)), []] {
            try Data(damaged).write(to: URL(fileURLWithPath: file))
            let again = try await library.finalImage(of: asset.localIdentifier, options)
            #expect(!again.wasCached, "\(damaged.count) bytes served as a cached \(format)")
            #expect(again.image.bytes == first.image.bytes)
            // Stored whole again.
            #expect(FileManager.default.contents(atPath: file).map { [UInt8]($0) } == first.image.bytes)
            #expect(try await library.finalImage(of: asset.localIdentifier, options).wasCached)
        }
    }

    @Test("Thumbnails are cached in derivatives/ by asset, size, mode and version")
    func cachedThumbnails() async throws {
        let folder = try TemporaryDirectory()
        let (library, asset) = try await Self.importedPhoto(in: folder)
        let options = RenderOptions(width: 300, height: 200, contentMode: .aspectFill)
        let first = try await library.finalImage(of: asset.localIdentifier, options)
        let second = try await library.finalImage(of: asset.localIdentifier, options)
        #expect(!first.wasCached)
        #expect(second.wasCached)
        #expect(first.image.bytes == second.image.bytes)
        #expect(first.entityTag == second.entityTag)
        #expect(second.image.pixelWidth == 300 && second.image.pixelHeight == 200)
        let fit = try await library.finalImage(
            of: asset.localIdentifier, RenderOptions(width: 300, height: 200, contentMode: .aspectFit))
        #expect(fit.entityTag != first.entityTag)
        #expect(fit.image.pixelHeight == 200 && fit.image.pixelWidth < 300)
        // The grid thumbnail and the preview were rendered during the import, from one decode.
        let grid = try await library.finalImage(of: asset.localIdentifier, .grid)
        #expect(grid.wasCached)
        #expect(grid.image.pixelWidth == 360 && grid.image.pixelHeight == 360)
        let preview = try await library.finalImage(of: asset.localIdentifier, .preview)
        #expect(preview.wasCached)
        #expect(max(preview.image.pixelWidth, preview.image.pixelHeight) == RenderOptions.preview.width)
        // Both look like libvips' own thumbnails of the original, made from the file.
        let original = try Corpus.path("digikam/body-background.jpg")
        for (image, options) in [(grid.image, RenderOptions.grid), (preview.image, .preview)] {
            // The oracle's fit stretches to the box: give it the size the preview has.
            let reference = try ImageComparison.referenceThumbnail(
                ofFileAt: original, width: image.pixelWidth, height: image.pixelHeight, contentMode: options.contentMode
            )
            let difference = try ImageComparison.meanAbsoluteDifference(image, reference)
            #expect(difference < 4, "\(options.width) \(options.contentMode): mean difference \(difference)")
        }
        let files = try FileManager.default.subpathsOfDirectory(atPath: library.url.path + "/derivatives")
            .filter { $0.hasSuffix(".jpg") }
        #expect(files.count == 4)
        #expect(files.allSatisfy { $0.contains(asset.localIdentifier) })
    }

    @Test("Absurd sizes and qualities are refused, naming the bound")
    func badRequests() async throws {
        let folder = try TemporaryDirectory()
        let (library, asset) = try await Self.importedPhoto(in: folder)
        let huge = await #expect(throws: LibraryError.self) {
            try await library.finalImage(of: asset.localIdentifier, RenderOptions(width: 100_000, height: 10))
        }
        #expect(huge?.code == .invalidRequest)
        #expect(huge?.message.contains("\(ImageManager.maximumTargetSide)") == true)
        let quality = await #expect(throws: LibraryError.self) {
            try await library.finalImage(of: asset.localIdentifier, RenderOptions(width: 10, height: 10, quality: 0))
        }
        #expect(quality?.code == .invalidRequest)
    }
}
