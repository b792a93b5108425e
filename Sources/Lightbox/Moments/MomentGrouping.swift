import Foundation
import LightboxStore

/// How the library groups assets into moments, moments into clusters, and clusters into
/// years (PhotoKit's moment hierarchy).
///
/// Assets are taken in creation order. A new moment starts where the time between two
/// consecutive assets exceeds ``momentTimeGap``, or where both have a location and they lie
/// more than ``momentDistance`` apart. Moments form clusters the same way, with the larger
/// ``clusterTimeGap`` and ``clusterDistance`` between the end of one moment and the start of
/// the next (distance between their first located assets). A year holds the moments that
/// start in it, in the time zone their first asset was taken in.
public struct MomentGrouping: Sendable, Hashable {
    /// The longest pause inside a moment: 3 hours.
    public var momentTimeGap: TimeInterval = 3 * 3600
    /// The farthest two consecutive assets of a moment lie apart: 10 km.
    public var momentDistance: Double = 10_000
    /// The longest pause between moments of a cluster: 3 days.
    public var clusterTimeGap: TimeInterval = 3 * 24 * 3600
    /// The farthest apart two consecutive moments of a cluster lie: 100 km.
    public var clusterDistance: Double = 100_000

    /// The default thresholds.
    public init() {}

    /// One asset as grouping sees it.
    public struct Point: Sendable, Hashable {
        public var date: Date
        public var latitude: Double?
        public var longitude: Double?

        /// A point at a date, with a location when known.
        public init(date: Date, latitude: Double? = nil, longitude: Double? = nil) {
            self.date = date
            self.latitude = latitude
            self.longitude = longitude
        }
    }

    /// Splits points (in creation order) into runs: index ranges of consecutive points that
    /// belong together under a time gap and a distance.
    public static func split(_ points: [Point], timeGap: TimeInterval, distance: Double) -> [Range<Int>] {
        guard !points.isEmpty else { return [] }
        var runs: [Range<Int>] = []
        var start = 0
        for index in 1..<points.count {
            let previous = points[index - 1]
            let current = points[index]
            var breaks = current.date.timeIntervalSince(previous.date) > timeGap
            if !breaks, let d = metres(previous, current), d > distance { breaks = true }
            if breaks {
                runs.append(start..<index)
                start = index
            }
        }
        runs.append(start..<points.count)
        return runs
    }

    /// Moments: runs of assets.
    public func moments(_ points: [Point]) -> [Range<Int>] {
        Self.split(points, timeGap: momentTimeGap, distance: momentDistance)
    }

    /// Clusters: runs of moments, each given by the moment's first and last point.
    public func clusters(_ moments: [(first: Point, last: Point)]) -> [Range<Int>] {
        guard !moments.isEmpty else { return [] }
        var runs: [Range<Int>] = []
        var start = 0
        for index in 1..<moments.count {
            var breaks = moments[index].first.date.timeIntervalSince(moments[index - 1].last.date) > clusterTimeGap
            if !breaks, let d = Self.metres(moments[index - 1].first, moments[index].first), d > clusterDistance {
                breaks = true
            }
            if breaks {
                runs.append(start..<index)
                start = index
            }
        }
        runs.append(start..<moments.count)
        return runs
    }

    /// Great-circle distance in metres (haversine), or nil unless both points have a location.
    public static func metres(_ a: Point, _ b: Point) -> Double? {
        guard let lat1 = a.latitude, let lon1 = a.longitude, let lat2 = b.latitude, let lon2 = b.longitude else {
            return nil
        }
        let radians = Double.pi / 180
        let dLat = (lat2 - lat1) * radians
        let dLon = (lon2 - lon1) * radians
        let h =
            sin(dLat / 2) * sin(dLat / 2) + cos(lat1 * radians) * cos(lat2 * radians) * sin(dLon / 2) * sin(dLon / 2)
        return 2 * 6_371_000 * asin(min(1, sqrt(h)))
    }
}
