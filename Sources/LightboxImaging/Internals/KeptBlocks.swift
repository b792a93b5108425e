/// Memory blocks given back, kept for a later request they fit, oldest first: the policy of
/// ``PixelBuffers`` (decoded pixels) and ``ReadBuffers`` (files read whole). A fresh block
/// of megabytes costs a page fault for every page first touched; a kept one is mapped already.
struct KeptBlocks<Block> {
    /// At most `limitBytes` in at most `limitBlocks` blocks are kept, the ones given back last.
    let limitBytes: Int
    let limitBlocks: Int
    private(set) var blocks: [(block: Block, capacity: Int)] = []
    private(set) var bytes = 0

    init(limitBytes: Int, limitBlocks: Int) {
        self.limitBytes = limitBytes
        self.limitBlocks = limitBlocks
    }

    /// The smallest kept block of at least `size` bytes that wastes no more than its size again,
    /// taken out; nil when none fits.
    mutating func take(atLeast size: Int) -> Block? {
        let fitting = blocks.indices.filter { blocks[$0].capacity >= size && blocks[$0].capacity <= 2 * size }
        guard let best = fitting.min(by: { blocks[$0].capacity < blocks[$1].capacity }) else { return nil }
        let taken = blocks.remove(at: best)
        bytes -= taken.capacity
        return taken.block
    }

    /// Keeps `block`; returns the oldest ones beyond the limits, for the caller to free outside
    /// its lock.
    mutating func keep(_ block: Block, capacity: Int) -> [Block] {
        blocks.append((block, capacity))
        bytes += capacity
        var dropped: [Block] = []
        while bytes > limitBytes || blocks.count > limitBlocks {
            let oldest = blocks.removeFirst()
            bytes -= oldest.capacity
            dropped.append(oldest.block)
        }
        return dropped
    }

    /// Every kept block, taken out, for the caller to free outside its lock.
    mutating func takeAll() -> [Block] {
        defer { (blocks, bytes) = ([], 0) }
        return blocks.map(\.block)
    }
}

extension KeptBlocks: Sendable where Block: Sendable {}
