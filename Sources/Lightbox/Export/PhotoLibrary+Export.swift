import Foundation
import LightboxMetadata
import LightboxStore

/// Which version of an asset an export writes.
public enum ExportVersion: String, Sendable, CaseIterable {
    /// The asset as it looks now. A Live Photo's still and movie carry one content identifier
    /// (Apple maker note and QuickTime key) so that iOS and exiftool pair them again.
    case current
    /// The original files, byte for byte.
    case original
}

/// One file an export wrote.
public struct ExportedFile: Sendable, Hashable {
    /// The asset it came from.
    public var localIdentifier: String
    /// The resource it is.
    public var resourceType: AssetResourceType
    /// Where it was written.
    public var path: String
}

extension PhotoLibrary {
    /// Writes assets' files into `folder`, named by their original file names. Nothing is
    /// written over (``OutputFolder``): a name taken already gets "-1", "-2"... unless
    /// `overwrite` says to replace it, an export that would replace one of the library's files
    /// or land inside a library is refused before anything is written, and each file is
    /// written whole or not at all.
    ///
    /// With ``ExportVersion/original``, the files the library holds, unchanged: the photo
    /// or movie, a Live Photo's movie, a RAW + JPEG pair's RAW. With
    /// ``ExportVersion/current``, the same, except that an edited photo is its rendered edit
    /// (a JPEG named after the photo), and a Live Photo's still (JPEG) and movie are given the
    /// content identifier they lack, so that they pair again wherever they go.
    public func export(
        localIdentifiers: [String], to folder: URL, version: ExportVersion, overwrite: Bool = false
    ) async throws -> [ExportedFile] {
        // What each asset exports, planned whole before any file is written.
        var exports: [(asset: Asset, resources: [AssetResource])] = []
        var inputs: [String] = []
        for identifier in localIdentifiers {
            guard let asset = try await asset(withLocalIdentifier: identifier) else {
                throw LibraryError(.assetNotFound, "no asset has the identifier \(identifier)")
            }
            for resource in asset.resources { inputs.append(try await fileURL(for: resource).path) }
            exports.append((asset, Self.exportResources(of: asset, version: version)))
        }
        let output = try OutputFolder(path: folder.path, inputs: inputs, overwrite: overwrite)
        let destinations = try output.plan(
            exports.flatMap { asset, resources in resources.map { Self.exportName($0, asset: asset) } })
        var written: [ExportedFile] = []
        for (asset, resources) in exports {
            let paired = version == .current ? try await pairedLivePhoto(asset, resources) : [:]
            let files = resources.map { ($0, paired[$0.type]) }
            for (resource, bytes) in files {
                let content: [UInt8]
                if let bytes {
                    content = bytes
                } else {
                    content = try await readBytes(resource)
                }
                let path = try output.write(content, to: destinations[written.count])
                written.append(
                    ExportedFile(localIdentifier: asset.localIdentifier, resourceType: resource.type, path: path))
            }
        }
        return written
    }

    /// The files an export of `asset` holds, in order, planned without reading any: with
    /// ``ExportVersion/original``, the photo or movie, a Live Photo's movie, a RAW + JPEG pair's
    /// other file; with ``ExportVersion/current``, an edited photo's or movie's render in its
    /// place (with a Live Photo's current movie). What `export` writes and a download zips.
    public static func exportResources(of asset: Asset, version: ExportVersion) -> [AssetResource] {
        // The current version of an edited photo or movie is its render, in its place.
        let render =
            version == .current ? asset.resource(ofType: .fullSizePhoto) ?? asset.resource(ofType: .fullSizeVideo) : nil
        // With it, a Live Photo's current movie: the edited one, when the edit made one.
        let types: [AssetResourceType] =
            switch render?.type {
            case nil: [.photo, .video, .pairedVideo, .alternatePhoto]
            case .fullSizeVideo: [.fullSizeVideo]
            default: [.fullSizePhoto] + [asset.currentMovieResource?.type].compactMap { $0 }
            }
        return types.compactMap { asset.resource(ofType: $0) }
    }

    /// The bytes of a Live Photo's still and movie among `resources` (by their types) as the
    /// current version exports them: carrying one content identifier, so that they pair again
    /// wherever they go (``livePhotoPair(still:movie:asset:)``). Empty for anything else; the
    /// files' own bytes are the export's then.
    public func pairedLivePhoto(_ asset: Asset, _ resources: [AssetResource]) async throws
        -> [AssetResourceType: [UInt8]]
    {
        guard asset.mediaSubtypes.contains(.photoLive),
            let still = resources.first(where: { $0.type == .photo || $0.type == .fullSizePhoto }),
            let movie = resources.first(where: { $0.type == .pairedVideo || $0.type == .fullSizePairedVideo })
        else { return [:] }
        let stillURL = try await fileURL(for: still)
        let movieURL = try await fileURL(for: movie)
        // Both files, and their rewritten copies, in memory at once: reserved first, so that
        // downloads at once wait their turn and a movie past the budget is refused by name.
        let (stillSize, movieSize) = (Int(clamping: still.fileSize), Int(clamping: movie.fileSize))
        let bytes = 2 &* (stillSize &+ movieSize)
        let (newStill, newMovie) = try await BlockingWork.run {
            try MemoryBudget.shared.withReservation(
                bytes < 0 ? .max : bytes, for: "pairing the Live Photo \(movieURL.path)",
                refused: { $0 as any Error }
            ) { () throws(any Error) -> ([UInt8], [UInt8]) in
                try Self.livePhotoPair(
                    still: try Self.readBytes(at: stillURL), movie: try Self.readBytes(at: movieURL), asset: asset)
            }
        }
        return [still.type: newStill, movie.type: newMovie]
    }

    private func readBytes(_ resource: AssetResource) async throws -> [UInt8] {
        try Self.readBytes(at: try await fileURL(for: resource))
    }

    private static func readBytes(at url: URL) throws -> [UInt8] {
        do {
            return [UInt8](try Data(contentsOf: url))
        } catch {
            throw LibraryError(
                .storageFailed, "cannot read the stored original: \(error.localizedDescription)", path: url.path)
        }
    }

    /// A Live Photo's still and movie carrying one content identifier: the one they share,
    /// else the still's, else the movie's, else the asset's own identifier (so that every
    /// export of an asset writes the same bytes). A still that is not a JPEG keeps
    /// its bytes (its identifier, if any, is what the movie gets).
    static func livePhotoPair(still: [UInt8], movie: [UInt8], asset: Asset) throws -> ([UInt8], [UInt8]) {
        let stillMetadata = try? MetadataReader.read(ByteSource(bytes: still))
        let movieMetadata = try? MetadataReader.read(ByteSource(bytes: movie))
        let stillIdentifier = stillMetadata?.exif?.apple?.contentIdentifier
        let movieIdentifier = movieMetadata?.quickTime?.contentIdentifier
        let identifier =
            stillIdentifier ?? movieIdentifier ?? UUID(uuidString: asset.localIdentifier)?.uuidString
            ?? UUID().uuidString
        var newStill = still
        if stillIdentifier != identifier, stillMetadata?.format == .jpeg {
            do {
                // A Motion Photo's still drops the movie it carried: the movie is written beside it.
                var jpeg = still
                if let length = stillMetadata?.xmp?.motionPhotoVideoLength, length < still.count {
                    jpeg = Array(still.dropLast(length))
                }
                newStill = try AppleMetadataWriter.jpeg(jpeg, contentIdentifier: identifier)
            } catch {
                throw LibraryError(
                    .corruptFile, "cannot write the Live Photo identifier into the still: \(error.message)")
            }
        }
        var newMovie = movie
        if movieIdentifier != identifier {
            do {
                newMovie = try AppleMetadataWriter.movie(movie, contentIdentifier: identifier)
            } catch {
                throw LibraryError(
                    .corruptFile, "cannot write the Live Photo identifier into the movie: \(error.message)")
            }
        }
        return (newStill, newMovie)
    }

    /// The resource's original file name; a paired movie takes the still's base name when
    /// its own is of another shot (a Motion Photo's cut-out movie is named after it already).
    public static func exportName(_ resource: AssetResource, asset: Asset) -> String {
        if [.fullSizePhoto, .fullSizePairedVideo, .fullSizeVideo].contains(resource.type),
            let photo = asset.imageResource
        {
            // A rendered edit takes the photo's name, as a JPEG (a Live Photo's movie and an
            // edited movie, as a movie of their own kind).
            let stem = PathString.stem(photo.originalFilename)
            let own = PathString.pathExtension(resource.originalFilename)
            return (stem.isEmpty ? asset.localIdentifier : stem) + "." + (resource.type == .fullSizePhoto ? "jpg" : own)
        }
        let name = PathString.lastComponent(resource.originalFilename)
        return name.isEmpty ? asset.localIdentifier : name
    }
}
