import CColour
import Foundation
import LightboxTestSupport
import Testing

@testable import LightboxImaging

/// ICC profiles to sRGB through a transform made once per profile (`CColour`: fixed point for
/// matrix/TRC profiles, Little CMS for the others), against Little CMS's own transform and
/// libvips' `vips_icc_transform`, which makes one per image.
@Suite("Colour: one transform per ICC profile")
struct ColourTests {
    private func difference(_ a: VipsImageRef, _ b: VipsImageRef) throws -> (mean: Double, max: Int) {
        #expect((a.width, a.height, a.bands) == (b.width, b.height, b.bands))
        let (x, y) = (try Vips.pixels(a), try Vips.pixels(b))
        var total = 0
        var largest = 0
        for (p, q) in zip(x, y) {
            let d = abs(Int(p) - Int(q))
            total += d
            largest = max(largest, d)
        }
        return (Double(total) / Double(x.count), largest)
    }

    @Test(
        "A Display P3 photo converts through the kept transform, as libvips converts it",
        arguments: [
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

    /// Every 8-bit RGB colour, red slowest: 16,777,216 pixels in a 4096x4096 image.
    private static let everyColour: [UInt8] = {
        var pixels = [UInt8](repeating: 0, count: 1 << 24 * 3)
        for colour in 0..<(1 << 24) {
            pixels[colour * 3] = UInt8(colour >> 16)
            pixels[colour * 3 + 1] = UInt8((colour >> 8) & 0xFF)
            pixels[colour * 3 + 2] = UInt8(colour & 0xFF)
        }
        return pixels
    }()

    /// `transform` applied to ``everyColour``.
    private func converted(by transform: UnsafeMutableRawPointer) -> [UInt8] {
        let input = Self.everyColour
        return [UInt8](unsafeUninitializedCapacity: input.count) { output, count in
            input.withUnsafeBufferPointer { input in
                ccolour_apply(transform, input.baseAddress, 4096 * 3, output.baseAddress, 4096 * 3, 4096, 4096)
            }
            count = input.count
        }
    }

    @Test(
        "A matrix/TRC profile converts in fixed point to Little CMS's bytes, every 8-bit colour; a lookup-table profile goes to Little CMS",
        arguments: [
            // Display P3 (an iPhone 7's JPEG), Adobe RGB (1998) and Nikon's, GIMP's sRGB, and a
            // printer's lookup-table profile.
            ("digikam/body-background.jpg", false), ("exiv2/data/small.icc", false),
            ("exiftool/images/ICC_Profile.icc", false), ("forensics/original-files/pic2/d-debian.jpg", false),
            ("exiv2/data/large.icc", true),
        ])
    func everyColourAsLittleCMS(file: String, lookupTable: Bool) throws {
        let path = try Corpus.path(file)
        let profile = try #require(
            file.hasSuffix(".icc")
                ? FileManager.default.contents(atPath: path).map { [UInt8]($0) }
                : Vips.open(path, failOnTruncation: true).iccProfile)
        let ours = try #require(profile.withUnsafeBytes { ccolour_rgb_to_srgb($0.baseAddress, $0.count) })
        defer { ccolour_free(ours) }
        let reference = try #require(profile.withUnsafeBytes { ccolour_lcms_rgb_to_srgb($0.baseAddress, $0.count) })
        defer { ccolour_free(reference) }
        #expect((ccolour_is_little_cms(ours) == 1) == lookupTable)
        let (mine, theirs) = (converted(by: ours), converted(by: reference))
        // Compared to a Bool first: a failed comparison of two 50 MB arrays would print them.
        let same = mine == theirs
        let differing = same ? 0 : zip(mine, theirs).count { $0 != $1 }
        #expect(same, "\(file): \(differing) of \(mine.count) values differ from Little CMS's")
        // The conversion does something, except for an sRGB profile, which the renders skip.
        let unchanged = mine == Self.everyColour
        #expect(unchanged == (ccolour_is_identity(ours) == 1))
        #expect(unchanged == file.hasSuffix("d-debian.jpg"), "\(file): unchanged \(unchanged)")
    }

    @Test("A matrix/TRC profile whose fixed-point sums could pass 32 bits goes to Little CMS, with its bytes")
    func wideMatrixToLittleCMS() throws {
        // Display P3 with its colorants six times as large: matrix entries up to 7.3, within
        // what the fixed point takes one by one, but a row's sum would overflow 32 bits.
        var profile = try #require(try RenderFiles.decoded(RenderFiles.displayP3, shrink: 8).profile)
        func word(_ at: Int) -> Int { profile[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) } }
        var scaled = 0
        for entry in 0..<word(128) {
            let at = 132 + entry * 12
            guard ["rXYZ", "gXYZ", "bXYZ"].contains(String(decoding: profile[at..<(at + 4)], as: UTF8.self)) else {
                continue
            }
            for value in 0..<3 {
                let offset = word(at + 4) + 8 + value * 4
                let times = UInt32(truncatingIfNeeded: Int32(truncatingIfNeeded: word(offset)) * 6)
                for byte in 0..<4 { profile[offset + byte] = UInt8((times >> (24 - 8 * UInt32(byte))) & 0xFF) }
            }
            scaled += 1
        }
        #expect(scaled == 3)
        let ours = try #require(profile.withUnsafeBytes { ccolour_rgb_to_srgb($0.baseAddress, $0.count) })
        defer { ccolour_free(ours) }
        let reference = try #require(profile.withUnsafeBytes { ccolour_lcms_rgb_to_srgb($0.baseAddress, $0.count) })
        defer { ccolour_free(reference) }
        #expect(ccolour_is_little_cms(ours) == 1)
        let same = converted(by: ours) == converted(by: reference)
        #expect(same, "other bytes than Little CMS's")
    }

    @Test("A profile's transform is made once and kept")
    func kept() throws {
        let (_, p3) = try RenderFiles.decoded(RenderFiles.displayP3, shrink: 8)
        let profile = try #require(p3)
        let transforms = ColourTransforms(keeping: 4)
        var seen: [UnsafeMutableRawPointer] = []
        for _ in 0..<3 {
            _ = try transforms.withTransformToSRGB(from: profile) { transform throws(ImagingError) in
                seen.append(transform)
            }
        }
        #expect(seen.count == 3 && Set(seen).count == 1, "one transform, used three times")
        #expect(transforms.count == 1)
    }

    @Test("A profile Little CMS does not read goes to libvips, remembered; a full cache makes transforms for one use")
    func fallbacks() throws {
        let transforms = ColourTransforms(keeping: 1)
        #expect(
            try transforms.withTransformToSRGB(from: [UInt8](repeating: 7, count: 200)) { _ throws(ImagingError) in true
            } == nil)
        #expect(transforms.count == 1, "the refusal is remembered")
        // Adobe RGB (1998), exiv2's sample profile.
        let adobe = [UInt8](try #require(FileManager.default.contents(atPath: try Corpus.path("exiv2/data/small.icc"))))
        #expect(try transforms.withTransformToSRGB(from: adobe) { _ throws(ImagingError) in true } == true)
        #expect(transforms.count == 1, "no room: made, used once and freed, not kept")
    }
}
