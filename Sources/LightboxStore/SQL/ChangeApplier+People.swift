import Foundation

/// The change requests of people and faces: naming, hiding, merging, moving faces to a person
/// or to nobody, the key face, and "not a face". What someone chooses here is never undone by
/// grouping: a face placed by hand is ``FaceMembership/chosen``, and a face taken from a person
/// never joins them again (`faceRejection`).
extension ChangeApplier {
    mutating func applyPeople(_ operation: ChangeOperation) throws {
        switch operation {
        case .createPerson(let id, let name, let faces):
            let name = try checkedName(name, except: nil)
            guard
                let row = try db.integer(
                    "INSERT INTO person (localIdentifier, name, creationDate) VALUES (?, ?, ?) RETURNING id",
                    [id, name, Date()])
            else { throw invalid("the new person \(id) got no row") }
            record(.assetCollection, id, .inserted)
            touchedPeople.insert(row)
            try assign(faces, to: row)
        case .renamePerson(let id, let name):
            let person = try personRow(id)
            try db.execute("UPDATE person SET name = ? WHERE id = ?", [try checkedName(name, except: person), person])
            record(.assetCollection, id, .updated)
        case .hidePerson(let id, let hidden):
            try db.execute("UPDATE person SET isHidden = ? WHERE id = ?", [hidden, try personRow(id)])
            record(.assetCollection, id, .updated)
        case .mergePeople(let ids, let into):
            let target = try personRow(into)
            for id in ids where id != into {
                let person = try personRow(id)
                // The faces someone placed stay placed, now in the person they were merged into.
                try db.execute("UPDATE face SET personId = ?, isKey = 0 WHERE personId = ?", [target, person])
                try db.execute(
                    """
                    INSERT INTO faceRejection (faceId, personId) SELECT faceId, ? FROM faceRejection WHERE personId = ?
                    ON CONFLICT DO NOTHING
                    """, [target, person])
                try db.execute(
                    "DELETE FROM faceRejection WHERE personId = ? AND faceId IN (SELECT id FROM face WHERE personId = ?)",
                    [target, target])
                let name = try db.text("SELECT name FROM person WHERE id = ?", [person])
                try db.execute("DELETE FROM person WHERE id = ?", [person])
                if let name, try db.text("SELECT name FROM person WHERE id = ?", [target]) == nil {
                    try db.execute("UPDATE person SET name = ? WHERE id = ?", [name, target])
                }
                touchedPeople.remove(person)
                record(.assetCollection, id, .deleted)
            }
            touchedPeople.insert(target)
            record(.assetCollection, into, .updated)
        case .assignFaces(let faces, let id):
            try assign(faces, to: try id.map(personRow))
        case .setKeyFace(let id, let faceID):
            let person = try personRow(id)
            let face = try faceRow(faceID)
            guard face.person == person, face.membership == .grouped || face.membership == .chosen else {
                throw invalid("face \(faceID) is not one of person \(id)'s: it cannot be their key face")
            }
            try db.execute("UPDATE face SET isKey = 0 WHERE personId = ?", [person])
            try db.execute("UPDATE face SET isKey = 1 WHERE id = ?", [face.row])
            record(.assetCollection, id, .updated)
        case .rejectFaces(let faces):
            for faceID in faces {
                let face = try faceRow(faceID)
                if let person = face.person { try recordPersonUpdated(person) }
                try db.execute(
                    "UPDATE face SET personId = NULL, membership = ?, isKey = 0 WHERE id = ?",
                    [FaceMembership.notAFace.rawValue, face.row])
            }
        default:
            throw invalid("not a change of people")
        }
    }

    /// After the block's requests: the people it touched get a key face again, and those left
    /// with no face and no name go (a name someone gave is kept, faces or not).
    mutating func finishPeople() throws {
        guard !touchedPeople.isEmpty else { return }
        try db.ensureKeyFaces(touchedPeople)
        for person in touchedPeople.sorted() {
            guard let id = try db.personIdentifier(person) else { continue }
            let gone = try db.integer(
                """
                DELETE FROM person WHERE id = ? AND name IS NULL
                AND NOT EXISTS (SELECT 1 FROM face WHERE personId = ? AND \(PersonColumns.theirs)) RETURNING id
                """, [person, person])
            if gone != nil { record(.assetCollection, id, .deleted) }
        }
    }

    /// The faces are `person`'s, by someone's choice (nil: nobody's known). A face taken from
    /// a person is kept from joining them again.
    private mutating func assign(_ faces: [String], to person: Int64?) throws {
        for faceID in faces {
            let face = try faceRow(faceID)
            if let previous = face.person, previous != person {
                try db.execute(
                    "INSERT INTO faceRejection (faceId, personId) VALUES (?, ?) ON CONFLICT DO NOTHING",
                    [face.row, previous])
                try recordPersonUpdated(previous)
            }
            if let person {
                try db.execute("DELETE FROM faceRejection WHERE faceId = ? AND personId = ?", [face.row, person])
                try recordPersonUpdated(person)
            }
            try db.execute(
                "UPDATE face SET personId = ?, membership = ?, isKey = CASE WHEN personId = ? THEN isKey ELSE 0 END WHERE id = ?",
                [
                    person, (person == nil ? FaceMembership.chosenNobody : .chosen).rawValue, person, face.row,
                ])
        }
    }

    private mutating func recordPersonUpdated(_ person: Int64) throws {
        touchedPeople.insert(person)
        if let id = try db.personIdentifier(person) { record(.assetCollection, id, .updated) }
    }

    private func personRow(_ localIdentifier: String) throws -> Int64 {
        guard let row = try db.integer("SELECT id FROM person WHERE localIdentifier = ?", [localIdentifier]) else {
            throw LibraryError(
                .collectionNotFound, "no person has the identifier \(localIdentifier); nothing was changed")
        }
        return row
    }

    private func faceRow(_ localIdentifier: String) throws -> (row: Int64, person: Int64?, membership: FaceMembership) {
        guard
            let row = try db.rows(
                "SELECT id, personId, membership FROM face WHERE localIdentifier = ?", [localIdentifier]
            )
            .first,
            let membership = FaceMembership(rawValue: Int(clamping: try row.integer("membership")))
        else {
            throw LibraryError(.invalidRequest, "no face has the identifier \(localIdentifier); nothing was changed")
        }
        return (try row.integer("id"), row["personId"].integer, membership)
    }

    /// A person's name as kept: trimmed, at most 200 characters, none when empty; refused when
    /// another person has it, case aside (two Annas cannot be told apart: merge them instead).
    private func checkedName(_ name: String?, except person: Int64?) throws -> String? {
        guard let name = name?.trimmingCharacters(in: .whitespacesAndNewlines), !name.isEmpty else { return nil }
        guard name.count <= 200, !name.contains(where: { $0.isNewline || $0 == "\0" }) else {
            throw invalid("a person's name is one line of at most 200 characters")
        }
        for row in try db.rows("SELECT id, name FROM person WHERE name IS NOT NULL", []) {
            guard try row.integer("id") != person, let other = row["name"].text,
                other.caseInsensitiveCompare(name) == .orderedSame
            else { continue }
            throw invalid("a person named \"\(other)\" exists already; merge the two instead")
        }
        return name
    }
}
