import Foundation
import LightboxStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What ``PhotoLibrary/check(repairing:verifyingHashes:progress:)`` found: the library's
/// health, as `lightbox check` reports it.
public struct LibraryCheck: Sendable {
    /// One thing wrong.
    public enum Problem: Sendable, Hashable, CustomStringConvertible {
        /// SQLite's integrity or foreign-key check failed with this line.
        case database(String)
        /// A resource's file is not in `originals/`.
        case missingOriginal(asset: String, resource: AssetResourceType, storedPath: String)
        /// A resource's file is there but its bytes no longer have the SHA-256 it was stored with.
        case damagedOriginal(asset: String, resource: AssetResourceType, storedPath: String)
        /// A resource's file may be written to: originals are stored read-only.
        case writableOriginal(asset: String, resource: AssetResourceType, storedPath: String)
        /// A file or folder (relative to the library folder) that no row refers to.
        case unreferenced(String)

        /// Whether `check --repair` mends it: unreferenced files go, writable originals are
        /// made read-only. A missing or damaged original can only come back from its source.
        public var isRepairable: Bool {
            switch self {
            case .writableOriginal, .unreferenced: true
            case .database, .missingOriginal, .damagedOriginal: false
            }
        }

        public var description: String {
            switch self {
            case .database(let line): "database: \(line)"
            case .missingOriginal(let asset, let resource, let path):
                "missing original: asset \(asset) (\(resource)) has no file originals/\(path); import its source again"
            case .damagedOriginal(let asset, let resource, let path):
                "damaged original: asset \(asset) (\(resource)): originals/\(path) no longer has the SHA-256 it was "
                    + "stored with; import its source again"
            case .writableOriginal(let asset, let resource, let path):
                "writable original: asset \(asset) (\(resource)): originals/\(path) may be written to"
            case .unreferenced(let path): "unreferenced: \(path) belongs to no asset"
            }
        }
    }

    /// What is wrong now (after repairs, when asked for).
    public var problems: [Problem] = []
    /// What `repairing` mended.
    public var repaired: [Problem] = []
    /// The resource files checked, and their bytes.
    public var originals = 0
    public var bytes: Int64 = 0
    /// Whether every file was read and its SHA-256 compared.
    public var verifiedHashes = false
}

extension PhotoLibrary {
    /// Checks the library: SQLite's integrity and foreign keys, every resource's file present,
    /// read-only and (with `verifyingHashes`) of its SHA-256, and nothing in `originals/` or
    /// `derivatives/` that no row refers to. `repairing` removes the unreferenced files (each
    /// inside a write transaction, so that no import can come to refer to it meanwhile; files
    /// a running import marked as in flight are left alone) and makes writable originals
    /// read-only. `progress` is told the bytes read so far and in all. Blocking: it reads
    /// every original.
    public func check(
        repairing: Bool = false, verifyingHashes: Bool = true, progress: (@Sendable (Int64, Int64) -> Void)? = nil
    ) throws -> LibraryCheck {
        var report = LibraryCheck()
        report.verifiedHashes = verifyingHashes
        let (databaseLines, resources, referenced, assets) = try store.read { store in
            let resources = try store.storedResources()
            let pending = try store.pendingRemovals()
            return (
                try store.integrityProblems(), resources, Set(resources.map(\.storedPath) + pending),
                Set(try store.allAssetIdentifiers())
            )
        }
        report.problems += databaseLines.map { .database($0) }

        // Each stored file once: resources may share one (the same bytes).
        let total = resources.reduce(into: [String: Int64]()) { $0[$1.storedPath] = $1.fileSize }.values.reduce(0, +)
        var verdicts: [String: LibraryCheck.Problem?] = [:]
        for resource in resources {
            let verdict: LibraryCheck.Problem?
            if let known = verdicts[resource.storedPath] {
                verdict = known.map { $0.about(resource.assetLocalIdentifier, resource.type) }
            } else {
                verdict = try checkOriginal(
                    resource.storedPath, sha256: resource.sha256, size: resource.fileSize, verifying: verifyingHashes,
                    repairing: repairing,
                    as: (resource.assetLocalIdentifier, resource.type), report: &report)
                verdicts[resource.storedPath] = .some(verdict)
                report.originals += 1
                report.bytes += resource.fileSize
                progress?(report.bytes, total)
            }
            if let verdict { report.problems.append(verdict) }
        }

        for path in try unreferencedOriginals(referenced) {
            let problem = LibraryCheck.Problem.unreferenced("originals/" + path)
            if repairing, try removeIfUnreferenced(path) {
                report.repaired.append(problem)
            } else {
                report.problems.append(problem)
            }
        }
        for stray in derivatives.storedAssets() where !assets.contains(stray.localIdentifier) {
            let problem = LibraryCheck.Problem.unreferenced(stray.location)
            if repairing, derivatives.removeAll(localIdentifier: stray.localIdentifier) {
                report.repaired.append(problem)
            } else {
                report.problems.append(problem)
            }
        }
        return report
    }

    /// One stored file's problem, if any; a writable one is made read-only when repairing.
    private func checkOriginal(
        _ path: String, sha256: String, size: Int64, verifying: Bool, repairing: Bool,
        as owner: (String, AssetResourceType),
        report: inout LibraryCheck
    ) throws -> LibraryCheck.Problem? {
        switch originals.examine(path, sha256: sha256, size: size, verifying: verifying, repairing: repairing) {
        case .sound: return nil
        case .missing: return .missingOriginal(asset: owner.0, resource: owner.1, storedPath: path)
        case .damaged: return .damagedOriginal(asset: owner.0, resource: owner.1, storedPath: path)
        case .writable: return .writableOriginal(asset: owner.0, resource: owner.1, storedPath: path)
        case .madeReadOnly:
            report.repaired.append(.writableOriginal(asset: owner.0, resource: owner.1, storedPath: path))
            return nil
        }
    }

    /// Stored originals that no row refers to and no live process staged, by key.
    private func unreferencedOriginals(_ referenced: Set<String>) throws -> [String] {
        let inFlight = try originals.keysInFlight()
        return try originals.allKeys().filter { !referenced.contains($0) && !inFlight.contains($0) }
    }

    /// Removes a stored file inside a write transaction, unless a row refers to it by then.
    private func removeIfUnreferenced(_ path: String) throws -> Bool {
        try store.write { store in
            guard try !store.isReferenced(storedPath: path), originals.mayRemoveUnreferenced(path) else { return false }
            originals.remove(path)
            return true
        }
    }
}

extension LibraryCheck.Problem {
    /// The same problem of a stored file, said of another resource that shares it.
    fileprivate func about(_ asset: String, _ resource: AssetResourceType) -> Self {
        switch self {
        case .missingOriginal(_, _, let path): .missingOriginal(asset: asset, resource: resource, storedPath: path)
        case .damagedOriginal(_, _, let path): .damagedOriginal(asset: asset, resource: resource, storedPath: path)
        case .writableOriginal(_, _, let path): .writableOriginal(asset: asset, resource: resource, storedPath: path)
        case .database, .unreferenced: self
        }
    }
}
