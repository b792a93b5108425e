import Foundation
import LightboxCapture

extension PhotoLibrary {
    /// Saves a captured photo as a new asset in one `performChanges`: the photo file as its
    /// `.photo` resource and, for a Live Photo, the movie as its `.pairedVideo`, so that it
    /// arrives paired. Date, time zone and camera come from the photo's EXIF block, as for any
    /// import. The movie is moved into the library unless `keepMovie`.
    @discardableResult
    public func saveCapture(_ photo: CapturePhoto, livePhotoMovie: URL? = nil, keepMovie: Bool = false) async throws
        -> Asset
    {
        var identifier = ""
        try await performChanges { changes in
            identifier = Self.addCreation(of: photo, movie: livePhotoMovie, keepMovie: keepMovie, to: changes)
        }
        guard let asset = try await asset(withLocalIdentifier: identifier) else {
            throw LibraryError(.assetNotFound, "the captured photo \(photo.suggestedFilename) was not saved")
        }
        return asset
    }

    /// Saves a burst's photos as one burst in one `performChanges`: they share its identifier
    /// (in their maker notes), and the representative the capture chose is marked `.autoPick`,
    /// so that fetches show it for the burst. Returns the assets in the order taken.
    @discardableResult
    public func saveBurst(_ burst: CapturedBurst) async throws -> [Asset] {
        var identifiers: [String] = []
        try await performChanges { changes in
            identifiers = burst.photos.map { Self.addCreation(of: $0, movie: nil, keepMovie: true, to: changes) }
            if burst.photos.indices.contains(burst.representativeIndex) {
                changes.changeRequest(forAssetWithLocalIdentifier: identifiers[burst.representativeIndex])
                    .burstSelectionTypes = .autoPick
            }
        }
        var assets: [Asset] = []
        for identifier in identifiers {
            if let asset = try await asset(withLocalIdentifier: identifier) { assets.append(asset) }
        }
        return assets
    }

    private static func addCreation(of photo: CapturePhoto, movie: URL?, keepMovie: Bool, to changes: ChangeRequests)
        -> String
    {
        let request = changes.creationRequestForAsset()
        request.addResource(
            with: .photo, data: photo.fileData,
            options: AssetResourceCreationOptions(originalFilename: photo.suggestedFilename))
        if let movie {
            let name = (photo.suggestedFilename as NSString).deletingPathExtension + ".MOV"
            request.addResource(
                with: .pairedVideo, fileURL: movie,
                options: AssetResourceCreationOptions(shouldMoveFile: !keepMovie, originalFilename: name))
        }
        return request.placeholderForCreatedAsset.localIdentifier
    }
}
