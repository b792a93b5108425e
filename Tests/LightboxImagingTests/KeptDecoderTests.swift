import CVideo
import Foundation
import LightboxMetadata
import LightboxTestSupport
import Testing

/// FFmpeg's HEVC decoders, kept between files that share a configuration (`cvideo_hevc`).
@Suite("HEVC decoders kept between files")
struct KeptDecoderTests {
    /// The iPhone HEIC's tile configuration, its first tile, and its picture limit.
    private func iPhoneTile() throws -> (config: [UInt8], tile: [UInt8], limit: Int) {
        let bytes = [UInt8](try #require(FileManager.default.contents(atPath: try Corpus.path(RenderFiles.heic))))
        let layout = try #require(HEIFCodedImage.read(bytes, image: .primary))
        return (
            Array(bytes[layout.configuration]), layout.pictures[0].flatMap { bytes[$0] },
            (layout.pictureWidth + 64) * (layout.pictureHeight + 64)
        )
    }

    /// The parameter sets of an `hvcC` record as 4-byte length-prefixed NAL units.
    private func parameterSets(_ config: [UInt8]) -> [UInt8] {
        var units: [UInt8] = []
        var at = 23
        for _ in 0..<Int(config[22]) {
            let count = Int(config[at + 1]) << 8 | Int(config[at + 2])
            at += 3
            for _ in 0..<count {
                let length = Int(config[at]) << 8 | Int(config[at + 1])
                units += [0, 0, UInt8(length >> 8), UInt8(length & 0xFF)] + config[(at + 2)..<(at + 2 + length)]
                at += 2 + length
            }
        }
        return units
    }

    private func open(_ config: [UInt8], limit: Int) throws -> OpaquePointer {
        var decoder: OpaquePointer?
        try #require(cvideo_hevc_open(config, config.count, limit, &decoder, nil, 0) == CVIDEO_OK)
        return try #require(decoder)
    }

    private func decode(_ decoder: OpaquePointer, _ data: [UInt8]) -> (status: cvideo_status, luma: [UInt8]) {
        var picture = cvideo_picture()
        let status = cvideo_hevc_decode(decoder, data, data.count, &picture, nil, 0)
        guard status == CVIDEO_OK, let plane = picture.planes.0 else { return (status, []) }
        let luma = (0..<Int(picture.height)).flatMap { row in
            UnsafeBufferPointer(start: plane + row * Int(picture.strides.0), count: Int(picture.width))
        }
        return (status, luma)
    }

    @Test(
        "A decoder closed clean is handed out again for its configuration and limit and decodes the same pixels; one that met parameter sets of a picture's own, or a picture cut short, is not kept"
    )
    func kept() throws {
        let (config, tile, exact) = try iPhoneTile()
        // A limit no render uses: the decoder kept here is this test's alone.
        let limit = exact + 4321
        let first = try open(config, limit: limit)
        let fresh = decode(first, tile)
        #expect(fresh.status == CVIDEO_OK && cvideo_hevc_reusable(first) == 1)
        cvideo_hevc_close(first)
        let again = try open(config, limit: limit)
        #expect(again == first, "handed out again")
        let reused = decode(again, tile)
        let samePixels = reused.luma == fresh.luma
        #expect(reused.status == CVIDEO_OK && samePixels)
        let other = try open(config, limit: limit + 1)
        #expect(other != again, "another limit, another decoder")
        cvideo_hevc_close(other)

        // The same picture after the configuration's own parameter sets decodes, but the
        // decoder now holds what the picture said: it is not kept.
        let withSets = decode(again, parameterSets(config) + tile)
        #expect(withSets.status == CVIDEO_OK && cvideo_hevc_reusable(again) == 0)
        cvideo_hevc_close(again)

        // A picture cut short (its NAL unit's length runs past its bytes): not kept.
        let broken = try open(config, limit: limit)
        _ = decode(broken, Array(tile.prefix(tile.count / 2)))
        #expect(cvideo_hevc_reusable(broken) == 0)
        cvideo_hevc_close(broken)
    }
}
