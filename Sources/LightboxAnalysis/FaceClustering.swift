import Foundation

/// Faces grouped into people as they arrive, never by comparing every pair: a new face looks up
/// its nearest faces (``VectorIndex``) and joins the person most of them belong to; a face near
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
    public private(set) var index: VectorIndex
    /// Each face's membership and quality.
    private var entries: [Int64: Entry] = [:]
    /// The people each face must never join.
    private var rejected: [Int64: Set<Int64>] = [:]
    /// Waiting faces near a face that just joined or founded a person: they may now have a
    /// person near them too (``takeRevisits()``).
    private var revisits: [Int64] = []

    struct Entry: Sendable {
        var membership: Membership
        var quality: Double
    }

    public init(dimensions: Int, rules: Rules = Rules()) {
        self.rules = rules
        self.index = VectorIndex(dimensions: dimensions)
    }

    /// How many faces it holds.
    public var count: Int { entries.count }

    /// Groups the faces loaded since the index was last searched (``VectorIndex/settle()``), as
    /// the next placement would.
    public mutating func settleIndex() { index.settle() }

    /// The face's membership; nil for a face it does not hold.
    public func membership(of face: Int64) -> Membership? { entries[face]?.membership }

    /// Adds a face as it stands in a catalog (loading), without placing it.
    public mutating func load(
        _ face: Int64, embedding: [Float], quality: Double, membership: Membership, rejectedPeople: Set<Int64> = []
    ) {
        load(
            face, halves: HalfFloat.narrow(embedding), quality: quality, membership: membership,
            rejectedPeople: rejectedPeople)
    }

    /// The same, from the embedding's half-precision bit patterns, as the catalog keeps them.
    public mutating func load(
        _ face: Int64, halves: [UInt16], quality: Double, membership: Membership, rejectedPeople: Set<Int64> = []
    ) {
        index.insert(face, halves: halves)
        entries[face] = Entry(membership: membership, quality: quality)
        rejected[face] = rejectedPeople.isEmpty ? nil : rejectedPeople
    }

    /// Adds a new face and places it: into the person most of its near faces belong to (ties
    /// to the person of the nearest), else founding a new person with the waiting faces near
    /// it when there are enough, else waiting.
    public mutating func add(_ face: Int64, embedding: [Float], quality: Double) -> Placement {
        load(face, embedding: embedding, quality: quality, membership: .waiting)
        return place(face)
    }

    /// Places a waiting face it holds (a new one, or one near a face that found a person).
    public mutating func place(_ face: Int64) -> Placement {
        guard let entry = entries[face], entry.membership == .waiting, let embedding = index.embedding(of: face) else {
            return .unchanged
        }
        let near = index.nearest(to: embedding, count: rules.neighbours + 1, within: rules.distance)
            .filter { $0.id != face }
        let refused = rejected[face] ?? []
        var votes: [Int64: (count: Int, nearest: Float)] = [:]
        for (id, distance) in near {
            guard let person = entries[id]?.membership.person, !refused.contains(person) else { continue }
            let vote = votes[person] ?? (0, distance)
            votes[person] = (vote.count + 1, min(vote.nearest, distance))
        }
        let waiting = near.map(\.id).filter { entries[$0]?.membership == .waiting }
        if let (person, _) = votes.min(by: { a, b in
            a.value.count != b.value.count
                ? a.value.count > b.value.count
                : (a.value.nearest != b.value.nearest ? a.value.nearest < b.value.nearest : a.key < b.key)
        }) {
            entries[face]?.membership = .clustered(person: person)
            revisits += waiting
            return .joined(person: person)
        }
        guard entry.quality >= rules.foundingQuality else { return .waiting }
        let founders = waiting.filter {
            (entries[$0]?.quality ?? 0) >= rules.foundingQuality && rejected[$0] == nil
        }
        guard founders.count + 1 >= rules.minimumFaces else { return .waiting }
        let foundingSet = Set(founders)
        revisits += waiting.filter { !foundingSet.contains($0) }
        return .founding(faces: ([face] + founders).sorted())
    }

    /// The waiting faces that were near a face when it joined or founded a person, since the
    /// last call, each once, in identifier order: placing them again may put them with that
    /// person.
    public mutating func takeRevisits() -> [Int64] {
        let taken = Set(revisits).filter { entries[$0]?.membership == .waiting }.sorted()
        revisits = []
        return taken
    }

    /// Records the person the caller made for a ``Placement/founding(faces:)``.
    public mutating func found(_ faces: [Int64], person: Int64) {
        for face in faces where entries[face]?.membership == .waiting {
            entries[face]?.membership = .clustered(person: person)
        }
    }

    /// Gives a person made with a provisional number (``found(_:person:)``) the number the
    /// catalog gave them, on the faces they have.
    public mutating func renumber(_ person: Int64, to new: Int64, faces: [Int64]) {
        for face in faces {
            switch entries[face]?.membership {
            case .clustered(person): entries[face]?.membership = .clustered(person: new)
            case .chosen(person): entries[face]?.membership = .chosen(person: new)
            default: break
            }
        }
    }

    /// A person's choice: the face belongs to `person`, or (nil) to nobody known. When it leaves
    /// a person, it never joins that one again by clustering.
    public mutating func choose(_ face: Int64, person: Int64?) {
        guard let entry = entries[face] else { return }
        if let previous = entry.membership.person, previous != person { rejected[face, default: []].insert(previous) }
        entries[face]?.membership = person.map { .chosen(person: $0) } ?? .chosenNobody
    }

    /// Every face of `from` now belongs to `into` (a merge), chosen faces staying chosen.
    public mutating func merge(_ from: Int64, into: Int64) {
        for (face, entry) in entries {
            switch entry.membership {
            case .clustered(from): entries[face]?.membership = .clustered(person: into)
            case .chosen(from): entries[face]?.membership = .chosen(person: into)
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
        entries[face] = nil
        rejected[face] = nil
    }
}
