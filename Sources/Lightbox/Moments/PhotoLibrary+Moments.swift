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
        }
        let rows = try store.read { try $0.timesAndPlaces() }.map { asset in
            Row(
                id: asset.localIdentifier,
                point: MomentGrouping.Point(
                    date: asset.creationDate, latitude: asset.latitude, longitude: asset.longitude),
                offset: asset.timeZoneOffset)
        }
        let points = rows.map(\.point)
        let momentRanges = grouping.moments(points)
        var moments: [AssetCollection] = []
        for range in momentRanges {
            var moment = AssetCollection(
                localIdentifier: "moment-" + rows[range.lowerBound].id, assetCollectionType: .moment,
                assetCollectionSubtype: .any,
                localizedTitle: Self.dayTitle(rows[range.lowerBound].point.date, rows[range.lowerBound].offset),
                estimatedAssetCount: range.count, startDate: points[range.lowerBound].date,
                endDate: points[range.upperBound - 1].date)
            moment.memberIdentifiers = rows[range].map(\.id)
            moments.append(moment)
        }
        let clusterRanges = grouping.clusters(momentRanges.map { (points[$0.lowerBound], points[$0.upperBound - 1]) })
        let clusters = clusterRanges.map { range in
            var list = CollectionList(
                localIdentifier: "cluster-" + rows[momentRanges[range.lowerBound].lowerBound].id,
                collectionListType: .momentList, collectionListSubtype: .momentListCluster,
                localizedTitle: moments[range.lowerBound].localizedTitle)
            list.transientCollections = moments[range].map { .assetCollection($0) }
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
        return MomentHierarchy(moments: moments, clusters: clusters, years: years)
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
