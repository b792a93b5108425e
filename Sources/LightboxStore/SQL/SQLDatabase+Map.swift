import Foundation

/// The map's cells (schema step v31, alike on both stores): the visible located assets of an
/// area grouped by a grid of square cells, counted in SQL over the partial index
/// `asset_visible_on_location`, so that a view of the whole earth reads a million located
/// assets' index entries and never their rows.
enum MapSchema {
    /// The index holds the visible assets with a location only, with their row ids, so that
    /// the cells are counted from it alone.
    static let statements = [
        """
        CREATE INDEX asset_visible_on_location ON asset (latitude, longitude, id)
        WHERE isHidden = 0 AND (burstIdentifier IS NULL OR representsBurst = 1) AND trashedDate IS NULL
            AND latitude IS NOT NULL AND longitude IS NOT NULL
        """
    ]

    /// The index's condition over `asset`, which a query repeats for the store to take it.
    static let condition =
        "\(AssetVisibility.defaultCondition) AND asset.latitude IS NOT NULL AND asset.longitude IS NOT NULL"

    /// The most cells a read answers: a view asking for more (the earth at a street's zoom) is
    /// refused before any work.
    static let maximumCells = 20_000
}

extension SQLDatabase {
    /// The visible located assets in `area`, grouped by cells `cellSize` degrees square,
    /// counted from the grid's origin (90° S, 180° W) so that a cell is the same at every read;
    /// among `identifiers` only when given (a limited view's), 500 a query. Throws before any
    /// work for a grid of more than ``MapSchema/maximumCells`` cells over the area.
    func mapCells(in area: MapArea, cellSize: Double, among identifiers: Set<String>? = nil) throws -> [MapCell] {
        guard cellSize.isFinite, cellSize >= 1e-7, cellSize <= 360 else {
            throw LibraryError(.invalidRequest, "a map's cell is from 0.0000001 to 360 degrees, not \(cellSize)")
        }
        let rows = ((area.north - area.south) / cellSize).rounded(.up) + 1
        let columns = (area.width / cellSize).rounded(.up) + 1
        guard rows * columns <= Double(MapSchema.maximumCells) else {
            throw LibraryError(
                .invalidRequest,
                "the area holds more than \(MapSchema.maximumCells) cells of \(cellSize)°: zoom in, or ask for a smaller area"
            )
        }
        let longitudes = area.longitudeRanges.map { _ in "asset.longitude BETWEEN ? AND ?" }.joined(separator: " OR ")
        let query = """
            SELECT asset.latitude, asset.longitude, asset.id FROM asset
            WHERE \(MapSchema.condition) AND asset.latitude BETWEEN ? AND ? AND (\(longitudes)) %@
            """
        var arguments: [SQLValue] = [area.south.sqlValue, area.north.sqlValue]
        for range in area.longitudeRanges { arguments += [range.lowerBound.sqlValue, range.upperBound.sqlValue] }

        var grid = MapGrid(cellSize: cellSize)
        if let identifiers {
            let all = identifiers.sorted()
            for start in stride(from: 0, to: all.count, by: 500) {
                let slice = Array(all[start..<min(start + 500, all.count)])
                let marks = Array(repeating: "?", count: slice.count).joined(separator: ",")
                try mapGrid(
                    query.replacingOccurrences(of: "%@", with: "AND asset.localIdentifier IN (\(marks))"),
                    arguments + slice.map(\.sqlValue), into: &grid)
            }
        } else {
            try mapGrid(query.replacingOccurrences(of: "%@", with: ""), arguments, into: &grid)
        }
        // Each cell's first asset by its identifier, 500 a query.
        let firsts = grid.cells.values.map(\.first)
        var identifierOf: [Int64: String] = [:]
        for start in stride(from: 0, to: firsts.count, by: 500) {
            let slice = Array(firsts[start..<min(start + 500, firsts.count)])
            let marks = Array(repeating: "?", count: slice.count).joined(separator: ",")
            for row in try self.rows(
                "SELECT id, localIdentifier FROM asset WHERE id IN (\(marks))", slice.map(\.sqlValue))
            {
                identifierOf[try row.integer("id")] = try row.text("localIdentifier")
            }
        }
        return grid.cells.values.compactMap { cell in
            identifierOf[cell.first].map { cell.mapCell(asset: $0) }
        }.sorted { ($0.count, $1.asset) > ($1.count, $0.asset) }
    }

    /// Adds the points `sql` selects (latitude, longitude and row id, a row each) to `grid`, grouped
    /// by the database (PostgreSQL's hash aggregate); SQLite's store steps through them instead
    /// (its GROUP BY sorts every row first).
    func mapGrid(_ sql: String, _ arguments: [SQLValue], into grid: inout MapGrid) throws {
        let y = dialect.wholePart(of: "(point.latitude + 90) / ?")
        let x = dialect.wholePart(of: "(point.longitude + 180) / ?")
        for row in try rows(
            """
            SELECT \(y) AS y, \(x) AS x, COUNT(*) AS count, SUM(point.latitude) AS latitudes,
                SUM(point.longitude) AS longitudes, MIN(point.latitude) AS south, MAX(point.latitude) AS north,
                MIN(point.longitude) AS west, MAX(point.longitude) AS east, MIN(point.id) AS first
            FROM (\(sql)) AS point GROUP BY y, x
            """, [grid.cellSize.sqlValue, grid.cellSize.sqlValue] + arguments)
        {
            grid.add(
                MapGrid.Cell(
                    count: Int(try row.integer("count")), latitudes: try row.real("latitudes"),
                    longitudes: try row.real("longitudes"), south: try row.real("south"), north: try row.real("north"),
                    west: try row.real("west"), east: try row.real("east"), first: try row.integer("first")),
                row: try row.integer("y"), column: try row.integer("x"))
        }
    }
}

/// The cells of the map's grid being counted, by row and column from 90° S, 180° W.
struct MapGrid {
    struct Cell {
        var count: Int
        var latitudes: Double
        var longitudes: Double
        var south: Double
        var north: Double
        var west: Double
        var east: Double
        /// The row id of its first asset.
        var first: Int64

        mutating func merge(_ other: Cell) {
            count += other.count
            latitudes += other.latitudes
            longitudes += other.longitudes
            south = min(south, other.south)
            north = max(north, other.north)
            west = min(west, other.west)
            east = max(east, other.east)
            first = min(first, other.first)
        }

        func mapCell(asset: String) -> MapCell {
            MapCell(
                latitude: latitudes / Double(count), longitude: longitudes / Double(count), count: count,
                south: south, west: west, north: north, east: east, asset: asset)
        }
    }

    let cellSize: Double
    private(set) var cells: [Int64: Cell] = [:]

    init(cellSize: Double) {
        self.cellSize = cellSize
    }

    mutating func add(_ cell: Cell, row: Int64, column: Int64) {
        // Rows and columns are below 2^32 for any cell the store takes (at least 10^-7 degrees).
        let key = row << 32 | column
        if cells[key] == nil { cells[key] = cell } else { cells[key]!.merge(cell) }
    }

    /// One asset at a point.
    mutating func add(latitude: Double, longitude: Double, id: Int64) {
        let row = Int64(((latitude + 90) / cellSize).rounded(.down))
        let column = Int64(((longitude + 180) / cellSize).rounded(.down))
        add(
            Cell(
                count: 1, latitudes: latitude, longitudes: longitude, south: latitude, north: latitude, west: longitude,
                east: longitude, first: id), row: row, column: column)
    }
}
