import Foundation
import LightboxAnalysis
import LightboxStore

extension PhotoLibrary {
    /// The people the library knows, named or not: asset collections of type
    /// ``AssetCollectionType/person``, those hidden only with `includeHiddenAssets`. Without
    /// sort descriptors, in the order they were found.
    public func fetchPeople(options: FetchOptions = FetchOptions()) throws -> FetchResult<AssetCollection> {
        try fetchAssetCollections(with: .person, options: options)
    }

    /// The "People" list (a smart folder of subtype `smartFolderFaces`): its collections are the
    /// people, as ``fetchPeople(options:)`` gives them.
    public func peopleList() throws -> CollectionList {
        guard let list = try fetchCollectionLists(with: .smartFolder, subtype: .smartFolderFaces).firstObject else {
            throw LibraryError(.collectionNotFound, "the library has no People list")
        }
        return list
    }

    /// A person's faces, in photos not deleted, the surest first: `limit` (at most 1,000) after
    /// `offset`.
    public func faces(of person: AssetCollection, offset: Int = 0, limit: Int = 100) async throws -> [Face] {
        let id = person.localIdentifier
        let (offset, limit) = (max(0, offset), max(0, min(limit, 1000)))
        return try await store.read { try $0.faces(ofPerson: id, offset: offset, limit: limit) }
    }

    /// Whether the library finds faces in its photos (on unless switched off).
    public func facesEnabled() async throws -> Bool {
        try await store.read { try $0.facesEnabled() }
    }

    /// Switches finding faces on or off, for privacy. Off deletes, in one transaction, every
    /// face, embedding and person the library has, and what anyone chose of them (names,
    /// merges, "not them"); no photo is analysed while it is off. On, the faces job is queued
    /// to analyse every photo again.
    public func setFacesEnabled(_ enabled: Bool) async throws {
        try await BlockingWork.run { [store] in
            try store.write { try $0.setFacesEnabled(enabled) }
            if enabled { try store.enqueueJob(.faces, subject: "") }
        }
    }

    /// What grouping knows of one model's faces between runs: the faces placed so far, and the
    /// last face read. A run of the faces job keeps one, so that each page of photos analysed
    /// is grouped without reading the library's faces again.
    public struct FaceGroupingState: Sendable {
        var clustering: FaceClustering?
        var after: Int64 = 0
        public let model: String
        public let rules: FaceClustering.Rules

        public init(model: String, rules: FaceClustering.Rules = FaceClustering.Rules()) {
            self.model = model
            self.rules = rules
        }
    }

    /// What a grouping did.
    public struct FaceGroupingSummary: Sendable, Hashable {
        /// Faces that joined a person someone or grouping had made.
        public var joined = 0
        /// People grouping made, and the faces that made them.
        public var newPeople = 0
        public var foundingFaces = 0

        mutating func add(_ other: Self) {
            joined += other.joined
            newPeople += other.newPeople
            foundingFaces += other.foundingFaces
        }
    }

    /// Groups the faces `state`'s model found that are nobody's yet (and not taken from
    /// someone): each joins the person most of its nearest faces are, or founds a new person
    /// with enough waiting faces near it, or waits. Faces someone placed, and people someone
    /// merged, named or hid, stay as they are. Reads only the faces recorded since `state` last
    /// looked; written as transactions of the history (by "faces"), a page of faces each.
    @discardableResult
    public func groupFaces(_ state: inout FaceGroupingState) async throws -> FaceGroupingSummary {
        var summary = FaceGroupingSummary()
        let model = state.model
        while true {
            let after = state.after
            let page = try await store.read { try $0.facesForGrouping(model: model, after: after, limit: 4096) }
            guard let last = page.last else { break }
            state.after = last.rowID
            // The model's length, from the first face that has one (the catalog keeps 1 to 1,024).
            guard
                let made = state.clustering
                    ?? page.first(where: { !$0.embedding.isEmpty }).map({
                        FaceClustering(dimensions: $0.embedding.count, rules: state.rules)
                    })
            else { continue }
            var clustering = made
            var waiting: [(Int64, [Float])] = []
            for face in page where face.embedding.count == clustering.index.dimensions {
                let membership: FaceClustering.Membership =
                    switch (face.membership, face.personRowID) {
                    case (.grouped, let person?): .clustered(person: person)
                    case (.chosen, let person?): .chosen(person: person)
                    case (.chosenNobody, _): .chosenNobody
                    default: .waiting
                    }
                clustering.load(
                    face.rowID, embedding: face.embedding, quality: face.quality, membership: membership,
                    rejectedPeople: Set(face.rejectedPeople))
                if membership == .waiting { waiting.append((face.rowID, face.embedding)) }
            }
            // New people are numbered -1, -2, ... until the catalog gives them rows; the faces
            // that join one are written with its founders.
            var writes: [GroupingWrite] = []
            var newPeople: [Int64: Int] = [:]
            for (face, embedding) in waiting {
                switch clustering.place(face, embedding: embedding) {
                case .joined(let person) where person < 0:
                    guard let index = newPeople[person], case .found(let faces) = writes[index] else { continue }
                    writes[index] = .found(faces: faces + [face])
                case .joined(let person):
                    writes.append(.join(face: face, person: person))
                case .founding(let faces):
                    let person = -Int64(newPeople.count + 1)
                    clustering.found(faces, person: person)
                    newPeople[person] = writes.count
                    writes.append(.found(faces: faces))
                case .waiting, .unchanged:
                    break
                }
            }
            if !writes.isEmpty {
                let batch = writes
                let people = try await BlockingWork.run { [store] in try store.write { try $0.applyGrouping(batch) } }
                let provisional = Dictionary(uniqueKeysWithValues: newPeople.map { ($0.value, $0.key) })
                for (index, (write, person)) in zip(writes, people).enumerated() {
                    guard case .found(let faces) = write else {
                        if person != nil { summary.joined += 1 }
                        continue
                    }
                    if let person, let number = provisional[index] {
                        clustering.renumber(number, to: person, faces: faces)
                        summary.newPeople += 1
                        summary.foundingFaces += faces.count
                    } else {
                        // Someone placed them meanwhile: the next run reads them as they are.
                        for face in faces { clustering.remove(face) }
                    }
                }
            }
            state.clustering = clustering
        }
        return summary
    }
}
