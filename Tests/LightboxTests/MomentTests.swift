import Foundation
import Lightbox
import LightboxTestSupport
import Testing

@Suite("Moments, clusters and years")
struct MomentTests {
    typealias Point = MomentGrouping.Point
    static let t0 = Date(timeIntervalSince1970: 1_600_000_000)

    @Test("The thresholds: 3 hours and 10 km between assets, 3 days and 100 km between moments")
    func thresholds() {
        let grouping = MomentGrouping()
        #expect(grouping.momentTimeGap == 3 * 3600 && grouping.momentDistance == 10_000)
        #expect(grouping.clusterTimeGap == 3 * 24 * 3600 && grouping.clusterDistance == 100_000)
        // Reykjavík, then about 9 km and about 11 km east along the same latitude.
        let lat = 64.1466
        let lon = -21.9426
        let kmPerDegree = 111.32 * cos(lat * .pi / 180)
        let points = [
            Point(date: Self.t0, latitude: lat, longitude: lon),
            Point(date: Self.t0.addingTimeInterval(3 * 3600 - 60), latitude: lat, longitude: lon),  // 2h59m: same
            Point(date: Self.t0.addingTimeInterval(6 * 3600 + 60), latitude: lat, longitude: lon),  // 3h01m: new
            Point(date: Self.t0.addingTimeInterval(6 * 3600 + 120), latitude: lat, longitude: lon + 9 / kmPerDegree),  // 9 km: same
            Point(date: Self.t0.addingTimeInterval(6 * 3600 + 180), latitude: lat, longitude: lon + 20 / kmPerDegree),  // 11 km on: new
            Point(date: Self.t0.addingTimeInterval(6 * 3600 + 240)),  // no location: time alone decides
        ]
        #expect(grouping.moments(points) == [0..<2, 2..<4, 4..<6])
        let d9 = MomentGrouping.metres(points[2], points[3])!
        #expect(abs(d9 - 9000) < 100)

        let day: TimeInterval = 24 * 3600
        let momentEnds: [(first: Point, last: Point)] = [
            (Point(date: Self.t0, latitude: 0, longitude: 0), Point(date: Self.t0)),
            (
                Point(date: Self.t0.addingTimeInterval(2.9 * day), latitude: 0, longitude: 0.8),
                Point(date: Self.t0.addingTimeInterval(2.9 * day))
            ),  // ~89 km
            (Point(date: Self.t0.addingTimeInterval(6.1 * day)), Point(date: Self.t0.addingTimeInterval(6.1 * day))),  // 3.2 days later
            (
                Point(date: Self.t0.addingTimeInterval(6.2 * day), latitude: 0, longitude: 2),
                Point(date: Self.t0.addingTimeInterval(6.2 * day))
            ),
            (
                Point(date: Self.t0.addingTimeInterval(6.3 * day), latitude: 0, longitude: 3),
                Point(date: Self.t0.addingTimeInterval(6.3 * day))
            ),  // ~111 km
        ]
        #expect(grouping.clusters(momentEnds) == [0..<2, 2..<4, 4..<5])
    }

    @Test("A library's moments partition its visible assets by the rule; years and clusters hold them")
    func libraryMoments() async throws {
        let folder = try TemporaryDirectory()
        let library = try folder.makeLibrary()
        _ = await library.importItems(at: try Corpus.photoPaths().map { URL(fileURLWithPath: $0) })
        let all = Array(try library.fetchAssets())  // oldest first
        let moments = Array(try library.fetchAssetCollections(with: .moment))
        #expect(moments.allSatisfy { $0.assetCollectionType == .moment })
        var covered: [String] = []
        for moment in moments {
            let assets = Array(try library.fetchAssets(in: moment))
            #expect(assets.count == moment.estimatedAssetCount)
            #expect(assets.first?.creationDate == moment.startDate && assets.last?.creationDate == moment.endDate)
            for (a, b) in zip(assets, assets.dropFirst()) {
                #expect(b.creationDate.timeIntervalSince(a.creationDate) <= 3 * 3600)
            }
            covered += assets.map(\.localIdentifier)
            #expect(
                try library.fetchAssets(inCollectionWithLocalIdentifier: moment.localIdentifier).count == assets.count)
        }
        #expect(covered == all.map(\.localIdentifier), "every visible asset in exactly one moment, in order")
        for (a, b) in zip(moments, moments.dropFirst()) {
            #expect(b.startDate!.timeIntervalSince(a.endDate!) > 3 * 3600)
        }
        let years = Array(try library.fetchCollectionLists(with: .momentList, subtype: .momentListYear))
        let inYears = try years.flatMap { try library.fetchCollections(in: $0).map(\.localIdentifier) }
        #expect(inYears == moments.map(\.localIdentifier))
        #expect(years.map(\.localizedTitle) == years.map(\.localizedTitle).sorted { ($0 ?? "") < ($1 ?? "") })
        let clusters = Array(try library.fetchCollectionLists(with: .momentList, subtype: .momentListCluster))
        let inClusters = try clusters.flatMap { try library.fetchCollections(in: $0).map(\.localIdentifier) }
        #expect(inClusters == moments.map(\.localIdentifier))
        #expect(clusters.count <= moments.count && years.count <= moments.count)
        // Identifiers are stable from fetch to fetch.
        #expect(
            try library.fetchAssetCollections(with: .moment).map(\.localIdentifier) == moments.map(\.localIdentifier))
    }
}
