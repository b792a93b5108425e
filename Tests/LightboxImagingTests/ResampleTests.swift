import CResample
import Foundation
import LightboxTestSupport
import Testing

@testable import LightboxImaging

/// Lightbox's Lanczos-3 downsizing (`CResample`) against a brute-force reference of the same
/// filter in double precision, and against libvips' `vips_thumbnail_image`, which it stands in
/// for.
@Suite("Downsizing with the Lanczos-3 filter")
struct ResampleTests {
    typealias Pixels = (pixels: [UInt8], width: Int, height: Int, bands: Int)

    /// A corpus JPEG decoded by Lightbox at 1/`shrink` scale, and its pixels.
    private func decoded(_ file: String, shrink: Int) throws -> (image: VipsImageRef, pixels: Pixels) {
        let image = try RenderFiles.decoded(file, shrink: shrink).image
        return (image, (try Vips.pixels(image), image.width, image.height, image.bands))
    }

    private func resample(_ input: Pixels, width: Int, height: Int) -> Pixels? {
        var output = [UInt8](repeating: 0, count: width * height * input.bands)
        let status = cresample_lanczos3(
            input.pixels, Int32(input.width), Int32(input.height), input.width * input.bands, Int32(input.bands),
            &output, Int32(width), Int32(height), width * input.bands)
        return status == 0 ? (output, width, height, input.bands) : nil
    }

    /// For each output position along one axis, the input positions and their weights: the
    /// filter's definition, in doubles. Output pixel `i` is centred at `(i + 0.5) * scale` in
    /// input pixels; positions outside the input stand for the nearest edge pixel.
    private func weights(from inSize: Int, to outSize: Int) -> [[(index: Int, weight: Double)]] {
        let scale = Double(inSize) / Double(outSize)
        func lanczos3(_ x: Double) -> Double {
            if x == 0 { return 1 }
            guard abs(x) < 3 else { return 0 }
            return 3 * sin(Double.pi * x) * sin(Double.pi * x / 3) / (Double.pi * Double.pi * x * x)
        }
        return (0..<outSize).map { i in
            let centre = (Double(i) + 0.5) * scale
            let taps = Int((centre - 3 * scale).rounded(.down))...Int((centre + 3 * scale).rounded(.up))
            let raw = taps.map { j in (min(max(j, 0), inSize - 1), lanczos3((Double(j) + 0.5 - centre) / scale)) }
            let total = raw.reduce(0) { $0 + $1.1 }
            return raw.map { ($0.0, $0.1 / total) }
        }
    }

    /// The brute-force reference: rows filtered, rounded to 8 bits (as libvips and Pillow keep
    /// the intermediate image), then columns.
    private func reference(_ input: Pixels, width: Int, height: Int) -> Pixels {
        let bands = input.bands
        func byte(_ value: Double) -> UInt8 { UInt8(min(max(value.rounded(), 0), 255)) }
        let across = weights(from: input.width, to: width)
        var rows = [UInt8](repeating: 0, count: width * input.height * bands)
        for y in 0..<input.height {
            for x in 0..<width {
                for b in 0..<bands {
                    let sum = across[x].reduce(0.0) {
                        $0 + $1.weight * Double(input.pixels[(y * input.width + $1.index) * bands + b])
                    }
                    rows[(y * width + x) * bands + b] = byte(sum)
                }
            }
        }
        let down = weights(from: input.height, to: height)
        var output = [UInt8](repeating: 0, count: width * height * bands)
        for y in 0..<height {
            for x in 0..<width * bands {
                output[y * width * bands + x] = byte(
                    down[y].reduce(0.0) { $0 + $1.weight * Double(rows[$1.index * width * bands + x]) })
            }
        }
        return (output, width, height, bands)
    }

    private func difference(_ a: Pixels, _ b: Pixels) -> (mean: Double, max: Int) {
        precondition((a.width, a.height, a.bands) == (b.width, b.height, b.bands))
        var total = 0
        var largest = 0
        for (x, y) in zip(a.pixels, b.pixels) {
            let d = abs(Int(x) - Int(y))
            total += d
            largest = max(largest, d)
        }
        return (Double(total) / Double(a.pixels.count), largest)
    }

    @Test(
        "It computes the filter's definition: RGB (SIMD rows) and grey (plain C), odd factors, one axis, tiny images",
        arguments: [
            // A phone photo at 1/8 (500x375) by factors of 2.9, 1.95, 1 by 1.5; grey (400x210); a
            // small photo (200x130).
            ("forensics/original-files/pic1/IMG_20200827_231612.jpg", 8, 173, 130),
            ("forensics/original-files/pic1/IMG_20200827_231612.jpg", 8, 256, 192),
            ("forensics/original-files/pic1/IMG_20200827_231612.jpg", 8, 500, 250),
            ("piexif/images/02.jpg", 1, 97, 51),
            ("exiv2/data/Reagan.jpg", 1, 3, 2),
            ("exiv2/data/Reagan.jpg", 1, 1, 1),
        ])
    func matchesReference(file: String, shrink: Int, width: Int, height: Int) throws {
        let input = try decoded(file, shrink: shrink).pixels
        let ours = try #require(resample(input, width: width, height: height))
        let expected = reference(input, width: width, height: height)
        let (mean, largest) = difference(ours, expected)
        // Weights in 14-bit fixed point, not doubles: a value may round the other way.
        #expect(largest <= 1, "\(file) to \(width)x\(height): largest difference \(largest)")
        #expect(mean < 0.05, "\(file) to \(width)x\(height): mean difference \(mean)")
        // Again, with the filters kept from the first time: the same values.
        let again = try #require(resample(input, width: width, height: height))
        let same = again.pixels == ours.pixels
        #expect(same, "\(file) to \(width)x\(height): other values with kept filters")
    }

    @Test(
        "Every instruction level gives the same values: plain C, SSSE3 and SSE2, AVX2",
        arguments: [
            // Odd and even widths (AVX2 rows make two pixels at a time), the 1024 px thumbnail's
            // factor, grey (SIMD columns only), a window wider than the input.
            ("forensics/original-files/pic1/IMG_20200827_231612.jpg", 8, 173, 130),
            ("forensics/original-files/pic1/IMG_20200827_231612.jpg", 8, 256, 192),
            (RenderFiles.phone, 2, 1024, 768),
            ("piexif/images/02.jpg", 1, 97, 51),
            ("exiv2/data/Reagan.jpg", 1, 3, 2),
        ])
    func levelsAgree(file: String, shrink: Int, width: Int, height: Int) throws {
        let input = try decoded(file, shrink: shrink).pixels
        let levels = Array(Int32(CRESAMPLE_SCALAR)...cresample_level())
        let outputs = levels.map { level in
            var output = [UInt8](repeating: 0, count: width * height * input.bands)
            let status = cresample_lanczos3_at(
                input.pixels, Int32(input.width), Int32(input.height), input.width * input.bands, Int32(input.bands),
                &output, Int32(width), Int32(height), width * input.bands, level)
            return status == 0 ? output : []
        }
        for (level, output) in zip(levels, outputs).dropFirst() {
            #expect(output == outputs[0], "\(file) to \(width)x\(height): level \(level) differs from plain C")
        }
        #expect(outputs[0].count == width * height * input.bands)
    }

    @Test("A flat image stays exactly flat, every band count, and sizes it cannot make are refused")
    func flatAndRefused() throws {
        for bands in 1...4 {
            let input: Pixels = ([UInt8](repeating: 137, count: 61 * 47 * bands), 61, 47, bands)
            let ours = try #require(resample(input, width: 13, height: 29))
            #expect(ours.pixels.allSatisfy { $0 == 137 }, "\(bands) bands")
        }
        let input: Pixels = ([UInt8](repeating: 0, count: 10 * 10 * 3), 10, 10, 3)
        #expect(resample(input, width: 11, height: 10) == nil)
        #expect(resample(input, width: 10, height: 0) == nil)
    }

    @Test(
        "Close to libvips' Lanczos-3 on photos at the sizes grids ask for",
        arguments: [
            // 12 MP at 1/2 to 1024 px (the 1024 px thumbnail), at 1/4 to 360 px (the import's grid
            // thumbnail from its preview), a 24 MP photo at 1/4 to 360 px.
            (RenderFiles.phone, 2, 1024), (RenderFiles.displayP3, 4, 360), ("exiv2/data/exiv2-bug922a.jpg", 4, 360),
        ])
    func closeToLibvips(file: String, shrink: Int, side: Int) throws {
        let (image, input) = try decoded(file, shrink: shrink)
        let scale = Double(side) / Double(max(input.width, input.height))
        let width = Int((Double(input.width) * scale).rounded())
        let height = Int((Double(input.height) * scale).rounded())
        let ours = try Vips.resize(image, width: width, height: height)
        // The render's resize is `CResample`'s, value for value: it did not fall back to libvips.
        let direct = try #require(resample(input, width: width, height: height))
        #expect(try Vips.pixels(ours) == direct.pixels)
        let libvips = try Vips.resizeWithLibvips(image, width: width, height: height)
        let (mean, _) = difference(
            (try Vips.pixels(ours), ours.width, ours.height, ours.bands),
            (try Vips.pixels(libvips), libvips.width, libvips.height, libvips.bands))
        // libvips places its taps at 1/1024 of a pixel and weighs them in 12 bits: measured 0.21
        // to 0.53 on the corpus. A filter half a pixel off is several units away.
        #expect(mean < 0.6, "\(file): mean difference \(mean) from libvips")
    }
}
