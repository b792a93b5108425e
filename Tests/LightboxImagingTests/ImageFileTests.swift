import Dispatch
import Foundation
import LightboxImaging
import LightboxMetadata
import LightboxTestSupport
import Synchronization
import Testing

@Suite("Reading and rendering images with libvips")
struct ImageFileTests {
    @Test("Only the loaders of the formats Lightbox reads are open: ImageMagick, OpenSlide and SVG are not")
    func otherLoadersBlocked() throws {
        // A BMP only ImageMagick's loader reads; an SVG (librsvg); the fuzzer's TIFF
        // (Fuzz/image/tiff-openslide-2gb-malloc.tif), into which OpenSlide's loader looked for a
        // microscope slide (docs/SECURITY.md, finding 5).
        let fuzzed = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fuzz/image/tiff-openslide-2gb-malloc.tif").path
        for path in [try Corpus.path("pillow/images/hopper.bmp"), try Corpus.path("gnome-docs/figures/touch-hold.svg")]
        {
            #expect(throws: ImagingError.self, "\(path)") { try ImageFile.properties(ofFileAt: path) }
            #expect(throws: ImagingError.self, "\(path)") {
                try ImageFile.thumbnail(ofFileAt: path, options: RenderOptions(width: 64, height: 64))
            }
        }
        // The TIFF is libtiff's to read, as any TIFF, and the libraries of formats Lightbox
        // never reads are not even loaded: libvips offers every file to each loader's probe.
        #expect(try ImageFile.properties(ofFileAt: fuzzed).loader == "tiffload")
        // libvips' modules by name, and the libraries only they bring (libjxl is not one:
        // FFmpeg's libavcodec links it too).
        let maps = try ProcFile.read("/proc/self/maps")
        for library in [
            "vips-magick", "vips-openslide", "vips-poppler", "vips-jxl", "libopenslide", "libMagick", "libpoppler",
        ] {
            #expect(!maps.contains(library), "\(library) is loaded")
        }
        let svg = try Corpus.path("gnome-docs/figures/touch-hold.svg")
        do {
            _ = try ImageFile.properties(ofFileAt: svg)
            Issue.record("an SVG was opened")
        } catch {
            #expect(error.message.contains("not an image format Lightbox reads"), "\(error.message)")
        }
        // The loaders of the formats Lightbox imports stay open.
        for (file, loader) in [
            ("gnome-docs/figures/screenshot-tool.png", "pngload"), ("pillow/images/hopper.webp", "webpload"),
            ("pillow/images/hopper.gif", "gifload"), ("pillow/images/hopper.tif", "tiffload"),
        ] {
            let path = try Corpus.path(file)
            #expect(try ImageFile.properties(ofFileAt: path).loader == loader, "\(file)")
            let thumbnail = try ImageFile.thumbnail(ofFileAt: path, options: RenderOptions(width: 64, height: 64))
            #expect(max(thumbnail.pixelWidth, thumbnail.pixelHeight) == 64, "\(file)")
        }
    }

    @Test("The displayed size is libvips' size after autorotation", arguments: Corpus.photos)
    func displayedSize(file: String) throws {
        let path = try Corpus.path(file)
        let properties = try ImageFile.properties(ofFileAt: path)
        let oracle = try ImageComparison.autorotatedSize(ofFileAt: path)
        #expect(properties.pixelWidth == oracle.width)
        #expect(properties.pixelHeight == oracle.height)
    }

    @Test("A fit thumbnail fits the box and keeps the aspect ratio", arguments: Corpus.photos)
    func fitThumbnail(file: String) throws {
        let path = try Corpus.path(file)
        let properties = try ImageFile.properties(ofFileAt: path)
        let thumbnail = try ImageFile.thumbnail(ofFileAt: path, options: RenderOptions(width: 200, height: 150))
        #expect(thumbnail.pixelWidth <= 200 && thumbnail.pixelHeight <= 150)
        #expect(thumbnail.pixelWidth == 200 || thumbnail.pixelHeight == 150 || properties.pixelWidth <= 200)
        let sourceRatio = Double(properties.pixelWidth) / Double(properties.pixelHeight)
        let thumbnailRatio = Double(thumbnail.pixelWidth) / Double(thumbnail.pixelHeight)
        // One pixel of rounding on the short side.
        #expect(
            abs(sourceRatio - thumbnailRatio) <= sourceRatio / Double(min(thumbnail.pixelWidth, thumbnail.pixelHeight))
                + 0.01)
        #expect(thumbnail.bytes.starts(with: [0xFF, 0xD8, 0xFF]))
    }

    @Test("A fill thumbnail is exactly the box, and WebP is WebP")
    func fillThumbnail() throws {
        let path = try Corpus.path("lomiri/backgrounds/Dragonfly_by_Bolly.jpg")
        let thumbnail = try ImageFile.thumbnail(
            ofFileAt: path, options: RenderOptions(width: 128, height: 128, contentMode: .aspectFill, format: .webp))
        #expect(thumbnail.pixelWidth == 128 && thumbnail.pixelHeight == 128)
        #expect(thumbnail.bytes.starts(with: Array("RIFF".utf8)))
    }

    @Test("A thumbnail never enlarges a small photo unless asked")
    func noUpscaling() throws {
        let path = try Corpus.path("exiv2/data/exiv2-canon-eos-300d.jpg")
        let properties = try ImageFile.properties(ofFileAt: path)
        let thumbnail = try ImageFile.thumbnail(ofFileAt: path, options: RenderOptions(width: 2000, height: 2000))
        #expect(thumbnail.pixelWidth == properties.pixelWidth && thumbnail.pixelHeight == properties.pixelHeight)
    }

    @Test(
        "Damaged TIFFs and PNGs that libvips decodes, rendered at once, fail each with its own reason and no other file's"
    )
    func damagedLibvipsFiles() throws {
        let folder = try TemporaryDirectory()
        var cut: [String] = []
        // libtiff names the file in its messages; libpng's say only what failed.
        for file in [
            "pillow/images/12bit.cropped.tif", "pillow/images/12in16bit.tif", "pillow/images/16_bit_noise.tif",
            "pillow/images/16bit.MM.cropped.tif", "pillow/images/1_trns.png", "pillow/images/a_fli.png",
        ] {
            let name = "cut-\(cut.count)-" + (file as NSString).lastPathComponent
            cut.append(try folder.truncatedCopy(of: Corpus.path(file), fraction: 0.5, as: name))
        }
        let paths = cut
        for round in 0..<5 {
            let found = failuresRenderingAtOnce(paths)
            #expect(found.count == paths.count, "round \(round)")
            for (path, error) in found {
                #expect(error.path == path)
                // Each of these files, decoded alone, has a reason of its own.
                #expect(!error.message.contains("libvips gave no reason"), "round \(round), \(path): \(error.message)")
                // libtiff's own reason names the file; a TIFF no libvips loader takes is refused
                // rather than handed to ImageMagick.
                if path.hasSuffix(".tif") {
                    #expect(
                        error.message.contains(path) || error.message.contains("not an image format Lightbox reads"),
                        "round \(round), \(path): \(error.message)")
                }
                for other in paths where other != path {
                    #expect(
                        !error.message.contains(other),
                        "round \(round), \(path)'s error names \(other): \(error.message)")
                }
            }
        }
    }

    @Test("Damaged HEICs rendered at once fail as corrupt, each with its own reason and no other file's")
    func damagedHEICs() throws {
        let folder = try TemporaryDirectory()
        var cut: [String] = []
        for (index, fraction) in [0.05, 0.3, 0.6, 0.9, 0.99].enumerated() {
            for file in ["exiv2/data/IMG_3578.heic", "exiv2/data/2021-02-13-1929.heic"] {
                cut.append(
                    try folder.truncatedCopy(
                        of: Corpus.path(file), fraction: fraction, as: "cut-\(index)-\(cut.count).heic"))
            }
        }
        for path in cut {
            #expect(ImageComparison.libvipsThumbnailError(ofFileAt: path, size: 256) != nil, "libvips reads \(path)")
        }
        let found = failuresRenderingAtOnce(cut)
        #expect(found.count == cut.count)
        for (path, error) in found {
            #expect(error.code == .corrupt, "\(path): \(error)")
            #expect(error.path == path)
            #expect(error.message.contains("cut short"), "\(error.message)")
            #expect(!error.message.contains("\n"), "one line: \(error.message)")
            for other in cut where other != path {
                #expect(!error.message.contains(other), "\(path)'s error names \(other): \(error.message)")
            }
        }
    }

    /// 256 px thumbnails of `paths`, as many at once as there are processors: each failure's
    /// error by path.
    private func failuresRenderingAtOnce(_ paths: [String]) -> [String: ImagingError] {
        let errors = Mutex<[String: ImagingError]>([:])
        DispatchQueue.concurrentPerform(iterations: paths.count) { index in
            do {
                _ = try ImageFile.thumbnail(ofFileAt: paths[index], options: RenderOptions(width: 256, height: 256))
            } catch {
                errors.withLock { $0[paths[index]] = error as? ImagingError }
            }
        }
        return errors.withLock { $0 }
    }

    @Test("Truncated and random files fail with the file's path")
    func damagedFiles() throws {
        let folder = try TemporaryDirectory()
        let truncated = try folder.truncatedCopy(
            of: Corpus.path("lomiri/backgrounds/Dragonfly_by_Bolly.jpg"), fraction: 0.5, as: "cut.jpg")
        let error = #expect(throws: ImagingError.self) {
            try ImageFile.thumbnail(ofFileAt: truncated, options: RenderOptions(width: 64, height: 64))
        }
        #expect(error?.code == .corrupt)
        #expect(error?.path == truncated)

        // A PNG cut inside a chunk is refused before libvips (which gave a warning only, and
        // no reason): the error names the chunk the file cannot hold.
        let header = try folder.truncatedCopy(of: Corpus.path("pillow/images/7x13.png"), fraction: 0.5, as: "cut.png")
        let silent = #expect(throws: ImagingError.self) {
            try ImageFile.thumbnail(ofFileAt: header, options: RenderOptions(width: 64, height: 64))
        }
        #expect(silent?.message.contains("PNG chunk") == true, "\(silent?.message ?? "")")

        let noise = folder.randomFile("noise.jpg", count: 10_000)
        let noiseError = #expect(throws: ImagingError.self) { try ImageFile.properties(ofFileAt: noise) }
        #expect(noiseError?.path == noise)

        // An empty file says so, whether the render reads it or is handed its bytes.
        let empty = folder.randomFile("empty.heic", count: 0)
        let emptyError = #expect(throws: ImagingError.self) {
            try ImageFile.thumbnail(ofFileAt: empty, options: RenderOptions(width: 64, height: 64))
        }
        #expect(emptyError?.path == empty)
        #expect(emptyError?.message == "the file is empty", "\(emptyError?.message ?? "")")
        let handedError = #expect(throws: ImagingError.self) {
            try ImageFile.thumbnails(
                ofFileAt: empty, contents: [], options: [RenderOptions(width: 64, height: 64)])
        }
        #expect(handedError?.message == "the file is empty", "\(handedError?.message ?? "")")
    }
}

/// Files that declare more pixels than any camera makes, from a few bytes.
@Suite("The pixel budget")
struct PixelBudgetTests {
    static func be32(_ value: UInt32) -> [UInt8] { HostileFiles.bigEndian32(value) }

    /// A PNG's signature, an IHDR of 65535x65535 8-bit RGB, an IDAT of one deflated byte and
    /// IEND: 66 bytes.
    static var hugePNG: [UInt8] {
        let chunk = HostileFiles.pngChunk
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
            + chunk("IHDR", be32(65535) + be32(65535) + [8, 2, 0, 0, 0])
            + chunk("IDAT", [120, 156, 99, 0, 0, 0, 1, 0, 1]) + chunk("IEND", [])
    }

    /// A GIF89a whose screen and one image are 65535x65535, with a one-entry colour table
    /// and an empty image: 35 bytes.
    static let hugeGIF: [UInt8] =
        Array("GIF89a".utf8) + [0xFF, 0xFF, 0xFF, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 0, 0]
        + [0x2C, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0, 2, 2, 0x4C, 0x01, 0, 0x3B]

    @Test(
        "A PNG or GIF declaring 65535x65535 is refused as too large before any pixel is decoded",
        arguments: ["png", "gif"])
    func huge(format: String) throws {
        let folder = try TemporaryDirectory()
        let path = folder.path("huge." + format)
        try Data(format == "png" ? Self.hugePNG : Self.hugeGIF).write(to: URL(fileURLWithPath: path))
        for side in [256, RenderOptions.maximumSide] {
            do {
                _ = try ImageFile.thumbnail(ofFileAt: path, options: RenderOptions(width: side, height: side))
                Issue.record("a \(format) of 65535x65535 was decoded")
            } catch {
                #expect(error.code == .tooLarge, "\(error.message)")
                #expect(
                    error.message.contains("65535x65535") && error.message.contains("200 megapixels"),
                    "\(error.message)")
            }
        }
        #expect(ImageFile.maximumPixels == 200_000_000)
    }

    @Test(
        "A render past its time limit stops and says so; a render within it is untouched",
        arguments: [
            "lomiri/backgrounds/Dragonfly_by_Bolly.jpg", "pillow/images/hopper.png", "exiv2/data/IMG_3578.heic",
        ])
    func timeLimit(file: String) throws {
        let path = try Corpus.path(file)
        let full = RenderOptions(width: RenderOptions.maximumSide, height: RenderOptions.maximumSide)
        let stopped = RenderMonitor(isCancelled: { false }, timeLimit: .zero)
        let error = #expect(throws: ImagingError.self) {
            try ImageFile.thumbnail(ofFileAt: path, options: full, monitor: stopped)
        }
        #expect(error?.code == .timedOut, "\(error?.message ?? "")")
        #expect(error?.path == path)
        let image = try ImageFile.thumbnail(
            ofFileAt: path, options: full, monitor: RenderMonitor(isCancelled: { false }))
        #expect(image.pixelWidth > 0)
    }

    @Test(
        "A PNG chunk that says it holds more than the file is refused before a decoder allocates it",
        arguments: ["tEXt", "zTXt", "iCCP"])
    func chunkLongerThanFile(type: String) throws {
        // A real screenshot, cut after its IHDR, then a chunk declaring 2 GB and 20 bytes of it.
        let photo = [UInt8](try Data(contentsOf: URL(fileURLWithPath: try Corpus.path("pillow/images/hopper.png"))))
        let lie = Self.be32(0x7FFF_FFF0) + Array(type.utf8) + Array(repeating: 0x61, count: 20)
        let folder = try TemporaryDirectory()
        let path = folder.path("liar.png")
        try Data(Array(photo.prefix(33)) + lie).write(to: URL(fileURLWithPath: path))
        for side in [256, RenderOptions.maximumSide] {
            do {
                _ = try ImageFile.thumbnail(ofFileAt: path, options: RenderOptions(width: side, height: side))
                Issue.record("the PNG was decoded")
            } catch {
                #expect(error.code == .corrupt, "\(error.message)")
                #expect(
                    error.message.contains("PNG chunk \(type) at byte 33 says it holds 2147483632 bytes"),
                    "\(error.message)")
            }
        }
        #expect(throws: ImagingError.self) { try ImageFile.properties(ofFileAt: path) }
        // libvips' loader, believing it, used to reach 2.1 GB; this whole process stays far below.
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        #expect(usage.ru_maxrss < 1_500_000, "peak resident set \(usage.ru_maxrss) KB")
    }
}

@Suite("HEIF structures libheif would misread")
struct HEIFLoopTests {
    /// IMG_3578.heic with its grid's first tile replaced by the grid itself.
    static func selfDerivingGrid() throws -> [UInt8] {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: try Corpus.path("exiv2/data/IMG_3578.heic"))))
        let iref = try #require(Self.find("iref", in: bytes, from: 0))
        let dimg = try #require(Self.find("dimg", in: bytes, from: iref))
        // dimg's payload (iref version 0: 16-bit ids): from, count, then the tiles.
        bytes[dimg + 8] = bytes[dimg + 4]
        bytes[dimg + 9] = bytes[dimg + 5]
        return bytes
    }

    static func find(_ fourCC: String, in bytes: [UInt8], from start: Int) -> Int? {
        let needle = Array(fourCC.utf8)
        return (start..<(bytes.count - 4)).first { Array(bytes[$0..<$0 + 4]) == needle }
    }

    @Test("A grid that lists itself as a tile is refused before libheif follows it")
    func selfDerivingGridRefused() throws {
        let bytes = try Self.selfDerivingGrid()
        #expect(HEIFDerivations.haveLoop(ByteSource(bytes: bytes)))
        let original = try Corpus.path("exiv2/data/IMG_3578.heic")
        #expect(!HEIFDerivations.haveLoop(try ByteSource(fileAtPath: original)))
        let folder = try TemporaryDirectory()
        let path = folder.path("loop.heic")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        for side in [256, RenderOptions.maximumSide] {
            do {
                _ = try ImageFile.thumbnail(ofFileAt: path, options: RenderOptions(width: side, height: side))
                Issue.record("a self-deriving grid was decoded at \(side)")
            } catch {
                #expect(error.code == .corrupt && error.message.contains("derive from themselves"), "\(error.message)")
            }
        }
    }

    @Test("Item locations with fields of widths the format does not allow are refused before libheif")
    func ilocFieldWidthsRefused() throws {
        // The fuzzer's find (Fuzz/image/avif-iloc-field-widths.avif): offsets 2 bytes wide and
        // lengths 13; libheif read an empty item and dav1d leaked. The same two widths in a
        // real AVIF.
        let original = try Corpus.path("pillow/images/avif/rot0mir1.avif")
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: original)))
        let iloc = try #require(Self.find("iloc", in: bytes, from: 0))
        // After the type: version, three bytes of flags, then offset and length widths.
        bytes[iloc + 8] = 0x2D
        let folder = try TemporaryDirectory()
        let path = folder.path("widths.avif")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        _ = try ImageFile.thumbnail(ofFileAt: original, options: RenderOptions(width: 64, height: 64))
        for side in [64, RenderOptions.maximumSide] {
            do {
                _ = try ImageFile.thumbnail(ofFileAt: path, options: RenderOptions(width: side, height: side))
                Issue.record("an AVIF with 2- and 13-byte location fields was decoded at \(side)")
            } catch {
                #expect(error.code == .corrupt && error.message.contains("iloc"), "\(error.message)")
                #expect(error.path == path)
            }
        }
        let metadata = #expect(throws: MetadataError.self) { try MetadataReader.read(fileAtPath: path) }
        #expect(metadata?.message.contains("0, 4 or 8") == true, "\(metadata?.message ?? "")")
    }

    @Test("A coded image item without data is refused before libheif hands it to its decoder")
    func emptyImageItemRefused() throws {
        // The fuzzer's second find (Fuzz/image/avif-alpha-item-without-data.avif): an alpha
        // item with no extents, handed to dav1d as an empty buffer, which leaked. The same in
        // a real AVIF: its one item's extent count set to 0.
        let original = try Corpus.path("pillow/images/avif/rot0mir1.avif")
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: original)))
        let iloc = try #require(Self.find("iloc", in: bytes, from: 0))
        // Version 0: flags, two bytes of widths, the item count, then the first item's id,
        // data reference and (with no base offset) its extent count.
        #expect(bytes[iloc + 9] & 0xF0 == 0, "no base offset in this file")
        bytes[iloc + 16] = 0
        bytes[iloc + 17] = 0
        let folder = try TemporaryDirectory()
        let path = folder.path("empty-item.avif")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        do {
            _ = try ImageFile.thumbnail(ofFileAt: path, options: RenderOptions(width: 64, height: 64))
            Issue.record("an AVIF whose image item has no data was decoded")
        } catch {
            #expect(error.code == .corrupt && error.message.contains("no data"), "\(error.message)")
        }
    }
}
