/// The keys predicates and sorts may use for one fetchable class (MODEL.md, Fetching), and
/// the SQL column each one reads. A key outside the table is an error naming it, never a
/// silent full scan.
public struct FetchKeys: Sendable {
    /// The kind of value a key holds, which decides how literals are read and compared.
    public enum Kind: Sendable, Hashable {
        case int
        case double
        case bool
        case string
        case date
    }

    struct Key: Sendable {
        var column: String
        var kind: Kind
        /// Whether the column may be NULL: its conditions are then made two-valued, so that
        /// `NOT (burstIdentifier == "x")` holds for assets in no burst.
        var nullable = false
        /// A key of a to-many relation (an asset's people): SQL of an `EXISTS` over the
        /// related rows, with `%@` where the condition on ``column`` goes. A condition holds when
        /// one related row meets it; `!=` and `== nil` hold when none does.
        var anyOf: String? = nil
        /// The column holds lowercased text: a value compared with it is lowercased too.
        var foldsCase = false
        /// A key of the search's full text (``SearchSchema``): `==` holds when every word of the
        /// value is in the asset's document, the only comparison it takes.
        var fullText = false
        /// Whether its full text reads the people's names (not for a limited view, which sees no
        /// people: it reads `words` as `wordsWithoutPeople`).
        var fullTextPeople = true

        /// Whether the column is a table's column (`asset.rating`), not an expression.
        var isPlainColumn: Bool {
            let parts = column.split(separator: ".")
            return parts.count == 2 && parts.allSatisfy { $0.allSatisfy { $0.isLetter || $0.isNumber } }
        }
    }

    /// The class the keys belong to, for error messages ("Asset").
    public let className: String
    let keys: [String: Key]
    /// The column that makes every sort total: the row id.
    let tiebreaker: String

    /// The names predicates and sorts accept, sorted.
    public var names: [String] { keys.keys.sorted() }

    /// The kind of a key, or nil when the class has no such key.
    public func kind(of key: String) -> Kind? { keys[key]?.kind }

    func key(_ name: String) throws -> Key {
        guard let key = keys[name] else {
            throw LibraryError(
                .invalidPredicate,
                "\(className) has no key \"\(name)\" usable in predicates and sorts; use one of: \(names.joined(separator: ", "))"
            )
        }
        return key
    }

    /// Asset keys: SELF, localIdentifier, creationDate, localCreationDate, modificationDate, mediaType,
    /// mediaSubtypes, duration, pixelWidth, pixelHeight, favorite/isFavorite,
    /// hidden/isHidden, burstIdentifier, rating, filename (the original's name when imported),
    /// latitude, longitude, cameraMake, cameraModel, lensModel, person (a name),
    /// personIdentifier, people.@count, place (any of its place's names), city, region, country,
    /// countryCode, text (a line read in the photo), thing (a word a thing found in it is found by),
    /// words (the search's full text).
    public static let asset = FetchKeys(
        className: "Asset",
        keys: [
            "SELF": Key(column: "asset.localIdentifier", kind: .string),
            "localIdentifier": Key(column: "asset.localIdentifier", kind: .string),
            "creationDate": Key(column: "asset.creationDate", kind: .date),
            // The clock time where the asset was taken, given as if it were UTC: the timeline's
            // order, by which a day's assets stay together whatever zone each was taken in.
            "localCreationDate": Key(column: "asset.localCreationDate", kind: .date),
            "modificationDate": Key(column: "asset.modificationDate", kind: .date),
            "mediaType": Key(column: "asset.mediaType", kind: .int),
            "mediaSubtypes": Key(column: "asset.mediaSubtypes", kind: .int),
            "duration": Key(column: "asset.duration", kind: .double),
            "pixelWidth": Key(column: "asset.pixelWidth", kind: .int),
            "pixelHeight": Key(column: "asset.pixelHeight", kind: .int),
            "favorite": Key(column: "asset.isFavorite", kind: .bool),
            "isFavorite": Key(column: "asset.isFavorite", kind: .bool),
            "hidden": Key(column: "asset.isHidden", kind: .bool),
            "isHidden": Key(column: "asset.isHidden", kind: .bool),
            "burstIdentifier": Key(column: "asset.burstIdentifier", kind: .string, nullable: true),
            "rating": Key(column: "asset.rating", kind: .int, nullable: true),
            // The name the original photo (a movie's file for a movie) had when imported.
            "filename": Key(
                column: """
                    (SELECT resource.originalFilename FROM resource WHERE resource.assetId = asset.id \
                    AND resource.type IN (1, 2) ORDER BY resource.type LIMIT 1)
                    """, kind: .string, nullable: true),
            "latitude": Key(column: "asset.latitude", kind: .double, nullable: true),
            "longitude": Key(column: "asset.longitude", kind: .double, nullable: true),
            "cameraMake": Key(column: "asset.cameraMake", kind: .string, nullable: true),
            "cameraModel": Key(column: "asset.cameraModel", kind: .string, nullable: true),
            "lensModel": Key(column: "asset.lensModel", kind: .string, nullable: true),
            // The people whose faces are in the asset: `person == "Anna"` holds when one is
            // named Anna; `personIdentifier` compares their identifiers.
            "person": Key(column: "person.name", kind: .string, anyOf: PersonColumns.ofAsset),
            "personIdentifier": Key(column: "person.localIdentifier", kind: .string, anyOf: PersonColumns.ofAsset),
            // The place named for its location (docs/ANALYSIS.md, Places): `place == "Lisbon"`
            // holds when one of its names is Lisbon (its nearest place, city, region or country).
            "place": Key(column: "placeName.name", kind: .string, anyOf: PlaceColumns.namesOfAsset),
            "city": Key(column: "place.city", kind: .string, anyOf: PlaceColumns.ofAsset),
            "region": Key(column: "place.region", kind: .string, anyOf: PlaceColumns.ofAsset),
            "country": Key(column: "place.country", kind: .string, anyOf: PlaceColumns.ofAsset),
            "countryCode": Key(column: "place.countryCode", kind: .string, anyOf: PlaceColumns.ofAsset),
            // The text read in the photo (docs/ANALYSIS.md, Text): `text CONTAINS[c] "receipt"`
            // holds when one of its lines contains it.
            "text": Key(column: "textLine.text", kind: .string, anyOf: AnalysisColumns.text),
            // The things found in the photo, by any of their words (docs/ANALYSIS.md, Things):
            // `thing == "dog"` holds for a dog, and a Samoyed; the words are kept lowercased, and
            // so is what it is compared with.
            "thing": Key(column: "thingTerm.term", kind: .string, anyOf: AnalysisColumns.things, foldsCase: true),
            // The search box's full text (docs/ANALYSIS.md, Search): `words == "red car"` holds
            // when the asset is found by each word, among its things' words, its place's names,
            // its people's and albums' names, its files' names or the text read in it.
            "words": Key(column: "assetSearch.words", kind: .string, fullText: true),
            "wordsWithoutPeople": Key(
                column: "assetSearch.words", kind: .string, fullText: true, fullTextPeople: false),
            "people.@count": Key(
                column: """
                    (SELECT COUNT(DISTINCT face.personId) FROM face WHERE face.assetId = asset.id \
                    AND face.personId IS NOT NULL AND \(PersonColumns.theirs))
                    """, kind: .int),
        ],
        tiebreaker: "asset.id")

    /// Asset collection keys: SELF, localIdentifier, localizedTitle/title, startDate, endDate,
    /// estimatedAssetCount.
    public static let assetCollection = FetchKeys(
        className: "AssetCollection",
        keys: [
            "SELF": Key(column: "assetCollection.localIdentifier", kind: .string),
            "localIdentifier": Key(column: "assetCollection.localIdentifier", kind: .string),
            "localizedTitle": Key(column: "assetCollection.title", kind: .string, nullable: true),
            "title": Key(column: "assetCollection.title", kind: .string, nullable: true),
            "startDate": Key(column: AssetCollectionColumns.startDate, kind: .date, nullable: true),
            "endDate": Key(column: AssetCollectionColumns.endDate, kind: .date, nullable: true),
            "estimatedAssetCount": Key(column: AssetCollectionColumns.assetCount, kind: .int),
        ],
        tiebreaker: "assetCollection.id")
}

extension FetchKeys {
    /// Collection list keys: SELF, localIdentifier, localizedTitle/title, startDate, endDate.
    public static let collectionList = FetchKeys(
        className: "CollectionList",
        keys: [
            "SELF": Key(column: "collectionList.localIdentifier", kind: .string),
            "localIdentifier": Key(column: "collectionList.localIdentifier", kind: .string),
            "localizedTitle": Key(column: "collectionList.title", kind: .string, nullable: true),
            "title": Key(column: "collectionList.title", kind: .string, nullable: true),
            "startDate": Key(column: "NULL", kind: .date, nullable: true),
            "endDate": Key(column: "NULL", kind: .date, nullable: true),
        ],
        tiebreaker: "collectionList.id")

    /// Keys of mixed fetches of albums and folders (`PhotoCollection`): SELF, localIdentifier,
    /// localizedTitle/title, startDate, endDate, over the union both tables make.
    public static let collection = FetchKeys(
        className: "Collection",
        keys: [
            "SELF": Key(column: "collection.localIdentifier", kind: .string),
            "localIdentifier": Key(column: "collection.localIdentifier", kind: .string),
            "localizedTitle": Key(column: "collection.title", kind: .string, nullable: true),
            "title": Key(column: "collection.title", kind: .string, nullable: true),
            "startDate": Key(column: "collection.startDate", kind: .date, nullable: true),
            "endDate": Key(column: "collection.endDate", kind: .date, nullable: true),
        ],
        tiebreaker: "collection.rid")
}

/// SQL for the derived properties of a collection, computed from its assets: an album's
/// members, or the assets a smart album's rule selects.
enum AssetCollectionColumns {
    static let assetCount = SmartAlbums.aggregate("COUNT(*)")
    static let startDate = SmartAlbums.aggregate("MIN(asset.creationDate)")
    static let endDate = SmartAlbums.aggregate("MAX(asset.creationDate)")
}

extension FetchKeys {
    /// Person keys (asset collections of type `person`): SELF, localIdentifier,
    /// localizedTitle/title/name, startDate, endDate, estimatedAssetCount, faceCount,
    /// hidden/isHidden.
    public static let person = FetchKeys(
        className: "Person",
        keys: [
            "SELF": Key(column: "person.localIdentifier", kind: .string),
            "localIdentifier": Key(column: "person.localIdentifier", kind: .string),
            "localizedTitle": Key(column: "person.name", kind: .string, nullable: true),
            "title": Key(column: "person.name", kind: .string, nullable: true),
            "name": Key(column: "person.name", kind: .string, nullable: true),
            "startDate": Key(column: PersonColumns.startDate, kind: .date, nullable: true),
            "endDate": Key(column: PersonColumns.endDate, kind: .date, nullable: true),
            "estimatedAssetCount": Key(column: PersonColumns.assetCount, kind: .int),
            "faceCount": Key(column: PersonColumns.faceCount, kind: .int),
            "hidden": Key(column: "person.isHidden", kind: .bool),
            "isHidden": Key(column: "person.isHidden", kind: .bool),
        ],
        tiebreaker: "person.id")
}

/// SQL for an asset's place, for ``FetchKeys/Key/anyOf``: the assets of the places that match,
/// found from the place (by `placeName_on_name`, then `assetPlace_on_placeId`), so that a fetch
/// by a place reads that place's assets rather than testing every asset of the library.
enum PlaceColumns {
    /// Its place's row.
    static let ofAsset = """
        asset.id IN (SELECT assetPlace.assetId FROM place JOIN assetPlace ON assetPlace.placeId = place.id \
        WHERE %@)
        """
    /// Each of its place's names.
    static let namesOfAsset = """
        asset.id IN (SELECT assetPlace.assetId FROM placeName JOIN assetPlace ON assetPlace.placeId = placeName.placeId \
        WHERE %@)
        """
}

/// SQL for a person's derived properties, from the faces that are theirs (grouped there or
/// put there by someone) and the assets those are in, as a fetch shows them.
enum PersonColumns {
    /// A face that is its person's: `face.membership` grouped or chosen.
    static let theirs = "face.membership IN (1, 2)"

    /// The people of an asset, for ``FetchKeys/Key/anyOf``.
    static let ofAsset = """
        EXISTS (SELECT 1 FROM face JOIN person ON person.id = face.personId \
        WHERE face.assetId = asset.id AND \(theirs) AND %@)
        """

    /// The condition on `asset` of the assets a person's faces are in (`personId` SQL of
    /// Lightbox's own: a row id or a column).
    static func assets(of personId: String) -> String {
        "asset.id IN (SELECT face.assetId FROM face WHERE face.personId = \(personId) AND \(theirs))"
    }

    private static func aggregate(_ expression: String) -> String {
        """
        (SELECT \(expression) FROM face JOIN asset ON asset.id = face.assetId \
        WHERE face.personId = person.id AND \(theirs) AND \(AssetVisibility.defaultCondition))
        """
    }

    static let assetCount = aggregate("COUNT(DISTINCT face.assetId)")
    static let startDate = aggregate("MIN(asset.creationDate)")
    static let endDate = aggregate("MAX(asset.creationDate)")
    /// Kept by the face tally's triggers (schema step v28).
    static let faceCount = "person.faceCount"
}
