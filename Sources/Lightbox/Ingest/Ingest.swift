import Foundation
import LightboxImaging
import LightboxMetadata
import LightboxStore

/// The ingest pipeline: every file entering the library goes through it, whichever way it
/// comes (an import, a creation request, an edit's render or movie), in four steps:
/// 1. its source read (``ImportSource``: sniffed from its bytes, hashed, a photo read once into
///    memory) and checked against the way it comes (``IngestRole``);
/// 2. its metadata read (and an XMP sidecar beside it, for an asset);
/// 3. a photo decoded whole, which proves it intact and renders its thumbnails;
/// 4. its bytes stored durably in `originals/`, staged until the transaction that records it.
/// Callers look for duplicates between steps 1 and 2 (``ingestSource(at:as:reportedPath:)``
/// then ``ingest(_:as:reportedPath:)``, or ``inspect(_:as:reportedPath:)`` and
/// ``store(_:)`` apart), and turn an ``IngestedFile`` into their rows.
extension PhotoLibrary {
    /// The ways a file enters the library, each with its rule of what the file must be.
    enum IngestRole: Sendable {
        /// An import: a photo, a movie or a RAW, which becomes an asset.
        case asset
        /// A creation request's `.photo` resource: a photo or a RAW, which becomes an asset.
        case photo
        /// A creation request's `.video` resource: a movie, which becomes an asset.
        case video
        /// An edit's rendered image: an upright JPEG.
        case render
        /// A movie stored beside a photo (a creation request's `.pairedVideo`, an edited Live
        /// Photo's movie); the text names it in errors.
        case movie(String)

        /// Whether the file becomes an asset of its own.
        var isAsset: Bool {
            switch self {
            case .asset, .photo, .video: true
            case .render, .movie: false
            }
        }
    }

    /// A file through the pipeline, stored, waiting for its rows.
    struct IngestedFile: Sendable {
        var source: ImportSource
        /// What its headers say (for a RAW told from a TIFF, ``source``'s format is corrected).
        var media: MediaMetadata
        /// An asset's XMP sidecar, when one lies beside the file.
        var sidecar: XMPMetadata?
        /// The orientation a sidecar corrects a photo to; nil: the file's.
        var orientationOverride: Int?
        /// A decoded photo's properties (its stored and displayed size); nil for a movie or RAW.
        var properties: ImageProperties?
        /// The preview and grid thumbnails rendered while decoding: none for a movie of an
        /// edit or a creation's `.pairedVideo`, nor for a RAW without a JPEG preview.
        var thumbnails: [(RenderOptions, EncodedImage)] = []
        /// Where ``OriginalStorage`` stored it.
        var storedPath = ""
    }

    /// Step 1: the file at `path` read and checked against `role`. Errors name `reportedPath`
    /// (nil for a temporary file the caller made).
    func ingestSource(at path: String, as role: IngestRole, reportedPath: String?) throws -> ImportSource {
        let source = try ImportSource(path: path)
        switch role {
        case .asset:
            break
        case .photo:
            guard source.format.kind != .video else {
                throw LibraryError(
                    .invalidRequest, "a .photo resource must be a photo, not a movie; nothing was changed",
                    path: reportedPath)
            }
        case .video:
            guard source.format.kind == .video else {
                throw LibraryError(
                    .invalidRequest, "a .video resource must be a movie, not a photo; nothing was changed",
                    path: reportedPath)
            }
        case .render:
            guard source.format == .jpeg else {
                throw LibraryError(
                    .unsupportedFormat, "a rendered edit must be a JPEG; nothing was changed", path: reportedPath)
            }
        case .movie(let name):
            guard source.format.kind == .video else {
                throw LibraryError(.invalidRequest, "\(name) must be a movie; nothing was changed", path: reportedPath)
            }
        }
        return source
    }

    /// Steps 2 to 4: `source`'s metadata read, a photo decoded, its bytes stored. Nothing is in
    /// the catalog yet: a failure after the store leaves an original that a later import of the
    /// same bytes reuses, or that the next open removes.
    func ingest(_ source: ImportSource, as role: IngestRole, reportedPath: String?) throws -> IngestedFile {
        try store(try inspect(source, as: role, reportedPath: reportedPath))
    }

    /// Steps 2 and 3: `source`'s metadata read and a photo decoded, nothing stored yet (an edit
    /// checks its movie before it stores either file).
    func inspect(_ source: ImportSource, as role: IngestRole, reportedPath: String?) throws -> IngestedFile {
        var file = IngestedFile(source: source, media: try metadata(of: source, as: role, reportedPath: reportedPath))
        // NEF, ARW, PEF and DNG start like any TIFF: their tags tell them apart.
        file.source.format = file.media.format
        if role.isAsset {
            file.sidecar = Self.sidecar(of: source.path)
            try decodeAsset(&file)
        } else if case .render = role {
            do {
                (file.properties, file.thumbnails) = try source.decodeWhole(
                    fileOrientation: 1, sizes: [.preview, .grid])
            } catch {
                throw LibraryError(
                    .corruptFile, "the rendered edit cannot be decoded: \(error.message); nothing was changed",
                    path: reportedPath)
            }
        }
        return file
    }

    /// Step 4: the file's bytes stored durably in `originals/`, staged until the transaction
    /// that records them.
    func store(_ file: IngestedFile) throws -> IngestedFile {
        var file = file
        file.storedPath = try file.source.store(in: originals)
        // Stored: the bytes need not wait in memory for the write transaction.
        file.source.contents = nil
        return file
    }

    /// Step 2: what the file's headers say, by the rule of `role`.
    private func metadata(of source: ImportSource, as role: IngestRole, reportedPath: String?) throws
        -> MediaMetadata
    {
        switch role {
        case .asset, .photo, .video:
            do {
                return try source.readMetadata()
            } catch  where source.format.kind == .image {
                // The decode below proves the photo: unreadable metadata only loses the metadata.
                return MediaMetadata(format: source.format)
            } catch {
                throw LibraryError(
                    .corruptFile, "\(source.format.rawValue.uppercased()) \(error.message)", path: reportedPath)
            }
        case .render:
            let media = (try? source.readMetadata()) ?? MediaMetadata(format: source.format)
            if let orientation = media.exif?.orientation, orientation != 1 {
                throw LibraryError(
                    .invalidRequest,
                    "a rendered edit must be upright (EXIF orientation 1), this one says \(orientation); "
                        + "nothing was changed",
                    path: reportedPath)
            }
            return media
        case .movie:
            do {
                return try MetadataReader.read(fileAtPath: source.path)
            } catch {
                throw LibraryError(
                    .corruptFile, "the movie cannot be read: \(error.message); nothing was changed", path: reportedPath)
            }
        }
    }

    /// Step 3 for an asset: a photo decoded whole (which proves it intact) into its preview and
    /// grid thumbnails, a movie's first frame, a RAW's JPEG preview.
    private func decodeAsset(_ file: inout IngestedFile) throws {
        let path = file.source.path
        let fileOrientation = file.media.exif?.orientation ?? 1
        // A sidecar may turn a photo otherwise than its file says: shown that way, the file left
        // as it is. A HEIF image is turned by its irot property, not by an EXIF tag a sidecar
        // could replace, so it keeps its own.
        if let corrected = file.sidecar?.orientation, corrected != fileOrientation, file.media.heifRotation == nil,
            file.source.format.kind != .video
        {
            file.orientationOverride = corrected
        }
        var sizes: [RenderOptions] = [.preview, .grid]
        for index in sizes.indices { sizes[index].orientation = file.orientationOverride }
        switch file.source.format.kind {
        case .image:
            do {
                // One header read and one decode for all the thumbnails: the first view of the
                // library is instant.
                (file.properties, file.thumbnails) = try file.source.decodeWhole(
                    fileOrientation: fileOrientation, sizes: sizes)
            } catch {
                let code: LibraryError.Code = error.code == .unreadable ? .unreadableFile : .corruptFile
                throw LibraryError(
                    code, "\(file.source.format.rawValue.uppercased()) \(error.message)", path: path, underlying: error)
            }
        case .video:
            guard let movie = file.media.quickTime, movie.videoWidth != nil else {
                throw LibraryError(.corruptFile, "the movie has no video track", path: path)
            }
            // Tables that list more samples than the file holds: every later request would
            // hand it to FFmpeg again, so it is no movie to keep.
            do throws(MetadataError) {
                try MetadataReader.checkStructure(ByteSource(fileAtPath: path))
            } catch {
                throw LibraryError(.corruptFile, error.message, path: path)
            }
            // Its thumbnails are its first frame; a movie FFmpeg cannot decode still imports.
            if let (_, images) = try? ImageFile.thumbnails(ofFileAt: path, options: sizes) {
                file.thumbnails = Array(zip(sizes, images))
            }
        case .raw:
            guard (file.media.pixelWidth ?? 0) > 0 else {
                throw LibraryError(.corruptFile, "the RAW file states no image size", path: path)
            }
            // Its thumbnails come from the largest JPEG preview it embeds. Lightbox does not
            // develop RAW data, so a RAW without a preview imports all the same, with none.
            if let (_, images) = try? ImageFile.thumbnails(ofFileAt: path, options: sizes) {
                file.thumbnails = Array(zip(sizes, images))
            }
        }
    }
}
