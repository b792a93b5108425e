import Foundation

/// How a fetch result changed (PhotoKit's `PHFetchResultChangeDetails`).
///
/// Applied to a list showing ``fetchResultBeforeChanges`` in the order removals, insertions,
/// changes, moves ("RICE"), the details give ``fetchResultAfterChanges``:
/// 1. remove the objects at ``removedIndexes`` (indexes in the result before);
/// 2. insert ``insertedObjects`` at ``insertedIndexes`` (indexes in the result after),
///    in increasing order;
/// 3. reload the objects at ``changedIndexes`` (indexes in the result after);
/// 4. apply each of ``moves`` in turn: take the object at `from` out, put it back at `to`.
public struct FetchResultChangeDetails<ObjectType: FetchableObject>: Sendable {
    /// The result the details start from.
    public let fetchResultBeforeChanges: FetchResult<ObjectType>
    /// The result the details lead to.
    public let fetchResultAfterChanges: FetchResult<ObjectType>
    /// False when only the new result is known, not how to get there (reload everything).
    public let hasIncrementalChanges: Bool
    /// Indexes, in the result before, of the objects that left it.
    public let removedIndexes: [Int]
    /// Indexes, in the result after, of the objects that joined it.
    public let insertedIndexes: [Int]
    /// Indexes, in the result after, of objects in both whose content changed.
    public let changedIndexes: [Int]
    /// The moves that put the remaining objects in their new order, applied in turn.
    public let moves: [(from: Int, to: Int)]

    /// Whether any object moved.
    public var hasMoves: Bool { !moves.isEmpty }
    /// The objects that left, in the order of ``removedIndexes``.
    public var removedObjects: [ObjectType] { fetchResultBeforeChanges.objects(at: removedIndexes) }
    /// The objects that joined, in the order of ``insertedIndexes``.
    public var insertedObjects: [ObjectType] { fetchResultAfterChanges.objects(at: insertedIndexes) }
    /// The changed objects as they are now, in the order of ``changedIndexes``.
    public var changedObjects: [ObjectType] { fetchResultAfterChanges.objects(at: changedIndexes) }

    /// Calls `body` with each move, in order.
    public func enumerateMoves(_ body: (Int, Int) throws -> Void) rethrows {
        for move in moves { try body(move.from, move.to) }
    }

    /// The details between any two results of the same fetch (PhotoKit's
    /// `init(from:to:changedObjects:)`): objects are matched by identifier, and
    /// `changedObjects` (by identifier) says whose content changed.
    public init(from before: FetchResult<ObjectType>, to after: FetchResult<ObjectType>, changedObjects: [ObjectType]) {
        self.init(
            from: before, to: after, changedIdentifiers: Set(changedObjects.map(\.localIdentifier)),
            incremental: true)
    }

    init(
        from before: FetchResult<ObjectType>, to after: FetchResult<ObjectType>, changedIdentifiers: Set<String>,
        incremental: Bool
    ) {
        fetchResultBeforeChanges = before
        fetchResultAfterChanges = after
        hasIncrementalChanges = incremental
        let diff = RICEDiff(before: before.rowIDs, after: after.rowIDs)
        removedIndexes = diff.removed
        insertedIndexes = diff.inserted
        moves = diff.moves
        let changedRows = after.rowIDs(forLocalIdentifiers: changedIdentifiers)
        if changedRows.isEmpty {
            changedIndexes = []
        } else {
            let beforeSet = Set(before.rowIDs)
            changedIndexes = after.rowIDs.indices.filter { index in
                changedRows.contains(after.rowIDs[index]) && beforeSet.contains(after.rowIDs[index])
            }
        }
    }
}

/// The removals, insertions and moves between two lists of distinct row ids.
struct RICEDiff {
    var removed: [Int] = []
    var inserted: [Int] = []
    var moves: [(from: Int, to: Int)] = []

    init(before: [Int64], after: [Int64]) {
        let afterSet = Set(after)
        let beforeSet = Set(before)
        removed = before.indices.filter { !afterSet.contains(before[$0]) }
        inserted = after.indices.filter { !beforeSet.contains(after[$0]) }
        // The list once removals and insertions are applied: the kept objects in their old
        // order, in the slots the inserted ones leave free.
        let kept = before.filter { afterSet.contains($0) }
        var list: [Int64] = []
        list.reserveCapacity(after.count)
        var next = kept.makeIterator()
        for index in after.indices {
            if !beforeSet.contains(after[index]) {
                list.append(after[index])
            } else if let id = next.next() {
                list.append(id)
            }
        }
        guard list != after else { return }
        // Front to back, each object not yet at its final index moves straight there; every
        // index before it is then final, so no move undoes an earlier one.
        var position: [Int64: Int] = [:]
        for (index, id) in list.enumerated() { position[id] = index }
        for target in after.indices where list[target] != after[target] {
            let id = after[target]
            guard let from = position[id] else { continue }
            list.remove(at: from)
            list.insert(id, at: target)
            for index in target...from { position[list[index]] = index }
            moves.append((from: from, to: target))
        }
    }
}
