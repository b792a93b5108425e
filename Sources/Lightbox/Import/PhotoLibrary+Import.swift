import Foundation
import GRDB
import LightboxImaging
import LightboxMetadata

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension PhotoLibrary {
    /// Imports files and folders (recursively) into the library.
    ///
    /// Each file's format is recognised from its bytes. Each photo becomes one asset with its
    /// `.photo` resource, unless the library already holds the same bytes. A file that cannot
    /// be imported (unsupported, unreadable, corrupt) gets a ``ImportOutcome/failed(_:)``
    /// result naming it and the reason; the other files go on.
    ///
    /// - Parameters:
    ///   - urls: files and folders. Hidden files and the library's own folder are skipped.
    ///   - options: copy or move, and how many files to decode at once.
    ///   - onResult: called once per file as it finishes, with the counts so far.
    public func importItems(
        at urls: [URL], options: ImportOptions = ImportOptions(),
        onResult: @Sendable (ImportItemResult, ImportProgress) -> Void = { _, _ in }
    ) async -> ImportSummary {
        let files = enumerateFiles(urls)
        var progress = ImportProgress(total: files.count)
        var results = [ImportItemResult?](repeating: nil, count: files.count)

        await withTaskGroup(of: (Int, ImportItemResult, Int64).self) { group in
            var next = 0
            func addNext() {
                guard next < files.count else { return }
                let index = next
                let file = files[index]
                next += 1
                group.addTask {
                    if let failure = file.failure {
                        return (index, ImportItemResult(path: file.path, outcome: .failed(failure)), 0)
                    }
                    do {
                        let (outcome, size) = try await BlockingWork.run {
                            try self.importFile(atPath: file.path, options: options)
                        }
                        return (index, ImportItemResult(path: file.path, outcome: outcome), size)
                    } catch {
                        let failure =
                            error as? LibraryError
                            ?? LibraryError(.storageFailed, "\(error)", path: file.path, underlying: error)
                        return (index, ImportItemResult(path: file.path, outcome: .failed(failure)), 0)
                    }
                }
            }
            for _ in 0..<options.maximumConcurrentFiles { addNext() }
            for await (index, result, size) in group {
                results[index] = result
                progress.completed += 1
                progress.bytes += size
                switch result.outcome {
                case .imported: progress.imported += 1
                case .duplicate: progress.duplicates += 1
                case .failed: progress.failed += 1
                }
                onResult(result, progress)
                addNext()
            }
        }
        return ImportSummary(results: results.compactMap { $0 }, progress: progress)
    }

    /// A file to import, or a path that could not be listed.
    struct FoundFile: Sendable {
        var path: String
        var failure: LibraryError?
    }

    /// Expands folders recursively (sorted, hidden entries skipped, the library itself skipped).
    func enumerateFiles(_ urls: [URL]) -> [FoundFile] {
        let fileManager = FileManager.default
        let libraryPath = url.standardizedFileURL.path
        var found: [FoundFile] = []
        for url in urls {
            let path = url.standardizedFileURL.path
            var isDirectory: ObjCBool = false
            guard fileManager.fileExists(atPath: path, isDirectory: &isDirectory) else {
                found.append(FoundFile(path: path, failure: LibraryError(.unreadableFile, "no such file or folder", path: path)))
                continue
            }
            guard isDirectory.boolValue else {
                found.append(FoundFile(path: path))
                continue
            }
            guard path != libraryPath else { continue }
            let keys: [URLResourceKey] = [.isRegularFileKey, .isDirectoryKey]
            guard
                let enumerator = fileManager.enumerator(
                    at: URL(fileURLWithPath: path, isDirectory: true), includingPropertiesForKeys: keys,
                    options: [.skipsHiddenFiles])
            else {
                found.append(FoundFile(path: path, failure: LibraryError(.unreadableFile, "cannot list the folder", path: path)))
                continue
            }
            var inFolder: [String] = []
            for case let item as URL in enumerator {
                let itemPath = item.standardizedFileURL.path
                if itemPath == libraryPath {
                    enumerator.skipDescendants()
                    continue
                }
                if (try? item.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true {
                    inFolder.append(itemPath)
                }
            }
            found += inFolder.sorted().map { FoundFile(path: $0) }
        }
        return found
    }

    /// Imports one file. Blocking: libvips decodes, files are hashed and copied.
    /// Returns the outcome and the file's size.
    func importFile(atPath path: String, options: ImportOptions) throws -> (ImportOutcome, Int64) {
        let source = try ImportSource(path: path)
        if let existing = try existingAsset(withPhotoHash: source.sha256) {
            try removeSourceIfMoving(path, options: options)
            return (.duplicate(localIdentifier: existing), source.size)
        }
        let prepared = try prepare(source)
        let localIdentifier = UUID().uuidString
        do {
            let database = self.database
            try database.writer.write { db in
                try prepared.insert(db, localIdentifier: localIdentifier)
                try database.recordChangeTransaction(
                    db, author: "import", changes: [ObjectChangeRecord(.asset, localIdentifier, .inserted)])
            }
        } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE {
            // Another import of the same bytes committed first.
            if let existing = try existingAsset(withPhotoHash: source.sha256) {
                try removeSourceIfMoving(path, options: options)
                return (.duplicate(localIdentifier: existing), source.size)
            }
            throw LibraryError(.storageFailed, "cannot record the asset: \(error)", path: path, underlying: error)
        } catch {
            throw LibraryError(.storageFailed, "cannot record the asset: \(error)", path: path, underlying: error)
        }
        finish(prepared, localIdentifier: localIdentifier)
        try removeSourceIfMoving(path, options: options)
        guard let asset = try asset(withLocalIdentifier: localIdentifier) else {
            throw LibraryError(.storageFailed, "the new asset vanished", path: path)
        }
        return (.imported(asset), source.size)
    }

    /// A file about to be imported: its format (from its bytes), hash and size.
    struct ImportSource: Sendable {
        var path: String
        var format: FileFormat
        var sha256: String
        var size: Int64
        var modificationDate: Date

        init(path: String) throws {
            let attributes = try? FileManager.default.attributesOfItem(atPath: path)
            let head = try FileIO.prefix(ofFileAt: path, count: FileFormat.sniffLength)
            guard let format = FileFormat(sniffing: head) else {
                let reason =
                    head.isEmpty
                    ? "the file is empty"
                    : "not a photo format Lightbox imports (JPEG, HEIC, HEIF, AVIF, PNG, WebP, TIFF, GIF); it starts with bytes \(FileIO.hex(head.prefix(8)))"
                throw LibraryError(.unsupportedFormat, reason, path: path)
            }
            guard format.kind == .image else {
                // `lightbox metadata` reads these already; importing them needs the pairing of
                // Live Photos, RAW + JPEG and videos, which comes next.
                let kind = format.kind == .video ? "a movie" : "a RAW photo"
                throw LibraryError(
                    .unsupportedFormat, "\(kind) (\(format.rawValue)): Lightbox does not import these yet", path: path)
            }
            self.path = path
            self.format = format
            (sha256, size) = try FileIO.sha256(ofFileAt: path)
            modificationDate = (attributes?[.modificationDate] as? Date) ?? Date()
        }
    }

    /// A photo decoded, checked and stored in `originals/`, waiting for its rows.
    struct PreparedAsset: Sendable {
        var source: ImportSource
        var properties: ImageProperties
        var gridThumbnail: EncodedImage
        /// What the file's metadata (and its XMP sidecar) says of the asset.
        var metadata: AssetMetadata
        var storedPath: String
        /// The name the `.photo` resource keeps: the file's own, unless a creation request names one.
        var originalFilename: String

        /// Inserts the asset and its `.photo` resource (inside the caller's transaction).
        func insert(_ db: Database, localIdentifier: String) throws {
            let now = Date()
            let location = metadata.location
            var assetRecord = AssetRecord(
                id: nil, localIdentifier: localIdentifier, mediaType: AssetMediaType.image.rawValue,
                mediaSubtypes: metadata.mediaSubtypes.rawValue, pixelWidth: properties.pixelWidth,
                pixelHeight: properties.pixelHeight, creationDate: metadata.creationDate,
                creationTimeZoneOffset: metadata.creationTimeZoneOffset, modificationDate: now, addedDate: now, duration: 0,
                isFavorite: false, isHidden: false, playbackStyle: metadata.playbackStyle.rawValue,
                sourceType: AssetSourceType.typeUserLibrary.rawValue, latitude: location?.latitude,
                longitude: location?.longitude, altitude: location?.altitude, locationTimestamp: location?.timestamp,
                burstIdentifier: metadata.burstIdentifier, burstSelectionTypes: 0, representsBurst: false,
                hasAdjustments: false, adjustmentFormatIdentifier: nil, isSelfPortrait: metadata.isSelfPortrait)
            try assetRecord.insert(db)
            var resource = ResourceRecord(
                id: nil, assetId: assetRecord.id!, type: AssetResourceType.photo.rawValue,
                originalFilename: originalFilename,
                uniformTypeIdentifier: source.format.uniformTypeIdentifier, fileSize: source.size,
                pixelWidth: properties.storedWidth, pixelHeight: properties.storedHeight, sha256: source.sha256,
                storedPath: storedPath)
            try resource.insert(db)
            if let burst = metadata.burstIdentifier { try Self.electRepresentative(ofBurst: burst, db) }
        }

        /// Makes one frame of a burst its representative: the user's pick, else the camera's,
        /// else the first frame taken (ties: the first imported). Runs after each frame joins.
        static func electRepresentative(ofBurst burst: String, _ db: Database) throws {
            try db.execute(
                sql: """
                    UPDATE asset SET representsBurst = (id = (
                        SELECT id FROM asset WHERE burstIdentifier = ?1
                        ORDER BY (burstSelectionTypes & \(AssetBurstSelectionType.userPick.rawValue)) != 0 DESC,
                        (burstSelectionTypes & \(AssetBurstSelectionType.autoPick.rawValue)) != 0 DESC, creationDate, id
                        LIMIT 1))
                    WHERE burstIdentifier = ?1
                    """,
                arguments: [burst])
        }
    }

    /// Decodes the whole file (proving it intact, and making the grid thumbnail), reads its
    /// creation date and stores it durably in `originals/`. Nothing is in the database yet:
    /// a failure after this leaves an original that a later import of the same bytes reuses.
    func prepare(_ source: ImportSource) throws -> PreparedAsset {
        let properties: ImageProperties
        let gridThumbnail: EncodedImage
        do {
            properties = try ImageFile.properties(ofFileAt: source.path)
            // Decoding the whole file proves it is intact, and the grid thumbnail it yields
            // makes the first view of the library instant.
            gridThumbnail = try ImageFile.thumbnail(ofFileAt: source.path, options: .grid)
        } catch {
            let code: LibraryError.Code = error.code == .unreadable ? .unreadableFile : .corruptFile
            throw LibraryError(
                code, "\(source.format.rawValue.uppercased()) \(error.message)", path: source.path, underlying: error)
        }
        // The file decoded, so its metadata failing to parse only loses the metadata.
        let media = (try? MetadataReader.read(fileAtPath: source.path)) ?? MediaMetadata(format: source.format)
        let metadata = AssetMetadata(
            media, sidecar: Self.sidecar(of: source.path), fileModificationDate: source.modificationDate)
        let storedPath = try originals.store(
            copying: source.path, sha256: source.sha256, filenameExtension: source.format.preferredFilenameExtension)
        return PreparedAsset(
            source: source, properties: properties, gridThumbnail: gridThumbnail, metadata: metadata,
            storedPath: storedPath, originalFilename: (source.path as NSString).lastPathComponent)
    }

    /// The XMP sidecar next to a file, when there is one: `IMG_1.JPG.xmp` (darktable,
    /// digiKam) or `IMG_1.xmp` (Lightroom, Capture One), either case.
    static func sidecar(of path: String) -> XMPMetadata? {
        let base = (path as NSString).deletingPathExtension
        for candidate in [path + ".xmp", path + ".XMP", base + ".xmp", base + ".XMP"] {
            guard let data = FileManager.default.contents(atPath: candidate), data.count <= ByteSource.maximumRead else {
                continue
            }
            return XMPMetadata(packet: [UInt8](data))
        }
        return nil
    }

    /// After the commit: the grid thumbnail goes to `derivatives/`.
    func finish(_ prepared: PreparedAsset, localIdentifier: String) {
        try? derivatives.store(
            prepared.gridThumbnail.bytes, localIdentifier: localIdentifier,
            key: DerivativeStore.key(contentHash: prepared.source.sha256, options: .grid))
    }

    func existingAsset(withPhotoHash sha256: String) throws -> String? {
        try database.writer.read { db in
            try String.fetchOne(
                db,
                sql: """
                    SELECT asset.localIdentifier FROM resource JOIN asset ON asset.id = resource.assetId
                    WHERE resource.sha256 = ? AND resource.type = ?
                    """,
                arguments: [sha256, AssetResourceType.photo.rawValue])
        }
    }

    /// With `shouldMoveFile`, deletes the source once the library holds its bytes for good.
    func removeSourceIfMoving(_ path: String, options: ImportOptions) throws {
        guard options.shouldMoveFile else { return }
        guard unlink(path) == 0 else { throw FileIO.posixError("removing the moved file", path) }
    }
}
