import Testing

@testable import LightboxImaging

/// The arrays whole files are read into, kept for the next file (`ReadBuffers`).
@Suite("Read buffers")
struct ReadBuffersTests {
    private func base(_ array: [UInt8]) -> UInt {
        array.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
    }

    @Test("An array given back is handed out again for a file it holds, at the file's size; a larger file gets another")
    func reuse() {
        let buffers = ReadBuffers(keptBytes: 32 << 20, keptArrays: 4, largest: 16 << 20)
        var first = buffers.take(count: 3 << 20)
        #expect(first.count == 3 << 20)
        first[0] = 7
        let address = base(first)
        buffers.giveBack(first)
        first = []
        let second = buffers.take(count: 2 << 20)
        #expect(second.count == 2 << 20)
        #expect(base(second) == address, "the same memory, already mapped")
        buffers.giveBack(second)
        let larger = buffers.take(count: 5 << 20)
        #expect(larger.count == 5 << 20 && base(larger) != address)
    }

    @Test("An array still held when given back is never changed by the next file's read")
    func valueSemantics() {
        let buffers = ReadBuffers(keptBytes: 32 << 20, keptArrays: 4, largest: 16 << 20)
        var held = buffers.take(count: 2 << 20)
        held[100] = 42
        buffers.giveBack(held)
        var next = buffers.take(count: 2 << 20)
        next.withUnsafeMutableBufferPointer { $0.update(repeating: 9) }
        #expect(held[100] == 42 && held.count == 2 << 20)
        #expect(next[100] == 9)
    }

    @Test("Arrays over the largest size, or beyond the kept bytes and count, are let go, the oldest first")
    func limits() {
        let buffers = ReadBuffers(keptBytes: 8 << 20, keptArrays: 2, largest: 4 << 20)
        buffers.giveBack(buffers.take(count: 6 << 20))
        #expect(buffers.held.arrays == 0, "over the largest size")
        let arrays = (0..<3).map { _ in buffers.take(count: 3 << 20) }
        let addresses = arrays.map(base)
        for array in arrays { buffers.giveBack(array) }
        #expect(buffers.held.arrays == 2 && buffers.held.bytes <= 8 << 20)
        // The two given back last are kept.
        let again = [buffers.take(count: 3 << 20), buffers.take(count: 3 << 20)]
        #expect(Set(again.map(base)) == Set(addresses.dropFirst()))
        #expect(buffers.held.arrays == 0)
    }
}
