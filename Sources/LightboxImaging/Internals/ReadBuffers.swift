import Synchronization

/// The arrays whole files are read into for decoding (a JPEG or a HEIF held in memory), kept
/// for the next file rather than given back to the system.
///
/// A file read into a fresh array faults in every page of it as `pread` fills it: glibc maps
/// each block of 256 KB or more afresh (see ``PixelBuffers``), and a 1.5 MB HEIC or a 4 MB
/// JPEG is rarely 2 MB-aligned enough for a huge page. For 50 HEIC thumbnails that was 16,000
/// of the process's 27,700 page faults; on two threads, each file's `mmap` and `munmap` also
/// stopped the other thread's faults. An array kept here is already mapped: the next file is
/// copied into it.
///
/// Arrays are values: one still referenced when given back is copied on its next write, never
/// shared.
final class ReadBuffers: Sendable {
    /// Two arrays of up to 4 MB (an iPhone HEIC is 1 to 3 MB): keeping four of up to 16 MB
    /// raised the JPEG benchmark's peak by 14 MB for no time it could measure, the larger
    /// JPEGs' pages being mostly huge ones already (`PixelBuffers.adviseHugePages`).
    static let shared = ReadBuffers(keptBytes: 8 << 20, keptArrays: 2, largest: 4 << 20)

    let keptBytes: Int
    let keptArrays: Int
    let largest: Int

    private let kept = Mutex<[[UInt8]]>([])

    init(keptBytes: Int, keptArrays: Int, largest: Int) {
        self.keptBytes = keptBytes
        self.keptArrays = keptArrays
        self.largest = largest
    }

    /// How many arrays are kept, and their bytes.
    var held: (arrays: Int, bytes: Int) {
        kept.withLock { ($0.count, $0.reduce(0) { $0 + $1.capacity }) }
    }

    /// An array of `count` bytes whose values are undefined (another file's, or zero), to be
    /// overwritten: the smallest kept one that holds them, else a new one.
    func take(count: Int) -> [UInt8] {
        var array = kept.withLock { kept -> [UInt8] in
            let fitting = kept.indices.filter { kept[$0].capacity >= count }
            guard let best = fitting.min(by: { kept[$0].capacity < kept[$1].capacity }) else { return [] }
            return kept.remove(at: best)
        }
        if array.count > count {
            array.removeLast(array.count - count)
        } else if array.count < count {
            array.append(contentsOf: repeatElement(0, count: count - array.count))
        }
        return array
    }

    /// Keeps `array` for a later file, or lets it go: one over `largest`, or beyond the kept
    /// bytes and arrays (the oldest go first).
    func giveBack(_ array: [UInt8]) {
        let capacity = array.capacity
        guard capacity >= PixelBuffers.smallest, capacity <= largest else { return }
        let released: [[UInt8]] = kept.withLock { kept in
            kept.append(array)
            var released: [[UInt8]] = []
            while kept.count > keptArrays || kept.reduce(0, { $0 + $1.capacity }) > keptBytes {
                released.append(kept.removeFirst())
            }
            return released
        }
        // Freed outside the lock.
        _ = released
    }
}
