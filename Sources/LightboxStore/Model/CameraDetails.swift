import Foundation
import LightboxMetadata

/// What the camera wrote about an asset's original: the camera and lens, and the exposure. For
/// an info panel; PhotoKit leaves these in the image's properties, which Lightbox keeps out of
/// the catalog, so they are read from the original file when asked (the bounded metadata
/// reader: headers only, no decode).
public struct CameraDetails: Sendable, Hashable, Encodable {
    public var make: String?
    public var model: String?
    public var lensMake: String?
    public var lensModel: String?
    public var software: String?
    /// Seconds.
    public var exposureTime: Double?
    public var fNumber: Double?
    public var iso: Int?
    /// Millimetres, and its 35 mm equivalent.
    public var focalLength: Double?
    public var focalLengthIn35mmFormat: Int?

    public init() {}

    /// From a file's metadata; numbers outside what a camera can write are left out, never
    /// passed on (a file is untrusted input).
    init(_ metadata: MediaMetadata) {
        // Control characters (a terminal's escapes among them) become spaces: the text is
        // shown by terminals and pages, and kept in the catalog for search.
        func text(_ value: String?) -> String? {
            guard let value else { return nil }
            let scalars = value.unicodeScalars.prefix(400).map {
                CharacterSet.controlCharacters.contains($0) ? " " : $0
            }
            let trimmed = String(String.UnicodeScalarView(scalars)).trimmingCharacters(in: .whitespacesAndNewlines)
            return trimmed.isEmpty ? nil : String(trimmed.prefix(200))
        }
        func positive(_ value: Double?, below limit: Double) -> Double? {
            guard let value, value.isFinite, value > 0, value < limit else { return nil }
            return value
        }
        if let exif = metadata.exif {
            make = text(exif.make)
            model = text(exif.model)
            lensMake = text(exif.lensMake)
            lensModel = text(exif.lensModel)
            software = text(exif.software)
            exposureTime = positive(exif.exposureTime, below: 100_000)
            fNumber = positive(exif.fNumber, below: 1_000)
            iso = exif.iso.flatMap { (1...10_000_000).contains($0) ? $0 : nil }
            focalLength = positive(exif.focalLength, below: 100_000)
            focalLengthIn35mmFormat = exif.focalLengthIn35mmFormat.flatMap { (1...100_000).contains($0) ? $0 : nil }
        }
        if let keys = metadata.quickTime?.keys {
            make = make ?? text(keys["com.apple.quicktime.make"])
            model = model ?? text(keys["com.apple.quicktime.model"])
            software = software ?? text(keys["com.apple.quicktime.software"])
        }
    }
}

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
