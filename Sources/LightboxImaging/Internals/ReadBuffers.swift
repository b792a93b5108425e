import Synchronization

/// The arrays whole files are read into for decoding (a JPEG or a HEIF held in memory), kept
/// for the next file rather than given back to the system.
///
/// A file read into a fresh array faults in every page of it as `pread` fills it: glibc maps
/// large blocks afresh (see ``PixelBuffers``), and a photo's file is rarely aligned enough for
/// a huge page. Those faults were most of a HEIC batch's; on two threads, each file's `mmap`
/// and `munmap` also stopped the other thread's faults. An array kept here is already mapped:
/// the next file is copied into it.
///
/// Arrays are values: one still referenced when given back is copied on its next write, never
/// shared.
final class ReadBuffers: Sendable {
    /// Two arrays of up to 4 MB, an iPhone HEIC's size: keeping more and larger ones raised
    /// the JPEG benchmark's peak for no time it could measure, the larger JPEGs' pages being
    /// mostly huge ones already (`PixelBuffers.adviseHugePages`).
    static let shared = ReadBuffers(keptBytes: 8 << 20, keptArrays: 2, largest: 4 << 20)

    /// Arrays larger than this are never kept: a file that size gets a fresh array.
    let largest: Int

    private let kept: Mutex<KeptBlocks<[UInt8]>>

    init(keptBytes: Int, keptArrays: Int, largest: Int) {
        self.largest = largest
        kept = Mutex(KeptBlocks(limitBytes: keptBytes, limitBlocks: keptArrays))
    }

    /// How many arrays are kept, and their bytes.
    var held: (arrays: Int, bytes: Int) {
        kept.withLock { ($0.blocks.count, $0.bytes) }
    }

    /// Up to `count` bytes that `fill` writes into the buffer it is given (returning how many
    /// it wrote), in a kept array that holds them, else a fresh one: the array holds what
    /// `fill` wrote. Give it back with ``giveBack(_:)`` once done with.
    func read(count: Int, _ fill: (UnsafeMutableBufferPointer<UInt8>) -> Int) -> [UInt8] {
        guard count <= largest, var array = kept.withLock({ $0.take(atLeast: count) }) else {
            return Self.fresh(count: count, fill)
        }
        if array.count > count {
            array.removeLast(array.count - count)
        } else if array.count < count {
            array.append(contentsOf: repeatElement(0, count: count - array.count))
        }
        let written = array.withUnsafeMutableBufferPointer { fill($0) }
        if written < count { array.removeLast(count - written) }
        return array
    }

    /// The same in a fresh array, its 2 MB-aligned part advised to huge pages (a photo read
    /// into fresh small pages made a good part of the render's page faults).
    static func fresh(count: Int, _ fill: (UnsafeMutableBufferPointer<UInt8>) -> Int) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            if let base = buffer.baseAddress { PixelBuffers.adviseHugePages(UnsafeMutableRawPointer(base), count) }
            initialized = fill(buffer)
        }
    }

    /// Lets every kept array go, as ``PixelBuffers/releaseKept()`` does its blocks.
    func releaseKept() {
        let dropped = kept.withLock { $0.takeAll() }
        // Freed outside the lock.
        _ = dropped
    }

    /// Keeps `array` for a later file, or lets it go: one under a megabyte or over `largest`,
    /// or beyond the kept bytes and arrays (the oldest go first).
    func giveBack(_ array: [UInt8]) {
        let capacity = array.capacity
        guard capacity >= PixelBuffers.smallest, capacity <= largest else { return }
        let dropped = kept.withLock { $0.keep(array, capacity: capacity) }
        // Freed outside the lock.
        _ = dropped
    }
}
