import Foundation
import LightboxImaging
import LightboxMetadata
import LightboxStore

extension PhotoLibrary {
    /// The input an editor starts from (PhotoKit's `requestContentEditingInput`). When the
    /// asset has an edit and `options.canHandleAdjustmentData` accepts its adjustment data, the
    /// input is the unedited image with that data; when it refuses, the input is the current
    /// render, on which the new edit chains (the render is then kept as the adjustment base).
    public func requestContentEditingInput(
        for asset: Asset, options: ContentEditingInputRequestOptions = ContentEditingInputRequestOptions()
    ) async throws -> ContentEditingInput {
        guard let current = try await self.asset(withLocalIdentifier: asset.localIdentifier) else {
            throw LibraryError(.assetNotFound, "no asset has the identifier \(asset.localIdentifier)")
        }
        if current.mediaType == .video {
            return try await movieEditingInput(for: current, options: options)
        }
        guard current.mediaType == .image, let photo = current.resource(ofType: .photo) else {
            throw LibraryError(
                .invalidRequest, "asset \(current.localIdentifier) has no photo or movie to edit")
        }
        let render = current.resource(ofType: .fullSizePhoto)
        let (chosen, base, adjustmentData) = try await editingBase(
            of: current, original: photo, render: render, adjustmentBase: .adjustmentBasePhoto, options: options)
        let image = chosen
        let orientation: Int? = base == .original ? current.orientationOverride : 1
        let url = try await fileURL(for: image)
        // The movie that goes with the image: the original's, an adjustment base's, or the
        // current edit's.
        let movieTypes: [AssetResourceType] =
            switch base {
            case .original: [.pairedVideo]
            case .adjustmentBase: [.adjustmentBasePairedVideo, .pairedVideo]
            case .render: [.fullSizePairedVideo, .pairedVideo]
            }
        var movie: URL?
        if let paired = movieTypes.lazy.compactMap({ current.resource(ofType: $0) }).first {
            movie = try await fileURL(for: paired)
        }
        let side = max(16, options.displaySizeImageMaximumSide)
        let override = orientation
        let (display, fileOrientation): (EditableImage, Int) = try await EditingWork.run {
            do throws(ImagingError) {
                let display = try EditableImage(fileAt: url.path, maximumSide: side, orientation: override)
                let own =
                    override ?? (try? MetadataReader.read(fileAtPath: url.path)).flatMap(AssetMetadata.fileOrientation)
                    ?? 1
                return (display, own)
            } catch {
                throw LibraryError(.corruptFile, "cannot decode the photo to edit: \(error.message)", path: url.path)
            }
        }
        return ContentEditingInput(
            mediaType: current.mediaType, mediaSubtypes: current.mediaSubtypes, creationDate: current.creationDate,
            location: current.location, playbackStyle: current.playbackStyle,
            uniformTypeIdentifier: image.uniformTypeIdentifier, adjustmentData: adjustmentData,
            displaySizeImage: display,
            fullSizeImageURL: url, fullSizeImageOrientation: fileOrientation, livePhotoMovieURL: movie,
            audiovisualAssetURL: nil, assetLocalIdentifier: current.localIdentifier, base: base,
            renderSHA256: render?.sha256)
    }

    /// A movie's input: its file (the original, an adjustment base or the current render, as
    /// for a photo), and its first frame as the display-size image.
    private func movieEditingInput(for current: Asset, options: ContentEditingInputRequestOptions) async throws
        -> ContentEditingInput
    {
        guard let original = current.resource(ofType: .video) else {
            throw LibraryError(.invalidRequest, "asset \(current.localIdentifier) has no movie to edit")
        }
        let render = current.resource(ofType: .fullSizeVideo)
        let (movie, base, adjustmentData) = try await editingBase(
            of: current, original: original, render: render, adjustmentBase: .adjustmentBaseVideo, options: options)
        let url = try await fileURL(for: movie)
        let side = max(16, options.displaySizeImageMaximumSide)
        let display: EditableImage = try await EditingWork.run {
            do throws(ImagingError) {
                return try EditableImage(fileAt: url.path, maximumSide: side)
            } catch {
                throw LibraryError(
                    .corruptFile, "cannot decode the movie to edit: \(error.message)", path: url.path)
            }
        }
        return ContentEditingInput(
            mediaType: .video, mediaSubtypes: current.mediaSubtypes, creationDate: current.creationDate,
            location: current.location, playbackStyle: current.playbackStyle,
            uniformTypeIdentifier: movie.uniformTypeIdentifier, adjustmentData: adjustmentData,
            displaySizeImage: display, fullSizeImageURL: nil, fullSizeImageOrientation: 1, livePhotoMovieURL: nil,
            audiovisualAssetURL: url, assetLocalIdentifier: current.localIdentifier, base: base,
            renderSHA256: render?.sha256)
    }

    /// What an edit starts from: with adjustment data the editor handles, the unedited file
    /// (the adjustment base an earlier chained edit kept, else the original) and that data;
    /// otherwise the current render, which the new edit chains on (or the original when there
    /// is none), and no data.
    private func editingBase(
        of asset: Asset, original: AssetResource, render: AssetResource?, adjustmentBase: AssetResourceType,
        options: ContentEditingInputRequestOptions
    ) async throws -> (AssetResource, EditBase, AdjustmentData?) {
        let adjustmentData = try await self.adjustmentData(for: asset)
        if let data = adjustmentData, options.canHandleAdjustmentData(data) {
            if let kept = asset.resource(ofType: adjustmentBase) { return (kept, .adjustmentBase, data) }
            return (original, .original, data)
        }
        if let render { return (render, .render, nil) }
        return (original, .original, nil)
    }

    /// The adjustment data of an asset's current edit; nil when it is not edited.
    public func adjustmentData(for asset: Asset) async throws -> AdjustmentData? {
        guard asset.hasAdjustments, let stored = asset.resource(ofType: .adjustmentData) else { return nil }
        let path = try await fileURL(for: stored).path
        return try await EditingWork.run {
            try AdjustmentData(
                stored: try FileIO.contents(ofFileAt: path, limit: 4 * AdjustmentData.maximumDataSize) ?? [], path: path
            )
        }
    }

    /// Edits an asset with an editor from start to commit: the input it asks for, its output,
    /// and one change block landing it. Returns the edited asset. The editor starts with a
    /// placeholder image to show while it loads (the asset as it looks now, from its stored
    /// preview: PhotoKit's host does the same). When anything fails, or the task is cancelled
    /// (a host asks ``ContentEditingController/shouldShowCancelConfirmation`` first), the
    /// editor is cancelled and the asset is unchanged.
    @discardableResult
    public func edit(
        _ asset: Asset, with editor: some ContentEditingController, displaySizeImageMaximumSide: Int = 2048
    ) async throws -> Asset {
        let options = ContentEditingInputRequestOptions(
            canHandleAdjustmentData: { [editor] in editor.canHandle($0) },
            displaySizeImageMaximumSide: displaySizeImageMaximumSide)
        let input = try await requestContentEditingInput(for: asset, options: options)
        let placeholder = await placeholderImage(for: asset)
        let output: ContentEditingOutput
        do {
            output = try await withTaskCancellationHandler {
                try await editor.startContentEditing(with: input, placeholderImage: placeholder)
                try Task.checkCancellation()
                return try await editor.finishContentEditing()
            } onCancel: {
                editor.cancelContentEditing()
            }
            if Task.isCancelled {
                output.discard()
                throw LibraryError(.cancelled, "the edit was cancelled")
            }
        } catch is CancellationError {
            editor.cancelContentEditing()
            throw LibraryError(.cancelled, "the edit was cancelled")
        } catch {
            editor.cancelContentEditing()
            throw error
        }
        defer { output.discard() }
        try await performChanges { changes in
            changes.changeRequest(forAssetWithLocalIdentifier: asset.localIdentifier).contentEditingOutput = output
        }
        guard let edited = try await self.asset(withLocalIdentifier: asset.localIdentifier) else {
            throw LibraryError(.assetNotFound, "asset \(asset.localIdentifier) was deleted while it was edited")
        }
        return edited
    }

    /// The image an editor shows while it loads: the asset's current look at preview size,
    /// from its stored thumbnails when they serve (milliseconds), else rendered fast; nil when
    /// none can be made (the editor then shows its own).
    func placeholderImage(for asset: Asset) async -> EncodedImage? {
        var options = ImageRequestOptions()
        options.deliveryMode = .fastFormat
        let results = await ImageManager(library: self).requestImage(
            for: asset, targetSize: PixelSize(width: 1024, height: 1024), options: options
        ).results()
        return results.last?.image
    }

    // MARK: - Preparing edits before the transaction

    /// Stores each edit's render and adjustment data durably and renders their thumbnails;
    /// measures each revert's unedited size. Throws, changing nothing, on an output without
    /// adjustment data or with a render that is not an upright JPEG.
    func prepareContentEdits(_ operations: [ChangeOperation], outputs: [String: ContentEditingOutput]) throws -> (
        edits: [String: PreparedEdit], reverts: [String: PreparedRevert], thumbnails: [String: PendingThumbnails]
    ) {
        var edits: [String: PreparedEdit] = [:]
        var reverts: [String: PreparedRevert] = [:]
        var thumbnails: [String: PendingThumbnails] = [:]
        for operation in operations {
            guard case .editAsset(let id, let edit) = operation else { continue }
            switch edit {
            case .content:
                guard edits[id] == nil, let output = outputs[id] else { continue }
                let (prepared, images) = try prepareEdit(output, assetIdentifier: id)
                edits[id] = prepared
                thumbnails[id] = PendingThumbnails(contentHash: prepared.render.sha256, images: images)
            case .revert:
                if let size = try uneditedSize(id) { reverts[id] = size }
            default:
                continue
            }
        }
        return (edits, reverts, thumbnails)
    }

    /// An edit's render and adjustment data stored, with the render's thumbnails.
    private func prepareEdit(_ output: ContentEditingOutput, assetIdentifier id: String) throws -> (
        PreparedEdit, [(RenderOptions, EncodedImage)]
    ) {
        guard output.input.assetLocalIdentifier == id else {
            throw LibraryError.refusedChange(
                "the editing output belongs to asset \(output.input.assetLocalIdentifier), not \(id); nothing was changed"
            )
        }
        guard let adjustment = output.adjustmentData else {
            throw LibraryError.refusedChange("the edit of asset \(id) has no adjustment data; nothing was changed")
        }
        try adjustment.validate(assetIdentifier: id)
        if output.input.mediaType == .video {
            return try prepareMovieEdit(output, adjustment: adjustment, assetIdentifier: id)
        }
        let path = output.renderedContentURL.path
        guard FileIO.fileExists(path) else {
            throw LibraryError.refusedChange(
                "the edit of asset \(id) has no rendered image at its renderedContentURL; nothing was changed")
        }
        // Read once, as an import reads a photo: sniffed, hashed, parsed, decoded (which proves
        // it whole and gives its thumbnails) and stored from the same bytes, once the movie, if
        // any, is accepted too.
        let inspected = try inspect(
            try ingestSource(at: path, as: .render, reportedPath: path), as: .render, reportedPath: path)
        let movie = try prepareEditedMovie(output, assetIdentifier: id)
        let render = try store(inspected)
        let edit = PreparedEdit(
            render: .init(
                storedPath: render.storedPath, sha256: render.source.sha256, size: render.source.size,
                pixelWidth: render.properties?.storedWidth ?? 0, pixelHeight: render.properties?.storedHeight ?? 0,
                originalFilename: "FullSizeRender.jpg", uniformTypeIdentifier: "public.jpeg"),
            movie: movie, adjustment: try storeAdjustment(adjustment, assetIdentifier: id),
            formatIdentifier: adjustment.formatIdentifier, base: output.input.base,
            expectedRenderSHA256: output.input.renderSHA256)
        return (edit, render.thumbnails)
    }

    /// The adjustment data stored as the `.adjustmentData` resource's file, named after the original.
    private func storeAdjustment(_ adjustment: AdjustmentData, assetIdentifier id: String) throws
        -> StoredFile
    {
        let bytes = adjustment.encoded()
        let hash = FileIO.sha256(of: bytes)
        let stored = try originals.store(bytes: bytes, sha256: hash, filenameExtension: "json")
        let original = (try? asset(withLocalIdentifier: id))??.imageResource?.originalFilename ?? "IMG_\(id.prefix(8))"
        return .init(
            storedPath: stored, sha256: hash, size: Int64(bytes.count),
            originalFilename: PathString.deletingPathExtension(original) + ".AAE.json",
            uniformTypeIdentifier: "public.json")
    }

    /// A movie's edit: the rendered movie read as an import reads one (sniffed, its headers
    /// parsed), its first frame decoded (which proves it plays and gives its thumbnails: the
    /// poster follows the edit), then stored.
    private func prepareMovieEdit(
        _ output: ContentEditingOutput, adjustment: AdjustmentData, assetIdentifier id: String
    ) throws -> (PreparedEdit, [(RenderOptions, EncodedImage)]) {
        let path = output.renderedContentURL.path
        guard FileIO.fileExists(path) else {
            throw LibraryError.refusedChange(
                "the edit of asset \(id) has no rendered movie at its renderedContentURL; nothing was changed")
        }
        let role = IngestRole.movie("the edited movie")
        let inspected = try inspect(
            try ingestSource(at: path, as: role, reportedPath: path), as: role, reportedPath: path)
        let thumbnails: [EncodedImage]
        do {
            thumbnails = try ImageFile.thumbnails(ofFileAt: path, options: [.preview, .grid]).images
        } catch {
            throw LibraryError(
                .corruptFile, "the edited movie's first frame cannot be decoded: \(error.message); nothing was changed",
                path: path)
        }
        let movie = try store(inspected)
        let format = movie.source.format
        let edit = PreparedEdit(
            render: .init(
                storedPath: movie.storedPath, sha256: movie.source.sha256, size: movie.source.size,
                pixelWidth: movie.media.pixelWidth ?? 0, pixelHeight: movie.media.pixelHeight ?? 0,
                originalFilename: "FullSizeRender." + format.preferredFilenameExtension,
                uniformTypeIdentifier: format.uniformTypeIdentifier),
            movie: nil, adjustment: try storeAdjustment(adjustment, assetIdentifier: id),
            movieDuration: movie.media.quickTime?.duration ?? 0,
            formatIdentifier: adjustment.formatIdentifier, base: output.input.base,
            expectedRenderSHA256: output.input.renderSHA256)
        return (edit, Array(zip([RenderOptions.preview, .grid], thumbnails)))
    }

    /// A Live Photo's edited movie, checked and stored; nil when the output has none.
    private func prepareEditedMovie(_ output: ContentEditingOutput, assetIdentifier id: String) throws -> StoredFile? {
        let path = output.renderedLivePhotoMovieURL.path
        guard FileIO.fileExists(path) else { return nil }
        guard output.input.livePhotoMovieURL != nil else {
            throw LibraryError.refusedChange(
                "asset \(id) is not a Live Photo, and its edit has a movie; nothing was changed")
        }
        let role = IngestRole.movie("the edited Live Photo movie")
        let movie = try ingest(try ingestSource(at: path, as: role, reportedPath: path), as: role, reportedPath: path)
        return .init(
            storedPath: movie.storedPath, sha256: movie.source.sha256, size: movie.source.size,
            pixelWidth: movie.media.pixelWidth ?? 0, pixelHeight: movie.media.pixelHeight ?? 0,
            originalFilename: "FullSizeRender." + movie.source.format.preferredFilenameExtension,
            uniformTypeIdentifier: movie.source.format.uniformTypeIdentifier)
    }

    /// The displayed size of an asset's unedited photo or movie, and a movie's duration; nil
    /// when the asset is not edited.
    private func uneditedSize(_ id: String) throws -> PreparedRevert? {
        guard let asset = try asset(withLocalIdentifier: id), asset.hasAdjustments,
            let photo = asset.imageResource
        else { return nil }
        let path = try fileURL(for: photo).path
        let metadata: MediaMetadata
        do {
            metadata = try MetadataReader.read(fileAtPath: path)
        } catch {
            throw LibraryError(.corruptFile, "cannot read the original to revert to: \(error.message)", path: path)
        }
        var mapped = AssetMetadata(metadata, fileModificationDate: Date())
        if let override = asset.orientationOverride, metadata.heifRotation == nil, metadata.quickTime == nil,
            (5...8).contains(override) != (5...8).contains(mapped.orientation)
        {
            swap(&mapped.pixelWidth, &mapped.pixelHeight)
        }
        return PreparedRevert(
            pixelWidth: mapped.pixelWidth ?? photo.pixelWidth, pixelHeight: mapped.pixelHeight ?? photo.pixelHeight,
            duration: asset.mediaType == .video ? mapped.duration : nil)
    }
}
