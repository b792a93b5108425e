import CVips
import Glibc
import Synchronization

/// Large pixel buffers of decoded and resized images, kept for the next image rather than
/// given back to the system.
///
/// glibc maps every block of 256 KB or more afresh (libvips' start-up in `Vips` tells it to,
/// so that freed images do not stay in its heaps), and the kernel zeroes and maps each new
/// page on first touch: a fresh block the size of a decoded photo costs milliseconds of page
/// faults, a reused one nothing. Buffers are plain `malloc` blocks, so code that only knows
/// `free` may release one.
final class PixelBuffers: Sendable {
    /// The buffers of every render: enough for two in flight at a time (a decode and a resize
    /// each) of 12 MP photos at 1/2, and at most 32 MB held while nothing renders.
    static let shared = PixelBuffers(keptBytes: 32 << 20, keptBlocks: 4)

    /// Blocks smaller than this go straight back to `free`: they cost little to map again.
    static let smallest = 1 << 20

    let keptBytes: Int
    let keptBlocks: Int

    /// Blocks by address (raw pointers are not `Sendable`); the list owns them.
    private let kept: Mutex<KeptBlocks<UInt>>

    /// At most `keptBytes` in at most `keptBlocks` blocks are kept, the ones given back last.
    init(keptBytes: Int, keptBlocks: Int) {
        self.keptBytes = keptBytes
        self.keptBlocks = keptBlocks
        kept = Mutex(KeptBlocks(limitBytes: keptBytes, limitBlocks: keptBlocks))
    }

    deinit {
        kept.withLock { kept in
            for kept in kept.blocks { free(UnsafeMutableRawPointer(bitPattern: kept.block)) }
        }
    }

    /// How many bytes are kept now.
    var keptNow: (bytes: Int, blocks: Int) { kept.withLock { ($0.bytes, $0.blocks.count) } }

    /// A block of at least `size` bytes: the smallest kept one that fits without wasting more
    /// than its size again, or a new one. Nil when memory runs out.
    func allocate(_ size: Int) -> UnsafeMutableRawPointer? {
        if size >= Self.smallest, let reused = kept.withLock({ $0.take(atLeast: size) }) {
            return UnsafeMutableRawPointer(bitPattern: reused)
        }
        let block = malloc(max(1, size))
        if let block { Self.adviseHugePages(block, size) }
        return block
    }

    /// Asks the kernel to back the 2 MB-aligned part of a fresh block with huge pages (where
    /// transparent huge pages are on, or left to `madvise` as Debian leaves them): one fault
    /// and one zeroing per 2 MB instead of 512 of each. Page faults were a good part of the CPU
    /// time of `lightbox thumbnail` on JPEGs, and on two threads the faults of one stall the
    /// other's. Blocks under 2 MB are left alone; a
    /// block only partly covered keeps small pages at its ends, so nothing is held beyond it.
    static func adviseHugePages(_ block: UnsafeMutableRawPointer, _ size: Int) {
        let huge = 2 << 20
        let start = (UInt(bitPattern: block) + UInt(huge - 1)) & ~UInt(huge - 1)
        let end = (UInt(bitPattern: block) + UInt(size)) & ~UInt(huge - 1)
        guard end > start, let aligned = UnsafeMutableRawPointer(bitPattern: start) else { return }
        _ = madvise(aligned, Int(end - start), MADV_HUGEPAGE)
    }

    /// Keeps `pointer` (a block from `malloc`) for a later image, or frees it.
    func release(_ pointer: UnsafeMutableRawPointer?) {
        guard let pointer else { return }
        let capacity = malloc_usable_size(pointer)
        guard capacity >= Self.smallest, capacity <= keptBytes else { return free(pointer) }
        let dropped = kept.withLock { $0.keep(UInt(bitPattern: pointer), capacity: capacity) }
        for block in dropped { free(UnsafeMutableRawPointer(bitPattern: block)) }
    }

    /// Frees every kept block: before work that has no use for them, whose peak they would
    /// only add to (a full-size render streams through libvips).
    func releaseKept() {
        for block in kept.withLock({ $0.takeAll() }) { free(UnsafeMutableRawPointer(bitPattern: block)) }
    }

    /// Sets what every render needs of the process's allocator, once (a render calls it first,
    /// whether or not it opens libvips).
    static func prepareProcess() { _ = processPrepared }

    private static let processPrepared: Void = {
        // Decoded photos are megabytes each. glibc serves such blocks from its heaps once a
        // large block has been freed (its mmap threshold grows), and keeps the freed memory:
        // two threads decoding 24 MP photos then hold far more than they use. A fixed
        // threshold maps every block of 256 KB or more and gives it back on free. Someone who
        // set MALLOC_MMAP_THRESHOLD_ themselves keeps their choice.
        if getenv("MALLOC_MMAP_THRESHOLD_") == nil {
            Vips.mapLargeBlocks(from: 256 << 10)
        }
        // Blocks under that come from the heaps, and a fixed threshold also fixes the point
        // (128 KB) past which glibc gives the free top of a heap back to the system: a small
        // thumbnail's blocks, freed at the top, were given back after every image and faulted
        // in again for the next. Keeping 4 MB (each thread's heap at most) stops that.
        if getenv("MALLOC_TRIM_THRESHOLD_") == nil {
            Vips.keepHeapTop(upTo: 4 << 20)
        }
    }()

    /// The shared `allocate` for C (`cjpeg_decode`).
    static let allocateForC: @convention(c) (Int) -> UnsafeMutableRawPointer? = { shared.allocate($0) }

    /// The shared `release` for a libvips image that wraps a block (`cvips_image_take_memory`).
    static let releaseForVips: @convention(c) (UnsafeMutablePointer<VipsImage>?, UnsafeMutableRawPointer?) -> Void = {
        _, pointer in shared.release(pointer)
    }
}
