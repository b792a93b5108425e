import Foundation

/// Text read in photos (schema step v33, alike on both stores).
///
/// - `assetText`: which text model last read an asset, when, and why it could not when it could
///   not (a preview that does not decode), so that a new model reads again what an older one
///   answered, and only that; deleted with its asset.
/// - `textLine`: each line read, in reading order (`ordinal`), with its box in the displayed
///   image from 0 to 1 and its confidence; deleted with its asset. `text == "…"` and
///   `text CONTAINS[c] "…"` find the assets of the lines that match.
enum TextSchema {
    static func tables(text: String, real: String) -> [String] {
        [
            """
            CREATE TABLE assetText (
                assetId BIGINT PRIMARY KEY REFERENCES asset (id) ON DELETE CASCADE,
                model \(text) NOT NULL,
                analysedDate \(text) NOT NULL,
                error TEXT
            )
            """,
            """
            CREATE TABLE textLine (
                assetId BIGINT NOT NULL REFERENCES asset (id) ON DELETE CASCADE,
                ordinal INTEGER NOT NULL CHECK (ordinal >= 0),
                text \(text) NOT NULL,
                x \(real) NOT NULL CHECK (x >= 0 AND x <= 1),
                y \(real) NOT NULL CHECK (y >= 0 AND y <= 1),
                width \(real) NOT NULL CHECK (width > 0 AND width <= 1),
                height \(real) NOT NULL CHECK (height > 0 AND height <= 1),
                confidence \(real) NOT NULL CHECK (confidence >= 0 AND confidence <= 1),
                PRIMARY KEY (assetId, ordinal)
            )
            """,
        ]
    }

    static let sqlite = tables(text: "TEXT", real: "REAL")
    static let postgres = tables(text: "TEXT COLLATE \"C\"", real: "DOUBLE PRECISION")
}

/// SQL for the text read in an asset, for ``FetchKeys/Key/anyOf``: the assets of the lines that
/// match.
enum TextColumns {
    static let ofAsset = "asset.id IN (SELECT textLine.assetId FROM textLine WHERE %@)"
}

/// Text's shared statements (schema step v33), on either store.
extension SQLDatabase {
    /// Whether the library reads text in its photos: on unless someone switched it off.
    func textEnabled() throws -> Bool {
        try libraryFlag("textEnabled")
    }

    /// Switches reading text on or off. Off deletes every line read and every record of a
    /// reading, in this transaction.
    func setTextEnabled(_ enabled: Bool) throws {
        try setLibraryFlag("textEnabled", enabled)
        guard !enabled else { return }
        try execute("DELETE FROM textLine")
        try execute("DELETE FROM assetText")
    }

    private static var textBacklogCondition: String {
        """
        asset.mediaType = ? AND asset.trashedDate IS NULL AND (assetText.model IS NULL OR assetText.model <> ?)
        """
    }

    /// The photos not in Recently Deleted whose text `model` has not read (none has, or another
    /// model), after `rowID`, in the order they were added; none while text is switched off.
    func textBacklog(model: String, after rowID: Int64, limit: Int) throws -> [AnalysisBacklogItem] {
        guard try textEnabled() else { return [] }
        return try rows(
            """
            SELECT asset.id, asset.localIdentifier FROM asset LEFT JOIN assetText ON assetText.assetId = asset.id
            WHERE asset.id > ? AND \(Self.textBacklogCondition) ORDER BY asset.id LIMIT ?
            """, [rowID, AssetMediaType.image.rawValue, model, limit]
        ).map { AnalysisBacklogItem(rowID: try $0.integer("id"), localIdentifier: try $0.text("localIdentifier")) }
    }

    /// How many photos ``textBacklog(model:after:limit:)`` has in all.
    func textBacklogCount(model: String) throws -> Int {
        guard try textEnabled() else { return 0 }
        return Int(
            try integer(
                """
                SELECT COUNT(*) FROM asset LEFT JOIN assetText ON assetText.assetId = asset.id
                WHERE \(Self.textBacklogCondition)
                """, [AssetMediaType.image.rawValue, model]) ?? 0)
    }

    /// Records the lines `model` read in an asset, in place of what was read before. Nothing
    /// for an asset deleted meanwhile, or while text is switched off.
    func recordText(_ lines: [TextLine], inAsset localIdentifier: String, model: String, date: Date) throws {
        guard try textEnabled(),
            let assetID = try integer("SELECT id FROM asset WHERE localIdentifier = ?", [localIdentifier])
        else { return }
        try execute("DELETE FROM textLine WHERE assetId = ?", [assetID])
        for (ordinal, line) in lines.enumerated() {
            try execute(
                """
                INSERT INTO textLine (assetId, ordinal, text, x, y, width, height, confidence)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """, [assetID, ordinal, line.text, line.x, line.y, line.width, line.height, line.confidence])
        }
        try recordTextReading(assetID, model: model, date: date, error: nil)
    }

    /// Records that `model` could not read an asset, and why: it leaves the backlog until
    /// another model comes; what was read before stays.
    func recordTextFailure(inAsset localIdentifier: String, model: String, error: String, date: Date) throws {
        guard try textEnabled(),
            let assetID = try integer("SELECT id FROM asset WHERE localIdentifier = ?", [localIdentifier])
        else { return }
        try recordTextReading(assetID, model: model, date: date, error: String(error.prefix(1000)))
    }

    private func recordTextReading(_ assetID: Int64, model: String, date: Date, error: String?) throws {
        try execute(
            """
            INSERT INTO assetText (assetId, model, analysedDate, error) VALUES (?, ?, ?, ?)
            ON CONFLICT (assetId) DO UPDATE SET model = excluded.model, analysedDate = excluded.analysedDate,
            error = excluded.error
            """, [assetID, model, date, error])
    }

    /// The text read in an asset: nil before a model read it (or when it could not).
    func text(ofAsset localIdentifier: String) throws -> AssetText? {
        guard
            let reading = try rows(
                """
                SELECT assetText.assetId, assetText.model, assetText.analysedDate FROM assetText
                JOIN asset ON asset.id = assetText.assetId WHERE asset.localIdentifier = ? AND assetText.error IS NULL
                """, [localIdentifier]
            ).first
        else { return nil }
        let lines = try rows(
            "SELECT text, x, y, width, height, confidence FROM textLine WHERE assetId = ? ORDER BY ordinal",
            [try reading.integer("assetId")]
        ).map {
            TextLine(
                text: try $0.text("text"), x: try $0.real("x"), y: try $0.real("y"), width: try $0.real("width"),
                height: try $0.real("height"), confidence: try $0.real("confidence"))
        }
        return AssetText(model: try reading.text("model"), analysedDate: try reading.date("analysedDate"), lines: lines)
    }

    /// The photos `model` could not read, with why, at most `limit`, the last tried first.
    func textFailures(model: String, limit: Int) throws -> [AnalysisFailure] {
        try rows(
            """
            SELECT asset.localIdentifier, assetText.error FROM assetText JOIN asset ON asset.id = assetText.assetId
            WHERE assetText.model = ? AND assetText.error IS NOT NULL
            ORDER BY assetText.analysedDate DESC, asset.id DESC LIMIT ?
            """, [model, limit]
        ).map { AnalysisFailure(localIdentifier: try $0.text("localIdentifier"), error: try $0.text("error")) }
    }
}

extension SQLDatabase {
    /// A switch of the library's kept in `libraryState` under `key`: on unless switched off.
    func libraryFlag(_ key: String) throws -> Bool {
        try value("SELECT value FROM libraryState WHERE key = ?", [key])?.integer != 0
    }

    /// Sets a switch of ``libraryFlag(_:)``.
    func setLibraryFlag(_ key: String, _ enabled: Bool) throws {
        try execute(
            """
            INSERT INTO libraryState (key, value) VALUES (?, ?)
            ON CONFLICT (key) DO UPDATE SET value = excluded.value
            """, [key, enabled ? 1 : 0])
    }
}
