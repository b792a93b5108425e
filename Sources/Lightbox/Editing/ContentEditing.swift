import Foundation
import LightboxImaging
import LightboxStore

/// The recipe of an edit (PhotoKit's `PHAdjustmentData`): who can read it, in which version,
/// and its bytes. It holds what is needed to redo the edit, never pixels.
public struct AdjustmentData: Sendable, Hashable {
    /// The largest `data` the library stores.
    public static let maximumDataSize = 1 << 20

    /// A reverse-DNS identifier of the format: ``EditRecipe/formatIdentifier`` for Lightbox's own.
    public var formatIdentifier: String
    /// The format's version, e.g. "1.0".
    public var formatVersion: String
    /// The recipe, in the format's own encoding.
    public var data: Data

    public init(formatIdentifier: String, formatVersion: String, data: Data) {
        self.formatIdentifier = formatIdentifier
        self.formatVersion = formatVersion
        self.data = data
    }

    /// Lightbox's recipe as adjustment data.
    public init(recipe: EditRecipe) {
        self.init(
            formatIdentifier: EditRecipe.formatIdentifier, formatVersion: EditRecipe.formatVersion,
            data: Data(recipe.encoded()))
    }

    /// The recipe it holds when it is Lightbox's own, in a version this Lightbox reads.
    public var recipe: EditRecipe? {
        guard EditRecipe.canHandle(formatIdentifier: formatIdentifier, formatVersion: formatVersion) else { return nil }
        return try? EditRecipe(decoding: [UInt8](data))
    }

    /// Checks the fields before the library stores them.
    func validate(assetIdentifier: String) throws {
        guard !formatIdentifier.isEmpty, formatIdentifier.utf8.count <= 256, !formatVersion.isEmpty,
            formatVersion.utf8.count <= 64
        else {
            throw LibraryError.refusedChange(
                "the edit of asset \(assetIdentifier) needs adjustment data with a format identifier and a version")
        }
        guard data.count <= Self.maximumDataSize else {
            throw LibraryError.refusedChange(
                "the adjustment data of asset \(assetIdentifier) is \(data.count) bytes; at most \(Self.maximumDataSize) are stored"
            )
        }
    }

    /// The stored form: a small JSON file, the `.adjustmentData` resource.
    func encoded() -> [UInt8] {
        let object: [String: String] = [
            "formatIdentifier": formatIdentifier, "formatVersion": formatVersion, "data": data.base64EncodedString(),
        ]
        return [UInt8]((try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data())
    }

    init(stored bytes: [UInt8], path: String) throws {
        guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: String],
            let identifier = object["formatIdentifier"], let version = object["formatVersion"],
            let base64 = object["data"], let data = Data(base64Encoded: base64)
        else {
            throw LibraryError(.corruptFile, "the stored adjustment data is not readable", path: path)
        }
        self.init(formatIdentifier: identifier, formatVersion: version, data: data)
    }
}

/// How ``PhotoLibrary/requestContentEditingInput(for:options:)`` prepares an input
/// (PhotoKit's `PHContentEditingInputRequestOptions`).
public struct ContentEditingInputRequestOptions: Sendable {
    /// Asked with the asset's current adjustment data: true when the editor can continue it
    /// (it then gets the unedited image and the recipe), false to edit the rendered image.
    public var canHandleAdjustmentData: @Sendable (AdjustmentData) -> Bool
    /// The long side of ``ContentEditingInput/displaySizeImage``, in pixels.
    public var displaySizeImageMaximumSide: Int

    /// By default, an editor that handles Lightbox's own recipes, and a 2048 px display image.
    public init(
        canHandleAdjustmentData: @escaping @Sendable (AdjustmentData) -> Bool = {
            EditRecipe.canHandle(formatIdentifier: $0.formatIdentifier, formatVersion: $0.formatVersion)
        },
        displaySizeImageMaximumSide: Int = 2048
    ) {
        self.canHandleAdjustmentData = canHandleAdjustmentData
        self.displaySizeImageMaximumSide = displaySizeImageMaximumSide
    }
}

/// What an editor starts from (PhotoKit's `PHContentEditingInput`).
///
/// When the editor handles the asset's adjustment data, the input is the unedited image or
/// movie (the original, or the adjustment base an earlier chained edit left) with that data;
/// otherwise it is the current render, with no adjustment data, and the new edit chains on it.
public struct ContentEditingInput: Sendable {
    public var mediaType: AssetMediaType
    public var mediaSubtypes: AssetMediaSubtypes
    public var creationDate: Date
    public var location: Location?
    public var playbackStyle: AssetPlaybackStyle
    /// The Uniform Type Identifier of ``fullSizeImageURL``'s file (a movie's: ``audiovisualAssetURL``'s).
    public var uniformTypeIdentifier: String
    /// The adjustment data to continue, when the editor said it can; nil otherwise.
    public var adjustmentData: AdjustmentData?
    /// A small upright image to edit interactively, in memory (a movie's first frame).
    public var displaySizeImage: EditableImage
    /// The full-size image to render the final edit from. Read it, never write it. Nil for a movie.
    public var fullSizeImageURL: URL?
    /// The EXIF orientation to show ``fullSizeImageURL`` in (1 for a rendered edit).
    public var fullSizeImageOrientation: Int
    /// A Live Photo's movie, read-only.
    public var livePhotoMovieURL: URL?
    /// A movie's file to edit (PhotoKit's `audiovisualAsset`), read-only; nil for a photo.
    public var audiovisualAssetURL: URL?

    /// The asset the input belongs to.
    public let assetLocalIdentifier: String
    /// What the image is: the unedited one, or the current render an edit chains on.
    let base: EditBase
    /// The asset's render when the input was made: an output lands only on that state.
    let renderSHA256: String?
}

/// What an editor produces (PhotoKit's `PHContentEditingOutput`): new adjustment data and
/// the full-size render written to ``renderedContentURL`` (a movie for a movie). It lands
/// through ``AssetChangeRequest/contentEditingOutput``.
public struct ContentEditingOutput: Sendable {
    /// The recipe of the new edit; an output without one is refused.
    public var adjustmentData: AdjustmentData?
    /// Where the editor writes the full-size render: for a photo a JPEG (`render.jpg`), upright
    /// (orientation applied), keeping the original's metadata; for a movie a QuickTime or MPEG-4
    /// movie (`render.mov`) with its sound and metadata. The file is copied into the library
    /// when the edit lands.
    public let renderedContentURL: URL
    /// Where a Live Photo's edited movie goes (``LivePhotoEditingContext/saveLivePhoto(to:)``
    /// writes it). Without a file there, the edit changes the still and leaves the movie as it is.
    public let renderedLivePhotoMovieURL: URL
    /// The input this output answers.
    public let input: ContentEditingInput

    /// An output for `input`, with a fresh file URL in a temporary folder for the render.
    public init(contentEditingInput input: ContentEditingInput) {
        self.input = input
        let folder = ProcessFolder.makeTemporaryFolder("edit")
        renderedContentURL = folder.appendingPathComponent(input.mediaType == .video ? "render.mov" : "render.jpg")
        renderedLivePhotoMovieURL = folder.appendingPathComponent("render.mov")
        adjustmentData = nil
    }

    /// Removes the temporary render and its folder (once the edit landed, or was abandoned).
    public func discard() {
        try? FileManager.default.removeItem(at: renderedContentURL.deletingLastPathComponent())
    }
}

/// An editor's lifecycle (PhotoKit's `PHContentEditingController`): asked whether it can
/// continue adjustment data, started with an input, then finished (an output) or cancelled.
/// ``PhotoLibrary/edit(_:with:)`` drives one through to a committed edit.
public protocol ContentEditingController: AnyObject, Sendable {
    /// Whether the editor can continue this recipe (then it gets the unedited image).
    func canHandle(_ adjustmentData: AdjustmentData) -> Bool
    /// Starts editing `input`; `placeholderImage` is an image to show until the editor has its own.
    func startContentEditing(with input: ContentEditingInput, placeholderImage: EncodedImage?) async throws
    /// Renders the edit at full size and returns the output to commit.
    func finishContentEditing() async throws -> ContentEditingOutput
    /// Abandons the edit; nothing is changed.
    func cancelContentEditing()
    /// Whether cancelling would lose work the user should be asked about.
    var shouldShowCancelConfirmation: Bool { get }
}
