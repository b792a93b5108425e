import Foundation

/// An asset a model has yet to analyse (its faces, its text): its row id (to page on) and
/// identifier.
public struct AnalysisBacklogItem: Sendable, Hashable {
    public var rowID: Int64
    public var localIdentifier: String
}

/// A photo a model could not analyse, and why.
public struct AnalysisFailure: Sendable, Hashable {
    public var localIdentifier: String
    public var error: String
}

/// The faces' shared statements (schema step v27), on either store.
extension SQLDatabase {
    private static var faceColumns: String {
        """
        face.localIdentifier, asset.localIdentifier AS assetLocalIdentifier, face.x, face.y, face.width,
        face.height, face.quality, person.localIdentifier AS personLocalIdentifier, face.membership, face.isKey,
        face.model
        """
    }

    private func face(_ row: SQLRow) throws -> Face {
        let membership = try row.integer("membership")
        guard let kind = FaceMembership(rawValue: Int(clamping: membership)) else {
            throw LibraryError(.storageFailed, "a face's membership is \(membership), which no version wrote")
        }
        return Face(
            localIdentifier: try row.text("localIdentifier"),
            assetLocalIdentifier: try row.text("assetLocalIdentifier"),
            x: try row.real("x"), y: try row.real("y"), width: try row.real("width"), height: try row.real("height"),
            quality: try row.real("quality"), personLocalIdentifier: row["personLocalIdentifier"].text,
            membership: kind, isKeyFace: try row.integer("isKey") != 0, model: try row.text("model"))
    }

    /// The faces found in an asset, those marked as no face too, the surest first.
    func faces(inAsset localIdentifier: String) throws -> [Face] {
        try rows(
            """
            SELECT \(Self.faceColumns) FROM face
            JOIN asset ON asset.id = face.assetId
            LEFT JOIN person ON person.id = face.personId
            WHERE asset.localIdentifier = ? ORDER BY face.quality DESC, face.id
            """, [localIdentifier]
        ).map(face)
    }

    /// A person's faces, the surest first, at most `limit` after skipping `offset`.
    func faces(ofPerson localIdentifier: String, offset: Int, limit: Int) throws -> [Face] {
        try rows(
            """
            SELECT \(Self.faceColumns) FROM face
            JOIN asset ON asset.id = face.assetId
            JOIN person ON person.id = face.personId
            WHERE person.localIdentifier = ? AND \(PersonColumns.theirs) AND asset.trashedDate IS NULL
            ORDER BY face.quality DESC, face.id LIMIT ? OFFSET ?
            """, [localIdentifier, limit, offset]
        ).map(face)
    }

    /// The key face of each of these people that has one, by the person's row id.
    func keyFaces(ofPeople ids: [Int64]) throws -> [Int64: Face] {
        guard !ids.isEmpty else { return [:] }
        let marks = Array(repeating: "?", count: ids.count).joined(separator: ",")
        var byPerson: [Int64: Face] = [:]
        for row in try rows(
            """
            SELECT \(Self.faceColumns), face.personId FROM face
            JOIN asset ON asset.id = face.assetId
            LEFT JOIN person ON person.id = face.personId
            WHERE face.personId IN (\(marks)) AND face.isKey = 1
            """, ids)
        {
            byPerson[try row.integer("personId")] = try face(row)
        }
        return byPerson
    }

    /// The model that last analysed an asset's faces; nil when none has.
    func faceModel(ofAsset localIdentifier: String) throws -> String? {
        try text(
            """
            SELECT assetAnalysis.faceModel FROM assetAnalysis JOIN asset ON asset.id = assetAnalysis.assetId
            WHERE asset.localIdentifier = ?
            """, [localIdentifier])
    }

    /// The photos, in Recently Deleted or not, whose faces `model` has not analysed (none has,
    /// or another model), after `rowID`, in the order they were added; none while faces are
    /// switched off.
    func faceAnalysisBacklog(model: String, after rowID: Int64, limit: Int) throws -> [AnalysisBacklogItem] {
        guard try facesEnabled() else { return [] }
        return try rows(
            """
            SELECT asset.id, asset.localIdentifier FROM asset
            LEFT JOIN assetAnalysis ON assetAnalysis.assetId = asset.id
            WHERE asset.id > ? AND asset.mediaType = ? AND asset.trashedDate IS NULL
            AND (assetAnalysis.faceModel IS NULL OR assetAnalysis.faceModel <> ?)
            ORDER BY asset.id LIMIT ?
            """, [rowID, AssetMediaType.image.rawValue, model, limit]
        ).map { AnalysisBacklogItem(rowID: try $0.integer("id"), localIdentifier: try $0.text("localIdentifier")) }
    }

    /// How many photos `model` has yet to analyse.
    func faceAnalysisBacklogCount(model: String) throws -> Int {
        guard try facesEnabled() else { return 0 }
        return Int(
            try integer(
                """
                SELECT COUNT(*) FROM asset LEFT JOIN assetAnalysis ON assetAnalysis.assetId = asset.id
                WHERE asset.mediaType = ? AND asset.trashedDate IS NULL
                AND (assetAnalysis.faceModel IS NULL OR assetAnalysis.faceModel <> ?)
                """, [AssetMediaType.image.rawValue, model]) ?? 0)
    }

    /// Records what `model` found in an asset, in place of what an analysis found before. A new
    /// face that covers an earlier one (half their boxes' union or more) takes its place and
    /// keeps its identifier, its person, how it came to be theirs and whether it is their key
    /// face: someone's choice ("this is Anna", "not a face") outlives the analysis, with the
    /// new model's box and embedding. Earlier faces no new one covers go. Answers the asset's
    /// faces; an asset deleted meanwhile records nothing and answers none.
    func recordFaces(_ found: [FoundFace], inAsset localIdentifier: String, model: String, date: Date) throws
        -> [Face]
    {
        // Switched off meanwhile: what a run still under way found is not kept.
        guard try facesEnabled(),
            let assetID = try integer("SELECT id FROM asset WHERE localIdentifier = ?", [localIdentifier])
        else { return [] }
        var earlier = try rows("SELECT id, x, y, width, height FROM face WHERE assetId = ?", [assetID]).map {
            (
                id: try $0.integer("id"), x: try $0.real("x"), y: try $0.real("y"), width: try $0.real("width"),
                height: try $0.real("height")
            )
        }
        // The pairs that overlap most first, each face in one pair at most.
        var pairs: [(new: Int, old: Int, overlap: Double)] = []
        for (newIndex, face) in found.enumerated() {
            for (oldIndex, old) in earlier.enumerated() {
                let overlap = face.overlap(x: old.x, y: old.y, width: old.width, height: old.height)
                if overlap >= 0.5 { pairs.append((newIndex, oldIndex, overlap)) }
            }
        }
        pairs.sort { $0.overlap > $1.overlap }
        var takes: [Int: Int64] = [:]
        var taken: Set<Int> = []
        for pair in pairs where takes[pair.new] == nil && !taken.contains(pair.old) {
            takes[pair.new] = earlier[pair.old].id
            taken.insert(pair.old)
        }
        let gone = earlier.indices.filter { !taken.contains($0) }.map { earlier[$0].id }
        earlier.removeAll()
        for id in gone { try execute("DELETE FROM face WHERE id = ?", [id]) }
        for (index, face) in found.enumerated() {
            let values: [any SQLBindable] = [
                face.x, face.y, face.width, face.height, face.quality,
                SQLValue.blob(FaceVectorCoding.encode(face.landmarks.map { Float($0) })),
                SQLValue.blob(FaceVectorCoding.encode(face.embedding)), model,
            ]
            if let id = takes[index] {
                try execute(
                    """
                    UPDATE face SET x = ?, y = ?, width = ?, height = ?, quality = ?, landmarks = ?, embedding = ?,
                    model = ?, placed = 0 WHERE id = ?
                    """, values + [id])
            } else {
                try execute(
                    """
                    INSERT INTO face (localIdentifier, assetId, x, y, width, height, quality, landmarks, embedding,
                    model, membership, isKey) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0)
                    """, [UUID().uuidString, assetID] + values)
            }
        }
        try recordAnalysis(assetID, model: model, date: date, error: nil)
        return try faces(inAsset: localIdentifier)
    }

    /// Records that `model` could not analyse an asset, and why: it leaves the backlog until
    /// another model comes; its earlier faces stay. Nothing for an asset deleted meanwhile.
    func recordFaceAnalysisFailure(inAsset localIdentifier: String, model: String, error: String, date: Date) throws {
        guard let assetID = try integer("SELECT id FROM asset WHERE localIdentifier = ?", [localIdentifier]) else {
            return
        }
        try recordAnalysis(assetID, model: model, date: date, error: String(error.prefix(1000)))
    }

    private func recordAnalysis(_ assetID: Int64, model: String, date: Date, error: String?) throws {
        try execute(
            """
            INSERT INTO assetAnalysis (assetId, faceModel, analysedDate, error) VALUES (?, ?, ?, ?)
            ON CONFLICT (assetId) DO UPDATE SET faceModel = excluded.faceModel, analysedDate = excluded.analysedDate,
            error = excluded.error
            """, [assetID, model, date, error])
    }

    /// The photos `model` could not analyse, with why, at most `limit`, the last tried first.
    func faceAnalysisFailures(model: String, limit: Int) throws -> [AnalysisFailure] {
        try rows(
            """
            SELECT asset.localIdentifier, assetAnalysis.error FROM assetAnalysis JOIN asset ON asset.id = assetAnalysis.assetId
            WHERE assetAnalysis.faceModel = ? AND assetAnalysis.error IS NOT NULL
            ORDER BY assetAnalysis.analysedDate DESC, asset.id DESC LIMIT ?
            """, [model, limit]
        ).map { AnalysisFailure(localIdentifier: try $0.text("localIdentifier"), error: try $0.text("error")) }
    }
}
