/// One object a transaction inserted, updated or deleted: a row of the change log.
package struct ObjectChangeRecord: Sendable, Hashable {
    /// The class of the object; its raw value is what the log stores.
    package typealias ObjectType = PersistentObjectType

    /// What happened to it. Raw values are stored. An asset moved to Recently Deleted is
    /// trashed, brought back restored, and deleted when purged.
    package enum Kind: Int, Sendable, Hashable {
        case inserted = 1
        case updated = 2
        case deleted = 3
        case trashed = 4
        case restored = 5
    }

    package var objectType: ObjectType
    package var localIdentifier: String
    package var kind: Kind

    package init(_ objectType: ObjectType, _ localIdentifier: String, _ kind: Kind) {
        self.objectType = objectType
        self.localIdentifier = localIdentifier
        self.kind = kind
    }
}
