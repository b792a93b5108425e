import Foundation
import LightboxMetadata

/// One request of a change block, in the form the store applies.
package enum ChangeOperation: Sendable {
    case createAsset(String)
    case editAsset(String, AssetChange)
    case deleteAssets([String])
    case restoreAssets([String])
    case purgeAssets([String])
    case createCollection(String, title: String)
    case renameCollection(String, title: String)
    case addAssets(collection: String, assets: [String])
    case insertAssets(collection: String, assets: [String], at: [Int])
    case removeAssets(collection: String, assets: [String])
    case removeAssetsAt(collection: String, indexes: [Int])
    case replaceAssets(collection: String, indexes: [Int], with: [String])
    case moveAssets(collection: String, from: [Int], to: Int)
    case deleteCollections([String])
    case createList(String, title: String)
    case renameList(String, title: String)
    case addChildren(list: String, children: [String])
    case insertChildren(list: String, children: [String], at: [Int])
    case removeChildren(list: String, children: [String])
    case moveChildren(list: String, from: [Int], to: Int)
    case replaceChildren(list: String, indexes: [Int], with: [String])
    case deleteLists([String])
    case moveTopLevel(from: [Int], to: Int)
    /// A new person, named or not, with these faces.
    case createPerson(String, name: String?, faces: [String])
    /// A person's name, or none.
    case renamePerson(String, name: String?)
    case hidePerson(String, Bool)
    /// The first people's faces become the last one's, and they go.
    case mergePeople([String], into: String)
    /// These faces are the person's ("this is Anna"), or nobody's known ("not Anna").
    case assignFaces([String], person: String?)
    case setKeyFace(person: String, face: String)
    /// These are no faces at all.
    case rejectFaces([String])
}

/// One property an asset change request sets.
package enum AssetChange: Sendable {
    case favorite(Bool)
    case rating(Int?)
    case hidden(Bool)
    case creationDate(Date?)
    case location(Location?)
    /// How the asset was chosen among its burst's photos.
    case burstSelection(AssetBurstSelectionType)
    /// An editor's output: a new render and adjustment data (``PreparedChanges/edits``).
    case content
    /// Back to the original: every edit removed.
    case revert
}
