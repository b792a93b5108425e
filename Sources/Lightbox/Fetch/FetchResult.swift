import Foundation
import GRDB

/// An object a fetch can return: an immutable snapshot with a stable identifier.
public protocol FetchableObject: Sendable {
    /// Stable identifier, unique in the library.
    var localIdentifier: String { get }
}

extension Asset: FetchableObject {}

/// The ordered result of a fetch (PhotoKit's `PHFetchResult`): synchronous and lazy.
///
/// The fetch decides which objects, and in which order, once; objects are then loaded in
/// batches as they are asked for, and recent batches are kept. Everything is read from one
/// database snapshot taken at the fetch, so a result never changes under its reader, whatever
/// is committed later; fetch again to see changes.
///
/// ```swift
/// let result = try library.fetchAssets(options: FetchOptions())
/// print(result.count, result.firstObject?.creationDate as Any)
/// for asset in result { ... }          // loads 100 at a time
/// ```
public final class FetchResult<ObjectType: FetchableObject>: @unchecked Sendable {
    // @unchecked: `rowIDs`, `mediaTypes`, `snapshot`, `memory` and `loader` never change after init; the
    // caches are read and written only while holding `lock`.
    let rowIDs: [Int64]
    private let mediaTypes: [UInt8]
    private let snapshot: DatabaseSnapshot?
    /// The objects of a result made in memory (transient collections), else nil.
    private let memory: [ObjectType]?
    private let loader: @Sendable (Database, [Int64]) throws -> [Int64: ObjectType]
    private let rowIDLookup: @Sendable (Database, String) throws -> Int64?
    /// Runs the same fetch again on the library as it is now (for change details).
    let refetch: (@Sendable () throws -> FetchResult<ObjectType>)?
    /// Whether change details for this result compute indexes (the fetch options said so).
    let wantsIncrementalChangeDetails: Bool

    private let lock = NSLock()
    private var batches: [Int: [ObjectType]] = [:]
    private var batchUse: [Int] = []
    private var positions: [Int64: Int]?

    /// How many objects are loaded at a time.
    static var batchSize: Int { 100 }
    /// How many batches are kept.
    static var keptBatches: Int { 16 }

    init(
        rowIDs: [Int64], mediaTypes: [UInt8], snapshot: DatabaseSnapshot?,
        loader: @escaping @Sendable (Database, [Int64]) throws -> [Int64: ObjectType],
        rowIDLookup: @escaping @Sendable (Database, String) throws -> Int64?,
        refetch: (@Sendable () throws -> FetchResult<ObjectType>)? = nil, wantsIncrementalChangeDetails: Bool = true
    ) {
        self.refetch = refetch
        self.wantsIncrementalChangeDetails = wantsIncrementalChangeDetails
        self.memory = nil
        self.rowIDs = rowIDs
        self.mediaTypes = mediaTypes
        self.snapshot = snapshot
        self.loader = loader
        self.rowIDLookup = rowIDLookup
    }

    /// A result made in memory from objects (PhotoKit's transient results): usable wherever
    /// a fetched one is. Objects are matched by identifier, as in any result.
    public init(objects: [ObjectType]) {
        memory = objects
        rowIDs = objects.map { Self.memoryRowID($0.localIdentifier) }
        mediaTypes = objects.map { ($0 as? Asset).map { UInt8(clamping: $0.mediaType.rawValue) } ?? 0 }
        snapshot = nil
        loader = { _, _ in [:] }
        rowIDLookup = { _, _ in nil }
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

    /// The number of objects.
    public var count: Int { rowIDs.count }

    /// The object at `index` (0 ..< count). Loads its batch when it is not in memory.
    ///
    /// Traps on an index out of range, like an array; a read error of the library's disk
    /// (the snapshot's rows cannot vanish) also traps, as PhotoKit's result cannot throw.
    public func object(at index: Int) -> ObjectType {
        precondition(index >= 0 && index < count, "FetchResult index \(index) out of range 0..<\(count)")
        if let memory { return memory[index] }
        let batch = index / Self.batchSize
        lock.lock()
        if let objects = batches[batch] {
            touch(batch)
            lock.unlock()
            return objects[index % Self.batchSize]
        }
        lock.unlock()
        let objects: [ObjectType]
        do {
            objects = try load(batch: batch)
        } catch {
            fatalError("Lightbox could not read the library to load fetch result objects: \(error)")
        }
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
    public var firstObject: ObjectType? { count > 0 ? object(at: 0) : nil }

    /// The last object, or nil when empty.
    public var lastObject: ObjectType? { count > 0 ? object(at: count - 1) : nil }

    /// The objects at the given indexes, in order.
    public func objects(at indexes: some Sequence<Int>) -> [ObjectType] {
        indexes.map(object(at:))
    }

    /// The index of an object in the result (matched by identifier), or nil.
    public func index(of object: ObjectType) -> Int? {
        let rowID: Int64
        if memory != nil {
            rowID = Self.memoryRowID(object.localIdentifier)
        } else {
            guard let snapshot, let found = try? snapshot.read({ db in try rowIDLookup(db, object.localIdentifier) }) else {
                return nil
            }
            rowID = found
        }
        lock.lock()
        defer { lock.unlock() }
        if positions == nil {
            var map: [Int64: Int] = [:]
            map.reserveCapacity(rowIDs.count)
            for (position, id) in rowIDs.enumerated() { map[id] = position }
            positions = map
        }
        return positions?[rowID]
    }

    /// The row ids, in this result's snapshot, of the objects with these identifiers.
    func rowIDs(forLocalIdentifiers identifiers: Set<String>) -> Set<Int64> {
        if memory != nil { return Set(identifiers.map(Self.memoryRowID)) }
        guard let snapshot, !identifiers.isEmpty else { return [] }
        let found = try? snapshot.read { db in try identifiers.compactMap { try rowIDLookup(db, $0) } }
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
    public func countOfAssets(with mediaType: AssetMediaType) -> Int {
        let raw = UInt8(mediaType.rawValue)
        return mediaTypes.reduce(0) { $0 + ($1 == raw ? 1 : 0) }
    }

    private func touch(_ batch: Int) {
        batchUse.removeAll { $0 == batch }
        batchUse.append(batch)
    }

    private func load(batch: Int) throws -> [ObjectType] {
        guard let snapshot else { return [] }
        let start = batch * Self.batchSize
        let ids = Array(rowIDs[start..<Swift.min(rowIDs.count, start + Self.batchSize)])
        let loaded = try snapshot.read { db in try loader(db, ids) }
        return try ids.map { id in
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
