import Foundation
import LightboxMetadata
import LightboxStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension PhotoLibrary {
    /// Makes changes to the library, atomically (PhotoKit's `performChanges`).
    ///
    /// `block` runs first and records requests; then every request is checked and applied in
    /// one SQLite transaction. An invalid request (an unknown identifier, an index past the
    /// end, an asset added twice) throws a ``LibraryError`` naming it, and nothing changes.
    /// Files of deleted assets are removed once the transaction has committed.
    ///
    /// Answers the transaction's change token (what a client that made the change passes to
    /// `fetchPersistentChanges(since:)` later), or nil when the block changed nothing.
    @discardableResult
    public func performChanges(_ block: (ChangeRequests) throws -> Void) async throws -> PersistentChangeToken? {
        let (operations, creations, outputs) = try record(block)
        guard !operations.isEmpty else {
            removeTemporaryFiles(creations)
            return nil
        }
        // Preparing the files and the transaction block: both run off the caller's executor.
        return try await BlockingWork.run { try self.commit(operations, creations, outputs) }
    }

    /// Makes changes to the library and waits for them, blocking the calling thread
    /// (PhotoKit's `performChangesAndWait`). See ``performChanges(_:)``.
    @discardableResult
    public func performChangesAndWait(_ block: (ChangeRequests) throws -> Void) throws -> PersistentChangeToken? {
        let (operations, creations, outputs) = try record(block)
        guard !operations.isEmpty else {
            removeTemporaryFiles(creations)
            return nil
        }
        return try commit(operations, creations, outputs)
    }

    /// Runs a change block, recording its requests.
    private func record(_ block: (ChangeRequests) throws -> Void) throws -> (
        operations: [ChangeOperation], creations: [String: [ChangeRequests.NewResource]],
        outputs: [String: ContentEditingOutput]
    ) {
        let requests = ChangeRequests(temporaryFolder: originals.temporaryFolder) { [self] localIdentifier in
            try? asset(withLocalIdentifier: localIdentifier)
        }
        do {
            try block(requests)
        } catch {
            removeTemporaryFiles(requests.creations)
            throw error
        }
        return (requests.operations, requests.creations, requests.contentOutputs)
    }

    /// Prepares, applies and commits a block's requests, then removes what they replaced.
    /// Blocking.
    private func commit(
        _ operations: [ChangeOperation], _ creations: [String: [ChangeRequests.NewResource]],
        _ outputs: [String: ContentEditingOutput]
    ) throws -> PersistentChangeToken? {
        defer { removeTemporaryFiles(creations) }
        let (prepared, thumbnails) = try prepare(operations, creations, outputs)
        FaultInjection.pause(at: .changesPrepared)
        let result: AppliedChanges
        do {
            result = try store.write { [originals] store in
                // New assets' originals and edits' renders alike.
                try originals.requireStored(prepared.storedPaths, for: nil)
                let result = try store.apply(operations, prepared: prepared)
                FaultInjection.pause(at: .changesApplied)
                return result
            }
        } catch {
            removeUnusedFiles(of: prepared)
            throw error
        }
        FaultInjection.pause(at: .changesCommitted)
        originals.release(prepared.storedPaths)
        afterCommit(result, creations: creations, thumbnails: thumbnails)
        return result.changeToken
    }

    /// What a block needs before its transaction: new assets' files and edits' renders stored,
    /// reverts measured (blocking work that must not hold the write lock); with the thumbnails
    /// to keep once it commits.
    private func prepare(
        _ operations: [ChangeOperation], _ creations: [String: [ChangeRequests.NewResource]],
        _ outputs: [String: ContentEditingOutput]
    ) throws -> (PreparedChanges, thumbnails: [(String, PendingThumbnails)]) {
        let assets = try prepareCreations(creations)
        let (edits, reverts, editThumbnails) = try prepareContentEdits(operations, outputs: outputs)
        let thumbnails =
            assets.map { ($0.key, PendingThumbnails(contentHash: $0.value.source.sha256, images: $0.value.thumbnails)) }
            + editThumbnails.map { ($0.key, $0.value) }
        return (
            PreparedChanges(assets: assets.mapValues(\.record), edits: edits, reverts: reverts), thumbnails
        )
    }

    /// After a failed transaction: the files the block stored, which no row may refer to.
    private func removeUnusedFiles(of prepared: PreparedChanges) {
        let paths = prepared.storedPaths
        guard !paths.isEmpty else { return }
        removeUnreferenced(originals.staged(paths))
    }

    /// Before the transaction, each new asset's photo or movie is read, decoded and stored in
    /// `originals/` (blocking work that must not hold the write lock). A file that is missing,
    /// unsupported, damaged or already in the library fails the whole block here.
    func prepareCreations(_ creations: [String: [ChangeRequests.NewResource]]) throws -> [String: PreparedAsset] {
        var prepared: [String: PreparedAsset] = [:]
        for (localIdentifier, resources) in creations {
            // A photo (with, for a Live Photo, its movie), or a movie alone.
            let mains = resources.filter { $0.type == .photo || $0.type == .video }
            let movies = resources.filter { $0.type == .pairedVideo }
            guard mains.count == 1, let photo = mains.first else {
                throw LibraryError(
                    .invalidRequest,
                    "the new asset \(localIdentifier) needs exactly one .photo or .video resource, it has \(mains.count); nothing was changed"
                )
            }
            if let other = resources.first(where: { ![.photo, .video, .pairedVideo].contains($0.type) }) {
                throw LibraryError(
                    .invalidRequest,
                    "a new asset takes a .photo (and, for a Live Photo, a .pairedVideo) or a .video; not a .\(other.type); nothing was changed"
                )
            }
            if photo.type == .video, !movies.isEmpty {
                throw LibraryError(
                    .invalidRequest,
                    "the new asset \(localIdentifier) is a movie: a .pairedVideo belongs to a Live Photo's .photo; nothing was changed"
                )
            }
            guard movies.count <= 1 else {
                throw LibraryError(
                    .invalidRequest,
                    "the new asset \(localIdentifier) has two .pairedVideo resources; nothing was changed")
            }
            for resource in resources where resource.options.shouldMoveFile && !resource.isTemporary {
                if let library = Self.enclosingLibrary(of: resource.path) {
                    throw LibraryError(
                        .invalidRequest,
                        "the file is inside the library \(library), whose files are not moved out; nothing was changed",
                        path: resource.path)
                }
            }
            let role: IngestRole = photo.type == .video ? .video : .photo
            let source = try ingestSource(at: photo.path, as: role, reportedPath: photo.path)
            if let existing = try existingAsset(withOriginalHash: source.sha256) {
                throw LibraryError(
                    .invalidRequest, "the library already holds these bytes as asset \(existing); nothing was changed",
                    path: photo.isTemporary ? nil : photo.path)
            }
            var asset = try prepare(source, as: role)
            if let name = photo.options.originalFilename { asset.originalFilename = name }
            if let movie = movies.first { asset.pairedMovie = try prepareMovie(movie) }
            prepared[localIdentifier] = asset
        }
        return prepared
    }

    /// A Live Photo's movie from a creation request: parsed, checked and stored.
    private func prepareMovie(_ resource: ChangeRequests.NewResource) throws -> PreparedMovie {
        let path = resource.isTemporary ? nil : resource.path
        let role = IngestRole.movie("a .pairedVideo resource")
        let source = try ingestSource(at: resource.path, as: role, reportedPath: path)
        if let existing = try existingAsset(withOriginalHash: source.sha256) {
            throw LibraryError(
                .invalidRequest,
                "the library already holds this movie as part of asset \(existing); nothing was changed",
                path: path)
        }
        let file = try ingest(source, as: role, reportedPath: path)
        let movie = file.media
        return PreparedMovie(
            file: StoredFile(
                storedPath: file.storedPath, sha256: source.sha256, size: source.size,
                pixelWidth: movie.pixelWidth ?? 0, pixelHeight: movie.pixelHeight ?? 0,
                originalFilename: resource.options.originalFilename ?? PathString.lastComponent(source.path),
                uniformTypeIdentifier: source.format.uniformTypeIdentifier))
    }

    /// After the commit: thumbnails of new assets, moved sources deleted, files of deleted
    /// assets removed.
    private func afterCommit(
        _ result: AppliedChanges, creations: [String: [ChangeRequests.NewResource]],
        thumbnails: [(String, PendingThumbnails)]
    ) {
        for (localIdentifier, pending) in thumbnails { storeThumbnails(pending, localIdentifier: localIdentifier) }
        for (id, sha256) in result.replacedRenders {
            derivatives.removeImages(localIdentifier: id, contentHash: sha256)
        }
        for resource in creations.values.joined() where resource.options.shouldMoveFile && !resource.isTemporary {
            unlink(resource.path)
        }
        removeFiles(of: result)
    }

    private func removeTemporaryFiles(_ creations: [String: [ChangeRequests.NewResource]]) {
        for resource in creations.values.joined() where resource.isTemporary {
            unlink(resource.path)
        }
    }

    /// Removes originals no resource refers to any more, and the derivatives of deleted assets.
    private func removeFiles(of result: AppliedChanges) {
        if !result.unreferencedOriginals.isEmpty { removePendingOriginals() }
        for localIdentifier in result.deletedAssets { derivatives.removeAll(localIdentifier: localIdentifier) }
    }
}

extension PhotoLibrary {
    /// Removes the originals that committed transactions let go (listed in `pendingRemoval`
    /// by the transaction that let them go): each one still unreferenced is unlinked inside a
    /// write transaction, so that no row can come to refer to it meanwhile, and the list is
    /// emptied by the same commit. A crash before that leaves the list for the next open:
    /// never an asset without its original, nor an original no row knows of.
    func removePendingOriginals() {
        try? store.write { store in
            for path in try store.pendingRemovals() {
                FaultInjection.pause(at: .removingOriginals)
                if try store.resourceCount(storedPath: path) == 0 { originals.remove(path) }
            }
            try store.clearPendingRemovals()
        }
    }

    /// Discards originals whose transaction never committed: each one that no row refers to
    /// is removed inside a write transaction, so that no import can come to refer to it
    /// meanwhile (an import that reused it then fails cleanly:
    /// ``PreparedAsset/checkStored(in:)``). Their stagings go with them.
    func removeUnreferenced(_ staged: [StagedOriginal]) {
        try? store.write { store in
            for original in staged {
                originals.discard(original, removingOriginal: try !store.isReferenced(storedPath: original.key))
            }
        }
    }
}
