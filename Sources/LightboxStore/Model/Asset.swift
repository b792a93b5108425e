import Foundation

/// A photo or video in the library: an immutable snapshot (PhotoKit's `PHAsset`).
///
/// Re-fetch an asset after a change to see its new state; its ``localIdentifier`` stays the
/// same for the life of the library.
public struct Asset: Sendable, Hashable, Identifiable {
    /// Stable identifier, unique in the library.
    public var localIdentifier: String
    /// Photo, video, ...
    public var mediaType: AssetMediaType
    /// Panorama, HDR, Live Photo, ...
    public var mediaSubtypes: AssetMediaSubtypes
    /// Width as displayed, EXIF orientation applied.
    public var pixelWidth: Int
    /// Height as displayed, EXIF orientation applied.
    public var pixelHeight: Int
    /// When the photo or video was taken, from its metadata (``AssetMetadata`` gives the order
    /// of sources), else the file's modification time.
    public var creationDate: Date
    /// The UTC offset, in seconds, of the place and time the photo was taken: from the file
    /// when it says, else the offset of the importing machine's time zone at that date.
    public var creationTimeZoneOffset: Int
    /// When the asset last changed in the library.
    public var modificationDate: Date
    /// When the asset was added to the library.
    public var addedDate: Date
    /// Where the asset was taken, when the file says.
    public var location: Location?
    /// Length of a video in seconds; 0 for photos.
    public var duration: Double
    /// Marked as a favourite.
    public var isFavorite: Bool
    /// Hidden from the library's normal views.
    public var isHidden: Bool
    /// How the asset plays back.
    public var playbackStyle: AssetPlaybackStyle
    /// Where the asset came from.
    public var sourceType: AssetSourceType
    /// The burst this photo belongs to, if any: shared by every frame of one burst.
    public var burstIdentifier: String?
    /// Whether the library or the user picked this frame of its burst.
    public var burstSelectionTypes: AssetBurstSelectionType
    /// True for the one frame that stands for its burst in fetches that leave bursts folded.
    public var representsBurst: Bool
    /// True when the asset has an edit (adjustment data and a rendered result).
    public var hasAdjustments: Bool
    /// The format identifier of the asset's current adjustment data, when edited.
    public var adjustmentFormatIdentifier: String?
    /// The files behind the asset.
    public var resources: [AssetResource]
    /// Stars, 1 to 5, or -1 for a rejected photo, as XMP (`xmp:Rating`), Lightroom and
    /// digiKam write them; nil when unrated. Read from the file's XMP or its sidecar on
    /// import, set with ``AssetChangeRequest/rating``. Lightbox's, not PhotoKit's.
    public var rating: Int?
    /// When the asset was deleted: it is in Recently Deleted, out of every fetch but that
    /// album's, until it is restored or purged. Nil for an asset in the library.
    /// Lightbox's, as Apple's Photos app shows it; PhotoKit does not expose it.
    public var trashedDate: Date?
    /// The camera's maker and model, and the lens, as the original's metadata names them
    /// (EXIF Make, Model and LensModel; a movie's QuickTime make and model); nil where it
    /// does not. Lightbox's: PhotoKit leaves them in the image's properties.
    public var cameraMake: String?
    public var cameraModel: String?
    public var lensModel: String?

    /// The local identifier, for `Identifiable`.
    public var id: String { localIdentifier }

    /// The file an image of the asset is rendered from: its photo (a Live Photo's still, a
    /// RAW + JPEG pair's JPEG), else its movie, whose first frame shows it.
    package var imageResource: AssetResource? { resource(ofType: .photo) ?? resource(ofType: .video) }

    /// The file the asset's current image is rendered from: its rendered edit when it has one
    /// (an edited movie's first frame shows it), else ``imageResource``.
    package var currentImageResource: AssetResource? {
        resource(ofType: .fullSizePhoto) ?? resource(ofType: .fullSizeVideo) ?? imageResource
    }

    /// The movie of the asset as it is now: a Live Photo's edited movie when an edit made one,
    /// else its movie; a video's file. Lightbox's, not PhotoKit's.
    public var currentMovieResource: AssetResource? {
        resource(ofType: .fullSizePairedVideo) ?? resource(ofType: .pairedVideo) ?? resource(ofType: .fullSizeVideo)
            ?? resource(ofType: .video)
    }

    /// The movie of the asset as imported: a Live Photo's movie, a video's file.
    public var originalMovieResource: AssetResource? { resource(ofType: .pairedVideo) ?? resource(ofType: .video) }

    /// The orientation the current image is shown in instead of its file's own: the sidecar's
    /// correction for the original; none for a rendered edit, which is upright.
    package var currentOrientationOverride: Int? {
        resource(ofType: .fullSizePhoto) == nil && resource(ofType: .fullSizeVideo) == nil ? orientationOverride : nil
    }

    /// The orientation an XMP sidecar corrected the photo to, which its thumbnails are
    /// rendered in; nil: the file's own. Lightbox's, not PhotoKit's: internal.
    package var orientationOverride: Int?

    /// The original photo file's own EXIF orientation, as the catalog keeps it; nil for a
    /// movie, or for a library's asset whose original has not been read since it was upgraded.
    package var fileOrientation: Int?

    /// A snapshot with every field given; the library makes these, tests and tools may too.
    public init(
        localIdentifier: String, mediaType: AssetMediaType, mediaSubtypes: AssetMediaSubtypes = [],
        pixelWidth: Int, pixelHeight: Int, creationDate: Date, creationTimeZoneOffset: Int,
        modificationDate: Date, addedDate: Date, location: Location? = nil, duration: Double = 0,
        isFavorite: Bool = false, isHidden: Bool = false, playbackStyle: AssetPlaybackStyle,
        sourceType: AssetSourceType = .typeUserLibrary, burstIdentifier: String? = nil,
        burstSelectionTypes: AssetBurstSelectionType = [], representsBurst: Bool = false,
        hasAdjustments: Bool = false, adjustmentFormatIdentifier: String? = nil, resources: [AssetResource]
    ) {
        self.localIdentifier = localIdentifier
        self.mediaType = mediaType
        self.mediaSubtypes = mediaSubtypes
        self.pixelWidth = pixelWidth
        self.pixelHeight = pixelHeight
        self.creationDate = creationDate
        self.creationTimeZoneOffset = creationTimeZoneOffset
        self.modificationDate = modificationDate
        self.addedDate = addedDate
        self.location = location
        self.duration = duration
        self.isFavorite = isFavorite
        self.isHidden = isHidden
        self.playbackStyle = playbackStyle
        self.sourceType = sourceType
        self.burstIdentifier = burstIdentifier
        self.burstSelectionTypes = burstSelectionTypes
        self.representsBurst = representsBurst
        self.hasAdjustments = hasAdjustments
        self.adjustmentFormatIdentifier = adjustmentFormatIdentifier
        self.resources = resources
    }

    /// The resource of the given type, if the asset has one.
    public func resource(ofType type: AssetResourceType) -> AssetResource? {
        resources.first { $0.type == type }
    }
}

extension Asset {
    /// The orientation of one version's bytes, as ``orientation`` is of the current one's.
    public func orientation(for version: AssetVersion) -> Int {
        if version == .current, resource(ofType: .fullSizePhoto) != nil || resource(ofType: .fullSizeVideo) != nil {
            return 1
        }
        guard mediaType == .image else { return 1 }
        if version != .original, let orientationOverride { return orientationOverride }
        return fileOrientation ?? 1
    }

    /// The EXIF orientation (1...8) to show the current image's bytes in: what
    /// ``ImageManager/requestImageDataAndOrientation(for:options:)`` gives for the current
    /// version. 1 for an edit's render (upright) and for a movie; else a sidecar's correction,
    /// else the original file's own. Lightbox's: PhotoKit has it only from that request.
    public var orientation: Int { orientation(for: .current) }
}
