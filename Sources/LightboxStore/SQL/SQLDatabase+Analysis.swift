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
            readings("assetText", text: text),
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

    /// A kind's record of who looked at each asset (``PhotoAnalysisKind``).
    static func readings(_ table: String, text: String) -> String {
        """
        CREATE TABLE \(table) (
            assetId BIGINT PRIMARY KEY REFERENCES asset (id) ON DELETE CASCADE,
            model \(text) NOT NULL,
            analysedDate \(text) NOT NULL,
            error TEXT
        )
        """
    }

    static let sqlite = tables(text: "TEXT", real: "REAL")
    static let postgres = tables(text: "TEXT COLLATE \"C\"", real: "DOUBLE PRECISION")
}

/// Things found in photos (schema step v34, alike on both stores).
///
/// - `assetThings`: which things model last looked at an asset (as `assetText`).
/// - `thing`: each thing found, the surest first (`ordinal`): its label, confidence, WordNet
///   synset, the words it is found by (a line each) and, for an object, its box.
/// - `thingTerm`: each word an asset's things are found by once, lowercased, with the surest
///   confidence among them: `thing == "dog"` reads the dog photos from `thingTerm_on_term`.
enum ThingSchema {
    static func tables(text: String, real: String) -> [String] {
        [
            TextSchema.readings("assetThings", text: text),
            """
            CREATE TABLE thing (
                assetId BIGINT NOT NULL REFERENCES asset (id) ON DELETE CASCADE,
                ordinal INTEGER NOT NULL CHECK (ordinal >= 0),
                label \(text) NOT NULL,
                confidence \(real) NOT NULL CHECK (confidence >= 0 AND confidence <= 1),
                synset \(text),
                terms TEXT NOT NULL,
                x \(real) CHECK (x >= 0 AND x <= 1),
                y \(real) CHECK (y >= 0 AND y <= 1),
                width \(real) CHECK (width > 0 AND width <= 1),
                height \(real) CHECK (height > 0 AND height <= 1),
                PRIMARY KEY (assetId, ordinal)
            )
            """,
            """
            CREATE TABLE thingTerm (
                assetId BIGINT NOT NULL REFERENCES asset (id) ON DELETE CASCADE,
                term \(text) NOT NULL,
                confidence \(real) NOT NULL CHECK (confidence >= 0 AND confidence <= 1),
                PRIMARY KEY (assetId, term)
            )
            """,
            "CREATE INDEX thingTerm_on_term ON thingTerm (term, assetId)",
        ]
    }

    static let sqlite = tables(text: "TEXT", real: "REAL")
    static let postgres = tables(text: "TEXT COLLATE \"C\"", real: "DOUBLE PRECISION")
}

/// SQL for what was found in an asset, for ``FetchKeys/Key/anyOf``: the assets of the rows that
/// match.
enum AnalysisColumns {
    static let text = "asset.id IN (SELECT textLine.assetId FROM textLine WHERE %@)"
    static let things = "asset.id IN (SELECT thingTerm.assetId FROM thingTerm WHERE %@)"
}

/// The analyses' shared statements (schema steps v33 and v34), on either store.
extension SQLDatabase {
    /// Whether the library analyses its photos for `kind`: on unless someone switched it off.
    func analysisEnabled(_ kind: PhotoAnalysisKind) throws -> Bool {
        try libraryFlag(kind.flag)
    }

    /// Switches `kind` on or off. Off deletes everything found and every record of a look, in
    /// this transaction.
    func setAnalysisEnabled(_ kind: PhotoAnalysisKind, _ enabled: Bool) throws {
        try setLibraryFlag(kind.flag, enabled)
        guard !enabled else { return }
        for table in kind.foundTables + [kind.readingTable] { try execute("DELETE FROM \(table)") }
    }

    private static func backlogCondition(_ kind: PhotoAnalysisKind) -> String {
        """
        asset.mediaType = ? AND asset.trashedDate IS NULL
        AND (\(kind.readingTable).model IS NULL OR \(kind.readingTable).model <> ?)
        """
    }

    /// The photos not in Recently Deleted that `model` has not looked at for `kind` (none has,
    /// or another model), after `rowID`, in the order they were added; none while it is off.
    func analysisBacklog(_ kind: PhotoAnalysisKind, model: String, after rowID: Int64, limit: Int) throws
        -> [AnalysisBacklogItem]
    {
        guard try analysisEnabled(kind) else { return [] }
        let table = kind.readingTable
        return try rows(
            """
            SELECT asset.id, asset.localIdentifier FROM asset LEFT JOIN \(table) ON \(table).assetId = asset.id
            WHERE asset.id > ? AND \(Self.backlogCondition(kind)) ORDER BY asset.id LIMIT ?
            """, [rowID, AssetMediaType.image.rawValue, model, limit]
        ).map { AnalysisBacklogItem(rowID: try $0.integer("id"), localIdentifier: try $0.text("localIdentifier")) }
    }

    /// How many photos ``analysisBacklog(_:model:after:limit:)`` has in all.
    func analysisBacklogCount(_ kind: PhotoAnalysisKind, model: String) throws -> Int {
        guard try analysisEnabled(kind) else { return 0 }
        let table = kind.readingTable
        return Int(
            try integer(
                """
                SELECT COUNT(*) FROM asset LEFT JOIN \(table) ON \(table).assetId = asset.id
                WHERE \(Self.backlogCondition(kind))
                """, [AssetMediaType.image.rawValue, model]) ?? 0)
    }

    /// Records that `model` looked at an asset for `kind` (and could not, with why), after what
    /// it found was written.
    private func recordReading(_ kind: PhotoAnalysisKind, _ assetID: Int64, model: String, date: Date, error: String?)
        throws
    {
        try execute(
            """
            INSERT INTO \(kind.readingTable) (assetId, model, analysedDate, error) VALUES (?, ?, ?, ?)
            ON CONFLICT (assetId) DO UPDATE SET model = excluded.model, analysedDate = excluded.analysedDate,
            error = excluded.error
            """, [assetID, model, date, error])
    }

    /// The asset's row id, when it is still there and `kind` is on: what a run still under way
    /// found for an asset deleted meanwhile, or after the switch went off, is not kept.
    private func analysedAsset(_ kind: PhotoAnalysisKind, _ localIdentifier: String) throws -> Int64? {
        guard try analysisEnabled(kind) else { return nil }
        return try integer("SELECT id FROM asset WHERE localIdentifier = ?", [localIdentifier])
    }

    /// Records that `model` could not look at an asset for `kind`, and why: it leaves the
    /// backlog until another model comes; what was found before stays.
    func recordAnalysisFailure(
        _ kind: PhotoAnalysisKind, inAsset localIdentifier: String, model: String, error: String, date: Date
    ) throws {
        guard let assetID = try analysedAsset(kind, localIdentifier) else { return }
        try recordReading(kind, assetID, model: model, date: date, error: String(error.prefix(1000)))
    }

    /// The photos `model` could not look at for `kind`, with why, at most `limit`, the last
    /// tried first.
    func analysisFailures(_ kind: PhotoAnalysisKind, model: String, limit: Int) throws -> [AnalysisFailure] {
        let table = kind.readingTable
        return try rows(
            """
            SELECT asset.localIdentifier, \(table).error FROM \(table) JOIN asset ON asset.id = \(table).assetId
            WHERE \(table).model = ? AND \(table).error IS NOT NULL
            ORDER BY \(table).analysedDate DESC, asset.id DESC LIMIT ?
            """, [model, limit]
        ).map { AnalysisFailure(localIdentifier: try $0.text("localIdentifier"), error: try $0.text("error")) }
    }

    /// Who looked at an asset for `kind` with no error: its row id, model and date.
    private func reading(_ kind: PhotoAnalysisKind, ofAsset localIdentifier: String) throws
        -> (assetID: Int64, model: String, date: Date)?
    {
        let table = kind.readingTable
        guard
            let row = try rows(
                """
                SELECT \(table).assetId, \(table).model, \(table).analysedDate FROM \(table)
                JOIN asset ON asset.id = \(table).assetId WHERE asset.localIdentifier = ? AND \(table).error IS NULL
                """, [localIdentifier]
            ).first
        else { return nil }
        return (try row.integer("assetId"), try row.text("model"), try row.date("analysedDate"))
    }

    /// An asset shown otherwise (edited, reverted): what was found in it goes, and each kind
    /// that is on looks at it again.
    func analyseAgain(assetID: Int64) throws {
        for kind in PhotoAnalysisKind.allCases {
            for table in kind.foundTables + [kind.readingTable] {
                try execute("DELETE FROM \(table) WHERE assetId = ?", [assetID])
            }
            if try analysisEnabled(kind) { try enqueueJobAgain(kind.job, subject: "") }
        }
    }

    /// Queues the job of each kind that is on, for a photo just imported.
    func enqueueAnalyses() throws {
        for kind in PhotoAnalysisKind.allCases where try analysisEnabled(kind) {
            try enqueueJobAgain(kind.job, subject: "")
        }
    }

    // MARK: Text

    /// Records the lines `model` read in an asset, in place of what was read before.
    func recordText(_ lines: [TextLine], inAsset localIdentifier: String, model: String, date: Date) throws {
        guard let assetID = try analysedAsset(.text, localIdentifier) else { return }
        try execute("DELETE FROM textLine WHERE assetId = ?", [assetID])
        for (ordinal, line) in lines.enumerated() {
            try execute(
                """
                INSERT INTO textLine (assetId, ordinal, text, x, y, width, height, confidence)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """, [assetID, ordinal, line.text, line.x, line.y, line.width, line.height, line.confidence])
        }
        try recordReading(.text, assetID, model: model, date: date, error: nil)
    }

    /// The text read in an asset: nil before a model read it (or when it could not).
    func text(ofAsset localIdentifier: String) throws -> AssetText? {
        guard let reading = try reading(.text, ofAsset: localIdentifier) else { return nil }
        let lines = try rows(
            "SELECT text, x, y, width, height, confidence FROM textLine WHERE assetId = ? ORDER BY ordinal",
            [reading.assetID]
        ).map {
            TextLine(
                text: try $0.text("text"), x: try $0.real("x"), y: try $0.real("y"), width: try $0.real("width"),
                height: try $0.real("height"), confidence: try $0.real("confidence"))
        }
        return AssetText(model: reading.model, analysedDate: reading.date, lines: lines)
    }

    // MARK: Things

    /// Records the things `model` found in an asset, in place of what was found before, and the
    /// words they are found by, each once with the surest confidence.
    func recordThings(_ things: [AssetThing], inAsset localIdentifier: String, model: String, date: Date) throws {
        guard let assetID = try analysedAsset(.things, localIdentifier) else { return }
        try execute("DELETE FROM thingTerm WHERE assetId = ?", [assetID])
        try execute("DELETE FROM thing WHERE assetId = ?", [assetID])
        var terms: [String: Double] = [:]
        for (ordinal, thing) in things.enumerated() {
            try execute(
                """
                INSERT INTO thing (assetId, ordinal, label, confidence, synset, terms, x, y, width, height)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    assetID, ordinal, thing.label, thing.confidence, thing.synset,
                    thing.terms.joined(separator: "\n"), thing.x, thing.y, thing.width, thing.height,
                ])
            for term in [thing.label] + thing.terms {
                let folded = term.lowercased()
                terms[folded] = max(terms[folded] ?? 0, thing.confidence)
            }
        }
        for (term, confidence) in terms.sorted(by: { $0.key < $1.key }) {
            try execute(
                "INSERT INTO thingTerm (assetId, term, confidence) VALUES (?, ?, ?)", [assetID, term, confidence])
        }
        try recordReading(.things, assetID, model: model, date: date, error: nil)
    }

    /// The things found in an asset: nil before a model looked (or when it could not).
    func things(ofAsset localIdentifier: String) throws -> AssetThings? {
        guard let reading = try reading(.things, ofAsset: localIdentifier) else { return nil }
        let things = try rows(
            """
            SELECT label, confidence, synset, terms, x, y, width, height FROM thing WHERE assetId = ?
            ORDER BY ordinal
            """, [reading.assetID]
        ).map {
            AssetThing(
                label: try $0.text("label"), confidence: try $0.real("confidence"), synset: $0["synset"].text,
                terms: try $0.text("terms").split(separator: "\n").map(String.init), x: $0["x"].real,
                y: $0["y"].real, width: $0["width"].real, height: $0["height"].real)
        }
        return AssetThings(model: reading.model, analysedDate: reading.date, things: things)
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
