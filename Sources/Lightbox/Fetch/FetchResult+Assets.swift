import Foundation
import LightboxStore

extension FetchResult where ObjectType == Asset {
    /// The cameras and lenses the result's assets were taken with, each with how many, the
    /// most used first (then by make, model and lens): all of them add up to ``count``; `limit`
    /// keeps the first so many (a library's files may name any number of cameras). A fetch
    /// over the catalog groups them in one query, without loading the assets; a result made
    /// in memory walks its objects.
    public func cameras(limit: Int? = nil) throws -> [AssetCamera] {
        if let source, let cameras = try source.cameras(limit: limit) { return cameras }
        // Keyed by the camera with a count of 0.
        var counts: [AssetCamera: Int] = [:]
        for asset in self {
            let camera = AssetCamera(
                make: asset.cameraMake, model: asset.cameraModel, lensModel: asset.lensModel, count: 0)
            counts[camera, default: 0] += 1
        }
        // SQLite's order: NULL before any text, text by its bytes.
        func before(_ a: String?, _ b: String?) -> Bool? {
            guard a != b else { return nil }
            guard let a else { return true }
            guard let b else { return false }
            return Array(a.utf8).lexicographicallyPrecedes(Array(b.utf8))
        }
        let sorted = counts.map { camera, count in
            var counted = camera
            counted.count = count
            return counted
        }.sorted { a, b in
            if a.count != b.count { return a.count > b.count }
            return before(a.make, b.make) ?? before(a.model, b.model) ?? before(a.lensModel, b.lensModel) ?? false
        }
        return limit.map { Array(sorted.prefix(Swift.max(0, $0))) } ?? sorted
    }
}

extension FetchResult where ObjectType == Asset {
    /// The days the result's assets were taken on, in the time zone each was taken in, as runs
    /// of consecutive assets in the result's order, and with `aspectRatios` each asset's shape:
    /// a timeline's day headings, where each day starts (the sum of the counts before it) and
    /// its layout, without loading the assets.
    ///
    /// From the result's snapshot, like everything else it answers: the counts add up to
    /// ``count``. A fetch over the catalog reads two columns of each row in one query (four
    /// with the shapes); a result made in memory walks its objects.
    public func creationDays(aspectRatios: Bool = false) throws -> [AssetDay] {
        if let source, let days = try source.creationDays(aspectRatios: aspectRatios) { return days }
        var runs = AssetDay.Runs(aspectRatios: aspectRatios)
        for asset in self {
            runs.add(
                AssetDay.dayNumber(asset.creationDate, offsetSeconds: asset.creationTimeZoneOffset),
                width: Int64(asset.pixelWidth), height: Int64(asset.pixelHeight))
        }
        return runs.finish()
    }
}
