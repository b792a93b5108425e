import Foundation

/// The kind of an asset collection (PhotoKit's `PHAssetCollectionType`). Raw values are the framework's.
public enum AssetCollectionType: Int, Sendable, Hashable, CaseIterable {
    /// Made by the user.
    case album = 1
    /// Kept by the library from a rule (favorites, videos, ...).
    case smartAlbum = 2
    /// A group of assets close in time and place.
    case moment = 3
    /// Someone whose face the library found: the assets their faces are in, in the "People"
    /// list (Lightbox's own; PhotoKit keeps people private).
    case person = 4
}

/// The finer kind of an asset collection (PhotoKit's `PHAssetCollectionSubtype`). Raw values are the framework's.
public enum AssetCollectionSubtype: Int, Sendable, Hashable, CaseIterable {
    case albumRegular = 2
    case albumImported = 6
    case smartAlbumGeneric = 200
    case smartAlbumPanoramas = 201
    case smartAlbumVideos = 202
    case smartAlbumFavorites = 203
    case smartAlbumTimelapses = 204
    case smartAlbumAllHidden = 205
    case smartAlbumRecentlyAdded = 206
    case smartAlbumBursts = 207
    case smartAlbumSlomoVideos = 208
    case smartAlbumUserLibrary = 209
    case smartAlbumSelfPortraits = 210
    case smartAlbumScreenshots = 211
    case smartAlbumDepthEffect = 212
    case smartAlbumLivePhotos = 213
    case smartAlbumAnimated = 214
    case smartAlbumLongExposures = 215
    case smartAlbumRAW = 217
    case smartAlbumScreenRecordings = 220
    /// Assets deleted and not yet purged, each with its deletion date: the album of Apple's
    /// Photos app (Apple's private value), not a public PhotoKit subtype.
    case smartAlbumRecentlyDeleted = 1_000_000_201
    /// A person (``AssetCollectionType/person``), named or not. Lightbox's own.
    case person = 1_000_000_400
    /// Any subtype, in fetches.
    case any = 9_223_372_036_854_775_807
}

/// A collection of assets (PhotoKit's `PHAssetCollection`): an immutable snapshot.
public struct AssetCollection: Sendable, Hashable, Identifiable, FetchableObject {
    /// Stable identifier, unique in the library.
    public var localIdentifier: String
    /// Album, smart album or moment.
    public var assetCollectionType: AssetCollectionType
    /// The finer kind.
    public var assetCollectionSubtype: AssetCollectionSubtype
    /// The title shown to people.
    public var localizedTitle: String?
    /// How many assets the collection holds (exact for albums).
    public var estimatedAssetCount: Int
    /// The creation date of its oldest asset.
    public var startDate: Date?
    /// The creation date of its newest asset.
    public var endDate: Date?
    /// A person's own details; nil for any other collection. Its name is ``localizedTitle``.
    public var person: PersonDetails?
    /// The names of the places its assets were taken in, the most photographed first (a
    /// moment's: PhotoKit's `localizedLocationNames`); empty for other collections, and before
    /// the places job named them.
    public var localizedLocationNames: [String] = []

    /// The assets of a collection made in memory (a transient collection, a moment), in
    /// order; nil for a stored one.
    package var memberIdentifiers: [String]?

    /// The local identifier, for `Identifiable`.
    public var id: String { localIdentifier }

    /// Whether the collection was made in memory and is stored nowhere.
    public var isTransient: Bool { localIdentifier.hasPrefix("transient-") }

    /// A collection made in memory from assets (PhotoKit's `transientAssetCollection(with:title:)`),
    /// usable wherever a stored one is, e.g. `fetchAssets(in:)`, which returns them in this order.
    public static func transientAssetCollection(with assets: [Asset], title: String?) -> AssetCollection {
        var collection = AssetCollection(
            localIdentifier: "transient-" + UUID().uuidString, assetCollectionType: .album,
            assetCollectionSubtype: .albumRegular, localizedTitle: title, estimatedAssetCount: assets.count,
            startDate: assets.map(\.creationDate).min(), endDate: assets.map(\.creationDate).max())
        collection.memberIdentifiers = assets.map(\.localIdentifier)
        return collection
    }

    /// A collection snapshot with every field given.
    public init(
        localIdentifier: String, assetCollectionType: AssetCollectionType,
        assetCollectionSubtype: AssetCollectionSubtype, localizedTitle: String?, estimatedAssetCount: Int,
        startDate: Date?, endDate: Date?
    ) {
        self.localIdentifier = localIdentifier
        self.assetCollectionType = assetCollectionType
        self.assetCollectionSubtype = assetCollectionSubtype
        self.localizedTitle = localizedTitle
        self.estimatedAssetCount = estimatedAssetCount
        self.startDate = startDate
        self.endDate = endDate
    }
}

/// What a person (an asset collection of type ``AssetCollectionType/person``) has beside
/// what every collection has.
public struct PersonDetails: Sendable, Hashable {
    /// Hidden from the People list (a stranger in the background); their photos stay.
    public var isHidden: Bool
    /// The faces that are theirs.
    public var faceCount: Int
    /// The face on their cover: the one chosen, else their surest.
    public var keyFace: Face?

    public init(isHidden: Bool, faceCount: Int, keyFace: Face?) {
        self.isHidden = isHidden
        self.faceCount = faceCount
        self.keyFace = keyFace
    }
}

/// Stands for an object created in a `performChanges` block; its identifier is the new
/// object's, usable in the same block and after it (PhotoKit's `PHObjectPlaceholder`).
public struct ObjectPlaceholder: Sendable, Hashable {
    /// The identifier the created object has.
    public var localIdentifier: String

    package init(localIdentifier: String) {
        self.localIdentifier = localIdentifier
    }
}
