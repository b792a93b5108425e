import CJPEG
import Foundation
import LightboxTestSupport
import Testing

@testable import LightboxImaging

/// Thumbnails are encoded by libjpeg-turbo directly (`cjpeg_encode`), standing in for libvips'
/// `jpegsave` with the same settings: libvips is the oracle.
@Suite("JPEG encoding")
struct JPEGEncoderTests {
    /// What `cjpeg_encode` makes of the image's pixels, called directly.
    private func direct(_ image: VipsImageRef, quality: Int) throws -> [UInt8] {
        let pixels = try Vips.pixels(image)
        var output: UnsafeMutablePointer<UInt8>?
        var length = 0
        let status = cjpeg_encode(
            pixels, Int32(image.width), Int32(image.height), image.width * image.bands, Int32(image.bands),
            Int32(quality), &output, &length, nil, 0)
        try #require(status == CJPEG_OK)
        defer { free(output) }
        return Array(UnsafeBufferPointer(start: output, count: length))
    }

    @Test(
        "The same pixels as libvips' jpegsave: RGB at 4:2:0 and, from quality 90, 4:4:4; grey; a crop",
        arguments: [
            (RenderFiles.phone, 4, 82, false), (RenderFiles.phone, 4, 95, false), (RenderFiles.displayP3, 8, 90, true),
            ("piexif/images/02.jpg", 1, 82, false),
        ])
    func sameAsLibvips(file: String, shrink: Int, quality: Int, crop: Bool) throws {
        var image = try RenderFiles.decoded(file, shrink: shrink).image
        if crop {
            // A region libvips computes lazily: rendered into memory before encoding.
            image = try Vips.extract(image, left: 37, top: 11, width: image.width - 60, height: image.height - 40)
        }
        let ours = try Vips.encode(image, as: .jpeg, quality: quality)
        // Encoded by libjpeg-turbo directly, not handed back to libvips.
        #expect(ours == (try direct(image, quality: quality)))
        let libvips = try Vips.encodeWithLibvips(image, as: .jpeg, quality: quality)
        let (a, b) = (try Vips.decodeEncoded(ours), try Vips.decodeEncoded(libvips))
        #expect((a.width, a.height, a.bands) == (b.width, b.height, b.bands))
        // The same quantization tables, subsampling and DCT: identical pixels once decoded.
        #expect(try Vips.pixels(a) == (try Vips.pixels(b)), "\(file) at quality \(quality)")
        // The files differ only in their headers (libvips writes its resolution in the JFIF).
        #expect(abs(ours.count - libvips.count) < 64, "\(ours.count) bytes against \(libvips.count)")
    }

    @Test("Sizes and band counts JPEG cannot hold are refused with a reason")
    func refused() {
        var output: UnsafeMutablePointer<UInt8>?
        var length = 0
        var message = [CChar](repeating: 0, count: 128)
        let pixels = [UInt8](repeating: 0, count: 64)
        for (width, height, bands) in [(0, 4, 3), (4, 4, 2), (4, 4, 4), (70_000, 1, 1)] {
            let status = cjpeg_encode(
                pixels, Int32(width), Int32(height), width * bands, Int32(bands), 82, &output, &length, &message,
                message.count)
            #expect(status == CJPEG_UNSUPPORTED && output == nil && length == 0)
            #expect(JPEGDecoder.text(message) == "an image JPEG cannot hold")
        }
    }
}
