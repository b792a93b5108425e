import Foundation
import LightboxImaging
import LightboxMetadata

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Ingest: what every file entering the library goes through, whichever way it comes (an
/// import, a creation request, an edit's render): its source read (sniffed from its bytes,
/// hashed, a photo read once into memory), its metadata read, a photo decoded whole (which
/// proves it intact and renders its thumbnails), and its bytes stored durably in `originals/`,
/// before the transaction that records it.
extension PhotoLibrary {
    /// Decodes or parses the file, reads its metadata and stores it durably in `originals/`.
    /// Nothing is in the database yet: a failure after this leaves an original that a later
    /// import of the same bytes reuses.
    func prepare(_ source: ImportSource) throws -> PreparedAsset {
        var source = source
        let media: MediaMetadata
        do {
            media = try source.readMetadata()
        } catch  where source.format.kind == .image {
            // libvips decodes the photo below: unreadable metadata only loses the metadata.
            media = MediaMetadata(format: source.format)
        } catch {
            throw LibraryError(
                .corruptFile, "\(source.format.rawValue.uppercased()) \(error.message)", path: source.path)
        }
        // NEF, ARW, PEF and DNG start like any TIFF: their tags tell them apart.
        source.format = media.format
        let sidecar = Self.sidecar(of: source.path)
        let metadata = AssetMetadata(media, sidecar: sidecar, fileModificationDate: source.modificationDate)
        var orientationOverride: Int?
        var storedWidth = media.pixelWidth ?? 0
        var storedHeight = media.pixelHeight ?? 0
        var pixelWidth = metadata.pixelWidth ?? 0
        var pixelHeight = metadata.pixelHeight ?? 0
        var thumbnails: [(ThumbnailOptions, EncodedImage)] = []
        switch source.format.kind {
        case .image:
            do {
                // A sidecar may turn the photo otherwise than its file says: shown that way,
                // the file left as it is. The file's own orientation is in its metadata. A
                // HEIF image is turned by its irot property, not by an EXIF tag a sidecar
                // could replace, so it keeps its own.
                let fileOrientation = media.exif?.orientation ?? 1
                if let corrected = sidecar?.orientation, corrected != fileOrientation, media.heifRotation == nil {
                    orientationOverride = corrected
                }
                // Decoding the whole file proves it intact, and the thumbnails it yields make
                // the first view of the library instant: one header read and one decode for all.
                var sizes: [ThumbnailOptions] = [.preview, .grid]
                for index in sizes.indices { sizes[index].orientation = orientationOverride }
                let properties: ImageProperties
                (properties, thumbnails) = try source.decodeWhole(fileOrientation: fileOrientation, sizes: sizes)
                (storedWidth, storedHeight) = (properties.storedWidth, properties.storedHeight)
                (pixelWidth, pixelHeight) = (properties.pixelWidth, properties.pixelHeight)
                if let orientationOverride {
                    let swaps = (5...8).contains(orientationOverride)
                    (pixelWidth, pixelHeight) = swaps ? (storedHeight, storedWidth) : (storedWidth, storedHeight)
                }
            } catch {
                let code: LibraryError.Code = error.code == .unreadable ? .unreadableFile : .corruptFile
                throw LibraryError(
                    code, "\(source.format.rawValue.uppercased()) \(error.message)", path: source.path,
                    underlying: error)
            }
        case .video:
            guard let movie = media.quickTime, movie.videoWidth != nil else {
                throw LibraryError(.corruptFile, "the movie has no video track", path: source.path)
            }
            // Its thumbnails are its first frame; a movie FFmpeg cannot decode still imports.
            if let (_, images) = try? ImageFile.thumbnails(ofFileAt: source.path, options: [.preview, .grid]) {
                thumbnails = Array(zip([ThumbnailOptions.preview, .grid], images))
            }
        case .raw:
            guard storedWidth > 0 else {
                throw LibraryError(.corruptFile, "the RAW file states no image size", path: source.path)
            }
            if let corrected = sidecar?.orientation, corrected != (media.exif?.orientation ?? 1) {
                orientationOverride = corrected
                if (5...8).contains(corrected) != (5...8).contains(media.exif?.orientation ?? 1) {
                    (pixelWidth, pixelHeight) = (pixelHeight, pixelWidth)
                }
            }
            // Its thumbnails come from the largest JPEG preview it embeds. Lightbox does not
            // develop RAW data, so a RAW without a preview imports all the same, with none.
            var sizes: [ThumbnailOptions] = [.preview, .grid]
            for index in sizes.indices { sizes[index].orientation = orientationOverride }
            if let (_, images) = try? ImageFile.thumbnails(ofFileAt: source.path, options: sizes) {
                thumbnails = Array(zip(sizes, images))
            }
        }
        let pairedMovie = try motionPhotoMovie(source, metadata)
        let storedPath = try source.store(in: originals)
        // Stored: the bytes need not wait in memory for the write transaction.
        source.contents = nil
        return PreparedAsset(
            source: source, metadata: metadata, storedPath: storedPath,
            originalFilename: (source.path as NSString).lastPathComponent, storedWidth: storedWidth,
            storedHeight: storedHeight, pixelWidth: pixelWidth, pixelHeight: pixelHeight, thumbnails: thumbnails,
            captureKey: Self.captureKey(source, media), orientationOverride: orientationOverride,
            pairedMovie: pairedMovie)
    }

    /// RAW + JPEG pairing key: the same folder and base name, taken at the same instant by the
    /// same camera. Nil without a capture time: a name alone pairs nothing.
    static func captureKey(_ source: ImportSource, _ media: MediaMetadata) -> String? {
        guard source.format.kind != .video, let exif = media.exif, let taken = exif.dateTimeOriginal else { return nil }
        let base = ((source.path as NSString).deletingPathExtension).lowercased()
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
            ((source.path as NSString).lastPathComponent as NSString).deletingPathExtension + "."
            + movie.format.preferredFilenameExtension
        return PreparedMovie(
            storedPath: storedPath, sha256: sha256, size: Int64(length), originalFilename: name,
            uniformTypeIdentifier: movie.format.uniformTypeIdentifier, pixelWidth: movie.pixelWidth ?? 0,
            pixelHeight: movie.pixelHeight ?? 0, duration: movie.quickTime?.duration ?? 0)
    }

    /// The XMP sidecar next to a file, when there is one: `IMG_1.JPG.xmp` (darktable,
    /// digiKam) or `IMG_1.xmp` (Lightroom, Capture One), either case.
    static func sidecar(of path: String) -> XMPMetadata? {
        let base = (path as NSString).deletingPathExtension
        for candidate in [path + ".xmp", path + ".XMP", base + ".xmp", base + ".XMP"] {
            guard let data = FileManager.default.contents(atPath: candidate), data.count <= ByteSource.maximumRead
            else {
                continue
            }
            return XMPMetadata(packet: [UInt8](data))
        }
        return nil
    }

    /// After the commit: the thumbnails go to `derivatives/`.
    func finish(_ prepared: PreparedAsset, localIdentifier: String) {
        for (options, thumbnail) in prepared.thumbnails {
            try? derivatives.store(
                thumbnail.bytes, localIdentifier: localIdentifier,
                key: DerivativeKey.make(contentHash: prepared.source.sha256, options: options))
        }
    }

    /// A file that must be a movie (`role` says whose, for the error), hashed and its header
    /// parsed, ready to store; errors name `reportedPath`.
    func readMovie(at path: String, role: String, reportedPath: String?) throws -> (ImportSource, MediaMetadata) {
        let source = try ImportSource(path: path)
        guard source.format.kind == .video else {
            throw LibraryError(.invalidRequest, "\(role) must be a movie; nothing was changed", path: reportedPath)
        }
        do {
            return (source, try MetadataReader.read(fileAtPath: source.path))
        } catch {
            throw LibraryError(
                .corruptFile, "the movie cannot be read: \(error.message); nothing was changed", path: reportedPath)
        }
    }
}
