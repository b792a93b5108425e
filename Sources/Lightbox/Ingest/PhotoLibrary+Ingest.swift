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
    /// A new asset's file through the ingest pipeline (``ingest(_:as:reportedPath:)``), with
    /// what makes it an asset: its sizes, a Motion Photo's movie, the key that pairs a RAW with
    /// its JPEG. `role` is ``IngestRole/asset`` or ``IngestRole/photo``.
    func prepare(_ source: ImportSource, as role: IngestRole = .asset) throws -> PreparedAsset {
        let file = try ingest(source, as: role, reportedPath: source.path)
        let media = file.media
        let metadata = AssetMetadata(media, sidecar: file.sidecar, fileModificationDate: source.modificationDate)
        var storedWidth = media.pixelWidth ?? 0
        var storedHeight = media.pixelHeight ?? 0
        var pixelWidth = metadata.pixelWidth ?? 0
        var pixelHeight = metadata.pixelHeight ?? 0
        if let properties = file.properties {
            (storedWidth, storedHeight) = (properties.storedWidth, properties.storedHeight)
            (pixelWidth, pixelHeight) = (properties.pixelWidth, properties.pixelHeight)
        }
        if let override = file.orientationOverride {
            let fileSwaps = (5...8).contains(media.exif?.orientation ?? 1)
            let swaps = (5...8).contains(override)
            if file.properties != nil {
                (pixelWidth, pixelHeight) = swaps ? (storedHeight, storedWidth) : (storedWidth, storedHeight)
            } else if swaps != fileSwaps {
                (pixelWidth, pixelHeight) = (pixelHeight, pixelWidth)
            }
        }
        return PreparedAsset(
            source: file.source, metadata: metadata, storedPath: file.storedPath,
            originalFilename: PathString.lastComponent(source.path), storedWidth: storedWidth,
            storedHeight: storedHeight, pixelWidth: pixelWidth, pixelHeight: pixelHeight,
            thumbnails: file.thumbnails, captureKey: Self.captureKey(file.source, media),
            orientationOverride: file.orientationOverride, pairedMovie: try motionPhotoMovie(source, metadata))
    }

    /// RAW + JPEG pairing key: the same folder and base name, taken at the same instant by the
    /// same camera. Nil without a capture time: a name alone pairs nothing.
    static func captureKey(_ source: ImportSource, _ media: MediaMetadata) -> String? {
        guard source.format.kind != .video, let exif = media.exif, let taken = exif.dateTimeOriginal else { return nil }
        let base = PathString.deletingPathExtension(source.path).lowercased()
        return [base, taken, exif.subSecTimeOriginal ?? "", exif.make ?? "", exif.model ?? ""].joined(separator: "|")
    }

    /// An Android Motion Photo's movie (the bytes its XMP says are appended to the still),
    /// stored as an original of its own.
    func motionPhotoMovie(_ source: ImportSource, _ metadata: AssetMetadata) throws -> PreparedMovie? {
        guard let length = metadata.motionPhotoVideoLength, length > 0, Int64(length) < source.size,
            let handle = FileHandle(forReadingAtPath: source.path)
        else { return nil }
        defer { try? handle.close() }
        guard (try? handle.seek(toOffset: UInt64(source.size) - UInt64(length))) != nil,
            let data = try? handle.read(upToCount: length), data.count == length
        else { return nil }
        let bytes = [UInt8](data)
        guard let movie = try? MetadataReader.read(ByteSource(bytes: bytes)), movie.format.kind == .video else {
            return nil  // the XMP promised a movie the bytes do not hold: keep the still alone
        }
        let sha256 = FileIO.sha256(of: bytes)
        let storedPath = try originals.store(
            bytes: bytes, sha256: sha256, filenameExtension: movie.format.preferredFilenameExtension)
        let name =
            PathString.stem(source.path) + "."
            + movie.format.preferredFilenameExtension
        return PreparedMovie(
            file: StoredFile(
                storedPath: storedPath, sha256: sha256, size: Int64(length), pixelWidth: movie.pixelWidth ?? 0,
                pixelHeight: movie.pixelHeight ?? 0, originalFilename: name,
                uniformTypeIdentifier: movie.format.uniformTypeIdentifier),
            videoCodec: movie.quickTime?.videoCodec)
    }

    /// The XMP sidecar next to a file, when there is one: `IMG_1.JPG.xmp` (darktable,
    /// digiKam) or `IMG_1.xmp` (Lightroom, Capture One), either case.
    /// One larger than an XMP packet is read (``XMPMetadata/maximumPacketSize``), or that is
    /// not a regular file, is passed over: its size is looked at before a byte is read.
    static func sidecar(of path: String) -> XMPMetadata? {
        let base = PathString.deletingPathExtension(path)
        for candidate in [path + ".xmp", path + ".XMP", base + ".xmp", base + ".XMP"] {
            var info = stat()
            guard stat(candidate, &info) == 0, info.st_size <= XMPMetadata.maximumPacketSize,
                let xmp = try? XMPMetadata.reading(
                    packetOf: Int(info.st_size),
                    { try? FileIO.contents(ofFileAt: candidate, limit: XMPMetadata.maximumPacketSize) })
            else {
                continue
            }
            return xmp
        }
        return nil
    }

    /// After the commit: the thumbnails go to `derivatives/`.
    func finish(_ prepared: PreparedAsset, localIdentifier: String) {
        storeThumbnails(
            PendingThumbnails(contentHash: prepared.source.sha256, images: prepared.thumbnails),
            localIdentifier: localIdentifier)
    }

    /// Keeps thumbnails rendered before a commit in `derivatives/`, once it has landed: best
    /// effort, as a missing one is rendered again on request.
    func storeThumbnails(_ pending: PendingThumbnails, localIdentifier: String) {
        for (options, thumbnail) in pending.images {
            try? derivatives.store(
                thumbnail.bytes, localIdentifier: localIdentifier,
                key: DerivativeKey.make(contentHash: pending.contentHash, options: options))
        }
    }
}

/// Thumbnails rendered before a transaction (a new asset's, a new render's), kept once it
/// commits.
struct PendingThumbnails: Sendable {
    /// The hash of the file they show.
    var contentHash: String
    var images: [(RenderOptions, EncodedImage)]
}
