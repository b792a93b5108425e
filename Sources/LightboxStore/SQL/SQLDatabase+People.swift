import Foundation

/// A face as grouping reads it: its row, embedding (half-precision bit patterns, as stored) and
/// quality, whose it is, the people it was taken from, and whether grouping has looked at it.
package struct GroupingFace: Sendable {
    package var rowID: Int64
    package var halves: [UInt16]
    package var quality: Double
    package var membership: FaceMembership
    package var personRowID: Int64?
    package var rejectedPeople: [Int64]
    package var placed: Bool
}

/// What grouping decided for waiting faces.
package enum GroupingWrite: Sendable, Hashable {
    /// The face joins a person.
    case join(face: Int64, person: Int64)
    /// These faces found a new person together.
    case found(faces: [Int64])
}

extension FaceVectorCoding {
    /// The half-precision bit patterns ``encode(_:)`` stored; nil for bytes no encoding wrote
    /// (an odd length).
    static func halves(_ bytes: [UInt8]) -> [UInt16]? {
        guard bytes.count % 2 == 0 else { return nil }
        return (0..<bytes.count / 2).map { UInt16(bytes[2 * $0]) | UInt16(bytes[2 * $0 + 1]) << 8 }
    }
}

/// People's statements (schema steps v27 and v28), on either store: grouping's reads and
/// writes, and the change requests people make.
extension SQLDatabase {
    /// The faces `model` found, not those marked as no face, after row `rowID` in row order, at
    /// most `limit`.
    func facesForGrouping(model: String, after rowID: Int64, limit: Int) throws -> [GroupingFace] {
        let rows = try rows(
            """
            SELECT id, embedding, quality, membership, personId, placed FROM face
            WHERE model = ? AND id > ? AND membership <> ? ORDER BY id LIMIT ?
            """, [model, rowID, FaceMembership.notAFace.rawValue, limit])
        guard let first = rows.first, let last = rows.last else { return [] }
        var rejected: [Int64: [Int64]] = [:]
        for row in try self.rows(
            "SELECT faceId, personId FROM faceRejection WHERE faceId BETWEEN ? AND ?",
            [try first.integer("id"), try last.integer("id")])
        {
            rejected[try row.integer("faceId"), default: []].append(try row.integer("personId"))
        }
        return try rows.compactMap { row in
            guard case .blob(let bytes) = row["embedding"], let halves = FaceVectorCoding.halves(bytes),
                let membership = FaceMembership(rawValue: Int(clamping: try row.integer("membership")))
            else { return nil }
            let id = try row.integer("id")
            return GroupingFace(
                rowID: id, halves: halves, quality: try row.real("quality"), membership: membership,
                personRowID: row["personId"].integer, rejectedPeople: rejected[id] ?? [],
                placed: try row.integer("placed") != 0)
        }
    }

    /// Writes what grouping decided for faces that were waiting, as one transaction in the
    /// history (by "faces"): a face someone placed meanwhile, or whose person went, stays as it
    /// is; and that it looked at the faces `looked` (new ones: the next run leaves them be).
    /// Answers, for each write, the person its faces joined (nil where none did).
    func applyGrouping(_ writes: [GroupingWrite], looked: [Int64], retention: HistoryRetention) throws -> [Int64?] {
        let people = try applyGroupingWrites(writes, retention: retention)
        // A face whose person went meanwhile is looked at again next time.
        var unplaced: Set<Int64> = []
        for (write, person) in zip(writes, people) {
            if case .join(let face, _) = write, person == nil { unplaced.insert(face) }
        }
        let marked = looked.filter { !unplaced.contains($0) }
        for chunk in stride(from: 0, to: marked.count, by: 1_000) {
            let ids = marked[chunk..<min(marked.count, chunk + 1_000)]
            let marks = Array(repeating: "?", count: ids.count).joined(separator: ",")
            try execute("UPDATE face SET placed = 1 WHERE placed = 0 AND id IN (\(marks))", ids.map(\.sqlValue))
        }
        return people
    }

    private func applyGroupingWrites(_ writes: [GroupingWrite], retention: HistoryRetention) throws -> [Int64?] {
        var people: [Int64?] = []
        var inserted: [Int64] = []
        var updated: Set<Int64> = []
        let waiting = FaceMembership.waiting.rawValue
        let grouped = FaceMembership.grouped.rawValue
        for write in writes {
            switch write {
            case .join(let face, let person):
                let joined = try integer(
                    """
                    UPDATE face SET personId = ?, membership = ? WHERE id = ? AND membership = ?
                    AND EXISTS (SELECT 1 FROM person WHERE id = ?) RETURNING personId
                    """, [person, grouped, face, waiting, person])
                people.append(joined)
                if joined != nil { updated.insert(person) }
            case .found(let faces):
                guard
                    let person = try integer(
                        "INSERT INTO person (localIdentifier, creationDate) VALUES (?, ?) RETURNING id",
                        [UUID().uuidString, Date()])
                else { throw LibraryError(.storageFailed, "a new person got no row") }
                let marks = Array(repeating: "?", count: faces.count).joined(separator: ",")
                let taken = try integers(
                    "UPDATE face SET personId = ?, membership = ? WHERE membership = ? AND id IN (\(marks)) RETURNING id",
                    [person, grouped, waiting] + faces)
                if taken.isEmpty {
                    try execute("DELETE FROM person WHERE id = ?", [person])
                    people.append(nil)
                } else {
                    inserted.append(person)
                    people.append(person)
                }
            }
        }
        try ensureKeyFaces(Set(inserted).union(updated))
        var changes: [ObjectChangeRecord] = []
        for person in inserted {
            if let id = try personIdentifier(person) {
                changes.append(ObjectChangeRecord(.assetCollection, id, .inserted))
            }
        }
        for person in updated.subtracting(inserted).sorted() {
            if let id = try personIdentifier(person) {
                changes.append(ObjectChangeRecord(.assetCollection, id, .updated))
            }
        }
        if !changes.isEmpty { _ = try recordChangeTransaction(author: "faces", changes: changes, retention: retention) }
        return people
    }

    func personIdentifier(_ rowID: Int64) throws -> String? {
        try text("SELECT localIdentifier FROM person WHERE id = ?", [rowID])
    }

    /// Gives each of these people that has faces and no key face their surest, and takes the
    /// key from a face that is no longer its person's.
    func ensureKeyFaces(_ people: Set<Int64>) throws {
        for person in people.sorted() {
            try execute(
                "UPDATE face SET isKey = 0 WHERE personId = ? AND isKey = 1 AND NOT \(PersonColumns.theirs)", [person])
            guard try integer("SELECT 1 FROM face WHERE personId = ? AND isKey = 1", [person]) == nil else { continue }
            try execute(
                """
                UPDATE face SET isKey = 1 WHERE id = (SELECT id FROM face WHERE personId = ? AND \(PersonColumns.theirs)
                ORDER BY quality DESC, id LIMIT 1)
                """, [person])
        }
    }
}

extension SQLDatabase {
    /// Whether the library finds faces: on unless someone switched it off.
    func facesEnabled() throws -> Bool {
        try libraryFlag("facesEnabled")
    }

    /// Switches finding faces on or off. Off deletes every face, embedding, person and analysis
    /// record in this transaction, the people recorded as deleted in the history (by "faces
    /// off"); what someone chose of them goes too.
    func setFacesEnabled(_ enabled: Bool, retention: HistoryRetention) throws {
        try setLibraryFlag("facesEnabled", enabled)
        guard !enabled else { return }
        let people = try texts("SELECT localIdentifier FROM person ORDER BY id")
        try execute("DELETE FROM faceRejection")
        try execute("DELETE FROM face")
        try execute("DELETE FROM person")
        try execute("DELETE FROM assetAnalysis")
        if !people.isEmpty {
            _ = try recordChangeTransaction(
                author: "faces off", changes: people.map { ObjectChangeRecord(.assetCollection, $0, .deleted) },
                retention: retention)
        }
    }
}
