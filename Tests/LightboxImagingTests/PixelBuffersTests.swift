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
}
