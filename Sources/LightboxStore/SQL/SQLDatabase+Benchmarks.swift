import Foundation

extension SQLDatabase {
    /// Asset rows without files, for benchmarks (see
    /// `PhotoLibrary.insertSyntheticAssets(count:spreadFrom:)`): the same rows on either store,
    /// inserted 1,000 to a statement, drawn from the generator `state` (carried from one call
    /// to the next).
    func insertSyntheticAssets(count: Int, spreadFrom start: Date, state: inout UInt64) throws {
        var inserted = 0
        while inserted < count {
            let batch = Swift.min(1_000, count - inserted)
            var arguments: [SQLValue] = []
            arguments.reserveCapacity(batch * 7)
            for _ in 0..<batch {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                let seconds = Double((state >> 33) % (4 * 365 * 24 * 3600))
                let date = start.addingTimeInterval(seconds).sqlValue
                arguments += [
                    UUID().uuidString.sqlValue, ((state >> 20) % 10 == 0 ? 2 : 1).sqlValue, date,
                    Self.benchmarkZones[Int((state >> 17) % 4)].sqlValue, date, date,
                    ((state >> 13) % 5 == 0).sqlValue,
                ]
            }
            let rows = Array(repeating: "(?, ?, 0, 4032, 3024, ?, ?, ?, ?, ?)", count: batch).joined(separator: ", ")
            try execute(
                """
                INSERT INTO asset (localIdentifier, mediaType, mediaSubtypes, pixelWidth, pixelHeight, creationDate,
                creationTimeZoneOffset, modificationDate, addedDate, isFavorite) VALUES \(rows)
                """, arguments)
            inserted += batch
        }
        try execute("INSERT INTO changeTransaction (date, author) VALUES (?, 'bench')", [Date()])
    }

    /// Locations for benchmark assets, `share` of them (0 to 1) of `limit` from the id `after`
    /// on: most near a few cities a family lives and travels in (within about 20 km),
    /// the rest anywhere on the globe (most of it sea), drawn from `state`. Answers the last id
    /// given a location, or nil when none was left.
    func insertSyntheticLocations(share: Double, after: Int64, limit: Int, state: inout UInt64) throws -> Int64? {
        let ids = try integers("SELECT id FROM asset WHERE id > ? ORDER BY id LIMIT ?", [after, limit])
        guard let last = ids.last else { return nil }
        let cities: [(Double, Double)] = [
            (38.7223, -9.1393), (51.5074, -0.1278), (48.8566, 2.3522), (52.52, 13.405), (40.7128, -74.006),
            (35.6762, 139.6503), (-33.8688, 151.2093), (-23.5505, -46.6333), (41.9028, 12.4964), (64.1466, -21.9426),
        ]
        for id in ids {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let draw = Double(state >> 11) / Double(1 << 53)
            guard draw < share else { continue }
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let a = Double(state >> 11) / Double(1 << 53)
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let b = Double(state >> 11) / Double(1 << 53)
            let location: (Double, Double)
            if draw < share * 0.9 {
                let city = cities[Int(state >> 60) % cities.count]
                location = (city.0 + (a - 0.5) * 0.36, city.1 + (b - 0.5) * 0.36)
            } else {
                location = (asin(2 * a - 1) * 180 / .pi, b * 360 - 180)
            }
            try execute("UPDATE asset SET latitude = ?, longitude = ? WHERE id = ?", [location.0, location.1, id])
        }
        return last
    }

    /// The time zones benchmark assets were taken in, mixed as a traveller's or a family's
    /// library mixes them (New York, London, Berlin, Tokyo; seconds east of UTC): a timeline's
    /// days and months must not repeat where zones interleave.
    static var benchmarkZones: [Int] { [-5 * 3600, 0, 3600, 9 * 3600] }

    /// Copies of the visible assets (see `PhotoLibrary.insertCopiesOfAssets`): each row and its
    /// resources copied column by column, with a new identifier and dates, and a digest whose
    /// first 16 digits (what rendered images are keyed by) are its template's. Returns each
    /// copy's identifier with its template's.
    func insertCopiesOfAssets(count: Int, spreadFrom start: Date, years: Int) throws -> [(String, String)] {
        let templates = try rows(
            "SELECT id, localIdentifier FROM asset WHERE \(AssetVisibility.defaultCondition) ORDER BY id"
        ).map { (try $0.integer("id"), try $0.text("localIdentifier")) }
        guard !templates.isEmpty, count > 0 else { return [] }
        let assetColumns = try columnNames(
            of: "asset",
            except: [
                "id", "localIdentifier", "creationDate", "creationTimeZoneOffset", "modificationDate", "addedDate",
                "localCreationDate",
            ]
        ).joined(separator: ", ")
        let resourceColumns = try columnNames(of: "resource", except: ["id", "assetId", "sha256"]).joined(
            separator: ", ")
        var made: [(String, String)] = []
        made.reserveCapacity(count)
        // A fixed generator: every run fills the same dates.
        var state: UInt64 = 0x5EED
        let span = UInt64(max(1, years) * 365 * 24 * 3600)
        for index in 0..<count {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let date = start.addingTimeInterval(Double((state >> 33) % span))
            let template = templates[index % templates.count]
            let identifier = UUID().uuidString
            guard
                let copy = try integer(
                    """
                    INSERT INTO asset (localIdentifier, creationDate, creationTimeZoneOffset, modificationDate,
                    addedDate, \(assetColumns))
                    SELECT ?, ?, ?, ?, ?, \(assetColumns) FROM asset WHERE id = ? RETURNING id
                    """, [identifier, date, Self.benchmarkZones[Int((state >> 17) % 4)], date, date, template.0])
            else { throw LibraryError(.storageFailed, "the copy of asset \(template.1) was not inserted") }
            let tail = String(format: "%048llx", state ^ UInt64(index))
            try execute(
                """
                INSERT INTO resource (assetId, sha256, \(resourceColumns))
                SELECT ?, substr(sha256, 1, 16) || ?, \(resourceColumns) FROM resource WHERE assetId = ?
                """, [copy, tail, template.0])
            made.append((identifier, template.1))
        }
        try execute("INSERT INTO changeTransaction (date, author) VALUES (?, 'bench')", [Date()])
        return made
    }

    /// The columns of a table, in order, but those named in `except` (in any case).
    private func columnNames(of table: String, except: Set<String>) throws -> [String] {
        let names: [String]
        switch dialect {
        case .sqlite:
            names = try rows("PRAGMA table_info(\(table))").compactMap { $0["name"].text }
        case .postgres:
            names = try texts(
                """
                SELECT column_name::text FROM information_schema.columns
                WHERE table_schema = current_schema() AND table_name = ? ORDER BY ordinal_position
                """, [table.lowercased()])
        }
        let left = Set(except.map { $0.lowercased() })
        return names.filter { !left.contains($0.lowercased()) }
    }
}

extension SQLDatabase {
    /// `count` made-up people, for benchmarks (see `PhotoLibrary.insertSyntheticFaces`):
    /// answers their row ids.
    func insertSyntheticPeople(_ count: Int) throws -> [Int64] {
        var persons: [Int64] = []
        for start in stride(from: 0, to: count, by: 1_000) {
            let batch = Swift.min(1_000, count - start)
            let rows = Array(repeating: "(?, ?)", count: batch).joined(separator: ", ")
            var arguments: [SQLValue] = []
            for _ in 0..<batch { arguments += [UUID().uuidString.sqlValue, Date().sqlValue] }
            persons += try integers(
                "INSERT INTO person (localIdentifier, creationDate) VALUES \(rows) RETURNING id", arguments)
        }
        return persons
    }

    /// Faces without photos' pixels, for benchmarks of people over a million faces: faces
    /// `first` to `first + count` of the library's assets in row order (two an asset), each of
    /// one of `persons` (face i of person i for the first, their key face; then one drawn from
    /// `state`), grouped, with an embedding near its person's centre, 1,000 to a statement.
    func insertSyntheticFaces(
        count: Int, from first: Int, onPeople persons: [Int64], model: String,
        state: inout UInt64
    ) throws {
        let assets = try integers("SELECT id FROM asset ORDER BY id")
        guard !assets.isEmpty, !persons.isEmpty else { return }
        var inserted = 0
        while inserted < count {
            let batch = Swift.min(1_000, count - inserted)
            var arguments: [SQLValue] = []
            arguments.reserveCapacity(batch * 9)
            for offset in 0..<batch {
                let index = first + inserted + offset
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                let personIndex = index < persons.count ? index : Int((state >> 33) % UInt64(persons.count))
                let embedding = StoreBenchmarks.syntheticEmbedding(person: personIndex, state: &state)
                arguments += [
                    UUID().uuidString.sqlValue, assets[(index / 2) % assets.count].sqlValue,
                    (index % 2 == 0 ? 0.1 : 0.6).sqlValue, SQLValue.blob([]),
                    SQLValue.blob(FaceVectorCoding.encode(embedding)), model.sqlValue, persons[personIndex].sqlValue,
                    (index < persons.count ? 1 : 0).sqlValue, (0.6 + Double(index % 40) / 100).sqlValue,
                ]
            }
            let rows = Array(repeating: "(?, ?, ?, 0.2, 0.2, 0.2, ?, ?, ?, ?, 1, ?, ?, 1)", count: batch)
                .joined(separator: ", ")
            try execute(
                """
                INSERT INTO face (localIdentifier, assetId, x, y, width, height, landmarks, embedding, model, personId,
                membership, isKey, quality, placed) VALUES \(rows)
                """, arguments)
            inserted += batch
        }
    }
}
