import Foundation

extension PhotoLibrary {
    /// Inserts `count` asset rows without files, spread over four years from `start`, a fifth
    /// of them favourites and a tenth videos: for benchmarks of fetches over libraries of a
    /// million assets, which importing would take hours to fill. Never for a real library.
    @_spi(Benchmarks)
    public func insertSyntheticAssets(count: Int, spreadFrom start: Date) throws {
        try store.write { try $0.insertSyntheticAssets(count: max(0, count), spreadFrom: start) }
    }
}
