import CEdit
import Foundation

/// Builds the libvips pipeline of a recipe. Nothing is computed here: each filter adds lazy
/// operations, and the pixels flow through all of them, a few rows at a time on every core, only
/// when the result is written. No full-size intermediate image exists.
///
/// Every stage takes and gives 8-bit sRGB with three bands. Consecutive filters that compute a
/// pixel from its own value (and place) are one stage of our own C, `cedit_point`; among them,
/// filters that change each channel on its own (exposure, brightness, contrast, temperature,
/// tint) are composed into one table of 256 entries per band, clipped after each filter as
/// separate stages would be.
enum RecipePipeline {
    /// Rec. 709 luma weights, applied to encoded values as Core Image's colour controls do.
    static let luma = [0.2126, 0.7152, 0.0722]

    /// `image` with `recipe` applied. `scale` is the image's size over the full-size image's
    /// (below 1 for a preview), by which lengths in pixels are scaled.
    /// A `draft` render (an interactive preview) straightens with Lightbox's bilinear rotation
    /// (`cedit_straighten`) rather than libvips' bicubic one.
    static func apply(
        _ recipe: EditRecipe, to input: VipsImageRef, scale: Double, draft: Bool = false
    ) throws(ImagingError) -> VipsImageRef {
        var image = try prepare(input)
        var points = PointStages()
        for filter in recipe.filters {
            if points.add(filter) { continue }
            image = try points.apply(to: image)
            image = try apply(filter, image, scale: scale, draft: draft)
        }
        return try points.apply(to: image)
    }

    /// 8-bit sRGB, three bands: alpha flattened onto white, grey and 16-bit images converted.
    static func prepare(_ input: VipsImageRef) throws(ImagingError) -> VipsImageRef {
        var image = input
        if image.bands == 2 || image.bands == 4 {
            image = try Vips.flattenedOnWhite(image)
        }
        if !Vips.isSRGB(image) || image.bands != 3 {
            image = try Vips.toSRGB(image)
        }
        if !Vips.isUChar(image) {
            image = try Vips.toUChar(image)
        }
        return image
    }

    // MARK: - Tone tables

    /// A function of one channel's encoded value, 0...1.
    struct Tone {
        let map: (_ channel: Int, _ value: Double) -> Double

        init?(_ filter: EditFilter) {
            switch filter {
            case .exposure(let stops):
                let gain = pow(2, stops)
                map = { _, v in encode(linear(v) * gain) }
            case .brightness(let amount):
                map = { _, v in v + amount }
            case .contrast(let amount):
                map = { _, v in (v - 0.5) * (1 + amount) + 0.5 }
            case .temperature(let amount):
                let gains = RecipePipeline.whiteBalanceGains(temperature: amount, tint: 0)
                map = { c, v in encode(linear(v) * gains[c]) }
            case .tint(let amount):
                let gains = RecipePipeline.whiteBalanceGains(temperature: 0, tint: amount)
                map = { c, v in encode(linear(v) * gains[c]) }
            default:
                return nil
            }
        }

        init(map: @escaping (_ channel: Int, _ value: Double) -> Double) {
            self.map = map
        }
    }

    /// The pending per-channel tones as one table of 256 entries per band, clipped after each
    /// tone as separate stages would be.
    static func table(_ tones: [Tone]) -> [UInt8] {
        var table = [UInt8](repeating: 0, count: 256 * 3)
        for index in 0..<256 {
            for channel in 0..<3 {
                var value = Double(index) / 255
                for tone in tones { value = min(1, max(0, tone.map(channel, value))) }
                table[index * 3 + channel] = UInt8((value * 255).rounded())
            }
        }
        return table
    }

    // MARK: - Point filters

    /// Consecutive filters that compute each pixel from its own value (and the vignette from
    /// its place too), gathered and applied as one libvips stage (`cedit_point`): one pass over
    /// the pixels, in place of one or more float operations per filter.
    struct PointStages {
        private var stages: [cedit_stage] = []
        private var tones: [Tone] = []

        /// Adds `filter` when it is a point filter; false for the others.
        mutating func add(_ filter: EditFilter) -> Bool {
            if let tone = Tone(filter) {
                tones.append(tone)
                return true
            }
            switch filter {
            case .saturation(let amount):
                addMatrix(saturationMatrix(1 + amount))
            case .mono(let amount):
                addMatrix(mix(identity, lumaMatrix, amount))
            case .sepia(let amount):
                addMatrix(mix(identity, sepiaMatrix, amount))
            case .noir(let amount):
                addMatrix(mix(identity, lumaMatrix, amount))
                tones.append(Tone { _, v in v + amount * (v * v * (3 - 2 * v) - v) })
            case .vibrance(let amount):
                addStage(CEDIT_VIBRANCE) { $0.amount = amount }
            case .highlights(let amount):
                addLumaGain { luma in highlightsCurve(luma, amount) }
            case .shadows(let amount):
                addLumaGain { luma in shadowsCurve(luma, amount) }
            case .vignette(let amount):
                if amount != 0 { addStage(CEDIT_VIGNETTE) { $0.amount = amount } }
            default:
                return false
            }
            return true
        }

        /// The gathered stages applied to `image`, and forgotten; none leaves the image as is.
        mutating func apply(to image: VipsImageRef) throws(ImagingError) -> VipsImageRef {
            flushTones()
            guard !stages.isEmpty else { return image }
            defer { stages = [] }
            return try Vips.call("point filters") { cedit_point(image.pointer, &$0, stages, Int32(stages.count)) }
        }

        private mutating func flushTones() {
            guard !tones.isEmpty else { return }
            let table = RecipePipeline.table(tones)
            tones = []
            var stage = cedit_stage()
            stage.kind = CEDIT_TABLE
            withUnsafeMutableBytes(of: &stage.table) { $0.copyBytes(from: table) }
            stages.append(stage)
        }

        private mutating func addStage(_ kind: cedit_kind, _ configure: (inout cedit_stage) -> Void) {
            flushTones()
            var stage = cedit_stage()
            stage.kind = kind
            configure(&stage)
            stages.append(stage)
        }

        private mutating func addMatrix(_ matrix: [Double]) {
            addStage(CEDIT_MATRIX) { stage in
                withUnsafeMutableBytes(of: &stage.matrix) { raw in
                    for (index, value) in matrix.enumerated() {
                        raw.storeBytes(of: Float(value), toByteOffset: index * 4, as: Float.self)
                    }
                }
            }
        }

        /// Every channel times curve(L) / L, where L is the pixel's luma (0...1): the tone moves
        /// along the curve and the colour keeps its proportions.
        private mutating func addLumaGain(_ curve: (Double) -> Double) {
            var gains = [Float](repeating: 1, count: 256)
            for index in 1..<256 {
                let value = Double(index) / 255
                gains[index] = Float(curve(value) / value)
            }
            gains[0] = Float(curve(1e-6) / 1e-6)
            addStage(CEDIT_LUMA_GAIN) { stage in
                gains.withUnsafeBytes { source in
                    withUnsafeMutableBytes(of: &stage.gains) { $0.copyMemory(from: source) }
                }
            }
        }
    }

    // MARK: - Filters

    private static func apply(_ filter: EditFilter, _ image: VipsImageRef, scale: Double, draft: Bool)
        throws(ImagingError)
        -> VipsImageRef
    {
        switch filter {
        case .comic(let amount):
            return try comic(image, amount, scale: scale)
        case .sharpen(let amount):
            guard amount > 0 else { return image }
            // A radius of one pixel of the image rendered: a preview shows the effect at its scale.
            let blurred = try Vips.gaussianBlur(image, sigma: 1)
            let detail = try Vips.subtract(image, blurred, "sharpen")
            let scaled = try Vips.linear(detail, [amount], [0])
            return try Vips.toUChar(try Vips.add(image, scaled, "sharpen"))
        case .blur(let radius):
            let sigma = radius * scale
            guard sigma >= 0.3 else { return image }
            return try Vips.gaussianBlur(image, sigma: sigma)
        case .crop(let rect):
            let region = cropRegion(rect, width: image.width, height: image.height)
            return try Vips.extract(
                image, left: region.left, top: region.top, width: region.width, height: region.height)
        case .rotate(let quarterTurns):
            return try Vips.rotated(image, degrees: quarterTurns % 4 * 90)
        case .straighten(let degrees):
            guard degrees != 0 else { return image }
            let box = straightenCrop(width: image.width, height: image.height, degrees: degrees)
            if draft {
                return try Vips.call("straighten") {
                    cedit_straighten(image.pointer, &$0, degrees, Int32(box.width), Int32(box.height))
                }
            }
            return try Vips.straightened(image, degrees: degrees, width: box.width, height: box.height)
        case .flip(let vertical):
            return try Vips.flipped(image, vertical: vertical)
        case .trim:
            return image  // time, not pixels: the movie editor keeps the part
        case .exposure, .brightness, .contrast, .temperature, .tint, .saturation, .mono, .sepia, .noir, .vibrance,
            .highlights, .shadows, .vignette:
            preconditionFailure("point filters are gathered into one stage before this")
        }
    }

    /// The pixel rectangle a normalised crop keeps: at least one pixel, inside the image.
    static func cropRegion(_ rect: NormalizedRect, width: Int, height: Int) -> (
        left: Int, top: Int, width: Int, height: Int
    ) {
        let left = min(width - 1, max(0, Int((rect.x * Double(width)).rounded(.down))))
        let top = min(height - 1, max(0, Int((rect.y * Double(height)).rounded(.down))))
        let cropWidth = min(width - left, max(1, Int((rect.width * Double(width)).rounded())))
        let cropHeight = min(height - top, max(1, Int((rect.height * Double(height)).rounded())))
        return (left, top, cropWidth, cropHeight)
    }

    /// The size of the largest rectangle with the image's proportions, centred, that a rotation
    /// by `degrees` leaves without empty corners, less a pixel on each side that bicubic
    /// interpolation blends with the outside.
    static func straightenCrop(width: Int, height: Int, degrees: Double) -> (width: Int, height: Int) {
        let angle = abs(degrees) * .pi / 180
        let (w, h) = (Double(width), Double(height))
        let (c, s) = (cos(angle), sin(angle))
        let factor = min(w / (w * c + h * s), h / (w * s + h * c))
        return (max(1, Int(w * factor) - 2), max(1, Int(h * factor) - 2))
    }

    // MARK: Colour matrices

    static let identity: [Double] = [1, 0, 0, 0, 1, 0, 0, 0, 1]
    static let lumaMatrix: [Double] = luma + luma + luma
    /// The classic sepia tone matrix.
    static let sepiaMatrix: [Double] = [0.393, 0.769, 0.189, 0.349, 0.686, 0.168, 0.272, 0.534, 0.131]

    static func mix(_ a: [Double], _ b: [Double], _ amount: Double) -> [Double] {
        zip(a, b).map { $0 * (1 - amount) + $1 * amount }
    }

    /// Each channel moved away from the pixel's luma by `factor`: `luma + factor * (c - luma)`.
    static func saturationMatrix(_ factor: Double) -> [Double] {
        mix(lumaMatrix, identity, factor)
    }

    // MARK: Luma-driven filters

    /// Each pixel's luma, 0...255, float.
    private static func lumaImage(_ image: VipsImageRef) throws(ImagingError) -> VipsImageRef {
        try Vips.recombined(image, luma, rows: 1, columns: 3, "luma")
    }

    /// The highlights curve: bright tones move most, black and white stay; monotonic over the
    /// whole range.
    static func highlightsCurve(_ luma: Double, _ amount: Double) -> Double {
        let strength = amount < 0 ? 2.0 : 1.0
        return luma + amount * strength * luma * luma * (1 - luma)
    }

    /// The shadows curve: dark tones move most, black and white stay; monotonic.
    static func shadowsCurve(_ luma: Double, _ amount: Double) -> Double {
        let strength = amount > 0 ? 2.0 : 1.0
        return luma + amount * strength * luma * pow(1 - luma, 4)
    }

    /// Comic: colours flattened to six levels a channel, with dark outlines where the (lightly
    /// blurred) luma has a strong Sobel gradient.
    private static func comic(_ image: VipsImageRef, _ amount: Double, scale: Double) throws(ImagingError)
        -> VipsImageRef
    {
        let outlines = try comicOutlines(image, scale: scale)
        let lineFactor = try Vips.linear(outlines, [-amount / 255], [1])
        var table = [Float](repeating: 0, count: 256 * 3)
        for index in 0..<256 {
            let level = (Double(index) / 255 * Double(comicLevels - 1)).rounded() / Double(comicLevels - 1)
            for channel in 0..<3 { table[index * 3 + channel] = Float(level * 255) }
        }
        let flat = try Vips.mapped(image, through: table, bands: 3, "comic")
        return try Vips.toUChar(try Vips.multiply(flat, lineFactor, "comic"))
    }

    static let comicLevels = 6
    /// The Sobel magnitude (|gx| + |gy|, on luma 0...255) above which a pixel is an outline.
    static let comicThreshold = 160.0

    /// 255 on outlines, 0 elsewhere.
    static func comicOutlines(_ image: VipsImageRef, scale: Double) throws(ImagingError) -> VipsImageRef {
        let luma = try Vips.toUChar(try lumaImage(image))
        let smooth = try Vips.gaussianBlur(luma, sigma: max(0.5, 1.5 * scale), "comic")
        let sobelX: [Double] = [-1, 0, 1, -2, 0, 2, -1, 0, 1]
        let sobelY: [Double] = [-1, -2, -1, 0, 0, 0, 1, 2, 1]
        let gx = try Vips.convolve(smooth, sobelX, width: 3, height: 3, "comic")
        let gy = try Vips.convolve(smooth, sobelY, width: 3, height: 3, "comic")
        let ax = try Vips.absolute(gx, "comic")
        let ay = try Vips.absolute(gy, "comic")
        let magnitude = try Vips.add(ax, ay, "comic")
        return try Vips.moreThan(magnitude, comicThreshold, "comic")
    }

    // MARK: - Colour science

    /// sRGB's transfer function, decoding: encoded 0...1 to linear light.
    static func linear(_ v: Double) -> Double {
        v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
    }

    /// sRGB's transfer function, encoding: linear light to encoded 0...1 (clipped).
    static func encode(_ l: Double) -> Double {
        let l = max(0, l)
        return l <= 0.0031308 ? 12.92 * l : 1.055 * pow(l, 1 / 2.4) - 0.055
    }

    /// Linear-light gains of red, green and blue: white moves from 6500 K to the black-body
    /// colour of 6500 K / 2^(temperature / 2) (about 4600 K at +1, 9200 K at -1), green by
    /// 2^(-tint / 4); the gains keep white's luminance.
    static func whiteBalanceGains(temperature: Double, tint: Double) -> [Double] {
        let neutral = blackBodyRGB(6500)
        let target = blackBodyRGB(6500 / pow(2, temperature / 2))
        var gains = (0..<3).map { target[$0] / neutral[$0] }
        gains[1] *= pow(2, -tint / 4)
        let luminance = zip(gains, luma).map(*).reduce(0, +)
        return gains.map { $0 / luminance }
    }

    /// Linear sRGB of a black body at `kelvin` (1667...25000 K), from the CIE xy of the
    /// Planckian locus (Kim et al.'s cubic spline), with Y = 1.
    static func blackBodyRGB(_ kelvin: Double) -> [Double] {
        let t = min(25000, max(1667, kelvin))
        let x: Double =
            t <= 4000
            ? -0.2661239e9 / (t * t * t) - 0.2343589e6 / (t * t) + 0.8776956e3 / t + 0.179910
            : -3.0258469e9 / (t * t * t) + 2.1070379e6 / (t * t) + 0.2226347e3 / t + 0.240390
        let y: Double =
            t <= 2222
            ? -1.1063814 * x * x * x - 1.34811020 * x * x + 2.18555832 * x - 0.20219683
            : t <= 4000
                ? -0.9549476 * x * x * x - 1.37418593 * x * x + 2.09137015 * x - 0.16748867
                : 3.0817580 * x * x * x - 5.87338670 * x * x + 3.75112997 * x - 0.37001483
        let (X, Y, Z) = (x / y, 1.0, (1 - x - y) / y)
        return [
            3.2406 * X - 1.5372 * Y - 0.4986 * Z,
            -0.9689 * X + 1.8758 * Y + 0.0415 * Z,
            0.0557 * X - 0.2040 * Y + 1.0570 * Z,
        ]
    }
}
