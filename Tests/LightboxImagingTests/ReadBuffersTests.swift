import Testing

@testable import LightboxImaging

/// The arrays whole files are read into, kept for the next file (`ReadBuffers`).
@Suite("Read buffers")
struct ReadBuffersTests {
    private func base(_ array: [UInt8]) -> UInt {
        array.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
    }

    /// A read of `count` bytes that writes `value` into all of them.
    private func read(_ buffers: ReadBuffers, _ count: Int, value: UInt8 = 1) -> [UInt8] {
        buffers.read(count: count) { buffer in
            buffer.update(repeating: value)
            return buffer.count
        }
    }

    @Test("An array given back is handed out again for a file it holds, at the file's size; a larger file gets another")
    func reuse() {
        let buffers = ReadBuffers(keptBytes: 32 << 20, keptArrays: 4, largest: 16 << 20)
        var first = read(buffers, 3 << 20)
        #expect(first.count == 3 << 20)
        let address = base(first)
        buffers.giveBack(first)
        first = []
        let second = read(buffers, 2 << 20, value: 2)
        #expect(second.count == 2 << 20 && second.allSatisfy { $0 == 2 })
        #expect(base(second) == address, "the same memory, already mapped")
        buffers.giveBack(second)
        let larger = read(buffers, 5 << 20)
        #expect(larger.count == 5 << 20 && base(larger) != address)
    }

    @Test(
        "A read that comes short holds what it read; an array still held when given back is never changed by the next read"
    )
    func valueSemantics() {
        let buffers = ReadBuffers(keptBytes: 32 << 20, keptArrays: 4, largest: 16 << 20)
        let short = buffers.read(count: 2 << 20) { _ in 1000 }
        #expect(short.count == 1000)
        var held = read(buffers, 2 << 20)
        held[100] = 42
        buffers.giveBack(held)
        let next = read(buffers, 2 << 20, value: 9)
        #expect(held[100] == 42 && held.count == 2 << 20)
        #expect(next[100] == 9)
    }

    @Test("Arrays over the largest size, or beyond the kept bytes and count, are let go, the oldest first")
    func limits() {
        let buffers = ReadBuffers(keptBytes: 8 << 20, keptArrays: 2, largest: 4 << 20)
        buffers.giveBack(read(buffers, 6 << 20))
        #expect(buffers.held.arrays == 0, "over the largest size")
        var arrays = (0..<3).map { _ in read(buffers, 3 << 20) }
        let addresses = arrays.map(base)
        for array in arrays { buffers.giveBack(array) }
        // Held here too, the next read would copy them.
        arrays = []
        #expect(buffers.held.arrays == 2 && buffers.held.bytes <= 8 << 20)
        // The two given back last are kept.
        let again = [read(buffers, 3 << 20), read(buffers, 3 << 20)]
        #expect(Set(again.map(base)) == Set(addresses.dropFirst()))
        #expect(buffers.held.arrays == 0)
    }
}
