import Foundation
import LightboxStore

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
        let afterIDs = after.allRowIDs
        let diff = RICEDiff(before: before.allRowIDs, after: afterIDs)
        removedIndexes = diff.removed
        insertedIndexes = diff.inserted
        moves = diff.moves
        let changedRows = after.rowIDs(forLocalIdentifiers: changedIdentifiers)
        if changedRows.isEmpty {
            changedIndexes = []
        } else {
            // Changed: in both results, and among the changed rows.
            let inserted = Set(diff.inserted)
            changedIndexes = afterIDs.indices.filter { index in
                changedRows.contains(afterIDs[index]) && !inserted.contains(index)
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
        // What the two lists share at their start and at their end stays where it is: ids
        // are distinct, so nothing there can be removed, inserted or moved. Only the middle
        // is compared, which is all of it when every object moved and nothing when none did.
        let shorter = Swift.min(before.count, after.count)
        var prefix = 0
        while prefix < shorter && before[prefix] == after[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < shorter - prefix && before[before.count - 1 - suffix] == after[after.count - 1 - suffix] {
            suffix += 1
        }
        let oldMiddle = before[prefix..<(before.count - suffix)]
        let newMiddle = after[prefix..<(after.count - suffix)]
        guard !oldMiddle.isEmpty || !newMiddle.isEmpty else { return }

        let afterSet = Set(newMiddle)
        let beforeSet = Set(oldMiddle)
        removed = oldMiddle.indices.filter { !afterSet.contains(before[$0]) }
        inserted = newMiddle.indices.filter { !beforeSet.contains(after[$0]) }
        // The middle once removals and insertions are applied: the kept objects in their old
        // order, in the slots the inserted ones leave free.
        let kept = oldMiddle.filter { afterSet.contains($0) }
        var list: [Int64] = []
        list.reserveCapacity(newMiddle.count)
        var next = kept.makeIterator()
        for id in newMiddle {
            if !beforeSet.contains(id) {
                list.append(id)
            } else if let keptID = next.next() {
                list.append(keptID)
            }
        }
        let target = Array(newMiddle)
        guard list != target else { return }
        // Front to back, each object not yet at its final index moves straight there; every
        // index before it is then final, so no move undoes an earlier one. Indexes in the
        // middle are offset by the shared prefix.
        var position: [Int64: Int] = [:]
        for (index, id) in list.enumerated() { position[id] = index }
        for slot in target.indices where list[slot] != target[slot] {
            let id = target[slot]
            guard let from = position[id] else { continue }
            list.remove(at: from)
            list.insert(id, at: slot)
            for index in slot...from { position[list[index]] = index }
            moves.append((from: from + prefix, to: slot + prefix))
        }
    }
}
