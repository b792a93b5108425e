import CVips
import Dispatch
import Foundation
import LightboxTestSupport
import Synchronization
import Testing

@testable import LightboxImaging

/// The pool of large pixel buffers renders reuse instead of mapping new memory for each image.
@Suite("Pixel buffers kept for the next image")
struct PixelBuffersTests {
    @Test("A block given back is handed out again for a size it fits, and not for one it would waste")
    func reuse() throws {
        let pool = PixelBuffers(keptBytes: 16 << 20, keptBlocks: 2)
        let first = try #require(pool.allocate(2 << 20))
        pool.release(first)
        #expect(pool.keptNow.blocks == 1)
        let again = try #require(pool.allocate(3 << 19))
        #expect(again == first, "a 1.5 MB request reuses the 2 MB block")
        #expect(pool.keptNow.blocks == 0)
        pool.release(again)
        let small = try #require(pool.allocate(1 << 20))
        #expect(small != first, "a 1 MB request does not take a block twice its size")
        #expect(pool.keptNow.blocks == 1)
        let large = try #require(pool.allocate(5 << 20))
        #expect(large != first, "a block too small is not handed out")
        pool.release(small)
        pool.release(large)
    }

    @Test("At most so many blocks and bytes are kept, the latest; small and huge blocks are freed")
    func limits() throws {
        let pool = PixelBuffers(keptBytes: 8 << 20, keptBlocks: 2)
        let blocks = (0..<3).compactMap { _ in pool.allocate(2 << 20) }
        #expect(blocks.count == 3)
        for block in blocks { pool.release(block) }
        #expect(pool.keptNow.blocks == 2)
        // The oldest went; the two kept are the last two given back.
        let reused = [pool.allocate(2 << 20), pool.allocate(2 << 20)]
        #expect(Set(reused.compactMap { $0 }) == Set(blocks.suffix(2)))
        for block in reused { pool.release(block) }
        pool.release(pool.allocate(4096))
        pool.release(pool.allocate(9 << 20))
        #expect(pool.keptNow.blocks == 2, "a 4 KB block and one larger than the pool are freed")
        #expect(pool.keptNow.bytes <= 8 << 20)
    }

    // A decoded JPEG is held as plain pixels until something asks for a libvips image; an
    // EditableImage is read from several threads, so the first ask must make one image only.
    @Test("Plain pixels become one libvips image, whichever threads ask first, with the same pixels")
    func plainPixelsWrapOnce() throws {
        let bytes = [UInt8](
            try Data(contentsOf: URL(fileURLWithPath: try Corpus.path("lomiri/backgrounds/Dragonfly_by_Bolly.jpg"))))
        for _ in 0..<50 {
            let image = try JPEGDecoder.decode(bytes, shrink: 8, path: "Dragonfly_by_Bolly.jpg", monitor: nil).image
            #expect(image.isPlain)
            var stride = 0
            let plain = try #require(image.memoryPixels(&stride))
            let seen = Mutex<Set<UInt>>([])
            let shared = EditableImage(image: image, scale: 1)
            DispatchQueue.concurrentPerform(iterations: 4) { _ in
                let address = UInt(bitPattern: shared.image.pointer)
                seen.withLock { _ = $0.insert(address) }
            }
            #expect(seen.withLock { $0.count } == 1, "one VipsImage for one image")
            // The wrapped image is the same memory, and libvips reads the same pixels.
            var wrappedStride = 0
            let wrapped = try #require(cvips_memory_pixels(image.pointer, &wrappedStride))
            #expect(wrapped == plain && wrappedStride == stride)
            #expect(Int(cvips_image_get_width(image.pointer)) == image.width)
            #expect(Int(cvips_image_get_bands(image.pointer)) == image.bands)
        }
    }
}
