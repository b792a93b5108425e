import Foundation
import LightboxStore

extension PhotoLibrary {
    /// Inserts `count` asset rows without files, spread over four years from `start`, a fifth
    /// of them favourites and a tenth videos: for benchmarks of fetches over libraries of a
    /// million assets, which importing would take hours to fill. Never for a real library.
    ///
    /// The rows commit 100,000 a transaction, as imports commit many, not one: on PostgreSQL a
    /// row updated again and again in one transaction (the tally's) keeps every version until it
    /// commits. The store's upkeep then runs, as it would have in the library's own time.
    @_spi(Benchmarks)
    public func insertSyntheticAssets(count: Int, spreadFrom start: Date) throws {
        try StoreBenchmarks.insertSyntheticAssets(into: store, count: count, spreadFrom: start)
    }

    /// Inserts `count` copies of the library's assets (its imported photos, taken in turn), each
    /// dated anew over `years` years from `start` and sharing its template's original file and
    /// rendered images (hard links): a library a web page can be measured on, at a size no
    /// import could fill in a benchmark's time. The copies share files, so deleting one would
    /// take its template's original: never for a real library.
    @_spi(Benchmarks)
    public func insertCopiesOfAssets(count: Int, spreadFrom start: Date, years: Int) throws {
        try StoreBenchmarks.insertCopiesOfAssets(
            into: store, derivatives: derivatives, count: count, spreadFrom: start, years: years)
    }

    /// Inserts `count` faces of `people` made-up people (key faces first, embeddings near each
    /// person's own centre, all grouped, by `model`) on the library's assets, two an asset: for
    /// benchmarks of people and grouping over a million faces. Never for a real library.
    @_spi(Benchmarks)
    public func insertSyntheticFaces(count: Int, people: Int, model: String) throws {
        try StoreBenchmarks.insertSyntheticFaces(into: store, count: count, people: people, model: model)
    }

    /// Gives `share` (0 to 1) of the library's assets a location, most near a few cities and
    /// the rest anywhere on the globe: for benchmarks of places over a million located assets.
    /// Never for a real library.
    @_spi(Benchmarks)
    public func insertSyntheticLocations(share: Double) throws {
        try StoreBenchmarks.insertSyntheticLocations(into: store, share: min(max(share, 0), 1))
    }

    /// The embedding a synthetic face of made-up person `person` has (with noise from `state`).
    @_spi(Benchmarks)
    public static func syntheticEmbedding(person: Int, state: inout UInt64) -> [Float] {
        StoreBenchmarks.syntheticEmbedding(person: person, state: &state)
    }
}
