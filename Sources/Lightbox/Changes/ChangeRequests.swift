import Foundation
import LightboxMetadata
import LightboxStore

/// The requests made in one `performChanges` block. Every request is recorded in the order it
/// is made, then all of them land in one SQLite transaction, or none does.
///
/// ```swift
/// var album: ObjectPlaceholder?
/// try await library.performChanges { changes in
///     let request = changes.creationRequestForAssetCollection(withTitle: "Iceland")
///     request.addAssets([first.localIdentifier, second.localIdentifier])
///     album = request.placeholderForCreatedAssetCollection
///     changes.changeRequest(for: first).isFavorite = true
/// }
/// ```
///
/// Use it only inside its block; it is not thread-safe.
public final class ChangeRequests {
    /// One file a creation request adds.
    struct NewResource: Sendable {
        var type: AssetResourceType
        var path: String
        var options: AssetResourceCreationOptions
        /// A file Lightbox wrote from data, removed after the block.
        var isTemporary = false
    }

    /// An asset's properties as its change requests read them: what the asset held when the
    /// block first asked, with what the block has set since.
    struct AssetState {
        var isFavorite = false
        var isHidden = false
        var creationDate: Date?
        var location: Location?
        var rating: Int?
        var burstSelectionTypes: AssetBurstSelectionType = []
        var contentEditingOutput: ContentEditingOutput?

        init() {}

        init(_ asset: Asset) {
            (isFavorite, isHidden, creationDate) = (asset.isFavorite, asset.isHidden, asset.creationDate)
            (location, rating, burstSelectionTypes) = (asset.location, asset.rating, asset.burstSelectionTypes)
        }
    }

    var operations: [ChangeOperation] = []
    /// The editors' outputs the block lands (``AssetChange/content``), by asset.
    var contentOutputs: [String: ContentEditingOutput] = [:]
    /// The resources of each asset a creation request makes, by its new identifier.
    var creations: [String: [NewResource]] = [:]
    /// Where image data given to a creation request is written first.
    let temporaryFolder: String
    /// Each asset's properties as the block's requests read them, by identifier, once read.
    private var states: [String: AssetState] = [:]
    /// What the block set on an asset before any of its properties was read, in order: a block
    /// that only sets (a thousand favourites from a route) reads nothing from the library.
    private var unread: [String: [(inout AssetState) -> Void]] = [:]
    /// The asset a request was made for (`changeRequest(for:)`): what its properties read first.
    private var given: [String: Asset] = [:]
    /// The asset with an identifier as the library holds it now, for a request made by
    /// identifier whose properties are read; nil when none has it.
    private let currentAsset: (String) -> Asset?

    init(temporaryFolder: String, currentAsset: @escaping (String) -> Asset? = { _ in nil }) {
        self.temporaryFolder = temporaryFolder
        self.currentAsset = currentAsset
    }

    /// An asset's properties as its requests read them: the asset's own (the one the request
    /// was made for, else the library's now; a new asset's defaults) with what the block set.
    func state(of localIdentifier: String) -> AssetState {
        if let known = states[localIdentifier] { return known }
        var state =
            creations[localIdentifier] != nil
            ? AssetState()
            : (given[localIdentifier] ?? currentAsset(localIdentifier)).map(AssetState.init) ?? AssetState()
        for change in unread.removeValue(forKey: localIdentifier) ?? [] { change(&state) }
        states[localIdentifier] = state
        return state
    }

    /// Sets one of an asset's properties for the block's reads, without reading the asset.
    func set<Value>(_ property: WritableKeyPath<AssetState, Value>, _ value: Value, of localIdentifier: String) {
        if states[localIdentifier] != nil {
            states[localIdentifier]?[keyPath: property] = value
        } else {
            unread[localIdentifier, default: []].append { $0[keyPath: property] = value }
        }
    }

    /// A request to create an asset from a photo file (PhotoKit's
    /// `creationRequestForAssetFromImage(atFileURL:)`); the file is copied.
    public func creationRequestForAssetFromImage(atFileURL url: URL) -> AssetCreationRequest {
        let request = creationRequestForAsset()
        request.addResource(with: .photo, fileURL: url, options: AssetResourceCreationOptions())
        return request
    }

    /// A request to create an asset from encoded image data (JPEG, HEIC, PNG, ...).
    public func creationRequestForAssetFromImage(data: Data, originalFilename: String? = nil) -> AssetCreationRequest {
        let request = creationRequestForAsset()
        request.addResource(
            with: .photo, data: data, options: AssetResourceCreationOptions(originalFilename: originalFilename))
        return request
    }

    /// A request to create an asset from a movie file (PhotoKit's
    /// `creationRequestForAssetFromVideo(atFileURL:)`): a video asset, its `.video` the file.
    public func creationRequestForAssetFromVideo(atFileURL url: URL) -> AssetCreationRequest {
        let request = creationRequestForAsset()
        request.addResource(with: .video, fileURL: url, options: AssetResourceCreationOptions())
        return request
    }

    /// A request to create an asset from resources added to it (PhotoKit's
    /// `PHAssetCreationRequest.forAsset()`): a `.photo` (with a `.pairedVideo` for a Live Photo)
    /// or a `.video`.
    public func creationRequestForAsset() -> AssetCreationRequest {
        let localIdentifier = UUID().uuidString
        operations.append(.createAsset(localIdentifier))
        creations[localIdentifier] = []
        return AssetCreationRequest(localIdentifier: localIdentifier, requests: self)
    }

    /// A request to change an asset's properties (PhotoKit's `PHAssetChangeRequest(for:)`): its
    /// properties read as `asset` holds them until the block sets them.
    public func changeRequest(for asset: Asset) -> AssetChangeRequest {
        if given[asset.localIdentifier] == nil { given[asset.localIdentifier] = asset }
        return changeRequest(forAssetWithLocalIdentifier: asset.localIdentifier)
    }

    /// A request to change the asset with this identifier (a placeholder's, too): its
    /// properties read as the library holds the asset when first read, until the block sets
    /// them (a new asset's: not a favourite, not hidden, no date, place or rating yet).
    public func changeRequest(forAssetWithLocalIdentifier localIdentifier: String) -> AssetChangeRequest {
        AssetChangeRequest(localIdentifier: localIdentifier, requests: self)
    }

    /// Deletes assets (PhotoKit's `deleteAssets(_:)`): they leave every fetch and album and go
    /// to Recently Deleted, with their files, edits, albums and state, until
    /// ``restoreAssets(_:)-(String)`` brings them back or they are purged (after the library's
    /// trash retention, or by ``purgeAssets(_:)-(String)``). An asset deleted already is refused.
    public func deleteAssets(_ localIdentifiers: [String]) {
        operations.append(.deleteAssets(localIdentifiers))
    }

    /// Deletes assets; see ``deleteAssets(_:)-(String)``.
    public func deleteAssets(_ assets: [Asset]) {
        deleteAssets(assets.map(\.localIdentifier))
    }

    /// Brings assets back from Recently Deleted: into every fetch again, into the albums they
    /// were in (where they were, or at the end of an album now shorter), with their edits
    /// and state. An asset not deleted is refused.
    public func restoreAssets(_ localIdentifiers: [String]) {
        operations.append(.restoreAssets(localIdentifiers))
    }

    /// Deletes assets for good, deleted ones or not: their rows go with the transaction, and
    /// their files once it has committed (files another asset uses stay).
    public func purgeAssets(_ localIdentifiers: [String]) {
        operations.append(.purgeAssets(localIdentifiers))
    }

    /// A request to create an album with this title; its placeholder names the new album. Unlike
    /// PhotoKit, a title another album has, case aside, is refused when the block is performed
    /// (`invalidRequest`): two albums of one title cannot be told apart in a sidebar, a menu or
    /// a command that names an album by its title. Folders' titles are kept apart likewise.
    public func creationRequestForAssetCollection(withTitle title: String) -> AssetCollectionChangeRequest {
        let localIdentifier = UUID().uuidString
        operations.append(.createCollection(localIdentifier, title: title))
        return AssetCollectionChangeRequest(localIdentifier: localIdentifier, requests: self, isCreation: true)
    }

    /// A request to change an album: its title, its assets and their order.
    public func changeRequest(for collection: AssetCollection) -> AssetCollectionChangeRequest {
        changeRequest(forAssetCollectionWithLocalIdentifier: collection.localIdentifier)
    }

    /// A request to change the album with this identifier (a placeholder's, too).
    public func changeRequest(forAssetCollectionWithLocalIdentifier localIdentifier: String)
        -> AssetCollectionChangeRequest
    {
        AssetCollectionChangeRequest(localIdentifier: localIdentifier, requests: self, isCreation: false)
    }

    /// Deletes albums (their assets stay in the library).
    public func deleteAssetCollections(_ localIdentifiers: [String]) {
        operations.append(.deleteCollections(localIdentifiers))
    }

    /// A request to create a folder with this title; its placeholder names the new folder
    /// (PhotoKit's `PHCollectionListChangeRequest.creationRequestForCollectionList(withTitle:)`).
    public func creationRequestForCollectionList(withTitle title: String) -> CollectionListChangeRequest {
        let localIdentifier = UUID().uuidString
        operations.append(.createList(localIdentifier, title: title))
        return CollectionListChangeRequest(localIdentifier: localIdentifier, requests: self, isCreation: true)
    }

    /// A request to change a folder: its title, its albums and folders and their order.
    public func changeRequest(for list: CollectionList) -> CollectionListChangeRequest {
        changeRequest(forCollectionListWithLocalIdentifier: list.localIdentifier)
    }

    /// A request to change the folder with this identifier (a placeholder's, too).
    public func changeRequest(forCollectionListWithLocalIdentifier localIdentifier: String)
        -> CollectionListChangeRequest
    {
        CollectionListChangeRequest(localIdentifier: localIdentifier, requests: self, isCreation: false)
    }

    /// A request to reorder the albums and folders in no folder (PhotoKit's
    /// `PHCollectionListChangeRequest(forTopLevelCollectionListUserCollections:)`), in the
    /// order ``PhotoLibrary/fetchTopLevelUserCollections(options:)`` gives them.
    public func changeRequestForTopLevelCollections() -> TopLevelCollectionsChangeRequest {
        TopLevelCollectionsChangeRequest(requests: self)
    }

    /// Deletes folders. What they held stays in the library, at the top level.
    public func deleteCollectionLists(_ localIdentifiers: [String]) {
        operations.append(.deleteLists(localIdentifiers))
    }
}

/// Changes to one asset (PhotoKit's `PHAssetChangeRequest`): each property set is recorded, and
/// reads what the asset holds with what the block set (so `request.isFavorite.toggle()` works).
/// Every request of one block for the same asset reads and sets the same properties.
public class AssetChangeRequest {
    /// The asset this request changes.
    public let localIdentifier: String
    unowned let requests: ChangeRequests

    init(localIdentifier: String, requests: ChangeRequests) {
        self.localIdentifier = localIdentifier
        self.requests = requests
    }

    private func record(_ edit: AssetChange) {
        requests.operations.append(.editAsset(localIdentifier, edit))
    }

    /// Sets one property: kept for the block's reads, recorded for the transaction.
    private func set<Value>(
        _ property: WritableKeyPath<ChangeRequests.AssetState, Value>, _ value: Value, _ edit: AssetChange
    ) {
        requests.set(property, value, of: localIdentifier)
        record(edit)
    }

    /// Whether the asset is a favourite.
    public var isFavorite: Bool {
        get { requests.state(of: localIdentifier).isFavorite }
        set { set(\.isFavorite, newValue, .favorite(newValue)) }
    }

    /// Whether the asset is hidden.
    public var isHidden: Bool {
        get { requests.state(of: localIdentifier).isHidden }
        set { set(\.isHidden, newValue, .hidden(newValue)) }
    }

    /// The creation date (nil, set, is refused when the block runs: an asset always has one;
    /// a new asset's reads nil until its file gives it one).
    public var creationDate: Date? {
        get { requests.state(of: localIdentifier).creationDate }
        set { set(\.creationDate, newValue, .creationDate(newValue)) }
    }

    /// The location; nil clears it.
    public var location: Location? {
        get { requests.state(of: localIdentifier).location }
        set { set(\.location, newValue, .location(newValue)) }
    }

    /// The rating: 1...5 stars, -1 for rejected; 0 or nil clears it. Anything else fails the
    /// block.
    public var rating: Int? {
        get { requests.state(of: localIdentifier).rating }
        set { set(\.rating, newValue == 0 ? nil : newValue, .rating(newValue)) }
    }

    /// How the asset was chosen among its burst's photos: `.userPick` makes it the burst's
    /// representative (the one photo fetches show), `.autoPick` marks the library's choice,
    /// which stands unless the user picked another; `[]` clears both. A pick moves from the
    /// burst's other photos to this one. An asset in no burst fails the block.
    public var burstSelectionTypes: AssetBurstSelectionType {
        get { requests.state(of: localIdentifier).burstSelectionTypes }
        set { set(\.burstSelectionTypes, newValue, .burstSelection(newValue)) }
    }

    /// Lands an edit: the output's render becomes the asset's image and its adjustment data
    /// the recipe (PhotoKit's `contentEditingOutput`); reads the output set in this block. The
    /// original is untouched. The block fails when the output has no adjustment data, its
    /// render is not an upright JPEG, or the asset was edited or reverted since the output's
    /// input was made.
    public var contentEditingOutput: ContentEditingOutput? {
        get { requests.state(of: localIdentifier).contentEditingOutput }
        set {
            guard let newValue else { return }
            requests.contentOutputs[localIdentifier] = newValue
            set(\.contentEditingOutput, newValue, .content)
        }
    }

    /// Removes every edit: the asset shows its original again (PhotoKit's
    /// `revertAssetContentToOriginal`). Reverting an unedited asset changes nothing.
    public func revertAssetContentToOriginal() {
        record(.revert)
    }
}

/// Changes to one album (PhotoKit's `PHAssetCollectionChangeRequest`).
public final class AssetCollectionChangeRequest {
    /// The album this request changes, or creates.
    public let localIdentifier: String
    private unowned let requests: ChangeRequests
    private let isCreation: Bool

    init(localIdentifier: String, requests: ChangeRequests, isCreation: Bool) {
        self.localIdentifier = localIdentifier
        self.requests = requests
        self.isCreation = isCreation
    }

    /// The placeholder of the album this request creates (nil for a change request).
    public var placeholderForCreatedAssetCollection: ObjectPlaceholder? {
        isCreation ? ObjectPlaceholder(localIdentifier: localIdentifier) : nil
    }

    /// Renames the album.
    public var title: String? {
        get { nil }
        set { if let newValue { requests.operations.append(.renameCollection(localIdentifier, title: newValue)) } }
    }

    /// Adds assets at the end, in order; assets already in the album stay where they are.
    public func addAssets(_ localIdentifiers: [String]) {
        requests.operations.append(.addAssets(collection: localIdentifier, assets: localIdentifiers))
    }

    /// Inserts assets at the given indexes (one per asset, in the album as it will be).
    public func insertAssets(_ localIdentifiers: [String], at indexes: [Int]) {
        requests.operations.append(.insertAssets(collection: localIdentifier, assets: localIdentifiers, at: indexes))
    }

    /// Removes assets from the album (they stay in the library).
    public func removeAssets(_ localIdentifiers: [String]) {
        requests.operations.append(.removeAssets(collection: localIdentifier, assets: localIdentifiers))
    }

    /// Removes the assets at the given indexes.
    public func removeAssets(at indexes: [Int]) {
        requests.operations.append(.removeAssetsAt(collection: localIdentifier, indexes: indexes))
    }

    /// Replaces the assets at the given indexes with others, one for one.
    public func replaceAssets(at indexes: [Int], withAssets localIdentifiers: [String]) {
        requests.operations.append(
            .replaceAssets(collection: localIdentifier, indexes: indexes, with: localIdentifiers))
    }

    /// Moves the assets at `indexes` so that the first of them lands at `destination`
    /// (an index in the album once they are taken out), keeping their order.
    public func moveAssets(at indexes: [Int], to destination: Int) {
        requests.operations.append(.moveAssets(collection: localIdentifier, from: indexes, to: destination))
    }
}

/// How a creation request takes a file (PhotoKit's `PHAssetResourceCreationOptions`).
public struct AssetResourceCreationOptions: Sendable, Hashable {
    /// Move the file into the library instead of copying it; it is deleted once the block has
    /// committed, and left alone when the block fails.
    public var shouldMoveFile: Bool
    /// The name the resource keeps; the file's own name when nil.
    public var originalFilename: String?

    /// Copy, keeping the file's name, unless told.
    public init(shouldMoveFile: Bool = false, originalFilename: String? = nil) {
        self.shouldMoveFile = shouldMoveFile
        self.originalFilename = originalFilename
    }
}

/// A request to create an asset (PhotoKit's `PHAssetCreationRequest`): add its resources, set
/// its properties like any change request, and use its placeholder in the same block.
public final class AssetCreationRequest: AssetChangeRequest {
    /// The placeholder of the asset this request creates.
    public var placeholderForCreatedAsset: ObjectPlaceholder {
        ObjectPlaceholder(localIdentifier: localIdentifier)
    }

    /// Adds a file as a resource of the new asset: a `.photo`, and with it a `.pairedVideo`
    /// for a Live Photo. Other types are refused when the block runs.
    public func addResource(with type: AssetResourceType, fileURL: URL, options: AssetResourceCreationOptions) {
        requests.creations[localIdentifier, default: []].append(
            ChangeRequests.NewResource(type: type, path: fileURL.standardizedFileURL.path, options: options))
    }

    /// Adds encoded bytes as a resource of the new asset.
    public func addResource(with type: AssetResourceType, data: Data, options: AssetResourceCreationOptions) {
        let path = requests.temporaryFolder + "/" + UUID().uuidString
        let written = FileManager.default.createFile(atPath: path, contents: data)
        var options = options
        if options.originalFilename == nil {
            let format = FileFormat(sniffing: data.prefix(FileFormat.sniffLength))
            options.originalFilename =
                "IMG_" + localIdentifier.prefix(8) + "." + (format?.preferredFilenameExtension ?? "bin")
        }
        requests.creations[localIdentifier, default: []].append(
            ChangeRequests.NewResource(type: type, path: written ? path : "", options: options, isTemporary: true))
    }
}

/// Changes to one folder (PhotoKit's `PHCollectionListChangeRequest`). A folder holds albums
/// and folders; each has at most one parent, and no folder may hold itself or an ancestor.
public final class CollectionListChangeRequest {
    /// The folder this request changes, or creates.
    public let localIdentifier: String
    private unowned let requests: ChangeRequests
    private let isCreation: Bool

    init(localIdentifier: String, requests: ChangeRequests, isCreation: Bool) {
        self.localIdentifier = localIdentifier
        self.requests = requests
        self.isCreation = isCreation
    }

    /// The placeholder of the folder this request creates (nil for a change request).
    public var placeholderForCreatedCollectionList: ObjectPlaceholder? {
        isCreation ? ObjectPlaceholder(localIdentifier: localIdentifier) : nil
    }

    /// Renames the folder.
    public var title: String? {
        get { nil }
        set { if let newValue { requests.operations.append(.renameList(localIdentifier, title: newValue)) } }
    }

    /// Adds albums or folders at the end, in order.
    public func addChildCollections(_ localIdentifiers: [String]) {
        requests.operations.append(.addChildren(list: localIdentifier, children: localIdentifiers))
    }

    /// Inserts albums or folders at the given indexes (one per child, in the folder as it will be).
    public func insertChildCollections(_ localIdentifiers: [String], at indexes: [Int]) {
        requests.operations.append(.insertChildren(list: localIdentifier, children: localIdentifiers, at: indexes))
    }

    /// Takes albums or folders out of the folder, to the top level.
    public func removeChildCollections(_ localIdentifiers: [String]) {
        requests.operations.append(.removeChildren(list: localIdentifier, children: localIdentifiers))
    }

    /// Replaces the children at the given indexes with other albums or folders, one for one.
    public func replaceChildCollections(at indexes: [Int], withChildCollections localIdentifiers: [String]) {
        requests.operations.append(.replaceChildren(list: localIdentifier, indexes: indexes, with: localIdentifiers))
    }

    /// Moves the children at `indexes` so that the first lands at `destination`.
    public func moveChildCollections(at indexes: [Int], to destination: Int) {
        requests.operations.append(.moveChildren(list: localIdentifier, from: indexes, to: destination))
    }
}

/// Reorders the albums and folders in no folder. Until it is first used they are oldest
/// first; after, in the order it leaves, followed by those without a place (made since, or
/// back from a folder), oldest first. An album or folder goes to the top level by leaving its
/// folder (``CollectionListChangeRequest/removeChildCollections(_:)``).
public final class TopLevelCollectionsChangeRequest {
    private unowned let requests: ChangeRequests

    init(requests: ChangeRequests) {
        self.requests = requests
    }

    /// Moves the albums and folders at `indexes` so that the first lands at `destination` (an
    /// index once they are taken out).
    public func moveChildCollections(at indexes: [Int], to destination: Int) {
        requests.operations.append(.moveTopLevel(from: indexes, to: destination))
    }
}
