import Foundation

/// The faces nearest an embedding among up to millions, without comparing it with every one:
/// an inverted file. Embeddings are grouped around centres found by k-means on a sample; a
/// search compares the query with the centres, then only with the faces of the few nearest
/// groups. Up to 2,048 faces it is one group, an exact search.
///
/// Vectors are kept as `Float16` (half the memory of `Float`: 256 bytes a 128-number face, so
/// 256 MB for 1,000,000), distances computed in `Float`.
public struct FaceIndex: Sendable {
    /// How many numbers an embedding has.
    public let dimensions: Int

    /// The groups' centres, one after another.
    private var centres: [Float] = []
    /// Each group's faces: identifiers and vectors (`dimensions` each, one after another).
    private var groups: [Group] = [Group()]
    /// Where each face is: its group and its slot there.
    private var places: [Int64: (group: Int, slot: Int)] = [:]
    /// The count the groups were last made for: made again when the index is four times larger.
    private var trainedCount = 0

    struct Group: Sendable {
        var ids: [Int64] = []
        var vectors: [Float16] = []
    }

    /// Up to this many faces the index is one group, searched whole.
    static let exactLimit = 2_048

    public init(dimensions: Int) {
        precondition(dimensions > 0)
        self.dimensions = dimensions
    }

    /// How many faces it holds.
    public var count: Int { places.count }

    /// Whether it holds the face `id`.
    public func contains(_ id: Int64) -> Bool { places[id] != nil }

    /// Adds (or replaces) face `id`. Embeddings of another length are refused.
    public mutating func insert(_ id: Int64, embedding: [Float]) {
        precondition(
            embedding.count == dimensions, "an embedding of \(embedding.count) numbers in an index of \(dimensions)")
        remove(id)
        let group = centres.isEmpty ? 0 : nearestCentres(to: embedding, count: 1)[0]
        places[id] = (group, groups[group].ids.count)
        groups[group].ids.append(id)
        groups[group].vectors.append(contentsOf: embedding.map { Float16($0) })
        if count >= Self.exactLimit && count >= trainedCount * 4 { rebuild() }
    }

    /// Removes face `id`, when it is there.
    public mutating func remove(_ id: Int64) {
        guard let (group, slot) = places.removeValue(forKey: id) else { return }
        let last = groups[group].ids.count - 1
        if slot != last {
            let moved = groups[group].ids[last]
            groups[group].ids[slot] = moved
            for d in 0..<dimensions {
                groups[group].vectors[slot * dimensions + d] = groups[group].vectors[last * dimensions + d]
            }
            places[moved] = (group, slot)
        }
        groups[group].ids.removeLast()
        groups[group].vectors.removeLast(dimensions)
    }

    /// At most `count` faces within `distance` (Euclidean) of `embedding`, the nearest first
    /// (ties by identifier, so that every run answers the same).
    public func nearest(to embedding: [Float], count: Int, within distance: Float) -> [(id: Int64, distance: Float)] {
        precondition(embedding.count == dimensions)
        guard count > 0 else { return [] }
        let limit = distance * distance
        let probed = centres.isEmpty ? [0] : nearestCentres(to: embedding, count: probes)
        var found: [(id: Int64, distance: Float)] = []
        embedding.withUnsafeBufferPointer { query in
            for group in probed {
                let members = groups[group]
                members.vectors.withUnsafeBufferPointer { vectors in
                    for slot in 0..<members.ids.count {
                        let squared = Self.squaredDistance(query, vectors, from: slot * dimensions)
                        if squared <= limit { found.append((members.ids[slot], squared)) }
                    }
                }
            }
        }
        found.sort { $0.distance != $1.distance ? $0.distance < $1.distance : $0.id < $1.id }
        return found.prefix(count).map { ($0.id, $0.distance.squareRoot()) }
    }

    /// Groups searched per query: enough that a face's true neighbours are almost always in them.
    private var probes: Int { min(groups.count, max(8, groups.count / 16)) }

    private func nearestCentres(to embedding: [Float], count: Int) -> [Int] {
        let total = centres.count / dimensions
        var scored: [(Int, Float)] = []
        scored.reserveCapacity(total)
        embedding.withUnsafeBufferPointer { query in
            centres.withUnsafeBufferPointer { centres in
                for centre in 0..<total {
                    scored.append((centre, Self.squaredDistance(query, centres, from: centre * dimensions)))
                }
            }
        }
        if count == 1, let best = scored.min(by: { $0.1 != $1.1 ? $0.1 < $1.1 : $0.0 < $1.0 }) { return [best.0] }
        scored.sort { $0.1 != $1.1 ? $0.1 < $1.1 : $0.0 < $1.0 }
        return scored.prefix(count).map(\.0)
    }

    /// The squared distance from `query` to the vector at `start` of `vectors`, eight numbers at
    /// a time: a million faces are searched and grouped in seconds, not minutes.
    static func squaredDistance(
        _ query: UnsafeBufferPointer<Float>, _ vectors: UnsafeBufferPointer<Float16>, from start: Int
    ) -> Float {
        let count = query.count
        precondition(start >= 0 && start + count <= vectors.count)
        guard let q = query.baseAddress, let v = vectors.baseAddress else { return 0 }
        var sums = SIMD8<Float>()
        var d = 0
        while d + 8 <= count {
            let a = UnsafeRawPointer(q + d).loadUnaligned(as: SIMD8<Float>.self)
            let b = SIMD8<Float>(UnsafeRawPointer(v + start + d).loadUnaligned(as: SIMD8<Float16>.self))
            let difference = a - b
            sums += difference * difference
            d += 8
        }
        var sum = sums.sum()
        while d < count {
            let difference = q[d] - Float(v[start + d])
            sum += difference * difference
            d += 1
        }
        return sum
    }

    /// The same, between `query` and the centre at `start` of `centres`.
    static func squaredDistance(
        _ query: UnsafeBufferPointer<Float>, _ centres: UnsafeBufferPointer<Float>, from start: Int
    )
        -> Float
    {
        let count = query.count
        precondition(start >= 0 && start + count <= centres.count)
        guard let q = query.baseAddress, let c = centres.baseAddress else { return 0 }
        var sums = SIMD8<Float>()
        var d = 0
        while d + 8 <= count {
            let difference =
                UnsafeRawPointer(q + d).loadUnaligned(as: SIMD8<Float>.self)
                - UnsafeRawPointer(c + start + d).loadUnaligned(as: SIMD8<Float>.self)
            sums += difference * difference
            d += 8
        }
        var sum = sums.sum()
        while d < count {
            let difference = q[d] - c[start + d]
            sum += difference * difference
            d += 1
        }
        return sum
    }

    /// Makes the groups again for the faces it holds: about the square root of their count
    /// (at most 4,096), their centres found by eight rounds of k-means on a sample of at most
    /// 32 faces a group taken evenly in identifier order (so every run makes the same groups).
    private mutating func rebuild() {
        var all: [(id: Int64, vector: [Float])] = []
        all.reserveCapacity(count)
        for group in groups {
            for slot in 0..<group.ids.count {
                all.append(
                    (group.ids[slot], group.vectors[slot * dimensions..<(slot + 1) * dimensions].map { Float($0) }))
            }
        }
        all.sort { $0.id < $1.id }
        let groupCount = min(4_096, max(1, Int(Double(all.count).squareRoot())))
        let sampleStride = max(1, all.count / (groupCount * 32))
        let sample = stride(from: 0, to: all.count, by: sampleStride).map { all[$0].vector }
        var centres: [Float] = []
        centres.reserveCapacity(groupCount * dimensions)
        let centreStride = max(1, sample.count / groupCount)
        for index in stride(from: 0, to: sample.count, by: centreStride).prefix(groupCount) {
            centres.append(contentsOf: sample[index])
        }
        self.centres = centres
        for _ in 0..<8 {
            let total = self.centres.count / dimensions
            var sums = [Float](repeating: 0, count: total * dimensions)
            var counts = [Int](repeating: 0, count: total)
            for vector in sample {
                let centre = nearestCentres(to: vector, count: 1)[0]
                counts[centre] += 1
                for d in 0..<dimensions { sums[centre * dimensions + d] += vector[d] }
            }
            for centre in 0..<total where counts[centre] > 0 {
                for d in 0..<dimensions {
                    self.centres[centre * dimensions + d] = sums[centre * dimensions + d] / Float(counts[centre])
                }
            }
        }
        groups = Array(repeating: Group(), count: self.centres.count / dimensions)
        places = [:]
        for (id, vector) in all {
            let group = nearestCentres(to: vector, count: 1)[0]
            places[id] = (group, groups[group].ids.count)
            groups[group].ids.append(id)
            groups[group].vectors.append(contentsOf: vector.map { Float16($0) })
        }
        trainedCount = all.count
    }
}
