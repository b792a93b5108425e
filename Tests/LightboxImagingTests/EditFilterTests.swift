import Foundation
import LightboxMetadata
import LightboxTestSupport
import Testing

@testable import LightboxImaging

/// Each filter of Lightbox's recipe against libvips doing the same operation, called from
/// outside through the `vips` command, or against a brute-force computation over the pixels
/// where libvips has no such operation. The photo is a 12 MP phone JPEG, decoded at 600 px.
@Suite("Edit filters against libvips")
struct EditFilterTests {
    let folder: TemporaryDirectory
    let editable: EditableImage
    /// The decoded photo, as libvips' lossless file.
    let source: String

    init() throws {
        folder = try TemporaryDirectory("edit-filters")
        editable = try EditableImage(fileAt: try Corpus.path(RenderFiles.phone), maximumSide: 600)
        source = folder.path("source.v")
        try Vips.writeLossless(editable.image, to: source)
    }

    /// Lightbox's render of one recipe, as a lossless file.
    func lightbox(_ filters: [EditFilter], _ name: String) throws -> String {
        let path = folder.path("lightbox-\(name).v")
        try Vips.writeLossless(try editable.renderedImage(EditRecipe(filters: filters)), to: path)
        return path
    }

    /// Checks Lightbox against the oracle, and that the filter did change the photo (by more
    /// than three times the tolerance), so that a filter doing nothing fails.
    func expectMatches(
        _ filter: EditFilter, oracle: String, tolerance: Double, sourceLocation: SourceLocation = #_sourceLocation
    )
        throws
    {
        let ours = try lightbox([filter], filter.name)
        let difference = try ImageComparison.meanAbsoluteDifference(ofFileAt: ours, oracle)
        #expect(
            difference < tolerance, "\(filter.argument): \(difference) from libvips", sourceLocation: sourceLocation)
        // A filter that changes the size has visibly done something.
        guard !filter.isGeometric || filter.name == "flip" else { return }
        let change = try ImageComparison.meanAbsoluteDifference(ofFileAt: source, oracle)
        #expect(
            change > 3 * tolerance, "\(filter.argument) changes the photo by only \(change)",
            sourceLocation: sourceLocation)
    }

    func path(_ name: String) -> String { folder.path(name) }

    /// libvips' rotation of `input` by `degrees` about its centre, the centred `box` of it kept:
    /// `vips affine` with the input's centre moved to the origin and the origin to the box's
    /// centre (libvips puts pixel centres at whole coordinates).
    func straightenOracle(
        _ input: String, _ output: String, degrees: Double, box: (width: Int, height: Int), interpolate: String
    ) throws {
        let image = try ImageComparison.pixels(ofFileAt: input)
        let (c, s) = (cos(degrees * .pi / 180), sin(degrees * .pi / 180))
        try VipsTool.run(
            "affine", "--interpolate", interpolate, "--idx", "\(-Double(image.width - 1) / 2)",
            "--idy", "\(-Double(image.height - 1) / 2)", "--odx", "\(Double(box.width - 1) / 2)",
            "--ody", "\(Double(box.height - 1) / 2)", "--oarea", "0 0 \(box.width) \(box.height)", "--",
            input, output, "\(c) \(-s) \(s) \(c)")
    }

    // MARK: - Per-channel tones: libvips in linear light (scRGB) or on encoded values

    @Test("Exposure: linear light times 2^EV, as vips colourspace scrgb, linear, colourspace srgb")
    func exposure() throws {
        try VipsTool.run("colourspace", source, path("lin.v"), "scrgb")
        try VipsTool.run("linear", path("lin.v"), path("gain.v"), "\(pow(2, 0.7))", "0")
        try VipsTool.run("colourspace", path("gain.v"), path("exposure.v"), "srgb")
        try expectMatches(.exposure(0.7), oracle: path("exposure.v"), tolerance: 0.6)
    }

    @Test("Brightness and contrast: vips linear on encoded values")
    func brightnessAndContrast() throws {
        try VipsTool.run("linear", source, path("brightness.v"), "1", "\(0.15 * 255)", "--uchar")
        try expectMatches(.brightness(0.15), oracle: path("brightness.v"), tolerance: 0.6)
        try VipsTool.run("linear", "--uchar", "--", source, path("contrast.v"), "1.4", "\(-0.4 * 127.5)")
        try expectMatches(.contrast(0.4), oracle: path("contrast.v"), tolerance: 0.6)
    }

    @Test("Temperature and tint: per-channel gains in linear light")
    func temperatureAndTint() throws {
        try VipsTool.run("colourspace", source, path("lin.v"), "scrgb")
        for (filter, gains) in [
            (EditFilter.temperature(0.6), RecipePipeline.whiteBalanceGains(temperature: 0.6, tint: 0)),
            (.tint(-0.7), RecipePipeline.whiteBalanceGains(temperature: 0, tint: -0.7)),
        ] {
            try VipsTool.run([
                "linear", path("lin.v"), path("gains.v"), gains.map { "\($0)" }.joined(separator: " "), "0 0 0",
            ])
            try VipsTool.run("colourspace", path("gains.v"), path("\(filter.name).v"), "srgb")
            try expectMatches(filter, oracle: path("\(filter.name).v"), tolerance: 0.6)
        }
        let warm = RecipePipeline.whiteBalanceGains(temperature: 1, tint: 0)
        #expect(warm[0] > 1 && warm[2] < 1, "warmer means more red, less blue: \(warm)")
        let magenta = RecipePipeline.whiteBalanceGains(temperature: 0, tint: 1)
        #expect(magenta[1] < magenta[0] && magenta[1] < magenta[2], "magenta means less green: \(magenta)")
    }

    // MARK: - Colour mixes

    @Test("Saturation: luma plus (1 + amount) times the difference, through vips recomb, subtract, linear, add")
    func saturation() throws {
        let luma = try VipsTool.matrix([RecipePipeline.luma], at: path("luma.mat"))
        try VipsTool.run("recomb", source, path("grey.v"), luma)
        try VipsTool.run("subtract", source, path("grey.v"), path("chroma.v"))
        try VipsTool.run("linear", path("chroma.v"), path("more.v"), "1.6", "0")
        try VipsTool.run("add", path("more.v"), path("grey.v"), path("sum.v"))
        try VipsTool.run("linear", path("sum.v"), path("saturation.v"), "1", "0", "--uchar")
        try expectMatches(.saturation(0.6), oracle: path("saturation.v"), tolerance: 0.6)
    }

    @Test("Mono and sepia: vips recomb with the luma rows and the sepia matrix")
    func monoAndSepia() throws {
        let luma = try VipsTool.matrix([RecipePipeline.luma], at: path("luma.mat"))
        try VipsTool.run("recomb", source, path("grey.v"), luma)
        try VipsTool.run("bandjoin", "\(path("grey.v")) \(path("grey.v")) \(path("grey.v"))", path("grey3.v"))
        try VipsTool.run("cast", path("grey3.v"), path("mono.v"), "uchar")
        try expectMatches(.mono(1), oracle: path("mono.v"), tolerance: 0.6)
        let sepia = try VipsTool.matrix(
            [[0.393, 0.769, 0.189], [0.349, 0.686, 0.168], [0.272, 0.534, 0.131]], at: path("sepia.mat"))
        try VipsTool.run("recomb", source, path("sepiaf.v"), sepia)
        try VipsTool.run("linear", path("sepiaf.v"), path("sepia.v"), "1", "0", "--uchar")
        try expectMatches(.sepia(1), oracle: path("sepia.v"), tolerance: 0.6)
    }

    // MARK: - Brute force where libvips has no such operation

    /// Lightbox's render and a brute-force one computed pixel by pixel from the source.
    func expectMatchesBruteForce(
        _ filter: EditFilter, tolerance: Double, sourceLocation: SourceLocation = #_sourceLocation,
        _ reference: (_ rgb: [Double], _ x: Int, _ y: Int, _ width: Int, _ height: Int) -> [Double]
    ) throws {
        let input = try ImageComparison.pixels(ofFileAt: source)
        let output = try ImageComparison.pixels(ofFileAt: try lightbox([filter], filter.name))
        #expect(output.width == input.width && output.height == input.height, sourceLocation: sourceLocation)
        var difference = 0.0
        var change = 0.0
        for y in 0..<input.height {
            for x in 0..<input.width {
                let offset = (y * input.width + x) * 3
                let rgb = (0..<3).map { Double(input.pixels[offset + $0]) }
                let expected = reference(rgb, x, y, input.width, input.height).map { min(255, max(0, $0)) }
                for c in 0..<3 {
                    difference += abs(Double(output.pixels[offset + c]) - expected[c].rounded())
                    change += abs(expected[c] - rgb[c])
                }
            }
        }
        let count = Double(input.width * input.height * 3)
        #expect(
            difference / count < tolerance, "\(filter.argument): \(difference / count) from the brute force",
            sourceLocation: sourceLocation)
        #expect(
            change / count > 3 * tolerance, "\(filter.argument) changes the photo by only \(change / count)",
            sourceLocation: sourceLocation)
    }

    static func luma(_ rgb: [Double]) -> Double {
        zip(rgb, RecipePipeline.luma).map(*).reduce(0, +)
    }

    @Test("Vibrance: muted pixels gain the most saturation")
    func vibrance() throws {
        try expectMatchesBruteForce(.vibrance(0.8), tolerance: 0.6) { rgb, _, _, _, _ in
            let luma = Self.luma(rgb)
            let factor = 1 + 0.8 * (1 - (rgb.max()! - rgb.min()!) / 255)
            return rgb.map { luma + factor * ($0 - luma) }
        }
    }

    @Test("Highlights and shadows: a curve on luma, colours kept in proportion")
    func highlightsAndShadows() throws {
        for filter in [EditFilter.highlights(-0.9), .shadows(0.9)] {
            try expectMatchesBruteForce(filter, tolerance: 0.8) { rgb, _, _, _, _ in
                let luma = (Self.luma(rgb).rounded() / 255)
                let curved =
                    filter.name == "highlights"
                    ? RecipePipeline.highlightsCurve(luma, -0.9) : RecipePipeline.shadowsCurve(luma, 0.9)
                let gain = luma > 0 ? curved / luma : 1
                return rgb.map { $0 * gain }
            }
        }
        // The curves never reverse tones, at any amount.
        for amount in stride(from: -1.0, through: 1.0, by: 0.25) {
            for step in 0..<100 {
                let (a, b) = (Double(step) / 100, Double(step + 1) / 100)
                #expect(RecipePipeline.highlightsCurve(b, amount) >= RecipePipeline.highlightsCurve(a, amount))
                #expect(RecipePipeline.shadowsCurve(b, amount) >= RecipePipeline.shadowsCurve(a, amount))
            }
        }
    }

    @Test("Vignette: 1 - amount * r², r the distance from the centre over the half-diagonal")
    func vignette() throws {
        try expectMatchesBruteForce(.vignette(0.7), tolerance: 0.6) { rgb, x, y, width, height in
            let (cx, cy) = (Double(width) / 2, Double(height) / 2)
            let dx = Double(x) + 0.5 - cx
            let dy = Double(y) + 0.5 - cy
            let factor = 1 - 0.7 * (dx * dx + dy * dy) / (cx * cx + cy * cy)
            return rgb.map { $0 * factor }
        }
    }

    @Test("Noir: mono, then an S-curve")
    func noir() throws {
        try expectMatchesBruteForce(.noir(1), tolerance: 0.8) { rgb, _, _, _, _ in
            let v = min(255, max(0, Self.luma(rgb).rounded())) / 255
            return Array(repeating: (v * v * (3 - 2 * v)) * 255, count: 3)
        }
    }

    // MARK: - Neighbourhoods

    @Test("Blur and sharpen: vips gaussblur, and an unsharp mask built from it")
    func blurAndSharpen() throws {
        let scale = editable.scale
        try VipsTool.run("gaussblur", source, path("blur.v"), "\(12 * scale)")
        try expectMatches(.blur(12), oracle: path("blur.v"), tolerance: 0.6)
        try VipsTool.run("gaussblur", source, path("soft.v"), "1")
        try VipsTool.run("subtract", source, path("soft.v"), path("detail.v"))
        try VipsTool.run("linear", path("detail.v"), path("more.v"), "3", "0")
        try VipsTool.run("add", source, path("more.v"), path("sum.v"))
        try VipsTool.run("linear", path("sum.v"), path("sharpen.v"), "1", "0", "--uchar")
        try expectMatches(.sharpen(3), oracle: path("sharpen.v"), tolerance: 0.6)
    }

    @Test("Comic: each channel flattened to six levels, black outlines on the photo's edges")
    func comic() throws {
        let input = try ImageComparison.pixels(ofFileAt: source)
        let output = try ImageComparison.pixels(ofFileAt: try lightbox([.comic(1)], "comic"))
        var outlines = 0
        var mismatches = 0
        var gradientOnOutlines = 0.0
        var gradientElsewhere = 0.0
        func luma(_ x: Int, _ y: Int) -> Double {
            let o = (y * input.width + x) * 3
            return Self.luma((0..<3).map { Double(input.pixels[o + $0]) })
        }
        for y in 1..<(input.height - 1) {
            for x in 1..<(input.width - 1) {
                let offset = (y * input.width + x) * 3
                let flat = (0..<3).map { UInt8((Double(input.pixels[offset + $0]) / 51).rounded() * 51) }
                let pixel = Array(output.pixels[offset..<offset + 3])
                // Brute-force Sobel on the source's luma.
                let gx =
                    luma(x + 1, y - 1) + 2 * luma(x + 1, y) + luma(x + 1, y + 1)
                    - luma(x - 1, y - 1) - 2 * luma(x - 1, y) - luma(x - 1, y + 1)
                let gy =
                    luma(x - 1, y + 1) + 2 * luma(x, y + 1) + luma(x + 1, y + 1)
                    - luma(x - 1, y - 1) - 2 * luma(x, y - 1) - luma(x + 1, y - 1)
                if pixel == flat {
                    gradientElsewhere += abs(gx) + abs(gy)
                } else if pixel == [0, 0, 0] {
                    outlines += 1
                    gradientOnOutlines += abs(gx) + abs(gy)
                } else {
                    mismatches += 1
                }
            }
        }
        let total = (input.width - 2) * (input.height - 2)
        #expect(mismatches == 0, "\(mismatches) pixels are neither the flat colour nor an outline")
        #expect(outlines > total / 200 && outlines < total / 3, "\(outlines) of \(total) pixels are outlines")
        let meanOn = gradientOnOutlines / Double(max(1, outlines))
        let meanOff = gradientElsewhere / Double(total - outlines)
        #expect(meanOn > 3 * meanOff, "outlines follow edges: gradient \(meanOn) on them, \(meanOff) elsewhere")
    }

    // MARK: - Geometry

    @Test("Crop, rotate, flip: vips extract_area, rot, flip")
    func cropRotateFlip() throws {
        let rect = NormalizedRect(x: 0.1, y: 0.2, width: 0.5, height: 0.6)
        let region = RecipePipeline.cropRegion(rect, width: editable.pixelWidth, height: editable.pixelHeight)
        #expect(
            region.left == Int(0.1 * Double(editable.pixelWidth))
                && region.width == Int((0.5 * Double(editable.pixelWidth)).rounded()))
        try VipsTool.run(
            "extract_area", source, path("crop.v"), "\(region.left)", "\(region.top)", "\(region.width)",
            "\(region.height)")
        #expect(
            try ImageComparison.meanAbsoluteDifference(ofFileAt: try lightbox([.crop(rect)], "crop"), path("crop.v"))
                == 0)
        try VipsTool.run("rot", source, path("rot.v"), "d90")
        #expect(
            try ImageComparison.meanAbsoluteDifference(
                ofFileAt: try lightbox([.rotate(quarterTurns: 1)], "rot"), path("rot.v")) == 0)
        try VipsTool.run("rot", source, path("rot270.v"), "d270")
        let minus90 = try EditFilter(parsing: "rotate=-90")
        #expect(
            try ImageComparison.meanAbsoluteDifference(ofFileAt: try lightbox([minus90], "rot270"), path("rot270.v"))
                == 0)
        try VipsTool.run("flip", source, path("flip.v"), "horizontal")
        try expectMatches(.flip(vertical: false), oracle: path("flip.v"), tolerance: 0.01)
        try VipsTool.run("flip", source, path("flipv.v"), "vertical")
        try expectMatches(.flip(vertical: true), oracle: path("flipv.v"), tolerance: 0.01)
    }

    @Test(
        "Straighten: vips affine (bicubic) about the centre, cut to the largest rectangle of the same shape, no empty corners"
    )
    func straighten() throws {
        for degrees in [3.0, -7.5] {
            let box = RecipePipeline.straightenCrop(
                width: editable.pixelWidth, height: editable.pixelHeight, degrees: degrees)
            try straightenOracle(source, path("straight.v"), degrees: degrees, box: box, interpolate: "bicubic")
            try expectMatches(.straighten(degrees), oracle: path("straight.v"), tolerance: 0.3)
            // Same proportions, and every corner is photo, not the black outside.
            let aspect = Double(editable.pixelWidth) / Double(editable.pixelHeight)
            #expect(abs(Double(box.width) / Double(box.height) - aspect) < 0.01)
            let out = try ImageComparison.pixels(ofFileAt: try lightbox([.straighten(degrees)], "corners"))
            for (x, y) in [(0, 0), (out.width - 1, 0), (0, out.height - 1), (out.width - 1, out.height - 1)] {
                let o = (y * out.width + x) * 3
                #expect(
                    out.pixels[o..<o + 3].reduce(0) { $0 + Int($1) } > 30, "corner \(x),\(y) is empty at \(degrees)°")
            }
            // A bigger crop would take some of the outside in: the box is the largest.
            let angle = abs(degrees) * .pi / 180
            let w = Double(box.width + 8)
            let h = Double(box.height + 8)
            #expect(
                w * cos(angle) + h * sin(angle) > Double(editable.pixelWidth)
                    || w * sin(angle) + h * cos(angle) > Double(editable.pixelHeight))
        }
    }

    @Test("Straighten in a preview: Lightbox's bilinear rotation against vips affine (bilinear), the same rectangle")
    func draftStraighten() throws {
        for degrees in [3.0, -7.5, 44.0] {
            let box = RecipePipeline.straightenCrop(
                width: editable.pixelWidth, height: editable.pixelHeight, degrees: degrees)
            try straightenOracle(source, path("draft.v"), degrees: degrees, box: box, interpolate: "bilinear")
            let ours = path("lightbox-draft.v")
            try Vips.writeLossless(
                try editable.renderedImage(EditRecipe(filters: [.straighten(degrees)]), draft: true), to: ours)
            let difference = try ImageComparison.meanAbsoluteDifference(ofFileAt: ours, path("draft.v"))
            #expect(difference < 0.1, "straighten=\(degrees) in a preview: \(difference) from libvips")
            // Turned the other way, or about a point half a pixel off, it would be far off.
            try straightenOracle(source, path("wrong.v"), degrees: -degrees, box: box, interpolate: "bilinear")
            #expect(try ImageComparison.meanAbsoluteDifference(ofFileAt: ours, path("wrong.v")) > 3)
            // The preview and the full-size render show the same picture: bilinear and bicubic
            // differ by 1.2 or so on this photo, half a pixel's shift by 3 to 7.
            let final = path("lightbox-final.v")
            try Vips.writeLossless(try editable.renderedImage(EditRecipe(filters: [.straighten(degrees)])), to: final)
            let apart = try ImageComparison.meanAbsoluteDifference(ofFileAt: ours, final)
            #expect(apart < 2, "straighten=\(degrees): the preview is \(apart) from the render")
        }
    }

    // MARK: - Recipes

    @Test("Six filters in one recipe equal the six libvips operations in a row")
    func sixFilterRecipe() throws {
        let recipe = try EditRecipe(parsing: [
            "exposure=0.4", "saturation=0.3", "contrast=0.2", "vignette=0.5", "straighten=3", "crop=0.1,0.1,0.8,0.8",
        ])
        let ours = folder.path("recipe.v")
        try Vips.writeLossless(try editable.renderedImage(recipe), to: ours)
        // The same chain, one libvips call at a time, each stage rounded to 8 bits.
        try VipsTool.run("colourspace", source, path("r-lin.v"), "scrgb")
        try VipsTool.run("linear", path("r-lin.v"), path("r-gain.v"), "\(pow(2, 0.4))", "0")
        try VipsTool.run("colourspace", path("r-gain.v"), path("r1.v"), "srgb")
        let luma = try VipsTool.matrix([RecipePipeline.luma], at: path("luma.mat"))
        try VipsTool.run("recomb", path("r1.v"), path("r-grey.v"), luma)
        try VipsTool.run("subtract", path("r1.v"), path("r-grey.v"), path("r-chroma.v"))
        try VipsTool.run("linear", path("r-chroma.v"), path("r-more.v"), "1.3", "0")
        try VipsTool.run("add", path("r-more.v"), path("r-grey.v"), path("r-sum.v"))
        try VipsTool.run("linear", path("r-sum.v"), path("r2.v"), "1", "0", "--uchar")
        try VipsTool.run("linear", "--uchar", "--", path("r2.v"), path("r3.v"), "1.2", "\(-0.2 * 127.5)")
        let r3 = try ImageComparison.pixels(ofFileAt: path("r3.v"))
        var vignetted = r3.pixels
        let (cx, cy) = (Double(r3.width) / 2, Double(r3.height) / 2)
        for y in 0..<r3.height {
            for x in 0..<r3.width {
                let dx = Double(x) + 0.5 - cx
                let dy = Double(y) + 0.5 - cy
                let factor = 1 - 0.5 * (dx * dx + dy * dy) / (cx * cx + cy * cy)
                for c in 0..<3 {
                    let o = (y * r3.width + x) * 3 + c
                    vignetted[o] = UInt8(min(255, max(0, (Double(r3.pixels[o]) * factor).rounded())))
                }
            }
        }
        try Data(vignetted).write(to: URL(fileURLWithPath: path("r4.raw")))
        try VipsTool.run("rawload", path("r4.raw"), path("r4.v"), "\(r3.width)", "\(r3.height)", "3")
        try VipsTool.run("copy", path("r4.v"), path("r4s.v"), "--interpretation", "srgb")
        let box = RecipePipeline.straightenCrop(width: r3.width, height: r3.height, degrees: 3)
        try straightenOracle(path("r4s.v"), path("r6.v"), degrees: 3, box: box, interpolate: "bicubic")
        let crop = RecipePipeline.cropRegion(
            NormalizedRect(x: 0.1, y: 0.1, width: 0.8, height: 0.8), width: box.width, height: box.height)
        try VipsTool.run(
            "extract_area", path("r6.v"), path("r7.v"), "\(crop.left)", "\(crop.top)", "\(crop.width)", "\(crop.height)"
        )
        let difference = try ImageComparison.meanAbsoluteDifference(ofFileAt: ours, path("r7.v"))
        // Six stages, each rounded to 8 bits on both sides, and a bicubic rotation of those.
        #expect(difference < 1.0, "the recipe is \(difference) from the chain of libvips operations")
    }

    @Test(
        "A full-size render streamed from the file equals one from the photo in memory; metadata kept, upright, no thumbnail"
    )
    func streamedRender() throws {
        // A 24 MP camera JPEG, upright.
        let photo = try Corpus.path("exiv2/data/exiv2-bug922a.jpg")
        let recipe = try EditRecipe(parsing: [
            "exposure=0.3", "vignette=0.4", "straighten=3", "crop=0.1,0.1,0.8,0.8", "sharpen=1",
        ])
        let metadata = try MetadataReader.read(fileAtPath: photo)
        #expect(ImageFile.canStream(metadata, recipe: recipe, orientation: nil))
        #expect(
            !ImageFile.canStream(metadata, recipe: EditRecipe(filters: [.rotate(quarterTurns: 1)]), orientation: nil))
        #expect(!ImageFile.canStream(metadata, recipe: EditRecipe(filters: [.straighten(10)]), orientation: nil))
        #expect(
            !ImageFile.canStream(metadata, recipe: recipe, orientation: 6), "a photo to turn upright is decoded whole")
        let streamed = path("streamed.jpg")
        let inMemory = path("in-memory.jpg")
        let size = try ImageFile.renderStreaming(photo, recipe: recipe, to: streamed, quality: 95, monitor: nil)
        let other = try ImageFile.renderInMemory(
            photo, recipe: recipe, to: inMemory, quality: 95, orientation: nil, monitor: nil)
        #expect(size == other)
        #expect(try ImageComparison.meanAbsoluteDifference(ofFileAt: streamed, inMemory) < 0.5)
        // Past what the stream can follow, libvips refuses, and renderEdit makes it in memory.
        let steep = EditRecipe(filters: [.straighten(15)])
        #expect(throws: ImagingError.self) {
            try ImageFile.renderStreaming(photo, recipe: steep, to: path("steep-stream.jpg"), quality: 80, monitor: nil)
        }
        let steepSize = try ImageFile.renderEdit(
            ofFileAt: photo, recipe: steep, toJPEGAt: path("steep.jpg"), quality: 80)
        #expect(steepSize == RecipePipeline.straightenCrop(width: 6000, height: 4000, degrees: 15))
        // The original's metadata, upright, without the EXIF thumbnail of the unedited photo.
        let tags = try ExifTool.tags(
            ["Make", "Model", "DateTimeOriginal", "Orientation", "ThumbnailLength", "ImageWidth"], of: streamed)
        let original = try ExifTool.tags(["Make", "Model", "DateTimeOriginal", "ThumbnailLength"], of: photo)
        #expect(tags["Make"] == original["Make"] && tags["Model"] == original["Model"])
        #expect(tags["DateTimeOriginal"] == original["DateTimeOriginal"] && tags["DateTimeOriginal"] != nil)
        #expect(
            tags["Orientation"] == nil || tags["Orientation"] == "1" || tags["Orientation"] == "Horizontal (normal)")
        #expect(
            original["ThumbnailLength"] != nil && tags["ThumbnailLength"] == nil, "the unedited EXIF thumbnail is gone")
        #expect(tags["ImageWidth"] == "\(size.width)")
    }

    @Test("Recipes: NAME=VALUE, JSON both ways, ranges, versions")
    func recipes() throws {
        let recipe = try EditRecipe(parsing: [
            "exposure=0.5", "straighten=-3", "crop=0.1,0.1,0.8,0.8", "rotate=270", "flip=vertical",
        ])
        #expect(
            recipe.filters == [
                .exposure(0.5), .straighten(-3), .crop(NormalizedRect(x: 0.1, y: 0.1, width: 0.8, height: 0.8)),
                .rotate(quarterTurns: 3), .flip(vertical: true),
            ])
        #expect(try EditRecipe(decoding: recipe.encoded()) == recipe)
        #expect(
            recipe.filters.map(\.argument) == [
                "exposure=0.5", "straighten=-3.0", "crop=0.1,0.1,0.8,0.8", "rotate=270", "flip=vertical",
            ])
        for bad in [
            "exposure=9", "blur=-1", "rotate=45", "crop=0.5,0.5,0.8,0.8", "warp=1", "exposure", "flip=diagonal",
            "mono=nan",
        ] {
            #expect(throws: ImagingError.self, "\(bad) is refused") { try EditRecipe(parsing: [bad]) }
        }
        do {
            _ = try EditRecipe(parsing: ["saturation=3"])
        } catch {
            #expect(error.message.contains("saturation") && error.message.contains("-1.0...1.0"), "\(error.message)")
        }
        // A newer minor version loads, skipping what it added; another major version does not.
        let newer =
            #"{"version":"1.4","filters":[{"name":"exposure","value":1},{"name":"glow","value":0.3,"radius":4}],"author":"x"}"#
        let loaded = try EditRecipe(decoding: Array(newer.utf8))
        #expect(loaded.filters == [.exposure(1)] && loaded.skippedFilters == ["glow"])
        let sameVersionUnknown = #"{"version":"1.0","filters":[{"name":"glow","value":0.3}]}"#
        #expect(throws: ImagingError.self) { try EditRecipe(decoding: Array(sameVersionUnknown.utf8)) }
        #expect(throws: ImagingError.self) { try EditRecipe(decoding: Array(#"{"version":"2.0","filters":[]}"#.utf8)) }
        #expect(EditRecipe.canHandle(formatIdentifier: EditRecipe.formatIdentifier, formatVersion: "1.7"))
        #expect(!EditRecipe.canHandle(formatIdentifier: EditRecipe.formatIdentifier, formatVersion: "2.0"))
        #expect(!EditRecipe.canHandle(formatIdentifier: "com.example.other", formatVersion: "1.0"))
        #expect(throws: ImagingError.self) {
            try EditRecipe(decoding: Array(repeating: 0x20, count: EditRecipe.maximumEncodedSize + 1))
        }
    }

    @Test(
        "A rotation past Int's range is refused, not a trap, from the CLI's form and a stored recipe",
        arguments: ["1e300", "-1e19", "9223372036854775808", "9.3e18", "-9223372036854775809", "450", "-720"])
    func rotationPastInt(value: String) throws {
        let parsed = #expect(throws: ImagingError.self) { try EditFilter(parsing: "rotate=\(value)") }
        #expect(parsed?.message.contains("-360 to 360") == true, "\(parsed?.message ?? "")")
        let stored = #"{"version":"1.1","filters":[{"name":"rotate","value":"# + value + "}]}"
        #expect(throws: ImagingError.self) { try EditRecipe(decoding: Array(stored.utf8)) }
        #expect(try EditFilter(parsing: "rotate=-360") == .rotate(quarterTurns: 0))
        #expect(try EditFilter(parsing: "rotate=-90") == .rotate(quarterTurns: 3))
    }
}
