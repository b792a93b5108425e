/// One object a transaction inserted, updated or deleted: a row of the change log.
struct ObjectChangeRecord: Sendable, Hashable {
    /// The class of the object; its raw value is what the log stores.
    typealias ObjectType = PersistentObjectType

    /// What happened to it. Raw values are stored. An asset moved to Recently Deleted is
    /// trashed, brought back restored, and deleted when purged.
    enum Kind: Int, Sendable, Hashable {
        case inserted = 1
        case updated = 2
        case deleted = 3
        case trashed = 4
        case restored = 5
    }

    var objectType: ObjectType
    var localIdentifier: String
    var kind: Kind

    init(_ objectType: ObjectType, _ localIdentifier: String, _ kind: Kind) {
        self.objectType = objectType
        self.localIdentifier = localIdentifier
        self.kind = kind
    }
}
