import Foundation

/// The embeddings nearest one among up to millions (faces' for grouping people, photos' CLIP
/// embeddings for content search), without comparing it with every one: an inverted file.
/// Embeddings are grouped around centres found by k-means on a sample; a search compares the
/// query with the centres, then only with the members of the few nearest groups. Up to 2,048
/// members it is one group, an exact search. (The doc comments say faces, the first use.)
///
/// Vectors are kept as half-precision bit patterns (256 bytes a 128-number face, as the
/// catalog stores them), widened to `Float` eight at a time by integer arithmetic
/// (``HalfFloat``), which needs no half-precision instructions.
///
/// Faces added are assigned to a group when the index is next searched: a library's faces
/// loaded at once are grouped once, for their final count, not again at each fourfold growth.
public struct VectorIndex: Sendable {
    /// How many numbers an embedding has.
    public let dimensions: Int

    /// The groups' centres, one after another.
    private var centres: [Float] = []
    /// Each group's faces: identifiers and vectors (`dimensions` each, one after another).
    private var groups: [Group] = [Group()]
    /// Where each face is: its group and its slot there. Faces not yet assigned are in the
    /// last group, `pending`.
    private var places: [Int64: Place] = [:]
    /// Faces added since the groups were last assigned, searched whole.
    private var pending = Group()
    /// The count the groups were last made for: made again when the index is four times larger.
    private var trainedCount = 0

    struct Place: Sendable {
        /// The group, or -1 for `pending`.
        var group: Int32
        var slot: Int32
    }

    struct Group: Sendable {
        var ids: [Int64] = []
        var vectors: [UInt16] = []
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
        insert(id, halves: HalfFloat.narrow(embedding))
    }

    /// Adds (or replaces) face `id` from its half-precision bit patterns.
    public mutating func insert(_ id: Int64, halves: [UInt16]) {
        precondition(halves.count == dimensions, "an embedding of \(halves.count) numbers in an index of \(dimensions)")
        remove(id)
        places[id] = Place(group: -1, slot: Int32(pending.ids.count))
        pending.ids.append(id)
        pending.vectors.append(contentsOf: halves)
    }

    /// Face `id`'s embedding as the index holds it; nil for a face it does not hold.
    public func embedding(of id: Int64) -> [Float]? {
        guard let place = places[id] else { return nil }
        let group = place.group < 0 ? pending : groups[Int(place.group)]
        let start = Int(place.slot) * dimensions
        return group.vectors[start..<start + dimensions].map(HalfFloat.widen)
    }

    /// Removes face `id`, when it is there.
    public mutating func remove(_ id: Int64) {
        guard let place = places.removeValue(forKey: id) else { return }
        if place.group < 0 {
            Self.removeSlot(Int(place.slot), from: &pending, dimensions: dimensions, group: -1, places: &places)
        } else {
            Self.removeSlot(
                Int(place.slot), from: &groups[Int(place.group)], dimensions: dimensions, group: place.group,
                places: &places)
        }
    }

    /// Moves a group's last face into `slot`, and shortens the group.
    private static func removeSlot(
        _ slot: Int, from members: inout Group, dimensions: Int, group: Int32, places: inout [Int64: Place]
    ) {
        let last = members.ids.count - 1
        if slot != last {
            let moved = members.ids[last]
            members.ids[slot] = moved
            for d in 0..<dimensions { members.vectors[slot * dimensions + d] = members.vectors[last * dimensions + d] }
            places[moved] = Place(group: group, slot: Int32(slot))
        }
        members.ids.removeLast()
        members.vectors.removeLast(dimensions)
    }

    /// At most `count` faces within `distance` (Euclidean) of `embedding`, the nearest first
    /// (ties by identifier, so that every run answers the same). Assigns the faces added since
    /// the last search first, when there are many.
    /// `probing` is the share of the groups read, a sixteenth unless said: a query far from
    /// every member (a text's CLIP embedding, beside images') reads more.
    public mutating func nearest(to embedding: [Float], count: Int, within distance: Float, probing: Int = 16)
        -> [(id: Int64, distance: Float)]
    {
        precondition(embedding.count == dimensions)
        settle()
        guard count > 0 else { return [] }
        let limit = distance * distance
        let probes = min(groups.count, max(8, groups.count / max(1, probing)))
        let probed = centres.isEmpty ? [0] : nearestCentres(to: embedding, count: probes)
        var found: [(id: Int64, distance: Float)] = []
        embedding.withUnsafeBufferPointer { query in
            func scan(_ members: Group) {
                members.vectors.withUnsafeBufferPointer { vectors in
                    for slot in 0..<members.ids.count {
                        let squared = Self.squaredDistance(query, vectors, from: slot * dimensions)
                        if squared <= limit { found.append((members.ids[slot], squared)) }
                    }
                }
            }
            for group in probed { scan(groups[group]) }
            scan(pending)
        }
        found.sort { $0.distance != $1.distance ? $0.distance < $1.distance : $0.id < $1.id }
        return found.prefix(count).map { ($0.id, $0.distance.squareRoot()) }
    }

    /// Assigns pending faces to groups once they are many (a search does it first): makes the
    /// groups again when the index has grown fourfold since they were made (or first passes
    /// 2,048 faces), else puts each pending face in its nearest group.
    public mutating func settle() {
        guard pending.ids.count > max(Self.exactLimit / 4, trainedCount / 64) else { return }
        if count >= Self.exactLimit && count >= trainedCount * 4 {
            rebuild()
        } else if !centres.isEmpty {
            let moving = pending
            pending = Group()
            var vector = [Float](repeating: 0, count: dimensions)
            for (slot, id) in moving.ids.enumerated() {
                HalfFloat.widen(moving.vectors, from: slot * dimensions, into: &vector)
                append(id, moving.vectors[slot * dimensions..<(slot + 1) * dimensions], near: vector)
            }
        } else {
            // One group, searched whole: the pending faces join it.
            for (slot, id) in pending.ids.enumerated() {
                places[id] = Place(group: 0, slot: Int32(groups[0].ids.count + slot))
            }
            groups[0].ids += pending.ids
            groups[0].vectors += pending.vectors
            pending = Group()
        }
    }

    private mutating func append(_ id: Int64, _ halves: ArraySlice<UInt16>, near vector: [Float]) {
        let group = nearestCentres(to: vector, count: 1)[0]
        places[id] = Place(group: Int32(group), slot: Int32(groups[group].ids.count))
        groups[group].ids.append(id)
        groups[group].vectors.append(contentsOf: halves)
    }

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

    /// The squared distance from `query` to the half-precision vector at `start` of `vectors`,
    /// eight numbers at a time: a million faces are searched and grouped in seconds, not minutes.
    static func squaredDistance(
        _ query: UnsafeBufferPointer<Float>, _ vectors: UnsafeBufferPointer<UInt16>, from start: Int
    ) -> Float {
        let count = query.count
        precondition(start >= 0 && start + count <= vectors.count)
        guard let q = query.baseAddress, let v = vectors.baseAddress else { return 0 }
        var sums = SIMD8<Float>()
        var d = 0
        while d + 8 <= count {
            let a = UnsafeRawPointer(q + d).loadUnaligned(as: SIMD8<Float>.self)
            let b = HalfFloat.widen(UnsafeRawPointer(v + start + d).loadUnaligned(as: SIMD8<UInt16>.self))
            let difference = a - b
            sums += difference * difference
            d += 8
        }
        var sum = sums.sum()
        while d < count {
            let difference = q[d] - HalfFloat.widen(v[start + d])
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

    /// Makes the groups again for the faces it holds: a quarter of the square root of their
    /// count (at least one, at most 4,096; a search reads a sixteenth of the faces whatever the
    /// count, so fewer, larger groups cost a load less and a search no more), their centres
    /// found by eight rounds of k-means on a sample of at most 32 faces a group taken evenly in
    /// identifier order, and the faces put in them in that order (so every run makes the same
    /// groups). No face's vector is copied but into its new group.
    private mutating func rebuild() {
        var order: [(id: Int64, place: Place)] = []
        order.reserveCapacity(count)
        for (id, place) in places { order.append((id, place)) }
        order.sort { $0.id < $1.id }
        let groupCount = min(4_096, max(1, Int(Double(order.count).squareRoot() / 4)))
        let sampleStride = max(1, order.count / (groupCount * 32))
        var sample: [[Float]] = []
        var vector = [Float](repeating: 0, count: dimensions)
        for index in stride(from: 0, to: order.count, by: sampleStride) {
            let place = order[index].place
            widen(place, into: &vector)
            sample.append(vector)
        }
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
        sample = []
        // Each face's new group, then the groups filled to their exact sizes.
        let total = self.centres.count / dimensions
        var chosen = [Int32](repeating: 0, count: order.count)
        var sizes = [Int](repeating: 0, count: total)
        for (index, face) in order.enumerated() {
            widen(face.place, into: &vector)
            let group = nearestCentres(to: vector, count: 1)[0]
            chosen[index] = Int32(group)
            sizes[group] += 1
        }
        var made = (0..<total).map { group -> Group in
            var members = Group()
            members.ids.reserveCapacity(sizes[group])
            members.vectors.reserveCapacity(sizes[group] * dimensions)
            return members
        }
        for (index, face) in order.enumerated() {
            let group = Int(chosen[index])
            let source = face.place.group < 0 ? pending : groups[Int(face.place.group)]
            let start = Int(face.place.slot) * dimensions
            made[group].ids.append(face.id)
            made[group].vectors.append(contentsOf: source.vectors[start..<start + dimensions])
        }
        groups = made
        pending = Group()
        for (group, members) in groups.enumerated() {
            for (slot, id) in members.ids.enumerated() { places[id] = Place(group: Int32(group), slot: Int32(slot)) }
        }
        trainedCount = order.count
    }

    /// The vector at `place`, widened into `vector`.
    private func widen(_ place: Place, into vector: inout [Float]) {
        let members = place.group < 0 ? pending : groups[Int(place.group)]
        HalfFloat.widen(members.vectors, from: Int(place.slot) * dimensions, into: &vector)
    }
}

/// Half-precision numbers as bit patterns, widened by integer arithmetic (exact for every
/// finite half, normal or subnormal; an infinity or NaN becomes ±65,536 or more, finite), and
/// narrowed by Swift's `Float16`.
public enum HalfFloat {
    /// 2^112: moves a half's exponent (bias 15), placed in a float's field, to a float's (bias 127).
    static let rebias: Float = 0x1p112

    @inline(__always)
    public static func widen(_ halves: SIMD8<UInt16>) -> SIMD8<Float> {
        let wide = SIMD8<UInt32>(truncatingIfNeeded: halves)
        let magnitude = unsafeBitCast((wide & 0x7fff) &<< 13, to: SIMD8<Float>.self) * rebias
        return unsafeBitCast(
            unsafeBitCast(magnitude, to: SIMD8<UInt32>.self) | ((wide & 0x8000) &<< 16), to: SIMD8<Float>.self)
    }

    @inline(__always)
    public static func widen(_ half: UInt16) -> Float {
        let wide = UInt32(half)
        let magnitude = Float(bitPattern: (wide & 0x7fff) << 13) * rebias
        return Float(bitPattern: magnitude.bitPattern | ((wide & 0x8000) << 16))
    }

    /// `dimensions` (the length of `vector`) halves from `start` of `halves`, widened into `vector`.
    public static func widen(_ halves: [UInt16], from start: Int, into vector: inout [Float]) {
        let count = vector.count
        precondition(start >= 0 && start + count <= halves.count)
        halves.withUnsafeBufferPointer { source in
            vector.withUnsafeMutableBufferPointer { target in
                guard let from = source.baseAddress, let to = target.baseAddress else { return }
                var d = 0
                while d + 8 <= count {
                    let wide = widen(UnsafeRawPointer(from + start + d).loadUnaligned(as: SIMD8<UInt16>.self))
                    UnsafeMutableRawPointer(to + d).storeBytes(of: wide, as: SIMD8<Float>.self)
                    d += 8
                }
                while d < count {
                    to[d] = widen(from[start + d])
                    d += 1
                }
            }
        }
    }

    /// The numbers as halves' bit patterns (the nearest half; beyond ±65,504, an infinity).
    public static func narrow(_ values: [Float]) -> [UInt16] {
        values.map { Float16($0).bitPattern }
    }
}
