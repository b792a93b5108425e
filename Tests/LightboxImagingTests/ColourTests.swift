import Foundation
import LightboxTestSupport
import Testing

@testable import LightboxImaging

/// ICC profiles to sRGB through a Little CMS transform made once per profile (`CColour`),
/// against libvips' `vips_icc_transform`, which makes one per image.
@Suite("Colour: one transform per ICC profile")
struct ColourTests {
    private func difference(_ a: VipsImageRef, _ b: VipsImageRef) throws -> (mean: Double, max: Int) {
        #expect((a.width, a.height, a.bands) == (b.width, b.height, b.bands))
        let (x, y) = (try Vips.pixels(a), try Vips.pixels(b))
        var total = 0, largest = 0
        for (p, q) in zip(x, y) {
            let d = abs(Int(p) - Int(q))
            total += d
            largest = max(largest, d)
        }
        return (Double(total) / Double(x.count), largest)
    }

    @Test("A Display P3 photo converts through the kept transform, as libvips converts it", arguments: [
        // An iPhone 7's Display P3 photo at 1/8 and 1/2.
        (RenderFiles.displayP3, 8), (RenderFiles.displayP3, 2),
    ])
    func matchesLibvips(file: String, shrink: Int) throws {
        let (image, profile) = try RenderFiles.decoded(file, shrink: shrink)
        let icc = try #require(profile, "the photo embeds a profile")
        let ours = try Vips.convertToSRGB(image, profile: icc, path: file)
        // The render's conversion is the Little CMS transform's, value for value (libvips'
        // differs in one value of about 140): it did not fall back to libvips.
        let direct = try #require(
            try ColourTransforms(keeping: 1).withTransformToSRGB(from: icc) { transform throws(ImagingError) in
                try Vips.apply(transform, to: image, path: file)
            })
        #expect(try Vips.pixels(ours) == Vips.pixels(direct))
        let libvips = try Vips.convertToSRGBWithLibvips(image, profile: icc, path: file)
        let (mean, largest) = try difference(ours, libvips)
        // Little CMS's own sRGB against libvips' sRGB profile, the same intent: measured 0.007,
        // one value in a hundred and forty one level apart.
        #expect(mean < 0.05, "mean difference \(mean) from vips_icc_transform")
        #expect(largest <= 1, "largest difference \(largest) from vips_icc_transform")
        // P3 taken as sRGB is far: the conversion did something.
        let (unconverted, _) = try difference(image, libvips)
        #expect(unconverted > 4 * max(mean, 0.1), "unconverted \(unconverted), converted \(mean)")
    }

    @Test("A profile's transform is made once and kept")
    func kept() throws {
        let (_, p3) = try RenderFiles.decoded(RenderFiles.displayP3, shrink: 8)
        let profile = try #require(p3)
        let transforms = ColourTransforms(keeping: 4)
        var seen: [UnsafeMutableRawPointer] = []
        for _ in 0..<3 {
            _ = try transforms.withTransformToSRGB(from: profile) { transform throws(ImagingError) in seen.append(transform) }
        }
        #expect(seen.count == 3 && Set(seen).count == 1, "one transform, used three times")
        #expect(transforms.count == 1)
    }

    @Test("A profile Little CMS does not read goes to libvips, remembered; a full cache makes transforms for one use")
    func fallbacks() throws {
        let transforms = ColourTransforms(keeping: 1)
        #expect(try transforms.withTransformToSRGB(from: [UInt8](repeating: 7, count: 200)) { _ throws(ImagingError) in true } == nil)
        #expect(transforms.count == 1, "the refusal is remembered")
        // Adobe RGB (1998), exiv2's sample profile.
        let adobe = [UInt8](try #require(FileManager.default.contents(atPath: try Corpus.path("exiv2/data/small.icc"))))
        #expect(try transforms.withTransformToSRGB(from: adobe) { _ throws(ImagingError) in true } == true)
        #expect(transforms.count == 1, "no room: made, used once and freed, not kept")
    }
}
