import Foundation

/// The search box's full text (schema step v36): one document an asset of the words it is
/// found by, kept up to date as what they come from changes.
///
/// - `assetSearch`: an asset's `words` (its things' words, its place's names, its albums'
///   titles, its camera, its files' names: a line each), `people` (its people's names: apart, as a
///   limited view sees no people) and `text` (the lines read in it), deleted with its asset. SQLite indexes them in two FTS5 tables of external content:
///   `assetSearchWords` (words, Porter-stemmed, accents folded: "dogs" finds a dog, "sao paulo"
///   São Paulo) and `assetSearchText` (trigrams: a word inside what OCR ran together,
///   "receipt" in RECEIPT42.50EUR). PostgreSQL indexes `to_tsvector('english', words)` with GIN
///   and reads the text with ILIKE, among the rows that have some (a partial index).
/// - `searchStale`: the assets whose document is out of date, filled by triggers on every
///   table a document is made from (lines read, things' words, places, faces and people's
///   names, albums and their titles, resources), emptied as documents are made again: at the
///   end of each write transaction for the first ``SearchDocuments/perTransaction``, and by the
///   search job for the rest (a migrated library's every asset).
enum SearchSchema {
    /// The tables a document is made from, each with its asset's column.
    static let sources: [(table: String, columns: String)] = [
        ("textLine", "assetId"), ("thingTerm", "assetId"), ("assetPlace", "assetId"), ("face", "assetId"),
        ("collectionAsset", "assetId"), ("resource", "assetId"),
    ]

    static let sqlite: [String] = {
        var statements = [
            """
            CREATE TABLE assetSearch (
                assetId INTEGER PRIMARY KEY REFERENCES asset (id) ON DELETE CASCADE,
                words TEXT NOT NULL,
                people TEXT NOT NULL,
                text TEXT NOT NULL
            )
            """,
            """
            CREATE VIRTUAL TABLE assetSearchWords USING fts5(words, people, content='assetSearch', content_rowid='assetId',
            tokenize='porter unicode61 remove_diacritics 2')
            """,
            """
            CREATE VIRTUAL TABLE assetSearchText USING fts5(text, content='assetSearch', content_rowid='assetId',
            tokenize='trigram')
            """,
            """
            CREATE TRIGGER assetSearch_insert AFTER INSERT ON assetSearch BEGIN
                INSERT INTO assetSearchWords (rowid, words, people) VALUES (NEW.assetId, NEW.words, NEW.people);
                INSERT INTO assetSearchText (rowid, text) VALUES (NEW.assetId, NEW.text);
            END
            """,
            """
            CREATE TRIGGER assetSearch_delete AFTER DELETE ON assetSearch BEGIN
                INSERT INTO assetSearchWords (assetSearchWords, rowid, words, people)
                VALUES ('delete', OLD.assetId, OLD.words, OLD.people);
                INSERT INTO assetSearchText (assetSearchText, rowid, text) VALUES ('delete', OLD.assetId, OLD.text);
            END
            """,
            "CREATE TABLE searchStale (assetId INTEGER PRIMARY KEY)",
        ]
        for (table, column) in sources {
            statements += [
                """
                CREATE TRIGGER \(table)_search_insert AFTER INSERT ON \(table) BEGIN
                    INSERT OR IGNORE INTO searchStale (assetId) VALUES (NEW.\(column));
                END
                """,
                """
                CREATE TRIGGER \(table)_search_delete AFTER DELETE ON \(table) BEGIN
                    INSERT OR IGNORE INTO searchStale (assetId) VALUES (OLD.\(column));
                END
                """,
            ]
        }
        statements += [
            """
            CREATE TRIGGER assetPlace_search_update AFTER UPDATE OF placeId ON assetPlace BEGIN
                INSERT OR IGNORE INTO searchStale (assetId) VALUES (NEW.assetId);
            END
            """,
            """
            CREATE TRIGGER face_search_update AFTER UPDATE OF personId, membership ON face BEGIN
                INSERT OR IGNORE INTO searchStale (assetId) VALUES (NEW.assetId);
            END
            """,
            """
            CREATE TRIGGER resource_search_update AFTER UPDATE OF originalFilename ON resource BEGIN
                INSERT OR IGNORE INTO searchStale (assetId) VALUES (NEW.assetId);
            END
            """,
            """
            CREATE TRIGGER asset_search_update AFTER UPDATE OF cameraMake, cameraModel, lensModel ON asset BEGIN
                INSERT OR IGNORE INTO searchStale (assetId) VALUES (NEW.id);
            END
            """,
            """
            CREATE TRIGGER person_search_update AFTER UPDATE OF name, isHidden ON person BEGIN
                INSERT OR IGNORE INTO searchStale (assetId) SELECT assetId FROM face WHERE personId = NEW.id;
            END
            """,
            """
            CREATE TRIGGER assetCollection_search_update AFTER UPDATE OF title ON assetCollection BEGIN
                INSERT OR IGNORE INTO searchStale (assetId)
                SELECT assetId FROM collectionAsset WHERE collectionId = NEW.id;
            END
            """,
            "INSERT INTO searchStale (assetId) SELECT id FROM asset",
        ]
        return statements
    }()

    static let postgres: [String] = {
        var statements = [
            """
            CREATE TABLE assetSearch (
                assetId BIGINT PRIMARY KEY REFERENCES asset (id) ON DELETE CASCADE,
                words TEXT NOT NULL,
                people TEXT NOT NULL,
                text TEXT NOT NULL
            )
            """,
            "CREATE INDEX assetSearch_on_words ON assetSearch USING GIN (to_tsvector('english', words))",
            "CREATE INDEX assetSearch_on_people ON assetSearch USING GIN (to_tsvector('simple', people))",
            "CREATE INDEX assetSearch_with_text ON assetSearch (assetId) WHERE text <> ''",
            "CREATE TABLE searchStale (assetId BIGINT PRIMARY KEY)",
            """
            CREATE FUNCTION search_stale_row() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF TG_OP <> 'INSERT' THEN
                    INSERT INTO searchStale (assetId) VALUES (OLD.assetId) ON CONFLICT DO NOTHING;
                END IF;
                IF TG_OP <> 'DELETE' THEN
                    INSERT INTO searchStale (assetId) VALUES (NEW.assetId) ON CONFLICT DO NOTHING;
                END IF;
                RETURN NULL;
            END $$
            """,
            """
            CREATE FUNCTION search_stale_person() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                INSERT INTO searchStale (assetId) SELECT assetId FROM face WHERE personId = NEW.id
                ON CONFLICT DO NOTHING;
                RETURN NULL;
            END $$
            """,
            """
            CREATE FUNCTION search_stale_asset() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                INSERT INTO searchStale (assetId) VALUES (NEW.id) ON CONFLICT DO NOTHING;
                RETURN NULL;
            END $$
            """,
            """
            CREATE FUNCTION search_stale_album() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                INSERT INTO searchStale (assetId) SELECT assetId FROM collectionAsset WHERE collectionId = NEW.id
                ON CONFLICT DO NOTHING;
                RETURN NULL;
            END $$
            """,
        ]
        let updates = [
            "assetPlace": "UPDATE OF placeId", "face": "UPDATE OF personId, membership",
            "resource": "UPDATE OF originalFilename",
        ]
        for (table, _) in sources {
            let events = ["INSERT", "DELETE", updates[table]].compactMap { $0 }.joined(separator: " OR ")
            statements.append(
                """
                CREATE TRIGGER \(table)_search AFTER \(events) ON \(table)
                FOR EACH ROW EXECUTE FUNCTION search_stale_row()
                """)
        }
        statements += [
            """
            CREATE TRIGGER asset_search AFTER UPDATE OF cameraMake, cameraModel, lensModel ON asset
            FOR EACH ROW EXECUTE FUNCTION search_stale_asset()
            """,
            """
            CREATE TRIGGER person_search AFTER UPDATE OF name, isHidden ON person
            FOR EACH ROW EXECUTE FUNCTION search_stale_person()
            """,
            """
            CREATE TRIGGER assetCollection_search AFTER UPDATE OF title ON assetCollection
            FOR EACH ROW EXECUTE FUNCTION search_stale_album()
            """,
            "INSERT INTO searchStale (assetId) SELECT id FROM asset",
        ]
        return statements
    }()
}

/// The names a search box understands as what they are, not as words (``SQLDatabase/searchVocabulary()``).
public struct SearchVocabulary: Sendable, Hashable {
    public struct Camera: Sendable, Hashable {
        public var make: String?
        public var model: String

        public init(make: String?, model: String) {
            self.make = make
            self.model = model
        }
    }
    public var people: [String]
    public var places: [String]
    public var cameras: [Camera]

    public init(people: [String] = [], places: [String] = [], cameras: [Camera] = []) {
        self.people = people
        self.places = places
        self.cameras = cameras
    }
}

/// The search's documents made again (``SearchSchema``).
public enum SearchDocuments {
    /// Documents a write transaction makes again at its end; the search job does the rest.
    public static let perTransaction = 256
    /// Documents the search job makes again a transaction.
    public static let perJobStep = 2_048
    /// The least confidence of a thing a search finds its photo by: a classifier's guesses
    /// below it (a cabbage butterfly on a flower at 0.36, a bighorn on a mountain at 0.23) are
    /// the fetch's (`thing == "animal"`), not the box's; a detector's objects are all above it.
    public static let surestThings = 0.4
    /// The longest document kept: a photo with hundreds of lines read is found by their first.
    public static let maximumLength = 20_000
}

extension SQLDatabase {
    /// Makes the documents of at most `limit` stale assets again (the lowest rows first) and
    /// answers whether some stay stale.
    func refreshSearchDocuments(limit: Int) throws -> Bool {
        let ids = try rows("SELECT assetId FROM searchStale ORDER BY assetId LIMIT ?", [limit]).map {
            try $0.integer("assetId")
        }
        guard !ids.isEmpty else { return false }
        let marks = Array(repeating: "?", count: ids.count).joined(separator: ",")
        let arguments = ids.map(SQLValue.integer)
        var words: [Int64: [String]] = [:]
        var people: [Int64: [String]] = [:]
        var text: [Int64: [String]] = [:]
        func collect(_ sql: String, into target: inout [Int64: [String]]) throws {
            for row in try rows(sql, arguments) {
                guard let value = row["value"].text, !value.isEmpty else { continue }
                target[try row.integer("assetId"), default: []].append(value)
            }
        }
        try collect(
            """
            SELECT assetId, term AS value FROM thingTerm
            WHERE assetId IN (\(marks)) AND confidence >= \(SearchDocuments.surestThings)
            """, into: &words)
        try collect(
            """
            SELECT assetPlace.assetId, placeName.name AS value FROM assetPlace
            JOIN placeName ON placeName.placeId = assetPlace.placeId WHERE assetPlace.assetId IN (\(marks))
            """, into: &words)
        try collect(
            """
            SELECT DISTINCT face.assetId, person.name AS value FROM face JOIN person ON person.id = face.personId
            WHERE face.assetId IN (\(marks)) AND face.membership IN (1, 2) AND person.isHidden = 0
            """, into: &people)
        try collect(
            """
            SELECT collectionAsset.assetId, assetCollection.title AS value FROM collectionAsset
            JOIN assetCollection ON assetCollection.id = collectionAsset.collectionId
            WHERE collectionAsset.assetId IN (\(marks)) AND assetCollection.type = \(AssetCollectionType.album.rawValue)
            """, into: &words)
        try collect(
            """
            SELECT id AS assetId, TRIM(COALESCE(cameraMake, '') || ' ' || COALESCE(cameraModel, '') || ' '
            || COALESCE(lensModel, '')) AS value FROM asset WHERE id IN (\(marks))
            """, into: &words)
        try collect(
            "SELECT assetId, originalFilename AS value FROM resource WHERE assetId IN (\(marks))", into: &words)
        try collect(
            "SELECT assetId, text AS value FROM textLine WHERE assetId IN (\(marks)) ORDER BY assetId, ordinal",
            into: &text)
        let present = Set(
            try rows("SELECT id FROM asset WHERE id IN (\(marks))", arguments).map { try $0.integer("id") })
        try execute("DELETE FROM assetSearch WHERE assetId IN (\(marks))", arguments)
        func document(_ lines: [String]?) -> String {
            var seen = Set<String>()
            return String(
                (lines ?? []).filter { seen.insert($0.lowercased()).inserted }.joined(separator: "\n")
                    .prefix(SearchDocuments.maximumLength))
        }
        for id in ids where present.contains(id) {
            try execute(
                "INSERT INTO assetSearch (assetId, words, people, text) VALUES (?, ?, ?, ?)",
                [id, document(words[id]), document(people[id]), document(text[id])])
        }
        try execute("DELETE FROM searchStale WHERE assetId IN (\(marks))", arguments)
        return try integer("SELECT assetId FROM searchStale LIMIT 1") != nil
    }

    /// The names a search box understands: people's (named, not hidden), places', cameras'.
    func searchVocabulary() throws -> SearchVocabulary {
        SearchVocabulary(
            people: try rows(
                "SELECT DISTINCT name FROM person WHERE name IS NOT NULL AND name <> '' AND isHidden = 0 LIMIT 10000"
            ).compactMap { $0["name"].text },
            places: try rows("SELECT DISTINCT name FROM placeName LIMIT 100000").compactMap { $0["name"].text },
            cameras: try rows(
                """
                SELECT DISTINCT cameraMake, cameraModel FROM asset
                WHERE cameraModel IS NOT NULL AND trashedDate IS NULL LIMIT 10000
                """
            ).compactMap { row in row["cameraModel"].text.map { (row["cameraMake"].text, $0) } }
                .map { SearchVocabulary.Camera(make: $0.0, model: $0.1) })
    }

    /// How many assets' documents are out of date.
    func staleSearchDocuments() throws -> Int {
        Int(try integer("SELECT COUNT(*) FROM searchStale") ?? 0)
    }
}

extension SQLDialect {
    /// SQL selecting the assets whose document holds `word` (letters and digits only): among
    /// its words (stemmed, as a prefix: "lisb" finds Lisbon) and, `withPeople`, its people's
    /// names, or inside its text (three characters or more). The word is bound to each `?`, as
    /// ``fullTextArguments(_:withPeople:)`` gives it.
    func fullTextMatch(withPeople: Bool) -> String {
        switch self {
        case .sqlite:
            """
            SELECT rowid FROM assetSearchWords WHERE assetSearchWords MATCH (\(withPeople ? "" : "'words : ' || ")'"' || ? || '"*')
            UNION SELECT rowid FROM assetSearchText WHERE length(?) >= 3 AND assetSearchText MATCH ('"' || ? || '"')
            """
        case .postgres:
            """
            SELECT assetId FROM assetSearch
            WHERE to_tsvector('english', words) @@ to_tsquery('english', quote_literal(CAST(? AS TEXT)) || ':*')
            \(withPeople ? """
                UNION SELECT assetId FROM assetSearch
                WHERE to_tsvector('simple', people) @@ to_tsquery('simple', quote_literal(CAST(? AS TEXT)) || ':*')
                """ : "")
            UNION SELECT assetId FROM assetSearch
            WHERE text <> '' AND length(CAST(? AS TEXT)) >= 3 AND strpos(lower(text), lower(CAST(? AS TEXT))) > 0
            """
        }
    }

    /// The word's arguments for ``fullTextMatch(withPeople:)``.
    func fullTextArguments(_ word: String, withPeople: Bool) -> [SQLValue] {
        Array(repeating: .text(word), count: self == .postgres && withPeople ? 4 : 3)
    }
}
