import CResample
import Foundation
import LightboxTestSupport
import Testing

@testable import LightboxImaging

/// Decoded images turned upright by their EXIF orientation (`corient`), against libvips'
/// `vips_autorot`, which it stands in for.
@Suite("Turning decoded images upright")
struct OrientationTests {
    @Test(
        "Every orientation moves the pixels as vips_autorot does, RGB and grey",
        arguments: [
            (RenderFiles.phone, 8), ("piexif/images/02.jpg", 2),
        ])
    func sameAsLibvips(file: String, shrink: Int) throws {
        for orientation in 1...8 {
            let image = try RenderFiles.decoded(file, shrink: shrink).image
            let ours = try Vips.upright(image, orientation: orientation, path: file)
            let libvips = try Vips.uprightWithLibvips(
                try RenderFiles.decoded(file, shrink: shrink).image, orientation: orientation, path: file)
            #expect((ours.width, ours.height, ours.bands) == (libvips.width, libvips.height, libvips.bands))
            #expect(try Vips.pixels(ours) == (try Vips.pixels(libvips)), "\(file), orientation \(orientation)")
            // Moved by corient, not handed to libvips.
            let pixels = try Vips.pixels(image)
            var direct = [UInt8](repeating: 0, count: pixels.count)
            #expect(
                corient(
                    pixels, Int32(image.width), Int32(image.height), image.width * image.bands, Int32(image.bands),
                    Int32(orientation), &direct, ours.width * ours.bands) == 0)
            #expect(try Vips.pixels(ours) == direct, "\(file), orientation \(orientation)")
        }
    }

    @Test("Orientations and band counts it cannot take are refused")
    func refused() {
        let pixels = [UInt8](repeating: 1, count: 4 * 3 * 5)
        var out = [UInt8](repeating: 0, count: pixels.count)
        for (orientation, bands) in [(0, 3), (9, 3), (1, 5), (6, 0)] {
            #expect(corient(pixels, 4, 3, 4 * 5, Int32(bands), Int32(orientation), &out, 4 * 5) == -1)
        }
        // Too narrow an output stride for a turned image (3 pixels wide, not 4).
        #expect(corient(pixels, 4, 3, 4 * 3, 3, 6, &out, 2 * 3) == -1)
    }
}
