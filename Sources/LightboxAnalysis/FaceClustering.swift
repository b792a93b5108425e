import Foundation

/// Faces grouped into people as they arrive, never by comparing every pair: a new face looks up
/// its nearest faces (``FaceIndex``) and joins the person most of them belong to; a face near
/// no person waits until enough faces near each other found a new person together (a dense
/// group, as DBSCAN's core points). The same faces placed in the same order make the same
/// people, run after run.
///
/// A person's choices are kept: a face a person moved is ``Membership/chosen`` and clustering
/// never moves it; a face rejected from a person ("not Anna") never joins that person again;
/// faces of low quality are placed when they are near a person, but never found one.
public struct FaceClustering: Sendable {
    /// How the faces are grouped.
    public struct Rules: Sendable, Hashable {
        /// Two faces this near (Euclidean) may be the same person. dlib's model says 0.6; a
        /// little less keeps strangers apart at the price of a few more unnamed groups.
        public var distance: Float
        /// Faces near each other (the new one included) that found a new person.
        public var minimumFaces: Int
        /// Below this quality a face joins people but never founds one.
        public var foundingQuality: Double
        /// Neighbours looked at for each face.
        public var neighbours: Int

        public init(distance: Float = 0.5, minimumFaces: Int = 3, foundingQuality: Double = 0.6, neighbours: Int = 16) {
            self.distance = distance
            self.minimumFaces = max(2, minimumFaces)
            self.foundingQuality = foundingQuality
            self.neighbours = max(1, min(neighbours, 256))
        }
    }

    /// Whom a face belongs to, and how it came to.
    public enum Membership: Sendable, Hashable {
        /// Nobody yet: it waits for more faces like it.
        case waiting
        /// Placed by clustering; a later clustering may not move it, but a person may.
        case clustered(person: Int64)
        /// Placed by a person: clustering never moves it.
        case chosen(person: Int64)
        /// A person said it belongs to nobody known: clustering leaves it alone.
        case chosenNobody

        public var person: Int64? {
            switch self {
            case .clustered(let person), .chosen(let person): person
            case .waiting, .chosenNobody: nil
            }
        }
    }

    /// What placing one face did.
    public enum Placement: Sendable, Hashable {
        /// It joined a person.
        case joined(person: Int64)
        /// It and these waiting faces (near it, in identifier order) are a new person: the caller
        /// makes the person and calls ``found(_:person:)``.
        case founding(faces: [Int64])
        /// It waits.
        case waiting
        /// Chosen already, or not placed: nothing changed.
        case unchanged
    }

    public let rules: Rules
    public private(set) var index: FaceIndex
    private var members: [Int64: Membership] = [:]
    private var qualities: [Int64: Double] = [:]
    /// The people each face must never join.
    private var rejected: [Int64: Set<Int64>] = [:]

    public init(dimensions: Int, rules: Rules = Rules()) {
        self.rules = rules
        self.index = FaceIndex(dimensions: dimensions)
    }

    /// The face's membership; nil for a face it does not hold.
    public func membership(of face: Int64) -> Membership? { members[face] }

    /// Adds a face as it stands in a catalog (loading), without placing it.
    public mutating func load(
        _ face: Int64, embedding: [Float], quality: Double, membership: Membership, rejectedPeople: Set<Int64> = []
    ) {
        index.insert(face, embedding: embedding)
        members[face] = membership
        qualities[face] = quality
        if !rejectedPeople.isEmpty { rejected[face] = rejectedPeople }
    }

    /// Adds a new face and places it: into the person most of its near faces belong to (ties
    /// to the person of the nearest), else founding a new person with the waiting faces near
    /// it when there are enough, else waiting.
    public mutating func add(_ face: Int64, embedding: [Float], quality: Double) -> Placement {
        load(face, embedding: embedding, quality: quality, membership: .waiting)
        return place(face, embedding: embedding)
    }

    /// Places a waiting face again (after a person's choice freed it, or to gather waiting faces).
    public mutating func place(_ face: Int64, embedding: [Float]) -> Placement {
        guard members[face] == .waiting else { return .unchanged }
        let near = index.nearest(to: embedding, count: rules.neighbours + 1, within: rules.distance)
            .filter { $0.id != face }
        let refused = rejected[face] ?? []
        var votes: [Int64: (count: Int, nearest: Float)] = [:]
        for (id, distance) in near {
            guard let person = members[id]?.person, !refused.contains(person) else { continue }
            let vote = votes[person] ?? (0, distance)
            votes[person] = (vote.count + 1, min(vote.nearest, distance))
        }
        if let (person, _) = votes.min(by: { a, b in
            a.value.count != b.value.count
                ? a.value.count > b.value.count
                : (a.value.nearest != b.value.nearest ? a.value.nearest < b.value.nearest : a.key < b.key)
        }) {
            members[face] = .clustered(person: person)
            return .joined(person: person)
        }
        guard (qualities[face] ?? 0) >= rules.foundingQuality else { return .waiting }
        let waiting = near.map(\.id).filter {
            members[$0] == .waiting && (qualities[$0] ?? 0) >= rules.foundingQuality && rejected[$0] == nil
        }
        guard waiting.count + 1 >= rules.minimumFaces else { return .waiting }
        return .founding(faces: ([face] + waiting).sorted())
    }

    /// Records the person the caller made for a ``Placement/founding(faces:)``.
    public mutating func found(_ faces: [Int64], person: Int64) {
        for face in faces where members[face] == .waiting { members[face] = .clustered(person: person) }
    }

    /// Gives a person made with a provisional number (``found(_:person:)``) the number the
    /// catalog gave them, on the faces they have.
    public mutating func renumber(_ person: Int64, to new: Int64, faces: [Int64]) {
        for face in faces {
            switch members[face] {
            case .clustered(person): members[face] = .clustered(person: new)
            case .chosen(person): members[face] = .chosen(person: new)
            default: break
            }
        }
    }

    /// A person's choice: the face belongs to `person`, or (nil) to nobody known. When it leaves
    /// a person, it never joins that one again by clustering.
    public mutating func choose(_ face: Int64, person: Int64?) {
        if let previous = members[face]?.person, previous != person { rejected[face, default: []].insert(previous) }
        members[face] = person.map { .chosen(person: $0) } ?? .chosenNobody
    }

    /// Every face of `from` now belongs to `into` (a merge), chosen faces staying chosen.
    public mutating func merge(_ from: Int64, into: Int64) {
        for (face, membership) in members {
            switch membership {
            case .clustered(from): members[face] = .clustered(person: into)
            case .chosen(from): members[face] = .chosen(person: into)
            default: break
            }
        }
        for (face, people) in rejected where people.contains(from) {
            rejected[face] = people.subtracting([from]).union([into])
        }
    }

    /// Forgets a face (deleted, or not a face).
    public mutating func remove(_ face: Int64) {
        index.remove(face)
        members[face] = nil
        qualities[face] = nil
        rejected[face] = nil
    }
}
