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

    /// Gives `share` of the library's assets a location (see
    /// `PhotoLibrary.insertSyntheticLocations(share:)`), 100,000 a transaction.
    package static func insertSyntheticLocations(into store: any LibraryStore, share: Double) throws {
        var state: UInt64 = 0x6E0
        var after: Int64 = 0
        while let last = try store.writeSQL({
            try $0.insertSyntheticLocations(share: share, after: after, limit: 100_000, state: &state)
        }) {
            after = last
        }
        try (store as? PostgresStore)?.settleAfterBulkWrites()
    }

    /// Inserts `count` faces of `people` made-up people on the library's assets (see
    /// `PhotoLibrary.insertSyntheticFaces(count:people:model:)`), 100,000 a transaction.
    package static func insertSyntheticFaces(into store: any LibraryStore, count: Int, people: Int, model: String)
        throws
    {
        var state: UInt64 = 0xFACE
        let persons = try store.writeSQL { try $0.insertSyntheticPeople(max(1, min(people, count))) }
        var inserted = 0
        while inserted < count {
            let batch = min(100_000, count - inserted)
            let first = inserted
            try store.writeSQL {
                try $0.insertSyntheticFaces(count: batch, from: first, onPeople: persons, model: model, state: &state)
            }
            inserted += batch
        }
        try (store as? PostgresStore)?.settleAfterBulkWrites()
    }

    /// A face's embedding of a made-up person: their centre (fixed by their number) and a
    /// little noise from `state`, as faces of one person lie near each other.
    package static func syntheticEmbedding(person: Int, state: inout UInt64) -> [Float] {
        var centre = UInt64(truncatingIfNeeded: person) &* 0x9E37_79B9_7F4A_7C15 | 1
        return (0..<128).map { _ in
            centre = centre &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let base = Float(Int64(bitPattern: centre) >> 40) / Float(1 << 23) * 0.09
            let noise = Float(Int64(bitPattern: state) >> 40) / Float(1 << 23) * 0.01
            return base + noise
        }
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
