import Foundation
import LightboxStore

extension Asset: FetchableObject {}

/// The ordered result of a fetch (PhotoKit's `PHFetchResult`): synchronous and lazy.
///
/// A fetch compiles its query once and reads the first row ids at once; the rest of the ids,
/// the count and the objects are read from the same database snapshot as they are asked for.
/// Objects are loaded in batches and recent batches are kept. A result never changes under
/// its reader, whatever is committed later; fetch again to see changes.
///
/// Costs, for a result over N rows: `count` is one aggregate query (a sum over a few tally
/// rows for fetches without a predicate); `object(at: i)` reads the ids up to `i` the first
/// time, growing the read prefix at least twofold each time, so that walking the whole
/// result reads its ids about once; `index(of:)` and change details read every id.
///
/// ```swift
/// let result = try library.fetchAssets(options: FetchOptions())
/// print(result.count, result.firstObject?.creationDate as Any)
/// for asset in result { ... }          // loads 100 at a time
/// ```
public final class FetchResult<ObjectType: FetchableObject>: @unchecked Sendable {
    // @unchecked: the `let`s never change after init; `ids`, `complete`, `knownCount`,
    // `mediaTypeCounts` and the batch caches are read and written only while holding `lock`.
    /// Where a fetched result reads its rows; nil for one made in memory.
    let source: (any FetchSource<ObjectType>)?
    /// The objects of a result made in memory (transient collections), else nil.
    private let memory: [ObjectType]?
    /// Runs the same fetch again on the library as it is now (for change details).
    let refetch: (@Sendable () throws -> FetchResult<ObjectType>)?
    /// Whether change details for this result compute indexes (the fetch options said so).
    let wantsIncrementalChangeDetails: Bool

    private let lock = NSLock()
    /// The row ids read so far: a prefix of the result, all of it once `complete`.
    private var ids: [Int64]
    private var complete: Bool
    private var knownCount: Int?
    private var mediaTypeCounts: [Int: Int] = [:]
    private var batches: [Int: [ObjectType]] = [:]
    private var batchUse: [Int] = []

    /// How many objects are loaded at a time.
    static var batchSize: Int { 100 }
    /// How many batches are kept.
    static var keptBatches: Int { 16 }
    /// How many row ids a fetch reads at once (and the least any later read takes).
    static var firstWindow: Int { 1_000 }

    /// A result read lazily from `source`: reads its first window of ids now, so that a query
    /// the database refuses fails the fetch, not a later access.
    init(
        source: any FetchSource<ObjectType>, refetch: (@Sendable () throws -> FetchResult<ObjectType>)? = nil,
        wantsIncrementalChangeDetails: Bool = true
    ) throws {
        self.source = source
        self.memory = nil
        self.refetch = refetch
        self.wantsIncrementalChangeDetails = wantsIncrementalChangeDetails
        let window = source.limit > 0 ? Swift.min(source.limit, Self.firstWindow) : Self.firstWindow
        ids = try source.rowIDs(offset: 0, count: window)
        complete = ids.count < window || ids.count == source.limit
        knownCount = complete ? ids.count : nil
    }

    /// A result made in memory from objects (PhotoKit's transient results): usable wherever
    /// a fetched one is. Objects are matched by identifier, as in any result.
    public init(objects: [ObjectType]) {
        memory = objects
        ids = objects.map { Self.memoryRowID($0.localIdentifier) }
        complete = true
        knownCount = objects.count
        for object in objects {
            if let asset = object as? Asset { mediaTypeCounts[asset.mediaType.rawValue, default: 0] += 1 }
        }
        source = nil
        refetch = nil
        wantsIncrementalChangeDetails = true
    }

    /// An empty result.
    public convenience init() {
        self.init(objects: [])
    }

    /// A row id for an object held in memory: a 64-bit FNV-1a hash of its identifier, so two
    /// results made of the same objects diff as the same rows.
    private static func memoryRowID(_ localIdentifier: String) -> Int64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in localIdentifier.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return Int64(bitPattern: hash)
    }

    /// The number of objects. The first call on a large result runs one count query.
    public var count: Int {
        lock.lock()
        defer { lock.unlock() }
        if let knownCount { return knownCount }
        let counted = readOrTrap { try source!.count() }
        knownCount = counted
        if counted == ids.count { complete = true }
        return counted
    }

    /// The object at `index` (0 ..< count). Loads its batch when it is not in memory.
    ///
    /// Traps on an index out of range, like an array; a read error of the library's disk
    /// (the snapshot's rows cannot vanish) also traps, as PhotoKit's result cannot throw.
    public func object(at index: Int) -> ObjectType {
        precondition(index >= 0, "FetchResult index \(index) is negative")
        if let memory {
            precondition(index < memory.count, "FetchResult index \(index) out of range 0..<\(memory.count)")
            return memory[index]
        }
        let batch = index / Self.batchSize
        lock.lock()
        if let objects = batches[batch] {
            touch(batch)
            lock.unlock()
            precondition(index % Self.batchSize < objects.count, "FetchResult index \(index) out of range")
            return objects[index % Self.batchSize]
        }
        let start = batch * Self.batchSize
        let batchIDs: [Int64]
        if let far = farBatchIDs(start) {
            // Far past what is read (a jump into a large result): that batch's ids alone.
            guard index - start < far.count else {
                lock.unlock()
                preconditionFailure("FetchResult index \(index) out of range")
            }
            batchIDs = far
        } else {
            readIDs(through: start + Self.batchSize - 1)
            guard index < ids.count else {
                let count = ids.count
                lock.unlock()
                preconditionFailure("FetchResult index \(index) out of range 0..<\(count)")
            }
            batchIDs = Array(ids[start..<Swift.min(start + Self.batchSize, ids.count)])
        }
        lock.unlock()
        let objects = readOrTrap { try load(batchIDs) }
        lock.lock()
        batches[batch] = objects
        touch(batch)
        while batchUse.count > Self.keptBatches {
            batches[batchUse.removeFirst()] = nil
        }
        lock.unlock()
        return objects[index % Self.batchSize]
    }

    /// The object at `index`.
    public subscript(index: Int) -> ObjectType { object(at: index) }

    /// The first object, or nil when empty.
    public var firstObject: ObjectType? {
        lock.lock()
        let empty = ids.isEmpty  // the first window is read at the fetch
        lock.unlock()
        return empty ? nil : object(at: 0)
    }

    /// The last object, or nil when empty.
    public var lastObject: ObjectType? { count > 0 ? object(at: count - 1) : nil }

    /// The objects at the given indexes, in order.
    public func objects(at indexes: some Sequence<Int>) -> [ObjectType] {
        indexes.map(object(at:))
    }

    /// The index of an object in the result (matched by identifier), or nil. Looks through
    /// the ids read so far, then reads the rest.
    public func index(of object: ObjectType) -> Int? {
        let rowID: Int64
        if memory != nil {
            rowID = Self.memoryRowID(object.localIdentifier)
        } else {
            guard let found = try? source?.rowIDs(forLocalIdentifiers: [object.localIdentifier]).first else {
                return nil
            }
            rowID = found
        }
        lock.lock()
        defer { lock.unlock() }
        if let index = ids.firstIndex(of: rowID) { return index }
        guard !complete else { return nil }
        let searched = ids.count
        readIDs(through: .max)
        return ids[searched...].firstIndex(of: rowID)
    }

    /// Every row id of the result, in order (reads those not read yet).
    var allRowIDs: [Int64] {
        lock.lock()
        defer { lock.unlock() }
        readIDs(through: .max)
        return ids
    }

    /// The row ids, in this result's snapshot, of the objects with these identifiers.
    func rowIDs(forLocalIdentifiers identifiers: Set<String>) -> Set<Int64> {
        if memory != nil { return Set(identifiers.map(Self.memoryRowID)) }
        guard let source, !identifiers.isEmpty else { return [] }
        let found = try? source.rowIDs(forLocalIdentifiers: Array(identifiers))
        return Set(found ?? [])
    }

    /// Whether the result holds the object (matched by identifier).
    public func contains(_ object: ObjectType) -> Bool {
        index(of: object) != nil
    }

    /// Calls `body` with each object and its index until it sets `stop`.
    public func enumerateObjects(_ body: (ObjectType, Int, inout Bool) throws -> Void) rethrows {
        var stop = false
        for index in 0..<count {
            try body(object(at: index), index, &stop)
            if stop { return }
        }
    }

    /// How many of the result's assets are of the given media type (0 for other classes).
    /// The first call for a type on a large result runs one count query.
    public func countOfAssets(with mediaType: AssetMediaType) -> Int {
        lock.lock()
        defer { lock.unlock() }
        if let counted = mediaTypeCounts[mediaType.rawValue] { return counted }
        guard let source, source.countsMediaTypes else { return 0 }
        let counted = readOrTrap { try source.count(mediaType: mediaType.rawValue) }
        mediaTypeCounts[mediaType.rawValue] = counted
        return counted
    }

    /// Reads row ids until `index` is read or the result ends. Call while holding `lock`.
    ///
    /// Each read at least doubles the prefix read so far, so the rows skipped by the query's
    /// offset never outnumber the rows read, and reading a result piece by piece costs about
    /// one read of it.
    private func readIDs(through index: Int) {
        guard !complete, index >= ids.count, let source else { return }
        let wanted = index == .max ? -1 : Swift.max(index + 1 - ids.count, ids.count, Self.firstWindow)
        let remaining = source.limit > 0 ? source.limit - ids.count : -1
        let window = wanted < 0 ? remaining : (remaining < 0 ? wanted : Swift.min(wanted, remaining))
        let offset = ids.count
        let more = readOrTrap { try source.rowIDs(offset: offset, count: window) }
        ids += more
        if window < 0 || more.count < window || ids.count == source.limit || ids.count == knownCount {
            complete = true
            knownCount = ids.count
        }
    }

    /// The ids of the batch at `start` read by themselves, when it lies more than twice as far
    /// as the ids read so far: a timeline's jump three quarters into a million assets reads
    /// 100 ids after the query skips the rest, not the 750,000 before them. Nil when the batch
    /// is near enough to read the prefix through it (walking a result stays one read of it).
    private func farBatchIDs(_ start: Int) -> [Int64]? {
        guard !complete, let source, start > 2 * ids.count + Self.firstWindow else { return nil }
        let count = source.limit > 0 ? Swift.min(Self.batchSize, source.limit - start) : Self.batchSize
        guard count > 0 else { return [] }
        return readOrTrap { try source.rowIDs(offset: start, count: count) }
    }

    /// Reads from the source; a read error traps, as PhotoKit's results cannot throw.
    private func readOrTrap<T>(_ body: () throws -> T) -> T {
        do {
            return try body()
        } catch {
            fatalError("Lightbox could not read the library for a fetch result: \(error)")
        }
    }

    private func touch(_ batch: Int) {
        batchUse.removeAll { $0 == batch }
        batchUse.append(batch)
    }

    private func load(_ batchIDs: [Int64]) throws -> [ObjectType] {
        let loaded = try source!.objects(batchIDs)
        return try batchIDs.map { id in
            guard let object = loaded[id] else {
                throw LibraryError(.storageFailed, "row \(id) is missing from the snapshot it was fetched from")
            }
            return object
        }
    }
}

extension FetchResult: RandomAccessCollection {
    /// 0.
    public var startIndex: Int { 0 }
    /// ``count``.
    public var endIndex: Int { count }
}
