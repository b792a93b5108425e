import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The writes benchmarks alone make: rows without files, in bulk, that no real library may
/// hold. Kept off the store's protocols, so that no feature can call them; here alone is it
/// known which store and which derivative storage a library has.
package enum StoreBenchmarks {
    /// Inserts `count` asset rows without files, spread over four years from `start` (see
    /// `PhotoLibrary.insertSyntheticAssets(count:spreadFrom:)`), 100,000 a transaction, then
    /// does the upkeep the database would do in its own time.
    package static func insertSyntheticAssets(into store: any LibraryStore, count: Int, spreadFrom start: Date) throws {
        // A fixed generator: every run fills the same dates, favourites and videos.
        var state: UInt64 = 0x5EED
        var inserted = 0
        while inserted < count {
            let batch = min(100_000, count - inserted)
            try store.writeSQL { try $0.insertSyntheticAssets(count: batch, spreadFrom: start, state: &state) }
            inserted += batch
        }
        // What autovacuum would do: the versions updates left behind (the tallies' rows are
        // updated by every insert) removed, the planner's statistics gathered.
        try (store as? PostgresStore)?.settleAfterBulkWrites()
    }

    /// Inserts `count` copies of the library's visible assets (see
    /// `PhotoLibrary.insertCopiesOfAssets(count:spreadFrom:years:)`), each sharing its
    /// template's rendered images as hard links when they are files.
    package static func insertCopiesOfAssets(
        into store: any LibraryStore, derivatives: any DerivativeStorage, count: Int, spreadFrom start: Date,
        years: Int
    ) throws {
        let made = try store.writeSQL {
            try $0.insertCopiesOfAssets(count: max(0, count), spreadFrom: start, years: years)
        }
        guard let folder = derivatives as? DerivativeFolder else { return }
        for (copy, template) in made {
            let source = folder.path(localIdentifier: template, key: "").folder
            let target = folder.path(localIdentifier: copy, key: "").folder
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: source) else { continue }
            try FileIO.makeDirectory(target)
            for name in names { link(source + "/" + name, target + "/" + name) }
        }
    }
}
