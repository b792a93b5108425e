import Foundation
import LightboxImaging
import LightboxMetadata
import LightboxStore
import Synchronization

/// Lightbox's built-in editor: it continues Lightbox recipes (an earlier edit's filters come
/// back, and new ones follow them), previews on the display-size image, and renders the full
/// image with libvips; a Live Photo's movie gets the same recipe frame by frame.
///
/// ```swift
/// let editor = RecipeEditor(adding: [.exposure(0.5), .straighten(3)])
/// let edited = try await library.edit(asset, with: editor)
/// ```
public final class RecipeEditor: ContentEditingController {
    private struct State {
        var input: ContentEditingInput?
        /// The recipe the input carried, which the editor continues.
        var inherited: [EditFilter] = []
        /// The filters this editor adds.
        var added: [EditFilter]
        /// Whether the added filters replace a recipe the asset has rather than follow it.
        var replaces = false
        var cancelled = false
    }

    private let state: Mutex<State>
    /// JPEG quality of the full-size render.
    public let quality: Int

    /// An editor that appends `filters` to whatever Lightbox recipe the asset has.
    public init(adding filters: [EditFilter] = [], quality: Int = 92) {
        state = Mutex(State(added: filters))
        self.quality = quality
    }

    /// An editor whose recipe is `filters` alone, applied to the unedited image: it replaces a
    /// Lightbox recipe the asset has (an edit view saving its sliders). An edit by another
    /// editor is still chained on, as it cannot be redone.
    public init(replacingWith filters: [EditFilter], quality: Int = 92) {
        state = Mutex(State(added: filters, replaces: true))
        self.quality = quality
    }

    /// The full recipe: the inherited filters, then the added ones.
    public var recipe: EditRecipe {
        state.withLock { EditRecipe(filters: $0.inherited + $0.added) }
    }

    /// Replaces the filters this editor adds (what an edit view's sliders set).
    public func setFilters(_ filters: [EditFilter]) {
        state.withLock { $0.added = filters }
    }

    public func canHandle(_ adjustmentData: AdjustmentData) -> Bool {
        adjustmentData.recipe != nil
    }

    public func startContentEditing(with input: ContentEditingInput, placeholderImage: EncodedImage?) async throws {
        let inherited = input.adjustmentData?.recipe?.filters ?? []
        state.withLock {
            $0.input = input
            $0.inherited = $0.replaces ? [] : inherited
        }
    }

    /// The display-size image with the current recipe, for the edit view.
    public func preview(format: EncodedImageFormat = .jpeg, quality: Int = 85) throws -> EncodedImage {
        guard let input = state.withLock({ $0.input }) else {
            throw LibraryError(.invalidRequest, "the editor has not been started")
        }
        return try input.displaySizeImage.render(recipe, format: format, quality: quality)
    }

    public func finishContentEditing() async throws -> ContentEditingOutput {
        guard let input = state.withLock({ $0.input }) else {
            throw LibraryError(.invalidRequest, "the editor has not been started")
        }
        let recipe = self.recipe
        var output = ContentEditingOutput(contentEditingInput: input)
        let cancelled: @Sendable () -> Bool = { [self] in state.withLock { $0.cancelled } }
        if let movie = input.audiovisualAssetURL {
            try await Self.renderMovie(movie, recipe: recipe, to: output, cancelled: cancelled)
            output.adjustmentData = AdjustmentData(recipe: recipe)
            return output
        }
        guard let image = input.fullSizeImageURL else {
            throw LibraryError(.invalidRequest, "the editing input of \(input.assetLocalIdentifier) has no image")
        }
        if recipe.keptTime != nil {
            output.discard()
            throw LibraryError(
                .invalidRequest, "trim keeps part of a movie; asset \(input.assetLocalIdentifier) is a photo")
        }
        let path = image.path
        let destination = output.renderedContentURL.path
        let orientation = input.fullSizeImageOrientation
        let quality = self.quality
        do {
            _ = try await EditingWork.run {
                try ImageFile.renderEdit(
                    ofFileAt: path, recipe: recipe, toJPEGAt: destination, quality: quality, orientation: orientation,
                    monitor: RenderMonitor(isCancelled: cancelled))
            }
        } catch let error as ImagingError {
            output.discard()
            if error.code == .cancelled { throw LibraryError(.cancelled, "the edit was cancelled") }
            throw LibraryError(.corruptFile, "cannot render the edit: \(error.message)", path: path, underlying: error)
        }
        // A Live Photo's movie gets the same recipe, frame by frame, scaled to its frames.
        if input.livePhotoMovieURL != nil {
            let context = try LivePhotoEditingContext(livePhotoEditingInput: input)
            do {
                try await context.renderMovie(to: output.renderedLivePhotoMovieURL, options: MovieEditOptions()) {
                    frame in
                    if cancelled() { throw ImagingError(.cancelled, "the edit was cancelled") }
                    return try frame.image.applying(recipe)
                }
            } catch {
                output.discard()
                throw error
            }
        }
        output.adjustmentData = AdjustmentData(recipe: recipe)
        return output
    }

    /// A movie's render: every frame through the recipe (its lengths in the movie's own
    /// pixels), the part its trims keep, the sound and metadata kept.
    static func renderMovie(
        _ movie: URL, recipe: EditRecipe, to output: ContentEditingOutput, cancelled: @escaping @Sendable () -> Bool
    ) async throws {
        var options = MovieEditOptions()
        if let kept = recipe.keptTime {
            guard kept.end > kept.start else {
                output.discard()
                throw LibraryError(.invalidRequest, "the recipe's trims keep nothing of the movie")
            }
            (options.start, options.end) = (kept.start, kept.end)
        }
        let (destination, settings) = (output.renderedContentURL.path, options)
        do {
            try await EditingWork.run {
                let metadata = try? MetadataReader.read(fileAtPath: movie.path)
                let side = max(metadata?.pixelWidth ?? 0, metadata?.pixelHeight ?? 0)
                _ = try ImageFile.editMovie(
                    at: movie.path, to: destination, photoSide: side > 0 ? side : 1, options: settings
                ) { frame in
                    if cancelled() { throw ImagingError(.cancelled, "the edit was cancelled") }
                    return try frame.image.applying(recipe)
                }
            }
        } catch let error as ImagingError {
            output.discard()
            if error.code == .cancelled { throw LibraryError(.cancelled, "the edit was cancelled") }
            throw LibraryError(
                .corruptFile, "cannot edit the movie: \(error.message)", path: movie.path, underlying: error)
        }
    }

    public func cancelContentEditing() {
        state.withLock { $0.cancelled = true }
    }

    public var shouldShowCancelConfirmation: Bool {
        state.withLock { !$0.added.isEmpty && $0.input != nil }
    }
}
