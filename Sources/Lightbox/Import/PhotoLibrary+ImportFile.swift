import Foundation
import LightboxImaging
import LightboxMetadata

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension PhotoLibrary {
    /// Imports one file. Blocking: libvips decodes, files are hashed and copied.
    /// Returns the outcome and the file's size.
    ///
    /// A file that completes another asset joins it instead of making a new one: a Live
    /// Photo's still and movie (same content identifier, whatever their order or import
    /// run), a RAW and the JPEG of the same shot. The pairing is decided inside the write
    /// transaction, so two halves imported at the same moment still meet.
    func importFile(atPath path: String, options: ImportOptions) throws -> (ImportOutcome, Int64) {
        if let (localIdentifier, size) = try journaled(path) {
            try removeSourceIfMoving(path, options: options)
            return (.duplicate(localIdentifier: try restoringIfTrashed(localIdentifier)), size)
        }
        let source = try ImportSource(path: path)
        if let existing = try existingAsset(withOriginalHash: source.sha256) {
            try journal(source)
            try removeSourceIfMoving(path, options: options)
            return (.duplicate(localIdentifier: try restoringIfTrashed(existing)), source.size)
        }
        let prepared = try prepare(source)
        FaultInjection.pause(at: .importStored)
        var placed: (localIdentifier: String, paired: Bool)
        do {
            let originals = self.originals
            placed = try store.write { store -> (String, Bool) in
                try prepared.checkStored(in: originals)
                try store.journal(prepared.source)
                if let partner = try store.pair(prepared) {
                    try store.recordChanges(author: "import", [ObjectChangeRecord(.asset, partner, .updated)])
                    return (partner, true)
                }
                let localIdentifier = UUID().uuidString
                try store.insert(prepared, localIdentifier: localIdentifier)
                try store.recordChanges(author: "import", [ObjectChangeRecord(.asset, localIdentifier, .inserted)])
                return (localIdentifier, false)
            }
        } catch let error as DuplicateOriginal {
            // Another import of the same bytes committed first.
            if let existing = try existingAsset(withOriginalHash: source.sha256) {
                originals.release(prepared.storedPaths)
                try removeSourceIfMoving(path, options: options)
                return (.duplicate(localIdentifier: existing), source.size)
            }
            throw LibraryError(.storageFailed, "cannot record the asset: \(error)", path: path, underlying: error)
        } catch let error as LibraryError {
            throw error
        } catch {
            throw LibraryError(.storageFailed, "cannot record the asset: \(error)", path: path, underlying: error)
        }
        FaultInjection.pause(at: .importCommitted)
        originals.release(prepared.storedPaths)
        finish(prepared, localIdentifier: placed.localIdentifier)
        try removeSourceIfMoving(path, options: options)
        guard let asset = try asset(withLocalIdentifier: placed.localIdentifier) else {
            throw LibraryError(.storageFailed, "the new asset vanished", path: path)
        }
        return (placed.paired ? .paired(asset) : .imported(asset), source.size)
    }

    /// A file about to be imported: its format (from its bytes), hash and size.
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
                        + "DNG and camera RAW, QuickTime, MP4); it starts with bytes \(FileIO.hex(head.prefix(8)))"
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

        /// Stores the file in `originals/`: from the bytes in memory when it was read whole,
        /// else copied and checked against its hash. Returns the stored path.
        func store(in originals: OriginalStore) throws -> String {
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
        var storedPath: String
        var sha256: String
        var size: Int64
        var originalFilename: String
        var uniformTypeIdentifier: String
        var pixelWidth: Int
        var pixelHeight: Int
        var duration: Double
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
        var thumbnails: [(ThumbnailOptions, EncodedImage)] = []
        /// What pairs a RAW with the JPEG of the same shot: folder, base name, capture time, camera.
        var captureKey: String?
        /// The orientation an XMP sidecar corrects a photo to; nil: the file's.
        var orientationOverride: Int?
        /// The movie that makes the photo live, when it comes with it.
        var pairedMovie: PreparedMovie?

        var kind: FileFormat.Kind { source.format.kind }
        /// The rating to store: XMP's 0 means unrated, and values outside -1...5 are ignored.
        var rating: Int? { metadata.rating.flatMap { $0 != 0 && (-1...5).contains($0) ? $0 : nil } }
        /// The resource type the file becomes in a new asset.
        var resourceType: AssetResourceType { kind == .video ? .video : .photo }

        /// The files this asset stored in `originals/`: its photo or movie, and a paired movie.
        var storedPaths: [String] { [storedPath] + [pairedMovie?.storedPath].compactMap { $0 } }

        /// Throws unless the files this asset stored are still in `originals/`: called inside the
        /// write transaction that records them. A stored file may be one an earlier import left
        /// or an asset used, reused here, and a purge's removal (in a write transaction too) may
        /// take it between the store and this transaction: the import then fails cleanly
        /// rather than commit a row without its file.
        func checkStored(in originals: OriginalStore) throws {
            for path in storedPaths
            where !FileIO.fileExists(originals.absolutePath(path)) {
                throw LibraryError(
                    .storageFailed, "the stored original was removed by a purge meanwhile; import the file again",
                    path: source.path)
            }
        }
    }

    /// Decodes or parses the file, reads its metadata and stores it durably in `originals/`.
    /// Nothing is in the database yet: a failure after this leaves an original that a later
    /// import of the same bytes reuses.
    func prepare(_ source: ImportSource) throws -> PreparedAsset {
        var source = source
        let media: MediaMetadata
        do {
            if let contents = source.contents {
                media = try MetadataReader.read(
                    ByteSource(bytes: contents), filenameExtension: (source.path as NSString).pathExtension)
            } else {
                media = try MetadataReader.read(fileAtPath: source.path)
            }
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
                let (properties, images) = try ImageFile.thumbnails(
                    ofFileAt: source.path, contents: source.contents, fileOrientation: fileOrientation, options: sizes)
                thumbnails = Array(zip(sizes, images))
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
                key: DerivativeStore.key(contentHash: prepared.source.sha256, options: options))
        }
    }

    /// A duplicate of an asset in Recently Deleted brings it back: importing a photo again
    /// is wanting it in the library. Returns the identifier.
    func restoringIfTrashed(_ localIdentifier: String) throws -> String {
        if try asset(withLocalIdentifier: localIdentifier)?.trashedDate != nil {
            // Another import of the same bytes may have restored it first.
            try? performChangesAndWait { $0.restoreAssets([localIdentifier]) }
        }
        return localIdentifier
    }

    /// The asset holding these bytes as an original (a photo, a movie, a RAW, a paired movie).
    func existingAsset(withOriginalHash sha256: String) throws -> String? {
        try store.read { try $0.assetIdentifier(withOriginalHash: sha256) }
    }

    /// With `shouldMoveFile`, deletes the source once the library holds its bytes for good.
    func removeSourceIfMoving(_ path: String, options: ImportOptions) throws {
        guard options.shouldMoveFile else { return }
        guard unlink(path) == 0 else { throw FileIO.posixError("removing the moved file", path) }
    }
}
