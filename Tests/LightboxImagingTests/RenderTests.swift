import CHEIF
import CVips
import Foundation
import LightboxMetadata
import LightboxTestSupport
import Synchronization
import Testing

@testable import LightboxImaging

/// A 12 MP phone JPEG (4000x3000), an iPhone Display P3 JPEG (4032x3024), an iPhone HEIC in
/// Display P3, and a CMYK JPEG, which libvips decodes instead of libjpeg-turbo.
enum RenderFiles {
    static let phone = "forensics/original-files/pic2/IMG_20191224_234846.jpg"
    static let displayP3 = "digikam/body-background.jpg"
    static let heic = "exiv2/data/IMG_3578.heic"
    static let cmyk = "pillow/images/pil_sample_cmyk.jpg"

    /// A corpus JPEG decoded by Lightbox at 1/`shrink` scale, with its embedded ICC profile.
    static func decoded(_ file: String, shrink: Int) throws -> (image: VipsImageRef, profile: [UInt8]?) {
        let path = try Corpus.path(file)
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ImagingError(.unreadable, "cannot read", path: path)
        }
        let (image, profile, _) = try JPEGDecoder.decode([UInt8](data), shrink: shrink, path: path, monitor: nil)
        return (image, profile)
    }
}

/// Full size at quality 100: comparisons then measure the decoders, not resampling or encoding.
let lossless = RenderOptions(
    width: RenderOptions.maximumSide, height: RenderOptions.maximumSide, quality: 100)

@Suite("Rendering: sizes, modes, crops, colour and cancellation")
struct RenderTests {
    @Test("Fit and fill geometry: the box, the aspect ratio, no enlarging, crops")
    func geometry() {
        let fit = RenderGeometry(
            uprightWidth: 4000, uprightHeight: 3000, options: RenderOptions(width: 256, height: 256))
        #expect((fit.outputWidth, fit.outputHeight) == (256, 192))
        #expect(fit.loadShrink(among: [1, 2, 4, 8]) == 8)
        let fill = RenderGeometry(
            uprightWidth: 4000, uprightHeight: 3000,
            options: RenderOptions(width: 360, height: 360, contentMode: .aspectFill))
        #expect((fill.scaledWidth, fill.scaledHeight, fill.outputWidth, fill.outputHeight) == (480, 360, 360, 360))
        #expect(fill.loadShrink(among: [1, 2, 4, 8]) == 8)
        let large = RenderGeometry(
            uprightWidth: 4000, uprightHeight: 3000, options: RenderOptions(width: 1024, height: 1024))
        #expect(large.loadShrink(among: [1, 2, 4, 8]) == 2)
        let small = RenderGeometry(
            uprightWidth: 300, uprightHeight: 200, options: RenderOptions(width: 1000, height: 1000))
        #expect((small.outputWidth, small.outputHeight) == (300, 200))
        let maximum = RenderGeometry(
            uprightWidth: 4000, uprightHeight: 3000,
            options: RenderOptions(width: RenderOptions.maximumSide, height: RenderOptions.maximumSide))
        #expect((maximum.outputWidth, maximum.outputHeight) == (4000, 3000))
        // The crop is what fits the box: a quarter of the picture at 500 px needs 1/4 scale.
        let crop = RenderGeometry(
            uprightWidth: 4000, uprightHeight: 3000,
            options: RenderOptions(
                width: 500, height: 500, normalizedCropRect: NormalizedRect(x: 0.5, y: 0.5, width: 0.5, height: 0.5)))
        #expect((crop.cropX, crop.cropY, crop.cropWidth, crop.cropHeight) == (2000, 1500, 2000, 1500))
        #expect((crop.outputWidth, crop.outputHeight) == (500, 375))
        #expect(crop.loadShrink(among: [1, 2, 4, 8]) == 4)
        #expect(NormalizedRect(parsing: "0.1,0.1,0.8,0.8") == NormalizedRect(x: 0.1, y: 0.1, width: 0.8, height: 0.8))
        #expect(NormalizedRect(parsing: "0.5,0.5,0.8,0.8") == nil)
        #expect(NormalizedRect(parsing: "0,0,0,1") == nil)
    }

    @Test(
        "Fit fits and fill fills, on a JPEG, a HEIC, a PNG and a CMYK JPEG",
        arguments: [RenderFiles.phone, RenderFiles.heic, "pillow/images/hopper.png", RenderFiles.cmyk])
    func fitAndFill(file: String) throws {
        let path = try Corpus.path(file)
        let properties = try ImageFile.properties(ofFileAt: path)
        let aspect = Double(properties.pixelWidth) / Double(properties.pixelHeight)
        for (width, height) in [(64, 64), (300, 120), (90, 200)] {
            let fit = try ImageFile.thumbnail(ofFileAt: path, options: RenderOptions(width: width, height: height))
            #expect(fit.pixelWidth <= width && fit.pixelHeight <= height)
            let scale = min(
                1, Double(width) / Double(properties.pixelWidth), Double(height) / Double(properties.pixelHeight))
            #expect(
                fit.pixelWidth == Int((Double(properties.pixelWidth) * scale).rounded())
                    || fit.pixelHeight == Int((Double(properties.pixelHeight) * scale).rounded()),
                "\(file) fit \(width)x\(height)")
            let fitAspect = Double(fit.pixelWidth) / Double(fit.pixelHeight)
            #expect(abs(fitAspect - aspect) <= aspect / Double(min(fit.pixelWidth, fit.pixelHeight)) + 0.01)
            let fill = try ImageFile.thumbnail(
                ofFileAt: path, options: RenderOptions(width: width, height: height, contentMode: .aspectFill))
            let expected = (min(width, properties.pixelWidth), min(height, properties.pixelHeight))
            #expect((fill.pixelWidth, fill.pixelHeight) == expected, "\(file) fill \(width)x\(height)")
        }
    }

    @Test("Exact is the target; fast and none are at least the target and come from the decoder's scale")
    func resizeModes() throws {
        let path = try Corpus.path(RenderFiles.phone)
        func render(_ mode: ResizeMode, _ content: ContentMode = .aspectFit) throws -> EncodedImage {
            try ImageFile.thumbnail(
                ofFileAt: path,
                options: RenderOptions(width: 300, height: 300, contentMode: content, resizeMode: mode))
        }
        let exact = try render(.exact)
        #expect((exact.pixelWidth, exact.pixelHeight) == (300, 225))
        // 4000x3000 at 1/8 is 500x375: the cheapest scale at least 300 wide.
        let none = try render(.none)
        #expect((none.pixelWidth, none.pixelHeight) == (500, 375))
        let fast = try render(.fast)
        #expect(fast.pixelWidth >= 300 && fast.pixelHeight >= 225 && fast.pixelWidth < 600)
        #expect(abs(Double(fast.pixelWidth) / Double(fast.pixelHeight) - 4.0 / 3.0) < 0.01)
        let fastFill = try render(.fast, .aspectFill)
        #expect(fastFill.pixelWidth == fastFill.pixelHeight && fastFill.pixelWidth >= 300)
        // Fast and none show the same picture as exact: shrunk to its size, they match it.
        for larger in [fast, none] {
            let shrunk = try ImageFile.thumbnail(
                ofEncoded: larger.bytes, options: RenderOptions(width: 300, height: 225, contentMode: .aspectFill))
            let difference = try ImageComparison.meanAbsoluteDifference(exact, shrunk)
            #expect(difference < 3, "mean difference \(difference)")
        }
    }

    @Test(
        "A crop matches libvips' crop of the same region, on a JPEG and a Display P3 HEIC",
        arguments: [
            (RenderFiles.phone, false), (RenderFiles.heic, true),
        ])
    func crop(file: String, hasProfile: Bool) throws {
        let path = try Corpus.path(file)
        let rect = NormalizedRect(x: 0.1, y: 0.2, width: 0.5, height: 0.4)
        // At the region's own size nothing is resampled: the pixels must be libvips' own.
        var native = lossless
        native.normalizedCropRect = rect
        let crop = try ImageFile.thumbnail(ofFileAt: path, options: native)
        let properties = try ImageFile.properties(ofFileAt: path)
        #expect(crop.pixelWidth == Int((Double(properties.pixelWidth) * 0.5).rounded()))
        let reference = try ImageComparison.referenceCrop(
            ofFileAt: path, rect: rect, width: crop.pixelWidth, height: crop.pixelHeight, convertingToSRGB: hasProfile)
        let difference = try ImageComparison.meanAbsoluteDifference(crop, reference)
        #expect(difference < 1, "mean difference \(difference)")

        // Scaled into a box: shrink-on-load then resampling, as close as the other thumbnails.
        let scaled = try ImageFile.thumbnail(
            ofFileAt: path, options: RenderOptions(width: 400, height: 400, quality: 100, normalizedCropRect: rect))
        #expect(scaled.pixelWidth == 400)
        let scaledReference = try ImageComparison.referenceCrop(
            ofFileAt: path, rect: rect, width: scaled.pixelWidth, height: scaled.pixelHeight,
            convertingToSRGB: hasProfile)
        let near = try ImageComparison.meanAbsoluteDifference(scaled, scaledReference)
        #expect(near < 4, "mean difference \(near)")
        // Another region of the same photo differs: the comparison can fail.
        let elsewhere = try ImageComparison.referenceCrop(
            ofFileAt: path, rect: NormalizedRect(x: 0.3, y: 0.3, width: 0.5, height: 0.4), width: scaled.pixelWidth,
            height: scaled.pixelHeight, convertingToSRGB: hasProfile)
        let far = try ImageComparison.meanAbsoluteDifference(scaled, elsewhere)
        #expect(far > 3 * near, "the wrong region is as close (\(far)) as the right one (\(near))")
    }

    @Test("A Display P3 photo comes out in sRGB, as libvips' icc_transform makes it, not dull")
    func displayP3() throws {
        let path = try Corpus.path(RenderFiles.displayP3)
        let image = try ImageFile.thumbnail(ofFileAt: path, options: lossless)
        let converted = try ImageComparison.referenceCrop(
            ofFileAt: path, rect: .full, width: image.pixelWidth, height: image.pixelHeight, convertingToSRGB: true)
        let unconverted = try ImageComparison.referenceCrop(
            ofFileAt: path, rect: .full, width: image.pixelWidth, height: image.pixelHeight, convertingToSRGB: false)
        let toConverted = try ImageComparison.meanAbsoluteDifference(image, converted)
        let toUnconverted = try ImageComparison.meanAbsoluteDifference(image, unconverted)
        #expect(toConverted < 1, "mean difference to icc_transform: \(toConverted)")
        #expect(toUnconverted > 3 * toConverted, "P3 taken as sRGB is as close: \(toUnconverted)")
    }

    @Test(
        "A Display P3 HEIC comes out upright in sRGB, as libvips' loader and icc_transform make it: from its embedded thumbnail and decoded whole",
        arguments: [
            // Landscape, and portrait by its irot (a 240x320 thumbnail).
            RenderFiles.heic, "exiv2/data/2021-02-13-1929.heic",
        ])
    func displayP3HEIC(file: String) throws {
        let path = try Corpus.path(file)
        let small = RenderOptions(width: 256, height: 256, quality: 100)
        let renders: [(name: String, image: EncodedImage, fromThumbnail: Bool)] = [
            ("256 px", try ImageFile.thumbnail(ofFileAt: path, options: small), true),
            ("the quick image", try #require(try ImageFile.embeddedThumbnail(ofFileAt: path, options: small)), true),
            (
                "1024 px",
                try ImageFile.thumbnail(
                    ofFileAt: path, options: RenderOptions(width: 1024, height: 1024, quality: 100)), false
            ),
        ]
        for render in renders {
            let (width, height) = (render.image.pixelWidth, render.image.pixelHeight)
            let converted = try reference(
                path, fromThumbnail: render.fromThumbnail, width: width, height: height, convertingToSRGB: true)
            let unconverted = try reference(
                path, fromThumbnail: render.fromThumbnail, width: width, height: height, convertingToSRGB: false)
            let toConverted = try ImageComparison.meanAbsoluteDifference(render.image, converted)
            let toUnconverted = try ImageComparison.meanAbsoluteDifference(render.image, unconverted)
            #expect(toConverted < 1, "\(render.name): mean difference to icc_transform: \(toConverted)")
            #expect(toUnconverted > 3 * toConverted, "\(render.name): P3 taken as sRGB is as close: \(toUnconverted)")
        }
    }

    @Test(
        "Every HEIF and AVIF of the corpus renders as libvips renders it: the same size, turned the same way, the same pixels"
    )
    func everyHEIF() throws {
        let files = try Corpus.files(extensions: ["heic", "heif", "avif"])
        #expect(files.count >= 20)
        var rendered = 0
        for path in files {
            let ours: EncodedImage
            do {
                ours = try ImageFile.thumbnail(
                    ofFileAt: path, options: RenderOptions(width: 512, height: 512, quality: 100))
            } catch {
                #expect(ImageComparison.libvipsThumbnailError(ofFileAt: path, size: 512) != nil, "\(path): \(error)")
                continue
            }
            rendered += 1
            let hasProfile = try Vips.open(path, failOnTruncation: false).iccProfile != nil
            let reference = try ImageComparison.referenceCrop(
                ofFileAt: path, rect: .full, width: ours.pixelWidth, height: ours.pixelHeight,
                convertingToSRGB: hasProfile)
            let difference = try ImageComparison.meanAbsoluteDifference(ours, reference)
            #expect(difference < 2, "\(path): mean difference \(difference)")
            let (width, height) = try ImageComparison.autorotatedSize(ofFileAt: path)
            #expect(
                (ours.pixelWidth >= ours.pixelHeight) == (width >= height), "\(path): turned otherwise than libvips")
        }
        #expect(rendered >= 20)
    }

    @Test(
        "A HEIF made RGB by CHEIF: libheif's own pixels whole, and each shrunk pixel the mean of its block within a level, bar clipped pixels",
        arguments: [
            // A Display P3 grid, one turned portrait by its irot, and an AVIF turned and mirrored
            // whose 427 columns leave a part block at 1/2, 1/4 and 1/8.
            RenderFiles.heic, "exiv2/data/2021-02-13-1929.heic", "pillow/images/avif/rot1mir1.avif",
        ])
    func heifShrinksOnDecode(file: String) throws {
        let path = try Corpus.path(file)
        let bytes = [UInt8](try #require(FileManager.default.contents(atPath: path)))
        // libvips' loader: libheif's interleaved RGB, as it gives it to every other caller.
        let reference = try ImageComparison.pixels(ofFileAt: path)
        #expect(reference.bands == 3)
        for shrink in [1, 2, 4, 8] {
            let decoded = try #require(
                try HEIFDecoder.decode(bytes, path: path, orientation: nil, monitor: nil) { _, _, _ in
                    .primary(shrink: shrink)
                })
            let image = decoded.image
            #expect(image.isPlain, "libvips holds no HEIF pixels")
            let (width, height) = ((reference.width + shrink - 1) / shrink, (reference.height + shrink - 1) / shrink)
            #expect((image.width, image.height, image.bands) == (width, height, 3), "1/\(shrink)")
            var stride = 0
            let pixels = try #require(image.memoryPixels(&stride))
            // Whole, a value is libheif's exactly. Shrunk, the tile-by-tile decode averages Y, Cb
            // and Cr and converts the means, where the reference converts and then averages:
            // one level apart at most unless the conversion clipped a pixel of the block.
            var mismatches = 0
            var largest = 0
            var total = 0
            var beyondOne = 0
            for y in 0..<height {
                for x in 0..<width {
                    let (x0, y0) = (x * shrink, y * shrink)
                    let (x1, y1) = (min(x0 + shrink, reference.width), min(y0 + shrink, reference.height))
                    let count = (x1 - x0) * (y1 - y0)
                    for band in 0..<3 {
                        var sum = 0
                        for row in y0..<y1 {
                            for column in x0..<x1 {
                                sum += Int(reference.pixels[(row * reference.width + column) * 3 + band])
                            }
                        }
                        let difference = abs(Int(pixels[y * stride + x * 3 + band]) - (sum + count / 2) / count)
                        if difference > 0 { mismatches += 1 }
                        if difference > 1 { beyondOne += 1 }
                        largest = max(largest, difference)
                        total += difference
                    }
                }
            }
            let values = width * height * 3
            let summary =
                "1/\(shrink): \(mismatches) of \(values) values differ, \(beyondOne) by more than 1 (up to \(largest))"
            if shrink == 1 {
                #expect(mismatches == 0, "\(summary)")
            } else {
                // Measured on the iPhone HEICs: a mean of 0.14 to 0.24 levels, and 0.09 to 0.16%
                // of the values more than one level apart.
                #expect(Double(total) / Double(values) < 0.3, "\(summary)")
                #expect(beyondOne * 400 < values, "\(summary)")
            }
        }
    }

    /// Every HEIF of the corpus, and which of them are HEVC in a form the tile-by-tile decode
    /// takes (one picture or a grid, turned at most); the others go to libheif: `outdoor.heic`
    /// has a crop (`clap`), the Canon's and the Sony's are 10-bit.
    static let heifs = [
        "exiv2/data/IMG_3578.heic", "exiv2/data/2021-02-13-1929.heic", "exiv2/data/Stonehenge.heic",
        "exiv2/data/heic.heic", "exiv2/data/Sony.HIF", "exiv2/data/Canon.HIF",
        "pillow/images/avif/hopper.heif", "sigal/pictures/dir1/test1/outdoor.heic", "pillow/images/avif/rot1mir1.avif",
    ]
    static let tiledHEIFs: Set<String> = [
        "exiv2/data/IMG_3578.heic", "exiv2/data/2021-02-13-1929.heic", "exiv2/data/Stonehenge.heic",
        "exiv2/data/heic.heic", "pillow/images/avif/hopper.heif",
    ]

    /// Whether `CHEIF` decodes the primary image (or the thumbnail) of `bytes` tile by tile; nil
    /// when libheif does not open it.
    private func isTiled(_ bytes: [UInt8], thumbnail: Bool = false) -> Bool? {
        bytes.withUnsafeBytes { raw in
            var failure = CHEIF_UNSUPPORTED
            var message = [CChar](repeating: 0, count: 256)
            guard let file = cheif_open(raw.baseAddress, raw.count, &failure, &message, message.count) else {
                return nil
            }
            defer { cheif_close(file) }
            return HEIFCodedImage.read(bytes, image: thumbnail ? .thumbnail : .primary).map {
                HEIFDecoder.offer($0, thumbnail: thumbnail, to: file)
            } == true
        }
    }

    /// Lightbox's whole decode of a HEIF's primary image (or its thumbnail) against libvips'
    /// loader (libheif's decode, turned as the file says): the same size, how many values
    /// differ and by how much at most.
    private func compareWithLibheif(_ bytes: [UInt8], path: String, thumbnail: Bool = false, label: String) throws
        -> (mismatches: Int, largest: Int)
    {
        let decoded = try #require(
            try HEIFDecoder.decode(bytes, path: path, orientation: nil, monitor: nil) { _, _, _ in
                thumbnail ? .thumbnail : .primary(shrink: 1)
            })
        let reference: (pixels: [UInt8], width: Int, height: Int)
        if thumbnail {
            try Vips.ensureStarted()
            let image = VipsImageRef(try #require(cvips_heif_thumbnail(path)))
            reference = (try Vips.pixels(image), image.width, image.height)
        } else {
            let whole = try ImageComparison.pixels(ofFileAt: path)
            reference = (whole.pixels, whole.width, whole.height)
        }
        let image = decoded.image
        try #require((image.width, image.height, image.bands) == (reference.width, reference.height, 3), "\(label)")
        var stride = 0
        let pixels = try #require(image.memoryPixels(&stride))
        var mismatches = 0
        var largest = 0
        for y in 0..<image.height {
            for x in 0..<image.width * 3 {
                let difference = abs(Int(pixels[y * stride + x]) - Int(reference.pixels[y * image.width * 3 + x]))
                if difference > 0 { mismatches += 1 }
                largest = max(largest, difference)
            }
        }
        return (mismatches, largest)
    }

    @Test(
        "HEVC HEIFs and their thumbnails decoded tile by tile by FFmpeg give libheif's pixels; the others go to libheif"
    )
    func tiledHEIFsGiveLibheifPixels() throws {
        var tiled: Set<String> = []
        var thumbnails = 0
        for file in Self.heifs {
            let path = try Corpus.path(file)
            let bytes = [UInt8](try #require(FileManager.default.contents(atPath: path)))
            if isTiled(bytes, thumbnail: true) == true {
                // An iPhone's 320x240 thumbnail is one picture: within a level, as below.
                let (mismatches, largest) = try compareWithLibheif(bytes, path: path, thumbnail: true, label: file)
                #expect(
                    largest <= 1, "\(file)'s thumbnail: \(mismatches) values differ from libheif's, by up to \(largest)"
                )
                thumbnails += 1
            }
            guard isTiled(bytes) == true else { continue }
            tiled.insert(file)
            let (mismatches, largest) = try compareWithLibheif(bytes, path: path, label: file)
            // FFmpeg's and libde265's pictures are the same (HEVC decoding is exact). libheif
            // converts a grid's tiles with the arithmetic Lightbox uses; a single picture goes
            // through another routine of its own that rounds some values the other way.
            if file.hasSuffix("IMG_3578.heic") || file.hasSuffix("2021-02-13-1929.heic") {
                #expect(mismatches == 0, "\(file): \(mismatches) values differ from libheif's")
            }
            #expect(largest <= 1, "\(file): \(mismatches) values differ from libheif's, by up to \(largest)")
        }
        #expect(tiled == Self.tiledHEIFs)
        #expect(thumbnails >= 3, "the iPhones' and heic.heic's thumbnails")
    }

    /// The primary image or the thumbnail of `bytes` decoded tile by tile by `CHEIF`, from a
    /// file libheif opened or one opened without it: its pixels, size and ICC profile (libheif's,
    /// or the layout's reading without it). Nil when the layout is not taken.
    private func decodeTiles(_ bytes: [UInt8], thumbnail: Bool, withLibheif: Bool) throws
        -> (pixels: [UInt8], width: Int32, height: Int32, profile: [UInt8]?)?
    {
        let layout = try #require(HEIFCodedImage.read(bytes, image: thumbnail ? .thumbnail : .primary))
        return try bytes.withUnsafeBytes { raw in
            var failure = CHEIF_UNSUPPORTED
            var message = [CChar](repeating: 0, count: 256)
            let file = try #require(
                withLibheif
                    ? cheif_open(raw.baseAddress, raw.count, &failure, &message, message.count)
                    : cheif_open_layouts(raw.baseAddress, raw.count))
            defer { cheif_close(file) }
            guard HEIFDecoder.offer(layout, thumbnail: thumbnail, to: file) else { return nil }
            var decoded = cheif_decoded()
            let status = cheif_decode(
                file, thumbnail ? 1 : 0, 1, PixelBuffers.allocateForC, nil, nil, nil, &decoded, &failure, &message,
                message.count)
            defer {
                free(decoded.pixels)
                free(decoded.icc)
            }
            try #require(status == 1 && decoded.tiled == 1, "\(JPEGDecoder.text(message))")
            let pixels = [UInt8](
                UnsafeBufferPointer(start: decoded.pixels, count: decoded.stride * Int(decoded.height)))
            let profile =
                withLibheif
                ? decoded.icc.map { [UInt8](UnsafeBufferPointer(start: $0, count: decoded.icc_length)) }
                : layout.profile.map { Array(bytes[$0]) }
            return (pixels, decoded.width, decoded.height, profile)
        }
    }

    @Test(
        "A phone's HEIC decodes tile by tile without libheif: both images read in Swift, libheif's pixels, size and ICC profile; the others need libheif"
    )
    func tiledHEIFsWithoutLibheif() throws {
        var alone: Set<String> = []
        for file in Self.heifs {
            let bytes = [UInt8](try #require(FileManager.default.contents(atPath: try Corpus.path(file))))
            guard let layouts = HEIFCodedImage.readPrimaryAndThumbnail(bytes) else { continue }
            for thumbnail in layouts.thumbnail == nil ? [false] : [false, true] {
                let label = "\(file)\(thumbnail ? "'s thumbnail" : "")"
                // A 10-bit image (the Sony's) is refused either way: the render then opens libheif.
                let withLibheif = try decodeTiles(bytes, thumbnail: thumbnail, withLibheif: true)
                let without = try decodeTiles(bytes, thumbnail: thumbnail, withLibheif: false)
                #expect((withLibheif == nil) == (without == nil), "\(label)")
                guard let withLibheif, let without else { continue }
                if !thumbnail { alone.insert(file) }
                #expect((without.width, without.height) == (withLibheif.width, withLibheif.height), "\(label)")
                let same = without.pixels == withLibheif.pixels
                #expect(same, "\(label): other pixels without libheif")
                #expect(without.profile == withLibheif.profile, "\(label): the ICC profile")
                // libheif's size as displayed, which the render's geometry takes.
                let displayed = try #require((thumbnail ? layouts.thumbnail : layouts.primary)?.displayedSize)
                #expect(
                    (displayed.width, displayed.height) == (Int(withLibheif.width), Int(withLibheif.height)), "\(label)"
                )
            }
        }
        // Stonehenge.heic has no thumbnail; every iPhone photo carries Display P3.
        #expect(alone == Self.tiledHEIFs)
    }

    @Test(
        "A HEIC's thumbnail rendered from the file (its boxes and the thumbnail's bytes alone) is the one rendered from the whole file in memory"
    )
    func heicThumbnailFromFewBytes() throws {
        for file in ["exiv2/data/IMG_3578.heic", "exiv2/data/2021-02-13-1929.heic"] {
            let path = try Corpus.path(file)
            let bytes = [UInt8](try #require(FileManager.default.contents(atPath: path)))
            // 256 px: the 320x240 thumbnail; fill, and turned by an orientation asked for.
            for options in [
                RenderOptions(width: 256, height: 256),
                RenderOptions(width: 200, height: 200, contentMode: .aspectFill),
                RenderOptions(width: 256, height: 256, orientation: 6),
            ] {
                let fromFile = try Renderer.render(path: path, options: [options], monitor: nil)
                let fromMemory = try Renderer.render(path: path, contents: bytes, options: [options], monitor: nil)
                // Compared to a Bool first: a failed comparison would print the JPEGs' bytes.
                let same = fromFile.images.map(\.bytes) == fromMemory.images.map(\.bytes)
                #expect(same, "\(file) \(options)")
                #expect(fromFile.properties == fromMemory.properties, "\(file)")
            }
        }
        // The same photo with 80 MB of `free` box after it (a sparse file), past the 64 MB
        // Lightbox reads whole: its thumbnail still comes from its few bytes, the same JPEG,
        // where a read of the whole file would have left it to libvips.
        let path = try Corpus.path("exiv2/data/IMG_3578.heic")
        let bytes = [UInt8](try #require(FileManager.default.contents(atPath: path)))
        let directory = try TemporaryDirectory()
        let large = directory.url.appendingPathComponent("large.heic")
        let padding = 80 << 20
        let header: [UInt8] = [
            UInt8(padding >> 24), UInt8((padding >> 16) & 0xFF), UInt8((padding >> 8) & 0xFF), UInt8(padding & 0xFF),
        ]
        try Data(bytes + header + Array("free".utf8)).write(to: large)
        let handle = try FileHandle(forWritingTo: large)
        try handle.truncate(atOffset: UInt64(bytes.count + padding))
        try handle.close()
        let options = RenderOptions(width: 256, height: 256)
        let fromLarge = try Renderer.render(path: large.path, options: [options], monitor: nil)
        let fromMemory = try Renderer.render(path: path, contents: bytes, options: [options], monitor: nil)
        let same = fromLarge.images.map(\.bytes) == fromMemory.images.map(\.bytes)
        #expect(same, "the large file's thumbnail is not the photo's")
        #expect(fromLarge.properties.loader == "heifload")
    }

    @Test("A HEIF's irot turns the tile-by-tile decode as libheif turns it, at each quarter turn", arguments: 0..<4)
    func tiledHEIFTurns(quarterTurns: Int) throws {
        // Stonehenge.heic is one HEVC picture with an irot; the angle is the byte after "irot".
        var bytes = [UInt8](
            try #require(FileManager.default.contents(atPath: try Corpus.path("exiv2/data/Stonehenge.heic"))))
        let irot = Array("irot".utf8)
        let at = try #require((0..<(bytes.count - 4)).first { Array(bytes[$0..<($0 + 4)]) == irot })
        bytes[at + 4] = UInt8(quarterTurns)
        let directory = try TemporaryDirectory()
        let path = directory.url.appendingPathComponent("turned-\(quarterTurns).heic").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(isTiled(bytes) == true)
        let (mismatches, largest) = try compareWithLibheif(bytes, path: path, label: "irot \(quarterTurns)")
        #expect(largest <= 1, "\(mismatches) values differ from libheif's, by up to \(largest)")
    }

    @Test(
        "Helper threads sharing a grid's tiles give the pixels of one thread, whole or shrunk, and give back every processor and byte they borrowed",
        arguments: [1, 2, 8])
    func tileHelpers(shrink: Int) throws {
        let path = try Corpus.path(RenderFiles.heic)
        let bytes = [UInt8](try #require(FileManager.default.contents(atPath: path)))
        // Processors and memory of the test's own: the process's are shared with other tests.
        let processors = Processors(limit: 4)
        let memory = DecodeMemory(limit: 100 << 20)

        /// The decode's status, whether it went tile by tile, its pixels, and how many threads
        /// reported progress.
        func decode(_ bytes: [UInt8], helped: Bool, lending processors: Processors = processors) throws
            -> (status: Int32, tiled: Bool, pixels: [UInt8], threads: Int)
        {
            try bytes.withUnsafeBytes { raw in
                var failure = CHEIF_UNSUPPORTED
                var message = [CChar](repeating: 0, count: 256)
                let file = try #require(cheif_open(raw.baseAddress, raw.count, &failure, &message, message.count))
                defer { cheif_close(file) }
                let layout = try #require(HEIFCodedImage.read(bytes, image: .primary))
                try #require(HEIFDecoder.offer(layout, thumbnail: false, to: file))
                let threads = Mutex<Set<UInt>>([])
                let box = RenderMonitorBox(
                    RenderMonitor(
                        isCancelled: { false },
                        progress: { _ in threads.withLock { _ = $0.insert(UInt(pthread_self())) } }))
                var decoded = cheif_decoded()
                let status = box.withContext { context in
                    func run(_ helpers: UnsafePointer<cheif_helpers>?) -> Int32 {
                        cheif_decode(
                            file, 0, Int32(shrink), PixelBuffers.allocateForC, RenderMonitor.callback, context, helpers,
                            &decoded, &failure, &message, message.count)
                    }
                    return helped
                        ? DecodeHelpers(memory: 2 << 20, processors: processors, decodeMemory: memory).withHelpers(run)
                        : run(nil)
                }
                defer {
                    free(decoded.pixels)
                    free(decoded.icc)
                }
                let pixels =
                    status == 1
                    ? [UInt8](UnsafeBufferPointer(start: decoded.pixels, count: decoded.stride * Int(decoded.height)))
                    : []
                return (status, decoded.tiled == 1, pixels, threads.withLock { $0.count })
            }
        }
        let alone = try decode(bytes, helped: false)
        let helped = try decode(bytes, helped: true)
        #expect(alone.status == 1 && helped.status == 1 && alone.tiled && helped.tiled)
        #expect(alone.threads == 1)
        #expect(helped.threads > 1, "helpers took some of the 48 tiles")
        // Compared first: `#expect` would diff two arrays of megabytes element by element.
        let same = helped.pixels == alone.pixels
        #expect(same)
        #expect(processors.spare == 4, "every processor given back")
        #expect(memory.state.reserved == 0, "every helper's memory given back")
        // Every processor held by a render (a batch with a file per processor): no helper.
        let busy = Processors(limit: 2)
        let crowded = try busy.holding { try busy.holding { try decode(bytes, helped: true, lending: busy) } }
        let sameCrowded = crowded.pixels == alone.pixels
        #expect(crowded.threads == 1 && sameCrowded, "one thread, the same pixels")

        // Tile 31 of 48 damaged: FFmpeg refuses it, whichever thread takes it, and the file goes
        // to libheif (whose concealment of the damage differs from run to run, like
        // vipsthumbnail's); nothing borrowed is kept.
        var damaged = bytes
        let tile = try #require(HEIFCodedImage.read(bytes, image: .primary)).pictures[30][0]
        for at in (tile.lowerBound + tile.count / 3)..<(tile.lowerBound + tile.count / 3 + 256) { damaged[at] = 0xFF }
        for helped in [false, true] {
            let result = try decode(damaged, helped: helped)
            #expect(result.status == 1 && !result.tiled, "helped: \(helped)")
        }
        #expect(processors.spare == 4 && memory.state.reserved == 0)
    }

    /// libvips' pixels of a HEIF: its embedded thumbnail (libheif's) or the whole image, through
    /// `vips_icc_transform` or as stored, resized to `width`x`height`.
    private func reference(_ path: String, fromThumbnail: Bool, width: Int, height: Int, convertingToSRGB: Bool) throws
        -> EncodedImage
    {
        guard fromThumbnail else {
            return try ImageComparison.referenceCrop(
                ofFileAt: path, rect: .full, width: width, height: height, convertingToSRGB: convertingToSRGB)
        }
        try Vips.ensureStarted()
        var image = VipsImageRef(try #require(cvips_heif_thumbnail(path)))
        if convertingToSRGB {
            var out: UnsafeMutablePointer<VipsImage>?
            #expect(cvips_icc_transform_embedded(image.pointer, &out) == 0)
            image = VipsImageRef(try #require(out))
        }
        image = try Vips.resizeWithLibvips(image, width: width, height: height)
        let bytes = try Vips.encode(image, as: .jpeg, quality: 100)
        return EncodedImage(bytes: bytes, format: .jpeg, pixelWidth: width, pixelHeight: height)
    }

    @Test(
        "The JPEG decoder gives libvips' pixels",
        arguments: [
            RenderFiles.phone, RenderFiles.displayP3, "exiv2/data/exiv2-canon-eos-300d.jpg",
        ])
    func decoderAgreesWithLibvips(file: String) throws {
        let path = try Corpus.path(file)
        let ours = try ImageFile.thumbnail(ofFileAt: path, options: lossless)
        let reference = try ImageComparison.referenceCrop(
            ofFileAt: path, rect: .full, width: ours.pixelWidth, height: ours.pixelHeight,
            convertingToSRGB: file == RenderFiles.displayP3)
        let difference = try ImageComparison.meanAbsoluteDifference(ours, reference)
        #expect(difference < 1, "mean difference \(difference)")
    }

    @Test(
        "Progress rises to 1, and a cancelled render stops and throws, on a JPEG and a HEIC",
        arguments: [RenderFiles.phone, RenderFiles.heic])
    func cancellation(file: String) throws {
        let path = try Corpus.path(file)
        let fractions = Mutex<[Double]>([])
        let monitor = RenderMonitor(
            isCancelled: { false }, progress: { fraction in fractions.withLock { $0.append(fraction) } })
        _ = try ImageFile.thumbnail(
            ofFileAt: path, options: RenderOptions(width: 2000, height: 2000), monitor: monitor)
        let seen = fractions.withLock { $0 }
        #expect(seen.count > 2)
        #expect(seen.last == 1)
        #expect(zip(seen, seen.dropFirst()).allSatisfy { $0 <= $1 })

        /// A render cancelled once `limit` reports have come: its error, and how many came.
        func render(cancelledAfter limit: Int) -> (error: ImagingError?, reports: Int) {
            let reports = Mutex(0)
            let cancelling = RenderMonitor(
                isCancelled: { reports.withLock { $0 } >= limit }, progress: { _ in reports.withLock { $0 += 1 } })
            let error = #expect(throws: ImagingError.self) {
                try ImageFile.thumbnail(
                    ofFileAt: path, options: RenderOptions(width: 2000, height: 2000), monitor: cancelling)
            }
            return (error, reports.withLock { $0 })
        }
        // Cancelled after the first report: no image, and the decode stops early.
        let early = render(cancelledAfter: 1)
        #expect(early.error?.code == .cancelled)
        #expect(early.reports < seen.count)
        // Cancelled halfway through the decode (the HEIC's 48 tiles, the JPEG's rows of blocks):
        // it stops at the next report.
        #expect(seen.count > 40, "one report a tile or a row of blocks")
        let halfway = render(cancelledAfter: 20)
        #expect(halfway.error?.code == .cancelled)
        #expect(halfway.reports == 20, "no report after the one that cancelled")
    }

    @Test("Every JPEG of the corpus, whole or cut short, renders exactly when libvips alone renders it")
    func everyJPEG() throws {
        let files = try Corpus.files(extensions: nil).filter { path in
            guard let handle = FileHandle(forReadingAtPath: path) else { return false }
            defer { try? handle.close() }
            return (try? handle.read(upToCount: 3)) == Data([0xFF, 0xD8, 0xFF])
        }
        #expect(files.count > 300)
        let folder = try TemporaryDirectory()
        var cases = files
        // Cut short: the first 40 files at two lengths each, cut inside the image data.
        for (index, path) in files.prefix(40).enumerated() {
            for fraction in [0.3, 0.9] {
                cases.append(try folder.truncatedCopy(of: path, fraction: fraction, as: "cut-\(index)-\(fraction).jpg"))
            }
        }
        // Where Lightbox is right and libvips is not, with the reason.
        let explained = [
            "pillow/images/icc-after-SOF.jpg":
                "its ICC profile is 7 bytes, not a profile: libjpeg-turbo's reader rejects it and Lightbox shows the "
                + "pixels as sRGB, where libvips fails the whole image on the profile"
        ]
        var disagreements: [String] = []
        for path in cases where !explained.keys.contains(where: { path.hasSuffix("/" + $0) }) {
            let theirs = ImageComparison.libvipsThumbnailError(ofFileAt: path, size: 256)
            var ours: ImagingError?
            do {
                let image = try ImageFile.thumbnail(ofFileAt: path, options: RenderOptions(width: 256, height: 256))
                #expect(image.pixelWidth <= 256 && image.pixelHeight <= 256)
            } catch {
                ours = error
                #expect(error.path == path, "an error names its file")
            }
            if (ours == nil) != (theirs == nil) {
                disagreements.append("\(path): Lightbox \(ours?.message ?? "renders"); libvips \(theirs ?? "renders")")
            }
        }
        for name in explained.keys {
            #expect(throws: Never.self) {
                try ImageFile.thumbnail(
                    ofFileAt: try Corpus.path(name), options: RenderOptions(width: 256, height: 256))
            }
        }
        #expect(
            disagreements.isEmpty, "\(disagreements.count) of \(cases.count):\n\(disagreements.joined(separator: "\n"))"
        )
    }

    @Test(
        "A movie's poster frame is its first frame as ffmpeg shows it, turned as its track says",
        arguments: [
            ("forensics/original-files/movie1/VID_20191220_170832.mp4", 0),
            ("forensics/original-files/movie2/movie-hello.mp4", 90),
            ("forensics/original-files/movie2/movie-hello.mp4", 270),
        ])
    func posterFrame(file: String, rotation: Int) throws {
        let folder = try TemporaryDirectory()
        var movie = try Corpus.path(file)
        if rotation != 0 {
            // The same frames, with a track that says to turn them.
            let rotated = folder.path("rotated-\(rotation).mp4")
            try FFmpeg.run(["-i", movie, "-c", "copy", "-metadata:s:v:0", "rotate=\(rotation)", rotated])
            movie = rotated
        }
        let oracle = folder.path("frame.png")
        try FFmpeg.firstFrame(of: movie, to: oracle)
        let ours = try ImageFile.thumbnail(ofFileAt: movie, options: lossless)
        let reference = try ImageComparison.referenceThumbnail(
            ofFileAt: oracle, width: ours.pixelWidth, height: ours.pixelHeight)
        let upsideDown = try ImageComparison.referenceThumbnail(
            ofFileAt: oracle, width: ours.pixelWidth, height: ours.pixelHeight, rotatedHalfTurn: true)
        let near = try ImageComparison.meanAbsoluteDifference(ours, reference)
        let far = try ImageComparison.meanAbsoluteDifference(ours, upsideDown)
        #expect(near < 3, "mean difference \(near) to ffmpeg's frame")
        #expect(far > near * 3, "upside down \(far), ffmpeg's \(near)")
        let properties = try ImageFile.thumbnails(ofFileAt: movie, options: [lossless]).properties
        #expect((properties.pixelWidth, properties.pixelHeight) == (ours.pixelWidth, ours.pixelHeight))
        // A file that is not a movie's whole: a clean error naming it.
        let cut = try folder.truncatedCopy(of: movie, fraction: 0.02, as: "cut.mp4")
        let error = #expect(throws: ImagingError.self) { try ImageFile.thumbnail(ofFileAt: cut, options: lossless) }
        #expect(error?.path == cut)
    }

    @Test("A movie without a frame to decode fails with its path, as the ffmpeg command does")
    func frameless() throws {
        // exiftool's sample keeps the headers of a QuickTime movie and none of its frames.
        let movie = try Corpus.path("exiftool/images/QuickTime.mov")
        let folder = try TemporaryDirectory()
        #expect(throws: (any Error).self) { try FFmpeg.firstFrame(of: movie, to: folder.path("frame.png")) }
        let error = #expect(throws: ImagingError.self) { try ImageFile.thumbnail(ofFileAt: movie, options: lossless) }
        #expect(error?.path == movie && error?.code == .corrupt)
    }
}
