import Foundation

/// A point in the library's history (PhotoKit's `PHPersistentChangeToken`): keep one, and
/// later ask what changed since. Its text form is a number, for the CLI and HTTP.
public struct PersistentChangeToken: Sendable, Hashable, Comparable, Codable, CustomStringConvertible,
    LosslessStringConvertible
{
    /// The id of the last transaction it has seen.
    public var rawValue: Int64

    /// A token from its raw value.
    public init(rawValue: Int64) {
        self.rawValue = rawValue
    }

    /// A token from its text form.
    public init?(_ description: String) {
        guard let value = Int64(description), value >= 0 else { return nil }
        rawValue = value
    }

    /// The text form: the number.
    public var description: String { String(rawValue) }

    /// Orders tokens by time.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    /// Encodes as the bare number.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// Decodes the bare number.
    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(Int64.self)
    }
}

/// The kinds of object persistent history reports on (PhotoKit's `PHObjectType`).
public enum PersistentObjectType: String, Sendable, Hashable, CaseIterable, Codable {
    case asset
    case assetCollection
    case collectionList
}

/// What one transaction did to one kind of object (PhotoKit's `PHPersistentObjectChangeDetails`).
public struct PersistentObjectChangeDetails: Sendable, Hashable, Encodable {
    /// The kind of object.
    public var objectType: PersistentObjectType
    /// Objects the transaction created.
    public var insertedLocalIdentifiers: Set<String> = []
    /// Objects whose properties or contents the transaction changed.
    public var updatedLocalIdentifiers: Set<String> = []
    /// Objects the transaction deleted for good (an asset: purged).
    public var deletedLocalIdentifiers: Set<String> = []
    /// Assets the transaction moved to Recently Deleted: out of every fetch, not yet gone.
    /// Lightbox's; PhotoKit reports them as deleted.
    public var trashedLocalIdentifiers: Set<String> = []
    /// Assets the transaction brought back from Recently Deleted. Lightbox's.
    public var restoredLocalIdentifiers: Set<String> = []

    private enum CodingKeys: String, CodingKey {
        case objectType, insertedLocalIdentifiers, updatedLocalIdentifiers, deletedLocalIdentifiers
        case trashedLocalIdentifiers, restoredLocalIdentifiers
    }

    /// Encodes the identifiers as sorted arrays, so equal details print alike.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(objectType, forKey: .objectType)
        try container.encode(insertedLocalIdentifiers.sorted(), forKey: .insertedLocalIdentifiers)
        try container.encode(updatedLocalIdentifiers.sorted(), forKey: .updatedLocalIdentifiers)
        try container.encode(deletedLocalIdentifiers.sorted(), forKey: .deletedLocalIdentifiers)
        if !trashedLocalIdentifiers.isEmpty {
            try container.encode(trashedLocalIdentifiers.sorted(), forKey: .trashedLocalIdentifiers)
        }
        if !restoredLocalIdentifiers.isEmpty {
            try container.encode(restoredLocalIdentifiers.sorted(), forKey: .restoredLocalIdentifiers)
        }
    }

    /// Details of one kind of object, empty unless given.
    public init(
        objectType: PersistentObjectType, insertedLocalIdentifiers: Set<String> = [],
        updatedLocalIdentifiers: Set<String> = [], deletedLocalIdentifiers: Set<String> = []
    ) {
        self.objectType = objectType
        self.insertedLocalIdentifiers = insertedLocalIdentifiers
        self.updatedLocalIdentifiers = updatedLocalIdentifiers
        self.deletedLocalIdentifiers = deletedLocalIdentifiers
    }
}

/// One committed transaction in the library's history (PhotoKit's `PHPersistentChange`).
public struct PersistentChange: Sendable, Hashable {
    /// The token just after this transaction: pass it to see only later changes.
    public var changeToken: PersistentChangeToken
    /// When it committed.
    public var date: Date
    /// Who made it: "import", "performChanges", ...
    public var author: String?
    /// What it did, per kind of object; kinds it did not touch are absent.
    public var details: [PersistentObjectType: PersistentObjectChangeDetails]

    package init(
        changeToken: PersistentChangeToken, date: Date, author: String? = nil,
        details: [PersistentObjectType: PersistentObjectChangeDetails]
    ) {
        self.changeToken = changeToken
        self.date = date
        self.author = author
        self.details = details
    }

    /// What the transaction did to one kind of object (empty details when nothing).
    public func changeDetails(for objectType: PersistentObjectType) -> PersistentObjectChangeDetails {
        details[objectType] ?? PersistentObjectChangeDetails(objectType: objectType)
    }
}

/// The JSON form shared by `lightbox history --json` and `GET /api/changes`:
/// `{"token", "date", "author", "asset": {...}, "assetCollection": {...}}`.
extension PersistentChange: Encodable {
    private enum CodingKeys: String, CodingKey {
        case token, date, author, asset, assetCollection, collectionList
    }

    /// Encodes the token, the date in ISO 8601 and the details of each kind touched.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(changeToken, forKey: .token)
        try container.encode(ISO8601.localString(from: date), forKey: .date)
        try container.encodeIfPresent(author, forKey: .author)
        try container.encodeIfPresent(details[.asset], forKey: .asset)
        try container.encodeIfPresent(details[.assetCollection], forKey: .assetCollection)
        try container.encodeIfPresent(details[.collectionList], forKey: .collectionList)
    }
}
