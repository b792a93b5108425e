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

        /// How many faces it holds.
        public var faces: Int { clustering?.count ?? 0 }
    }

    /// What a grouping did.
    public struct FaceGroupingSummary: Sendable, Hashable {
        /// Faces that joined a person someone or grouping had made.
        public var joined = 0
        /// People grouping made, and the faces that made them.
        public var newPeople = 0
        public var foundingFaces = 0
        /// New faces grouping looked at (placed, or left waiting).
        public var looked = 0

        mutating func add(_ other: Self) {
            joined += other.joined
            newPeople += other.newPeople
            foundingFaces += other.foundingFaces
            looked += other.looked
        }
    }

    /// Groups the faces `state`'s model found that grouping has not looked at yet: each joins
    /// the person most of its nearest faces are, or founds a new person with enough waiting
    /// faces near it, or waits; a waiting face near one that joined or founded a person is
    /// looked at again. Faces someone placed, and people someone merged, named or hid, stay as
    /// they are; faces left waiting by an earlier run are not placed again but near a new one.
    /// Reads every face of the model once (the first time for `state`), then only those
    /// recorded since; written as transactions of the history (by "faces"), up to 4,096 new
    /// faces each.
    @discardableResult
    public func groupFaces(_ state: inout FaceGroupingState) async throws -> FaceGroupingSummary {
        var summary = FaceGroupingSummary()
        let model = state.model
        // Every face not read yet, in row order: loaded first, so that the index is grouped
        // once for them all, and each new face is placed among every face there is.
        var fresh: [Int64] = []
        while true {
            let after = state.after
            let page = try await store.read { try $0.facesForGrouping(model: model, after: after, limit: 4096) }
            guard let last = page.last else { break }
            state.after = last.rowID
            // The model's length, from the first face that has one (the catalog keeps 1 to 1,024).
            guard
                var clustering = state.clustering
                    ?? page.first(where: { !$0.halves.isEmpty }).map({
                        FaceClustering(dimensions: $0.halves.count, rules: state.rules)
                    })
            else { continue }
            // Taken out of the state while it changes, so that it is changed in place, not copied.
            state.clustering = nil
            for face in page where face.halves.count == clustering.index.dimensions {
                let membership: FaceClustering.Membership =
                    switch (face.membership, face.personRowID) {
                    case (.grouped, let person?): .clustered(person: person)
                    case (.chosen, let person?): .chosen(person: person)
                    case (.chosenNobody, _): .chosenNobody
                    default: .waiting
                    }
                clustering.load(
                    face.rowID, halves: face.halves, quality: face.quality, membership: membership,
                    rejectedPeople: Set(face.rejectedPeople))
                if !face.placed { fresh.append(face.rowID) }
            }
            state.clustering = clustering
        }
        guard var clustering = state.clustering, !fresh.isEmpty else { return summary }
        state.clustering = nil
        defer { state.clustering = clustering }
        for start in stride(from: 0, to: fresh.count, by: 4096) {
            let looked = Array(fresh[start..<min(fresh.count, start + 4096)])
            // New people are numbered -1, -2, ... until the catalog gives them rows; the faces
            // that join one are written with its founders.
            var writes: [GroupingWrite] = []
            var newPeople: [Int64: Int] = [:]
            func place(_ faces: [Int64]) {
                for face in faces {
                    switch clustering.place(face) {
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
            }
            place(looked)
            // Waiting faces beside those that joined or founded someone, once.
            place(clustering.takeRevisits())
            _ = clustering.takeRevisits()
            let batch = writes
            let people = try await BlockingWork.run { [store] in
                try store.write { try $0.applyGrouping(batch, looked: looked) }
            }
            summary.looked += looked.count
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
        return summary
    }
}
