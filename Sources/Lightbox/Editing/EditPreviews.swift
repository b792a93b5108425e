import Foundation
import LightboxImaging
import LightboxStore
import Synchronization

/// Previews of Lightbox recipes on assets, for an edit view whose sliders redraw as they
/// move: each asset's display-size image is decoded once and kept (the few most recent), and a
/// recipe renders from it in milliseconds, off the caller's thread.
///
/// The image a preview starts from is the one an edit starts from: the unedited image when the
/// asset's edit is Lightbox's (the recipe replaces it), else its current render.
public final class EditPreviews: Sendable {
    public let library: PhotoLibrary
    /// How many assets' display images are kept.
    public let capacity: Int
    /// The long side of the display images.
    public let maximumSide: Int
    private let images = Mutex<[(key: String, image: EditableImage)]>([])

    public init(library: PhotoLibrary, capacity: Int = 4, maximumSide: Int = 2048) {
        self.library = library
        self.capacity = max(1, capacity)
        self.maximumSide = maximumSide
    }

    /// The display-size image of `asset` with `recipe` applied (a quick, interactive render);
    /// with `maximumSide` smaller than the display image, a smaller one that fits a view, made
    /// from a copy of the display image at that size (kept with it).
    public func preview(
        of asset: Asset, recipe: EditRecipe, maximumSide: Int? = nil, quality: Int = 85
    ) async throws -> EncodedImage {
        let image = try await displayImage(of: asset, maximumSide: maximumSide)
        return try await EditingWork.run {
            do throws(ImagingError) {
                return try image.render(recipe, quality: quality)
            } catch {
                throw LibraryError(.corruptFile, "cannot render the preview: \(error.message)", underlying: error)
            }
        }
    }

    /// The display image an edit of `asset` starts from, decoded once while it stays recent;
    /// with `side`, a copy of it no larger than that.
    public func displayImage(of asset: Asset, maximumSide side: Int? = nil) async throws -> EditableImage {
        // The asset's files name the image: an edit or a revert gives a new key.
        let files = asset.resources.map { "\($0.type.rawValue):\($0.sha256.prefix(16))" }.sorted().joined(
            separator: ",")
        let key = asset.localIdentifier + "|" + files
        let sized = side.map { key + "|" + String($0) }
        if let found = images.withLock({ cached in cached.first { $0.key == (sized ?? key) }?.image }) { return found }
        var display = images.withLock { cached in cached.first { $0.key == key }?.image }
        if display == nil {
            let input = try await library.requestContentEditingInput(
                for: asset, options: ContentEditingInputRequestOptions(displaySizeImageMaximumSide: maximumSide))
            display = input.displaySizeImage
            remember(key, input.displaySizeImage, asset: asset)
        }
        guard let display, let side, let sized else { return display! }
        let smaller = try await EditingWork.run {
            do throws(ImagingError) {
                return try display.resized(maximumSide: side)
            } catch {
                throw LibraryError(.corruptFile, "cannot resize the display image: \(error.message)", underlying: error)
            }
        }
        remember(sized, smaller, asset: asset)
        return smaller
    }

    /// Keeps an image, dropping those of the asset's earlier states and the least recent.
    private func remember(_ key: String, _ image: EditableImage, asset: Asset) {
        let state = key.split(separator: "|").prefix(2).joined(separator: "|")
        images.withLock { cached in
            cached.removeAll {
                $0.key == key || !$0.key.hasPrefix(state) && $0.key.hasPrefix(asset.localIdentifier + "|")
            }
            cached.insert((key, image), at: 0)
            if cached.count > capacity * 2 { cached.removeLast(cached.count - capacity * 2) }
        }
    }
}
