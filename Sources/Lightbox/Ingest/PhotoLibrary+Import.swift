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
    /// Imports files and folders (recursively) into the library.
    ///
    /// Each file's format is recognised from its bytes. Each photo becomes one asset with its
    /// `.photo` resource, unless the library already holds the same bytes. A file that cannot
    /// be imported (unsupported, unreadable, corrupt) gets a ``ImportOutcome/failed(_:)``
    /// result naming it and the reason; the other files go on.
    ///
    /// - Parameters:
    ///   - urls: files and folders. In folders, hidden files, the library's own folder, XMP sidecars
    ///     (read with their photo) and iPhone `.AAE` adjustment files are skipped.
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
                        let (outcome, size) = try await Self.importWork.run {
                            try self.importFile(atPath: file.path, options: options)
                        }
                        return (index, ImportItemResult(path: file.path, outcome: outcome), size)
                    } catch let error as LibraryError where file.inFolder && Self.isNotMedia(error) {
                        return (index, ImportItemResult(path: file.path, outcome: .skipped(reason: error.message)), 0)
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
                case .paired: progress.paired += 1
                case .duplicate: progress.duplicates += 1
                case .failed: progress.failed += 1
                case .skipped: progress.skipped += 1
                }
                onResult(result, progress)
                addNext()
            }
        }
        return ImportSummary(results: results.compactMap { $0 }, progress: progress)
    }

    /// Where files are parsed, decoded and stored: lanes of their own, so that hostile uploads
    /// being parsed never hold the lanes the library's reads need. As many as the default
    /// import runs at once.
    static let importWork = WorkPool(
        label: "lightbox.import", lanes: ProcessInfo.processInfo.activeProcessorCount + 2)

    /// A file to import, or a path that could not be listed.
    struct FoundFile: Sendable {
        var path: String
        var failure: LibraryError?
        /// Found in a folder rather than named: it is passed over when it is no photo or movie.
        var inFolder = false
    }

    /// Whether a file's import failed because it is something else than a photo or movie: its
    /// bytes are no format Lightbox knows and its name no photo's or movie's. An empty or
    /// unknown `IMG_0001.JPG` is a damaged photo, and fails.
    static func isNotMedia(_ error: LibraryError) -> Bool {
        guard error.code == .unsupportedFormat, let path = error.path else { return false }
        return !FileFormat.mediaFilenameExtensions.contains(PathString.pathExtension(path).lowercased())
    }

    /// Expands folders recursively (`MediaFolder.files`: sorted; hidden entries, XMP sidecars,
    /// which each photo's import reads, iPhone adjustment files, this library and any other
    /// skipped). A path inside a library is a failure.
    func enumerateFiles(_ urls: [URL]) -> [FoundFile] {
        let fileManager = FileManager.default
        let libraryPath = url.standardizedFileURL.path
        var found: [FoundFile] = []
        for url in urls {
            let path = url.standardizedFileURL.path
            var isDirectory: ObjCBool = false
            guard fileManager.fileExists(atPath: path, isDirectory: &isDirectory) else {
                found.append(
                    FoundFile(path: path, failure: LibraryError(.unreadableFile, "no such file or folder", path: path)))
                continue
            }
            if let library = Self.enclosingLibrary(of: path), !(library == libraryPath && isUpload(path)) {
                // A library's originals are its own: a move would take them from it.
                found.append(
                    FoundFile(
                        path: path,
                        failure: LibraryError(
                            .invalidRequest, "this is inside the library \(library), whose files are not imported",
                            path: path)))
                continue
            }
            guard isDirectory.boolValue else {
                found.append(FoundFile(path: path))
                continue
            }
            guard let inFolder = MediaFolder.list(path, excluding: libraryPath, skipping: Self.isLibrary) else {
                found.append(
                    FoundFile(path: path, failure: LibraryError(.unreadableFile, "cannot list the folder", path: path)))
                continue
            }
            found += inFolder.files.map { FoundFile(path: $0, inFolder: true) }
            // Failures, not passed over: a card wiped after an import that skipped them loses them.
            found += inFolder.unreadableNames.map {
                FoundFile(path: $0, failure: LibraryError(.unreadableFile, MediaFolder.unreadableNameReason, path: $0))
            }
            found += inFolder.unreadableFolders.map {
                FoundFile(path: $0, failure: LibraryError(.unreadableFile, "cannot list the folder", path: $0))
            }
        }
        return found
    }
}

extension PhotoLibrary {
    /// The asset a file already imported from this path (same size and modification time)
    /// became, if the library still holds it: a resumed import skips it without hashing.
    func journaled(_ path: String) throws -> (String, Int64)? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            let size = (attributes[.size] as? NSNumber)?.int64Value,
            let modified = attributes[.modificationDate] as? Date
        else { return nil }
        let identifier = try store.read {
            try $0.journaledAsset(path: path, size: size, modificationDate: modified)
        }
        return identifier.map { ($0, size) }
    }

    /// Records a file outside an import's own transaction (a duplicate).
    func journal(_ source: ImportSource) throws {
        try store.write { try $0.journal(source.journaled) }
    }
}
