import ArgumentParser
import Foundation
import LightboxImaging
import LightboxMetadata

#if canImport(Glibc)
    import Glibc
#endif

/// `lightbox-bench edit`: one photo, one six-filter recipe (exposure, saturation, contrast,
/// vignette, straighten, crop) rendered at full size by Lightbox (`lightbox render`, and the
/// whole `lightbox edit` of the photo imported into a library), by Pillow and by ImageMagick, each run in a process of its own (time, peak resident memory,
/// peak anonymous memory); then Lightbox's display-size preview of the same recipe, in process.
struct EditBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "edit",
        abstract: "A six-filter edit at full size by Lightbox, Pillow and ImageMagick; Lightbox's display-size preview."
    )

    @Argument(help: "The photo (a 20 to 24 MP camera JPEG).")
    var file: String

    @Option(help: "Runs per tool.")
    var rounds = 3

    @Option(help: "Preview renders to time.")
    var previews = 30

    @Flag(help: "Time the preview of each filter alone too, and of the empty recipe (decode-free: encoding only).")
    var perFilter = false

    @Flag(help: "Only the previews: no full-size renders.")
    var previewOnly = false

    @Option(help: "Instead, a movie edited frame by frame with the recipe (a Live Photo's motion): frames per second.")
    var movie: String?

    static let filters = [
        "exposure=0.4", "saturation=0.3", "contrast=0.2", "vignette=0.5", "straighten=3", "crop=0.1,0.1,0.8,0.8",
    ]

    /// The same recipe with Pillow: a lookup table for exposure (linear light times 2^0.4),
    /// ImageEnhance for saturation and contrast, a radial mask for the vignette, a bicubic
    /// rotation cut to the same rectangle, the same crop, JPEG at quality 92.
    static let pillowScript = #"""
        import math, sys
        from PIL import Image, ImageChops, ImageEnhance
        source, output, width, height = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
        def lin(v): return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4
        def enc(l):
            l = max(0.0, min(1.0, l))
            return 12.92 * l if l <= 0.0031308 else 1.055 * l ** (1 / 2.4) - 0.055
        table = [round(enc(lin(i / 255) * 2 ** 0.4) * 255) for i in range(256)] * 3
        image = Image.open(source).convert("RGB")
        image = image.point(table)
        image = ImageEnhance.Color(image).enhance(1.3)
        image = ImageEnhance.Contrast(image).enhance(1.2)
        w, h = image.size
        mask = Image.radial_gradient("L").resize((w, h))  # 0 at the centre, 255 at the rim
        mask = mask.point([round(255 * max(0.0, 1 - 0.5 * (i / 255 * 0.7071) ** 2 / 0.5)) for i in range(256)])
        image = ImageChops.multiply(image, Image.merge("RGB", (mask, mask, mask)))
        rotated = image.rotate(-3, resample=Image.BICUBIC, expand=True)
        left, top = (rotated.width - width) // 2, (rotated.height - height) // 2
        image = rotated.crop((left, top, left + width, top + height))
        image = image.crop((int(0.1 * width), int(0.1 * height), int(0.1 * width) + round(0.8 * width), int(0.1 * height) + round(0.8 * height)))
        image.save(output, "JPEG", quality=92)
        """#

    func run() async throws {
        if let movie { return try editMovie(movie) }
        let lightbox = (CommandLine.arguments[0] as NSString).deletingLastPathComponent + "/lightbox"
        guard FileManager.default.isExecutableFile(atPath: lightbox) else {
            throw ValidationError("build the lightbox command beside lightbox-bench: make release")
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("edit-bench-\(getpid())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let script = folder + "/pillow.py"
        try Self.pillowScript.write(toFile: script, atomically: true, encoding: .utf8)
        let properties = try ImageFile.properties(ofFileAt: file)
        let swaps = (5...8).contains(properties.orientation)
        let (width, height) =
            swaps
            ? (properties.storedHeight, properties.storedWidth) : (properties.storedWidth, properties.storedHeight)
        let box = EditFilter.straightenedSize(width: width, height: height, degrees: 3)

        // The whole `lightbox edit` of an asset: the display image, the full-size render, and the
        // render checked, stored and committed; reverted before each run.
        let library = folder + "/Bench.lightbox"
        _ = try ImageBench.measure([lightbox, "import", "--library", library, file])
        let asset = try Self.onlyAsset(lightbox: lightbox, library: library)
        var tools: [(String, [String])] = [
            (
                "lightbox",
                [lightbox, "render", file, "--out", folder + "/lightbox", "--overwrite"]
                    + Self.filters.flatMap { ["--filter", $0] }
            ),
            (
                "lightbox edit",
                [lightbox, "edit", "--library", library, asset] + Self.filters.flatMap { ["--filter", $0] }
            ),
        ]
        if FileManager.default.isExecutableFile(atPath: ImageBench.python) {
            tools.append(
                ("pillow", [ImageBench.python, script, file, folder + "/pillow.jpg", "\(box.width)", "\(box.height)"]))
        }
        // Debian's ImageMagick 6: exposure in linear RGB, saturation, contrast, a vignette (a
        // radial gradient multiplied in), a rotation about the centre cut to the same
        // rectangle, the same crop.
        let convert = "/usr/bin/convert"
        if FileManager.default.isExecutableFile(atPath: convert) {
            tools.append(
                (
                    "imagemagick",
                    [
                        convert, file, "-colorspace", "RGB", "-evaluate", "multiply", "\(pow(2, 0.4))", "-colorspace",
                        "sRGB",
                        "-modulate", "100,130,100", "-brightness-contrast", "0x20",
                        "(", "-size", "\(width)x\(height)", "radial-gradient:white-gray50", ")", "-compose", "multiply",
                        "-composite", "-distort", "SRT", "3", "-gravity", "center", "-crop",
                        "\(box.width)x\(box.height)+0+0",
                        "+repage", "-gravity", "center", "-crop", "80%x80%+0+0", "+repage", "-quality", "92",
                        folder + "/magick.jpg",
                    ]
                ))
        }
        for (tool, arguments) in tools where !previewOnly {
            let runs = try Self.measure(
                arguments, rounds: rounds,
                reverting: tool == "lightbox edit" ? (lightbox: lightbox, library: library, asset: asset) : nil)
            let seconds = runs.map(\.seconds).sorted()
            Report.print([
                "benchmark": "edit", "tool": tool, "file": (file as NSString).lastPathComponent,
                "pixels": "\(width)x\(height)", "rounds": rounds,
                "medianMs": Report.round(seconds[seconds.count / 2] * 1000),
                "bestMs": Report.round(seconds[0] * 1000),
                "peakResidentMB": Report.round(Double(runs.map(\.maxResidentKB).max() ?? 0) / 1024),
                "peakAnonymousMB": Report.round(Double(runs.map(\.peakAnonymousKB).max() ?? 0) / 1024),
                "exitStatus": runs.map(\.status).max() ?? 0,
            ])
        }
        // The preview an edit view redraws on every slider move: the recipe on the 2048 px
        // display image held in memory, encoded as JPEG.
        let display = try EditableImage(fileAt: file, maximumSide: 2048)
        var runs = [(display, "recipe", Self.filters)]
        // What an edit view on a laptop screen shows: 1280 px.
        runs.append((try display.resized(maximumSide: 1280), "recipe", Self.filters))
        if perFilter { runs += ([("none", [])] + Self.filters.map { ($0, [$0]) }).map { (display, $0.0, $0.1) } }
        for (editable, name, filters) in runs {
            let recipe = try EditRecipe(parsing: filters)
            var times: [Double] = []
            for _ in 0..<previews {
                let start = ContinuousClock.now
                _ = try editable.render(recipe)
                let elapsed = ContinuousClock.now - start
                times.append(Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000)
            }
            times.sort()
            Report.print([
                "benchmark": "edit-preview", "tool": "lightbox", "filters": name,
                "pixels": "\(editable.pixelWidth)x\(editable.pixelHeight)", "renders": previews,
                "medianMs": Report.round(times[times.count / 2]), "bestMs": Report.round(times[0]),
            ])
        }
    }

    /// `rounds` runs of a command, each a process of its own; with `reverting`, the asset's
    /// edit is reverted before each (a `lightbox edit` that edits the original each time).
    static func measure(
        _ arguments: [String], rounds: Int, reverting: (lightbox: String, library: String, asset: String)?
    ) throws -> [ImageBench.Run] {
        var runs: [ImageBench.Run] = []
        for _ in 0..<rounds {
            if let reverting {
                _ = try ImageBench.measure([
                    reverting.lightbox, "revert", "--library", reverting.library, reverting.asset,
                ])
            }
            runs.append(try ImageBench.measure(arguments))
        }
        return runs
    }

    /// The identifier of the one asset of a library, from `lightbox ls --json`.
    static func onlyAsset(lightbox: String, library: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: lightbox)
        process.arguments = ["ls", "--library", library, "--json"]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard let line = data.split(separator: UInt8(ascii: "\n")).first,
            let object = try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any],
            let identifier = object["localIdentifier"] as? String
        else { throw ValidationError("cannot import the photo into \(library)") }
        return identifier
    }

    /// The recipe on every frame of a movie, re-encoded (H.264, CRF 18), the sound copied.
    func editMovie(_ path: String) throws {
        let recipe = try EditRecipe(parsing: Self.filters)
        // The frames at the scale of the photo (a recipe's pixel lengths unscaled).
        let metadata = try MetadataReader.read(fileAtPath: path)
        let side = max(metadata.pixelWidth ?? 0, metadata.pixelHeight ?? 0)
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("edit-bench-\(getpid()).mov").path
        defer { unlink(output) }
        for _ in 0..<rounds {
            let start = ContinuousClock.now
            let cpu = Report.processorSeconds()
            let result = try ImageFile.editMovie(at: path, to: output, photoSide: side) { frame in
                try frame.image.applying(recipe)
            }
            let elapsed = ContinuousClock.now - start
            let seconds = Double(elapsed.components.attoseconds) / 1e18 + Double(elapsed.components.seconds)
            let after = Report.processorSeconds()
            Report.print([
                "benchmark": "edit-movie", "file": (path as NSString).lastPathComponent, "frames": result.frames,
                "pixels": "\(result.width)x\(result.height)", "seconds": Report.round(seconds),
                "framesPerSecond": Report.round(Double(result.frames) / seconds),
                "userSeconds": Report.round(after.user - cpu.user),
                "systemSeconds": Report.round(after.system - cpu.system),
                "peakResidentMB": Report.peakResidentMegabytes(),
            ])
        }
    }
}
