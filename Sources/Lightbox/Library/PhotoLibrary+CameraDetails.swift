import Foundation
import LightboxMetadata
import LightboxStore

extension PhotoLibrary {
    /// The camera, lens and exposure of an asset, from its original photo (a movie's for a
    /// movie): what an info panel shows. Empty where the file says nothing; throws when the
    /// asset has no original or it cannot be read.
    public func cameraDetails(for asset: Asset) async throws -> CameraDetails {
        let wanted: [AssetResourceType] =
            asset.mediaType == .video ? [.video, .fullSizeVideo] : [.photo, .fullSizePhoto]
        guard let resource = asset.resources.first(where: { wanted.contains($0.type) }) else {
            throw LibraryError(.assetNotFound, "asset \(asset.localIdentifier) has no original to read")
        }
        let path = try await fileURL(for: resource).path
        return try await BlockingWork.run {
            do {
                return CameraDetails(try MetadataReader.read(fileAtPath: path))
            } catch {
                throw LibraryError(
                    .unreadableFile, "could not read the metadata of \(resource.originalFilename): \(error)")
            }
        }
    }
}

extension PhotoLibrary {
    /// Reads the camera and lens of the assets imported before the catalog kept them (a
    /// library older than schema step v17), and their photo's orientation (v20), from their
    /// originals, in batches of 100, each batch
    /// one write that also records how far it got: stopped or crashed, the next call goes on
    /// from there. Assets imported since have theirs from import. Returns how many assets it
    /// read; an original that cannot be read leaves its asset without a camera.
    ///
    /// Nothing changes that observers see: the camera is not in change details, and the
    /// history records nothing. `lightbox serve` runs it when it starts.
    @discardableResult
    public func fillCaptureDetails(progress: (@Sendable (_ done: Int, _ total: Int) -> Void)? = nil) async throws
        -> Int
    {
        let total = try await store.read { try $0.captureDetailsBacklogCount() }
        var done = 0
        while !Task.isCancelled {
            let read = try await BlockingWork.run { [store, originals] in
                let items = try store.read { try $0.captureDetailsBacklog(limit: 100) }
                guard let last = items.last else { return 0 }
                let filled = items.map { item in
                    var camera = CameraDetails()
                    var orientation: Int?
                    if let stored = item.storedPath,
                        let metadata = try? MetadataReader.read(fileAtPath: try originals.localPath(of: stored))
                    {
                        camera = CameraDetails(metadata)
                        orientation = AssetMetadata.fileOrientation(metadata)
                    }
                    return CaptureDetailsBacklogItem.Filled(
                        rowID: item.rowID, make: camera.make, model: camera.model, lens: camera.lensModel,
                        orientation: orientation)
                }
                try store.write { try $0.fillCaptureDetails(filled, through: last.rowID) }
                return items.count
            }
            guard read > 0 else { break }
            done += read
            progress?(min(done, total), total)
        }
        return done
    }

    /// How many assets ``fillCaptureDetails(progress:)`` has still to read.
    public func captureDetailsBacklogCount() throws -> Int {
        try store.read { try $0.captureDetailsBacklogCount() }
    }
}
