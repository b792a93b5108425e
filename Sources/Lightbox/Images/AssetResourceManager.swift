import Foundation
import LightboxStore

/// The bytes of an asset's resources (PhotoKit's `PHAssetResourceManager`): streamed in
/// chunks, or written to a file. Originals are read, never written.
public final class AssetResourceManager: Sendable {
    public let library: PhotoLibrary

    public init(library: PhotoLibrary) {
        self.library = library
    }

    /// The resource's bytes in chunks of `chunkSize` (the last one shorter), read as the
    /// consumer asks for them: a 4 GB movie never sits in memory. Ending the loop early stops
    /// the reading.
    public func requestData(for resource: AssetResource, chunkSize: Int = 1 << 20) -> AsyncThrowingStream<
        [UInt8], any Error
    > {
        let library = self.library
        let size = max(1, chunkSize)
        return AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    let url = try await library.fileURL(for: resource)
                    guard let handle = FileHandle(forReadingAtPath: url.path) else {
                        throw LibraryError(.unreadableFile, "cannot open the resource's file", path: url.path)
                    }
                    defer { try? handle.close() }
                    while !Task.isCancelled {
                        let chunk = try await BlockingWork.run { try handle.read(upToCount: size) ?? Data() }
                        if chunk.isEmpty { break }
                        continuation.yield([UInt8](chunk))
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// Writes the resource's bytes to a new file at `url`, written whole before it takes the
    /// name. Fails when a file is already there, as PhotoKit does, and for a place inside a
    /// library (``OutputFolder``).
    public func writeData(for resource: AssetResource, toFile url: URL) async throws {
        let source = try await library.fileURL(for: resource).path
        try await BlockingWork.run {
            let folder = try OutputFolder(path: url.deletingLastPathComponent().path, inputs: [source])
            let planned = try folder.plan([url.lastPathComponent], whenTaken: .refuse)[0]
            try folder.write(to: planned, whenTaken: .refuse) { temporary in
                _ = try FileIO.copyAndSync(from: source, to: temporary, permissions: 0o644)
            }
        }
    }
}
