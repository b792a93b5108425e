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
    /// A file entering the library (an import, a creation request, an edit's render): its
    /// format (from its bytes), hash and size.
    struct ImportSource: Sendable {
        var path: String
        var format: FileFormat
        var sha256: String
        var size: Int64
        var modificationDate: Date
        /// A photo's whole bytes, read once: hashed, decoded and stored from memory, so the
        /// file is read once rather than three times, and what was hashed is what is stored.
        /// Nil for movies and for files over ``wholeReadLimit``, which are streamed.
        var contents: [UInt8]?

        /// Photos up to this size are read whole.
        static let wholeReadLimit = 64 << 20

        init(path: String) throws {
            try FileIO.requireRegularFile(path)
            let attributes = try? FileManager.default.attributesOfItem(atPath: path)
            let fileSize = (attributes?[.size] as? NSNumber)?.intValue ?? Int.max
            let head = try FileIO.prefix(ofFileAt: path, count: FileFormat.sniffLength)
            guard let format = FileFormat(sniffing: head) else {
                let reason =
                    head.isEmpty
                    ? "the file is empty"
                    : "not a photo or movie format Lightbox imports (JPEG, HEIC, HEIF, AVIF, PNG, WebP, TIFF, GIF, "
                        + "DNG and camera RAW, QuickTime, MP4); it starts with bytes \(head.prefix(8).hexadecimal)"
                throw LibraryError(.unsupportedFormat, reason, path: path)
            }
            self.path = path
            self.format = format
            if format.kind != .video, fileSize <= Self.wholeReadLimit,
                let bytes = try FileIO.contents(ofFileAt: path, limit: Self.wholeReadLimit)
            {
                contents = bytes
                sha256 = FileIO.sha256(of: bytes)
                size = Int64(bytes.count)
            } else {
                (sha256, size) = try FileIO.sha256(ofFileAt: path)
            }
            modificationDate = (attributes?[.modificationDate] as? Date) ?? Date()
        }

        /// The file's metadata, read from the bytes in memory when it was read whole.
        func readMetadata() throws(MetadataError) -> MediaMetadata {
            guard let contents else { return try MetadataReader.read(fileAtPath: path) }
            return try MetadataReader.read(
                ByteSource(bytes: contents), filenameExtension: PathString.pathExtension(path))
        }

        /// Decodes the whole photo, which proves it intact, and renders `sizes` from that one
        /// decode: the thumbnails that make the first view instant.
        func decodeWhole(fileOrientation: Int, sizes: [RenderOptions]) throws(ImagingError) -> (
            properties: ImageProperties, thumbnails: [(RenderOptions, EncodedImage)]
        ) {
            let (properties, images) = try ImageFile.thumbnails(
                ofFileAt: path, contents: contents, fileOrientation: fileOrientation, options: sizes)
            return (properties, Array(zip(sizes, images)))
        }

        /// What the import journal records of it.
        var journaled: JournaledFile {
            JournaledFile(path: path, size: size, modificationDate: modificationDate, sha256: sha256)
        }

        /// Stores the file in `originals/`: from the bytes in memory when it was read whole,
        /// else copied and checked against its hash. Returns the stored path.
        func store(in originals: any OriginalStorage) throws -> String {
            let filenameExtension = format.preferredFilenameExtension
            if let contents {
                return try originals.store(bytes: contents, sha256: sha256, filenameExtension: filenameExtension)
            }
            return try originals.store(copying: path, sha256: sha256, filenameExtension: filenameExtension)
        }
    }

    /// A movie stored beside a photo: a Motion Photo's embedded one, or a creation
    /// request's `.pairedVideo`.
    struct PreparedMovie: Sendable {
        var file: StoredFile
        /// Its video codec, as ``AssetMetadata/videoCodec``.
        var videoCodec: String?
    }

    /// A file checked (a photo decoded, a movie or RAW parsed) and stored in `originals/`,
    /// waiting for its rows.
    struct PreparedAsset: Sendable {
        var source: ImportSource
        /// What the file's metadata (and its XMP sidecar) says of the asset.
        var metadata: AssetMetadata
        var storedPath: String
        /// The name the resource keeps: the file's own, unless a creation request names one.
        var originalFilename: String
        /// The resource's stored size and the asset's displayed size.
        var storedWidth: Int
        var storedHeight: Int
        var pixelWidth: Int
        var pixelHeight: Int
        /// The preview and grid thumbnails, rendered while decoding; none for movies, nor for
        /// RAW files without a JPEG preview.
        var thumbnails: [(RenderOptions, EncodedImage)] = []
        /// What pairs a RAW with the JPEG of the same shot: folder, base name, capture time, camera.
        var captureKey: String?
        /// The orientation an XMP sidecar corrects a photo to; nil: the file's.
        var orientationOverride: Int?
        /// The movie that makes the photo live, when it comes with it.
        var pairedMovie: PreparedMovie?
        /// The album whose shown assets alone it may pair with (a contribution's): nil, any asset.
        var pairsWithin: String?

        /// The asset as the store writes it.
        var record: NewAsset {
            let needsPlayableCopy =
                source.format.kind == .video
                ? PhotoLibrary.needsPlayableCopy(codec: metadata.videoCodec)
                : pairedMovie.map { PhotoLibrary.needsPlayableCopy(codec: $0.videoCodec) } ?? false
            return NewAsset(
                metadata: metadata, kind: source.format.kind,
                file: StoredFile(
                    storedPath: storedPath, sha256: source.sha256, size: source.size, pixelWidth: storedWidth,
                    pixelHeight: storedHeight, originalFilename: originalFilename,
                    uniformTypeIdentifier: source.format.uniformTypeIdentifier),
                pixelWidth: pixelWidth, pixelHeight: pixelHeight, captureKey: captureKey,
                orientationOverride: orientationOverride, pairedMovie: pairedMovie?.file,
                needsPlayableCopy: needsPlayableCopy,
                pairsWithin: pairsWithin)
        }

        /// What the import journal records of its file.
        var journaled: JournaledFile { source.journaled }

        /// The files this asset stored in `originals/`: its photo or movie, and a paired movie.
        var storedPaths: [String] { [storedPath] + [pairedMovie?.file.storedPath].compactMap { $0 } }

        /// Throws unless the files this asset stored are still stored: called inside the write
        /// transaction that records them (``OriginalStorage/requireStored(_:for:)``).
        func checkStored(in originals: any OriginalStorage) throws {
            try originals.requireStored(storedPaths, for: source.path)
        }
    }
}
