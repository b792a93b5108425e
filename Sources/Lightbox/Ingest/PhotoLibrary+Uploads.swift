import Foundation
import LightboxStore

extension PhotoLibrary {
    /// The folder where files sent to the library (over HTTP) wait until they are whole: inside
    /// the library, so a file is on the disk its original will be on, and the one place inside
    /// a library that ``importItems(at:options:onResult:)`` takes files from.
    public var uploadsFolder: URL { url.appendingPathComponent(Self.uploadsFolderName, isDirectory: true) }

    static let uploadsFolderName = "uploads"

    /// Whether `path` (standardized) is in this library's uploads folder.
    func isUpload(_ path: String) -> Bool {
        path.hasPrefix(url.standardizedFileURL.path + "/" + Self.uploadsFolderName + "/")
    }

    /// The assets holding these SHA-256 digests (lowercase hex) as originals, by digest: what a
    /// client need not send again. Digests the library does not hold are absent.
    public func assetIdentifiers(withOriginalHashes hashes: [String]) async throws -> [String: String] {
        try await store.read { reader in
            var found: [String: String] = [:]
            for hash in Set(hashes) {
                if let identifier = try reader.assetIdentifier(withOriginalHash: hash) { found[hash] = identifier }
            }
            return found
        }
    }
}
