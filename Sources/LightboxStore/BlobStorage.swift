import Foundation

/// Where a library keeps its originals: each stored once under a key made from its content
/// (SHA-256), durably, never changed afterwards. ``OriginalFolder`` keeps them in the library
/// folder; object storage implements the same protocol, and no feature changes.
///
/// An original is *staged* from the moment it is stored until the transaction that refers to
/// it commits and ``release(_:)`` is called. What a process staged and never released (it
/// crashed, or its transaction failed) is handed back by ``staged(_:)`` and
/// ``removeLeftovers(_:)`` and discarded when no row refers to it: a crash between storing
/// and committing never leaves an original nothing will find, nor a row without its original.
package protocol OriginalStorage: Sendable {
    /// A folder of this process for temporary files that may become originals (the data of
    /// creation requests), on the same file system as the originals.
    var temporaryFolder: String { get }

    /// Stores a copy of the file at `path`, whose SHA-256 must be `sha256` (else it throws:
    /// the file changed meanwhile), staged; returns its key. Bytes already stored under that
    /// key are reused.
    func store(copying path: String, sha256: String, filenameExtension: String) throws -> String

    /// Stores bytes held in memory like a copied file; returns its key.
    func store(bytes: [UInt8], sha256: String, filenameExtension: String) throws -> String

    /// Ends the staging of originals a committed transaction now refers to.
    func release(_ keys: [String])

    /// This process's stagings of these keys (after its transaction failed).
    func staged(_ keys: [String]) -> [StagedOriginal]

    /// Hands `discard` the stagings that processes no longer running left, then forgets them.
    func removeLeftovers(_ discard: ([StagedOriginal]) -> Void)

    /// Ends a staging; with `removingOriginal`, removes the original too, unless it was stored
    /// again since (by another process). Called inside a write transaction that found no row
    /// referring to the key.
    func discard(_ staged: StagedOriginal, removingOriginal: Bool)

    /// Whether an original is stored under `key`.
    func contains(_ key: String) -> Bool

    /// A file on this machine holding the original, to read (never to write): the stored file
    /// itself, or a copy fetched from object storage. Throws when it cannot be had.
    func localPath(of key: String) throws -> String

    /// The state of the original under `key`, which should have these bytes: read again and
    /// hashed only when `verifying`; a writable one made read-only when `repairing`.
    func examine(_ key: String, sha256: String, size: Int64, verifying: Bool, repairing: Bool) -> OriginalCondition

    /// Removes an original no row refers to any more.
    func remove(_ key: String)

    /// Every stored key, sorted (for checks).
    func allKeys() throws -> [String]

    /// The keys staged by processes still running (for checks: not yet referenced, not stray).
    func keysInFlight() throws -> Set<String>

    /// Whether an original no row refers to may go now: asked inside the write transaction
    /// that removes it, after the listing that found it (it may have been stored again since).
    func mayRemoveUnreferenced(_ key: String) -> Bool
}

extension OriginalStorage {
    /// Throws unless every key is still stored: called inside the write transaction that
    /// records them. A stored original may be one an earlier import left or an asset used,
    /// reused here, and a purge's or sweep's removal (in a write transaction too) may take it
    /// between the store and this transaction: the change then fails cleanly rather than commit
    /// a row without its original.
    package func requireStored(_ keys: [String], for source: String?) throws {
        for key in keys where !contains(key) {
            throw LibraryError(
                .storageFailed, "the stored original \(key) was removed by a purge meanwhile; try again",
                path: source ?? key)
        }
    }
}

/// What ``OriginalStorage/examine(_:sha256:size:verifying:repairing:)`` found.
package enum OriginalCondition: Sendable, Equatable {
    case sound
    case missing
    /// Not the bytes it was stored with.
    case damaged
    /// A file that may be written (someone changed its permissions).
    case writable
    /// It was writable, and is read-only again.
    case madeReadOnly
}

/// An original stored and not yet referenced by a committed row.
package struct StagedOriginal: Sendable {
    package var key: String
    /// Where the storage records the staging (for the folder: a marker's path).
    package var staging: String
}

/// Where a library keeps the images rendered from its assets, by asset and key: a cache whose
/// every file can be made again, so nothing here waits for the disk. ``DerivativeFolder``
/// keeps them in the library folder; object storage implements the same protocol.
package protocol DerivativeStorage: Sendable {
    /// A stored image's bytes; nil when absent, or not whole (cut short by a crash).
    func cached(localIdentifier: String, key: String) -> [UInt8]?

    /// Stores an image; a failure (a full disk) loses only the cache entry.
    func store(_ bytes: [UInt8], localIdentifier: String, key: String) throws

    /// Removes every image made from one content of an asset (a render an edit replaced).
    func removeImages(localIdentifier: String, contentHash: String)

    /// Removes every image of an asset; false when there was nothing to remove or it failed.
    @discardableResult
    func removeAll(localIdentifier: String) -> Bool

    /// The assets that have images stored, each with where they are, for reports (checks).
    func storedAssets() -> [(localIdentifier: String, location: String)]

    /// A stored file's path on this machine (a movie's copy for browsers, served with byte
    /// ranges); nil when absent.
    func localFile(localIdentifier: String, key: String) -> String?

    /// A folder of this process's own for a file being made, on the disk ``storeFile`` moves
    /// it from; removed with what is left in it when released.
    func scratchFolder() throws -> ProcessFolder

    /// Moves a finished file in, synced first: a movie's copy takes minutes to make, and a
    /// crash must not leave a short file under its name.
    func storeFile(at path: String, localIdentifier: String, key: String) throws
}
