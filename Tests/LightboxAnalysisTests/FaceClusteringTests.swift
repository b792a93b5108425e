import Testing

@testable import LightboxAnalysis

/// Embeddings of made-up people, for the geometry of the index and the clustering: each person
/// a point, each face that point moved a little (a generated image is fine for geometry; the
/// real faces are ServiceTests').
struct SyntheticPeople {
    var generator = SeededGenerator(seed: 42)
    let centres: [[Float]]

    init(people: Int, dimensions: Int = 128, spread: Float = 0.09) {
        var generator = SeededGenerator(seed: 7)
        // Centres far apart: coordinates of ±spread*10 give distances well past 1.
        centres = (0..<people).map { _ in
            (0..<dimensions).map { _ in Float.random(in: -1...1, using: &generator) * spread * 1.2 }
        }
        self.spread = spread / Float(dimensions).squareRoot() * 3
    }

    let spread: Float

    /// A face of `person`, in numbers a half-precision float holds exactly (as the index keeps
    /// them), so that comparing every face gives the index's own distances.
    mutating func face(of person: Int) -> [Float] {
        centres[person].map { Float(Float16($0 + Float.random(in: -spread...spread, using: &generator))) }
    }
}

struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

func distance(_ a: [Float], _ b: [Float]) -> Float {
    var sum: Float = 0
    for (x, y) in zip(a, b) { sum += (x - y) * (x - y) }
    return sum.squareRoot()
}

/// The faces within 0.5 of `embedding`, the nearest `count` first, by comparing every one.
func bruteForce(_ all: [(Int64, [Float])], _ embedding: [Float], _ count: Int) -> [Int64] {
    var near: [(id: Int64, distance: Float)] = []
    for (id, face) in all {
        let d = distance(face, embedding)
        if d <= 0.5 { near.append((id, d)) }
    }
    near.sort { $0.distance != $1.distance ? $0.distance < $1.distance : $0.id < $1.id }
    return near.prefix(count).map(\.id)
}

@Suite struct VectorIndexTests {
    @Test func smallIndexesAnswerExactlyWhatComparingEveryFaceAnswers() {
        var people = SyntheticPeople(people: 20)
        var index = VectorIndex(dimensions: 128)
        var all: [(Int64, [Float])] = []
        for id in 0..<1_000 {
            let face = people.face(of: id % 20)
            all.append((Int64(id), face))
            index.insert(Int64(id), embedding: face)
        }
        for query in stride(from: 0, to: 1_000, by: 97) {
            let embedding = all[query].1
            #expect(index.nearest(to: embedding, count: 10, within: 0.5).map(\.id) == bruteForce(all, embedding, 10))
        }
    }

    @Test func largeIndexesFindAlmostEveryTrueNeighbour() {
        var people = SyntheticPeople(people: 200)
        var index = VectorIndex(dimensions: 128)
        var all: [(Int64, [Float])] = []
        for id in 0..<6_000 {
            let face = people.face(of: id % 200)
            all.append((Int64(id), face))
            index.insert(Int64(id), embedding: face)
        }
        #expect(index.count == 6_000)
        var found = 0
        var wanted = 0
        for query in stride(from: 5, to: 6_000, by: 101) {
            let embedding = all[query].1
            let brute = Set(bruteForce(all, embedding, 16))
            let answered = Set(index.nearest(to: embedding, count: 16, within: 0.5).map(\.id))
            #expect(answered.isSubset(of: Set(all.map(\.0))))
            wanted += brute.count
            found += brute.intersection(answered).count
        }
        #expect(wanted > 0)
        #expect(Double(found) / Double(wanted) >= 0.95, "recall \(found) of \(wanted)")
    }

    @Test func halvesWidenExactlyAsFloat16Does() {
        var vector = [Float](repeating: 0, count: 8)
        for pattern in 0...UInt16.max {
            let half = Float16(bitPattern: pattern)
            guard half.isFinite else {
                #expect(HalfFloat.widen(pattern).isFinite)
                continue
            }
            #expect(HalfFloat.widen(pattern) == Float(half), "\(pattern)")
            if pattern % 4099 == 0 {
                HalfFloat.widen([UInt16](repeating: pattern, count: 8), from: 0, into: &vector)
                #expect(vector.allSatisfy { $0 == Float(half) })
            }
        }
    }

    @Test func aRemovedFaceIsNeverAnswered() {
        var people = SyntheticPeople(people: 3)
        var index = VectorIndex(dimensions: 128)
        let faces = (0..<30).map { people.face(of: $0 % 3) }
        for (id, face) in faces.enumerated() { index.insert(Int64(id), embedding: face) }
        index.remove(4)
        index.remove(4)
        #expect(index.count == 29)
        #expect(!index.nearest(to: faces[4], count: 30, within: 2).map(\.id).contains(4))
        #expect(index.nearest(to: faces[4], count: 30, within: 2).count == 29)
    }
}

@Suite struct FaceClusteringTests {
    /// Adds every face in order, making a person (numbered from 1) for each founding.
    static func cluster(_ faces: [(Int64, [Float], Double)], into clustering: inout FaceClustering) -> Int64 {
        var people: Int64 = 0
        for (id, embedding, quality) in faces {
            if case .founding(let members) = clustering.add(id, embedding: embedding, quality: quality) {
                people += 1
                clustering.found(members, person: people)
            }
        }
        return people
    }

    static func faces(people: Int, each: Int) -> [(Int64, [Float], Double)] {
        var synthetic = SyntheticPeople(people: people)
        return (0..<(people * each)).map { (Int64($0), synthetic.face(of: $0 % people), 0.9) }
    }

    @Test func facesOfEachPersonBecomeOnePersonAndStrangersStayApart() {
        let faces = Self.faces(people: 6, each: 8)
        var clustering = FaceClustering(dimensions: 128)
        #expect(Self.cluster(faces, into: &clustering) == 6)
        var personOf: [Int: Int64] = [:]
        for (id, _, _) in faces {
            let person = clustering.membership(of: id)?.person
            #expect(person != nil, "face \(id) waits")
            let truth = Int(id) % 6
            if let known = personOf[truth] { #expect(person == known) } else { personOf[truth] = person }
        }
        #expect(Set(personOf.values).count == 6)
    }

    @Test func theSameFacesInTheSameOrderMakeTheSamePeople() {
        let faces = Self.faces(people: 5, each: 6)
        var first = FaceClustering(dimensions: 128)
        var second = FaceClustering(dimensions: 128)
        _ = Self.cluster(faces, into: &first)
        _ = Self.cluster(faces, into: &second)
        for (id, _, _) in faces { #expect(first.membership(of: id) == second.membership(of: id)) }
    }

    @Test func tooFewOrPoorFacesWaitInsteadOfFoundingAPerson() {
        var synthetic = SyntheticPeople(people: 2)
        var clustering = FaceClustering(dimensions: 128)
        #expect(clustering.add(1, embedding: synthetic.face(of: 0), quality: 0.9) == .waiting)
        #expect(clustering.add(2, embedding: synthetic.face(of: 0), quality: 0.9) == .waiting)
        // Blurred or tiny: near the two, but it cannot found a person.
        #expect(clustering.add(3, embedding: synthetic.face(of: 0), quality: 0.2) == .waiting)
        #expect(clustering.add(4, embedding: synthetic.face(of: 0), quality: 0.9) == .founding(faces: [1, 2, 4]))
        clustering.found([1, 2, 4], person: 10)
        // Once there is a person, a poor face near it joins.
        #expect(clustering.add(5, embedding: synthetic.face(of: 0), quality: 0.2) == .joined(person: 10))
        #expect(clustering.membership(of: 3) == .waiting)
        // Left waiting beside faces that found and joined a person: it is looked at again.
        #expect(clustering.takeRevisits() == [3])
        #expect(clustering.place(3) == .joined(person: 10))
        #expect(clustering.takeRevisits().isEmpty)
    }

    @Test func aPersonsChoicesAreNeverUndoneByClustering() {
        var synthetic = SyntheticPeople(people: 2)
        var clustering = FaceClustering(dimensions: 128)
        let anna = (0..<4).map { _ in synthetic.face(of: 0) }
        let ben = (0..<4).map { _ in synthetic.face(of: 1) }
        for (offset, face) in anna.enumerated() {
            if case .founding(let faces) = clustering.add(Int64(offset), embedding: face, quality: 0.9) {
                clustering.found(faces, person: 100)
            }
        }
        for (offset, face) in ben.enumerated() {
            if case .founding(let faces) = clustering.add(Int64(10 + offset), embedding: face, quality: 0.9) {
                clustering.found(faces, person: 200)
            }
        }
        #expect(clustering.membership(of: 0) == .clustered(person: 100))
        // A person says face 0 is Ben's, and face 1 is nobody known.
        clustering.choose(0, person: 200)
        clustering.choose(1, person: nil)
        // More of Anna's faces come: they join Anna, the chosen ones stay where they were put.
        for offset in 0..<3 {
            #expect(
                clustering.add(Int64(20 + offset), embedding: synthetic.face(of: 0), quality: 0.9)
                    == .joined(person: 100))
        }
        #expect(clustering.membership(of: 0) == .chosen(person: 200))
        #expect(clustering.membership(of: 1) == .chosenNobody)
        #expect(clustering.place(1) == .unchanged)
        // "Not Anna": face 2 leaves Anna and, waiting again, never joins her by clustering.
        clustering.choose(2, person: 200)
        clustering.load(2, embedding: anna[2], quality: 0.9, membership: .waiting, rejectedPeople: [100])
        #expect(clustering.place(2) != .joined(person: 100))
    }

    @Test func aMergeMovesEveryFaceAndKeepsChoicesChosen() {
        var synthetic = SyntheticPeople(people: 2)
        var clustering = FaceClustering(dimensions: 128)
        for id in 0..<3 {
            clustering.load(
                Int64(id), embedding: synthetic.face(of: 0), quality: 0.9, membership: .clustered(person: 1))
        }
        clustering.load(3, embedding: synthetic.face(of: 0), quality: 0.9, membership: .chosen(person: 2))
        clustering.load(4, embedding: synthetic.face(of: 1), quality: 0.9, membership: .waiting, rejectedPeople: [1])
        clustering.merge(1, into: 2)
        #expect((0..<3).allSatisfy { clustering.membership(of: Int64($0)) == .clustered(person: 2) })
        #expect(clustering.membership(of: 3) == .chosen(person: 2))
        #expect(clustering.place(4) == .waiting)
    }
}
