import Foundation
import LightboxS3

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Rendered images and movie copies in the bucket of a library whose originals are there, under
/// `PREFIX/derivatives/AB/ABCD...-uuid/KEY` as ``DerivativeFolder`` lays them out: every server
/// and worker of the library renders a thumbnail once for all of them.
///
/// Each machine keeps what it stored or read in a folder of its own (`LIBRARY/cache/derivatives/`,
/// a ``DerivativeFolder``), asked first: a thumbnail served again costs no request. A key names
/// its content (an asset's edit changes the keys of its images), so a copy another server
/// removed from the bucket is never asked for again; it stays on this machine's disk until
/// its asset goes here.
package struct ObjectDerivativeStorage: DerivativeStorage {
    package let client: S3Client
    /// This machine's copies.
    package let local: DerivativeFolder

    /// Objects of derivatives are under this, in the location's prefix.
    package static let keyPrefix = "derivatives/"
    /// Larger stored images are not read into memory (a thumbnail is tens of kilobytes).
    package static let largestImage = 64 << 20

    package init(client: S3Client, libraryFolder: String) throws {
        self.client = client
        local = try DerivativeFolder(root: libraryFolder + "/cache/derivatives")
    }

    private func folderKey(_ localIdentifier: String) -> String {
        Self.keyPrefix + localIdentifier.prefix(2) + "/" + localIdentifier + "/"
    }

    private func objectKey(_ localIdentifier: String, _ key: String) -> String {
        folderKey(localIdentifier) + key
    }

    package func cached(localIdentifier: String, key: String) -> [UInt8]? {
        if let bytes = local.cached(localIdentifier: localIdentifier, key: key) { return bytes }
        // A miss or a failure alike: the image is rendered again.
        guard let bytes = try? client.get(objectKey(localIdentifier, key), maximumSize: Self.largestImage),
            DerivativeFolder.isWhole(bytes)
        else { return nil }
        try? local.store(bytes, localIdentifier: localIdentifier, key: key)
        return bytes
    }

    package func store(_ bytes: [UInt8], localIdentifier: String, key: String) throws {
        try client.put(bytes, key: objectKey(localIdentifier, key), contentType: Self.contentType(bytes))
        try? local.store(bytes, localIdentifier: localIdentifier, key: key)
    }

    package func removeImages(localIdentifier: String, contentHash: String) {
        local.removeImages(localIdentifier: localIdentifier, contentHash: contentHash)
        let prefix = folderKey(localIdentifier) + contentHash.prefix(16) + "-"
        for key in (try? keys(prefix: prefix)) ?? [] { try? client.delete(key) }
    }

    @discardableResult
    package func removeAll(localIdentifier: String) -> Bool {
        local.removeAll(localIdentifier: localIdentifier)
        guard let keys = try? keys(prefix: folderKey(localIdentifier)), !keys.isEmpty else { return false }
        var removed = true
        for key in keys {
            do { try client.delete(key) } catch { removed = false }
        }
        return removed
    }

    package func storedAssets() -> [(localIdentifier: String, location: String)] {
        var seen: [String: String] = [:]
        for key in (try? keys(prefix: Self.keyPrefix)) ?? [] {
            // derivatives/AB/IDENTIFIER/KEY
            let parts = key.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 4 else { continue }
            let identifier = String(parts[2])
            seen[identifier] = "\(client.location)\(parts[0])/\(parts[1])/\(identifier)"
        }
        return seen.keys.sorted().map { ($0, seen[$0]!) }
    }

    package func localFile(localIdentifier: String, key: String) -> String? {
        if let file = local.localFile(localIdentifier: localIdentifier, key: key) { return file }
        guard let scratch = try? local.scratchFolder() else { return nil }
        let temporary = scratch.path + "/" + UUID().uuidString
        guard (try? client.download(objectKey(localIdentifier, key), to: temporary)) != nil,
            (try? local.storeFile(at: temporary, localIdentifier: localIdentifier, key: key)) != nil
        else { return nil }
        return local.localFile(localIdentifier: localIdentifier, key: key)
    }

    package func scratchFolder() throws -> ProcessFolder {
        try local.scratchFolder()
    }

    /// Uploads the file, then keeps it here.
    package func storeFile(at path: String, localIdentifier: String, key: String) throws {
        do {
            try client.putFile(at: path, key: objectKey(localIdentifier, key), contentType: "video/mp4")
        } catch {
            throw LibraryError(
                .storageFailed, "storing \(key) in \(client.location): \(error)", path: path, underlying: error)
        }
        try local.storeFile(at: path, localIdentifier: localIdentifier, key: key)
    }

    /// The full keys of the objects under a prefix.
    private func keys(prefix: String) throws -> [String] {
        try client.objects(prefix: prefix).map(\.key)
    }

    private static func contentType(_ bytes: [UInt8]) -> String {
        if bytes.starts(with: [0xFF, 0xD8]) { return "image/jpeg" }
        if bytes.count >= 12, bytes[8..<12].elementsEqual("WEBP".utf8) { return "image/webp" }
        return "application/octet-stream"
    }
}
