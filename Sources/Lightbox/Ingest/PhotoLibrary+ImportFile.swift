import Foundation
import LightboxImaging
import LightboxMetadata
import LightboxStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension PhotoLibrary {
    /// Imports one file. Blocking: libvips decodes, files are hashed and copied.
    /// Returns the outcome and the file's size.
    ///
    /// A file that completes another asset joins it instead of making a new one: a Live
    /// Photo's still and movie (same content identifier, whatever their order or import
    /// run), a RAW and the JPEG of the same shot. The pairing is decided inside the write
    /// transaction, so two halves imported at the same moment still meet.
    func importFile(atPath path: String, options: ImportOptions) throws -> (ImportOutcome, Int64) {
        if let (localIdentifier, size) = try journaled(path) {
            let held = try heldDuplicate(localIdentifier, options: options, path: path)
            try removeSourceIfMoving(path, options: options)
            return (.duplicate(localIdentifier: held), size)
        }
        let source = try ingestSource(at: path, as: .asset, reportedPath: path)
        if let existing = try existingAsset(withOriginalHash: source.sha256) {
            let held = try heldDuplicate(existing, options: options, path: path)
            try journal(source)
            try removeSourceIfMoving(path, options: options)
            return (.duplicate(localIdentifier: held), source.size)
        }
        var prepared = try prepare(source)
        prepared.pairsWithin = options.contributingTo
        FaultInjection.pause(at: .importStored)
        // The asset as the transaction wrote it, and whether it completed another.
        var placed: (asset: Asset, paired: Bool)
        do {
            let (originals, record) = (self.originals, prepared.record)
            placed = try store.write { store -> (Asset, Bool) in
                try prepared.checkStored(in: originals)
                try store.journal(prepared.journaled)
                if let partner = try store.pair(record) {
                    try store.recordChanges(
                        author: "import", [ObjectChangeRecord(.asset, partner.localIdentifier, .updated)])
                    return (partner, true)
                }
                let localIdentifier = UUID().uuidString
                let asset = try store.insert(record, localIdentifier: localIdentifier)
                try store.recordChanges(author: "import", [ObjectChangeRecord(.asset, localIdentifier, .inserted)])
                return (asset, false)
            }
        } catch let error as DuplicateOriginal {
            // Another import of the same bytes committed first.
            if let existing = try existingAsset(withOriginalHash: source.sha256) {
                originals.release(prepared.storedPaths)
                let held = try heldDuplicate(existing, options: options, path: path)
                try removeSourceIfMoving(path, options: options)
                return (.duplicate(localIdentifier: held), source.size)
            }
            throw LibraryError(.storageFailed, "cannot record the asset: \(error)", path: path, underlying: error)
        } catch let error as LibraryError {
            throw error
        } catch {
            throw LibraryError(.storageFailed, "cannot record the asset: \(error)", path: path, underlying: error)
        }
        FaultInjection.pause(at: .importCommitted)
        originals.release(prepared.storedPaths)
        finish(prepared, localIdentifier: placed.asset.localIdentifier)
        try removeSourceIfMoving(path, options: options)
        if let album = options.contributingTo {
            // A second transaction: a crash between the two leaves the asset in the library,
            // outside the album, and the contributor sends it again (a duplicate it then shows).
            try performChangesAndWait {
                $0.changeRequest(forAssetCollectionWithLocalIdentifier: album).addAssets([placed.asset.localIdentifier])
            }
        }
        return (placed.paired ? .paired(placed.asset) : .imported(placed.asset), source.size)
    }

    /// What a duplicate of the asset `localIdentifier` answers. The library's owner brings it
    /// back from Recently Deleted (``restoringIfTrashed(_:)``). A contributor is answered with it
    /// only when the album they send into shows it; else the file is refused and nothing changes.
    func heldDuplicate(_ localIdentifier: String, options: ImportOptions, path: String) throws -> String {
        guard let album = options.contributingTo else { return try restoringIfTrashed(localIdentifier) }
        var shown = FetchOptions()
        shown.predicate = .isIn(key: "localIdentifier", [.string(localIdentifier)])
        guard try store.fetchAssets(inCollection: album, options: shown).count() == 1 else {
            throw LibraryError(.notShared, "this file cannot be added to the album; nothing was changed", path: path)
        }
        return localIdentifier
    }

    /// A duplicate of an asset in Recently Deleted brings it back: importing a photo again
    /// is wanting it in the library. Returns the identifier.
    func restoringIfTrashed(_ localIdentifier: String) throws -> String {
        if try asset(withLocalIdentifier: localIdentifier)?.trashedDate != nil {
            // Another import of the same bytes may have restored it first.
            _ = try? performChangesAndWait { $0.restoreAssets([localIdentifier]) }
        }
        return localIdentifier
    }

    /// The asset holding these bytes as an original (a photo, a movie, a RAW, a paired movie).
    func existingAsset(withOriginalHash sha256: String) throws -> String? {
        try store.read { try $0.assetIdentifier(withOriginalHash: sha256) }
    }

    /// With `shouldMoveFile`, deletes the source once the library holds its bytes for good.
    func removeSourceIfMoving(_ path: String, options: ImportOptions) throws {
        guard options.shouldMoveFile else { return }
        guard unlink(path) == 0 else { throw FileIO.posixError("removing the moved file", path) }
    }
}
