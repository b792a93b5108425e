import Foundation
import LightboxStore

extension PhotoLibrary {
    /// The moments of the library, oldest first (PhotoKit's moments: `fetchAssetCollections(with: .moment)`),
    /// grouped by ``MomentGrouping``. Each moment's identifier is "moment-" and the identifier
    /// of its first asset, so it stays the same while that asset stays first.
    public func fetchMoments(grouping: MomentGrouping = MomentGrouping()) throws -> FetchResult<AssetCollection> {
        FetchResult(objects: try momentHierarchy(grouping).moments)
    }

    /// The moment lists: years (`.momentListYear`) or clusters (`.momentListCluster`), oldest
    /// first; `fetchCollections(in:)` gives a list's moments.
    public func fetchMomentLists(_ subtype: CollectionListSubtype, grouping: MomentGrouping = MomentGrouping()) throws
        -> FetchResult<CollectionList>
    {
        let hierarchy = try momentHierarchy(grouping)
        return FetchResult(objects: subtype == .momentListYear ? hierarchy.years : hierarchy.clusters)
    }

    struct MomentHierarchy {
        var moments: [AssetCollection]
        var clusters: [CollectionList]
        var years: [CollectionList]
    }

    /// Groups every visible asset: one pass over creation dates and locations, oldest first.
    func momentHierarchy(_ grouping: MomentGrouping) throws -> MomentHierarchy {
        struct Row {
            var id: String
            var point: MomentGrouping.Point
            var offset: Int
            var place: String?
        }
        let rows = try store.read { try $0.timesAndPlaces() }.map { asset in
            Row(
                id: asset.localIdentifier,
                point: MomentGrouping.Point(
                    date: asset.creationDate, latitude: asset.latitude, longitude: asset.longitude),
                offset: asset.timeZoneOffset, place: asset.placeTitle)
        }
        let points = rows.map(\.point)
        let momentRanges = grouping.moments(points)
        var moments: [AssetCollection] = []
        for range in momentRanges {
            // Named for its places once the places job named them (as PhotoKit's), else its day.
            let names = Self.mostFrequent(rows[range].compactMap(\.place))
            var moment = AssetCollection(
                localIdentifier: "moment-" + rows[range.lowerBound].id, assetCollectionType: .moment,
                assetCollectionSubtype: .any,
                localizedTitle: Self.placesTitle(names)
                    ?? Self.dayTitle(rows[range.lowerBound].point.date, rows[range.lowerBound].offset),
                estimatedAssetCount: range.count, startDate: points[range.lowerBound].date,
                endDate: points[range.upperBound - 1].date)
            moment.memberIdentifiers = rows[range].map(\.id)
            moment.localizedLocationNames = names
            moments.append(moment)
        }
        let clusterRanges = grouping.clusters(momentRanges.map { (points[$0.lowerBound], points[$0.upperBound - 1]) })
        let clusters = clusterRanges.map { range in
            let members = momentRanges[range.lowerBound].lowerBound..<momentRanges[range.upperBound - 1].upperBound
            let names = Self.mostFrequent(rows[members].compactMap(\.place))
            var list = CollectionList(
                localIdentifier: "cluster-" + rows[momentRanges[range.lowerBound].lowerBound].id,
                collectionListType: .momentList, collectionListSubtype: .momentListCluster,
                localizedTitle: Self.placesTitle(names) ?? moments[range.lowerBound].localizedTitle)
            list.transientCollections = moments[range].map { .assetCollection($0) }
            list.localizedLocationNames = names
            return list
        }
        var years: [CollectionList] = []
        var calendar = Calendar(identifier: .gregorian)
        for (index, moment) in moments.enumerated() {
            let first = rows[momentRanges[index].lowerBound]
            calendar.timeZone = TimeZone(secondsFromGMT: first.offset) ?? TimeZone(secondsFromGMT: 0)!
            let year = calendar.component(.year, from: first.point.date)
            if years.last?.localizedTitle != String(year) {
                var list = CollectionList(
                    localIdentifier: "year-\(year)", collectionListType: .momentList,
                    collectionListSubtype: .momentListYear, localizedTitle: String(year))
                list.transientCollections = []
                years.append(list)
            }
            years[years.count - 1].transientCollections?.append(.assetCollection(moment))
        }
        // A year's places: its moments', the most photographed first.
        for index in years.indices {
            var counts: [String: Int] = [:]
            for case .assetCollection(let moment) in years[index].transientCollections ?? [] {
                for name in moment.localizedLocationNames { counts[name, default: 0] += moment.estimatedAssetCount }
            }
            years[index].localizedLocationNames = Self.ranked(counts)
        }
        return MomentHierarchy(moments: moments, clusters: clusters, years: years)
    }

    /// The most a moment or a list names of its places.
    static let maximumLocationNames = 5

    /// The names, each once, the most frequent first (ties in the order of first appearance's
    /// name), at most ``maximumLocationNames``.
    static func mostFrequent(_ names: [String]) -> [String] {
        var counts: [String: Int] = [:]
        for name in names { counts[name, default: 0] += 1 }
        return ranked(counts)
    }

    private static func ranked(_ counts: [String: Int]) -> [String] {
        Array(
            counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.prefix(maximumLocationNames)
                .map(\.key))
    }

    /// "Lisbon", "Lisbon & Sintra", "Lisbon, Sintra & Cascais": the title of what its places
    /// name (three at most), nil when none is named.
    static func placesTitle(_ names: [String]) -> String? {
        switch names.count {
        case 0: nil
        case 1: names[0]
        case 2: names[0] + " & " + names[1]
        default: names[0] + ", " + names[1] + " & " + names[2]
        }
    }

    /// "14 Jul 2019", in the time zone the asset was taken in.
    private static func dayTitle(_ date: Date, _ offset: Int) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(secondsFromGMT: offset)
        formatter.dateFormat = "d MMM yyyy"
        return formatter.string(from: date)
    }
}
