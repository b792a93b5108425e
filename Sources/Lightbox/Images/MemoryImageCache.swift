import LightboxImaging
import LightboxStore
import Synchronization

/// Encoded images kept in memory, bounded in bytes, the least recently used dropped first.
///
/// A hit is a dictionary lookup under a lock: well under the 50 microseconds a scrolling grid
/// can afford per cell. Eviction sorts by last use, which only runs when an insert goes over
/// the limit, and then frees a tenth of the budget at once.
final class MemoryImageCache: Sendable {
    private struct Entry {
        var image: EncodedImage
        var lastUse: Int
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var bytes = 0
        var clock = 0
    }

    /// The most bytes of encoded images held.
    let limit: Int
    private let state = Mutex(State())

    init(limit: Int) {
        self.limit = max(0, limit)
    }

    func image(forKey key: String) -> EncodedImage? {
        state.withLock { state in
            guard var entry = state.entries[key] else { return nil }
            state.clock += 1
            entry.lastUse = state.clock
            state.entries[key] = entry
            return entry.image
        }
    }

    func insert(_ image: EncodedImage, forKey key: String) {
        let size = image.bytes.count
        guard size <= limit else { return }
        state.withLock { state in
            state.clock += 1
            if let old = state.entries.updateValue(Entry(image: image, lastUse: state.clock), forKey: key) {
                state.bytes -= old.image.bytes.count
            }
            state.bytes += size
            guard state.bytes > limit else { return }
            let target = limit - limit / 10
            for (key, entry) in state.entries.sorted(by: { $0.value.lastUse < $1.value.lastUse }) {
                guard state.bytes > target else { break }
                state.entries[key] = nil
                state.bytes -= entry.image.bytes.count
            }
        }
    }
}
