import Foundation
import Hummingbird
import Lightbox
import LightboxMetadata

/// Assets over HTTP: pages of a fetch, its days and cameras, one asset, changes to many at once,
/// and their files. Each route's contract is its `APIOperation` (docs/API.md).
struct AssetRoutes: Sendable {
    /// The most assets one request changes.
    static let maximumBatch = 1000
    /// The most cameras `/api/cameras` lists: the files of a library (uploads among them) may
    /// name any number, and one answer must stay small.
    static let maximumCameras = 1000

    struct Change: Decodable {
        var assets: [String]?
        var favorite: Bool?
        var hidden: Bool?
        var rating: Int?
    }

    struct Selection: Decodable {
        var assets: [String]
        var permanently: Bool?
    }

    struct Changed: Encodable {
        var changeToken: PersistentChangeToken
        var assets: [Asset]
    }

    struct Deleted: Encodable {
        var changeToken: PersistentChangeToken
        var deleted: [String]
        var permanently: Bool
    }

    static let predicateParameter = APIParameter.query(
        "predicate", Schema.string, "A predicate in the fetch language: `favorite == true`.")
    static let sortParameter = APIParameter.query(
        "sort", Schema.string,
        """
        Sort descriptors: `creationDate asc`. Without a sort or predicate, newest first by the clock \
        where each was taken (`localCreationDate desc`): the timeline's order, a day's assets together.
        """)

    /// The fetch a request's `predicate` and `sort` ask for: newest first by local time when it
    /// gives neither (`isDefault`), which the index of local creation dates pages through.
    static func fetchOptions(_ query: Parameters) throws -> (options: FetchOptions, isDefault: Bool) {
        let predicate = query.get("predicate").map { String($0) }
        let sort = query.get("sort").map { String($0) }
        var options = try LightboxServer.fetchOptions(predicate: predicate, sort: sort)
        let isDefault = predicate == nil && sort == nil
        if isDefault {
            options.sortDescriptors = [FetchSortDescriptor(key: "localCreationDate", ascending: false)]
        }
        return (options, isDefault)
    }

    /// The answer of `/api/timeline` (and a collection's): each day, with its assets' shapes in
    /// hundredths (133: a 4:3 landscape) when asked for (`aspects=true`: one number an asset,
    /// which a client that lays out no rows should not pay for), whole numbers being what JSON
    /// writes and reads fastest.
    struct Timeline: Encodable {
        struct Day: Encodable {
            var day: String
            var count: Int
            var aspects: [Int]?
        }
        var count: Int
        var days: [Day]

        init(_ days: [AssetDay], aspects: Bool) {
            self.days = days.map { day in
                Day(
                    day: day.isoDay, count: day.count,
                    aspects: aspects ? day.aspectRatios.map { Int(($0 * 100).rounded()) } : nil)
            }
            count = days.reduce(0) { $0 + $1.count }
        }

        /// Whether a request asks for the shapes.
        static func wantsAspects(_ query: Parameters) -> Bool {
            query.get("aspects").map { $0 == "true" || $0 == "1" } ?? false
        }
    }

    static let aspectsParameter = APIParameter.query(
        "aspects", Schema.boolean, "Each asset's shape with its day (`aspects`), for a layout of justified rows.")

    private let files = ResourceFile()

    static let assetsOperation = APIOperation(
        "A page of assets, newest first, or those a predicate selects in a sort's order.",
        details: """
            Newest first by default, by the clock where each was taken (`localCreationDate desc`), with keyset
            pages: pass `next` as `after`. `offset=N` asks for a position in the whole fetch, `at=ID` for the
            page an asset starts (its `offset` says where it lies); `count` is how many the whole fetch holds.
            """,
        parameters: [.limit, .after, .offset, .at, predicateParameter, sortParameter],
        responses: [.json(200, "The page; `next` is the following page's `after`.", Schema.ref("AssetPage"))])

    @Sendable
    func assets(_ request: Request, _ context: LightboxRequestContext) async throws -> Response {
        let library = try context.library().library
        let query = request.uri.formQuery
        let limit = try query.limit(
            default: LightboxServer.defaultPageSize, maximum: LightboxServer.maximumPageSize)
        let start = try query.pageStart()
        let (options, isDefault) = try Self.fetchOptions(query)
        if isDefault, case .after(let after) = start {
            // Newest first by the index: the count from the tally, a read of its own.
            let assets = try await library.assets(limit: limit + 1, after: after)
            let count = try await library.read { try $0.fetchAssets(options: options).count }
            var page = AssetPage(AssetFetchPage(assets: assets, offset: 0, count: count), limit: limit)
            // Where a later page starts would cost a read of every id before it.
            if after != nil { page.offset = nil }
            return try LightboxServer.jsonResponse(page)
        }
        let page = try await library.fetchAssetPage(options: options, from: start, limit: limit + 1)
        return try LightboxServer.jsonResponse(AssetPage(page, limit: limit))
    }

    static let timelineOperation = APIOperation(
        """
        The days the assets were taken on (in the time zone each was taken in), newest first, \
        with how many each holds (and, asked, each one's shape): a timeline's headings and rows, \
        laid out before its pages are read. \
        The same fetch as `/api/assets` with the same `predicate` and `sort`: the assets of a \
        day start at the sum of the counts before it.
        """,
        details: """
            Each day is `{"day": "2024-05-03", "count": 12}`; with `aspects=true` it also gives each asset's
            width over height as shown, in hundredths (`"aspects": [133, 75, ...]`): a layout of justified rows
            made before any asset is read. Over 100,000 assets the shapes take about ten times the bytes, so
            they come only when asked.
            """,
        parameters: [predicateParameter, sortParameter, aspectsParameter],
        responses: [.json(200, "The days, in the fetch's order.", Schema.ref("Timeline"))])

    @Sendable
    func timeline(_ request: Request, _ context: LightboxRequestContext) async throws -> Response {
        let library = try context.library().library
        let (options, _) = try Self.fetchOptions(request.uri.formQuery)
        let aspects = Timeline.wantsAspects(request.uri.formQuery)
        let days = try await library.read {
            try $0.fetchAssets(options: options).creationDays(aspectRatios: aspects)
        }
        return try LightboxServer.jsonResponse(Timeline(days, aspects: aspects))
    }

    static let camerasOperation = APIOperation(
        """
        The cameras and lenses the assets a fetch selects were taken with, as their files name \
        them, with how many each; the most used first, at most 1,000. Those whose files name \
        none are one entry with no make, model or lens. For search: `cameraModel == "..."`.
        """,
        parameters: [predicateParameter],
        responses: [.json(200, "The cameras and lenses.", Schema.ref("Cameras"))])

    @Sendable
    func cameras(_ request: Request, _ context: LightboxRequestContext) async throws -> Response {
        let library = try context.library().library
        let (options, _) = try Self.fetchOptions(request.uri.formQuery)
        let cameras = try await library.read {
            try $0.fetchAssets(options: options).cameras(limit: Self.maximumCameras)
        }
        return try LightboxServer.jsonResponse(["cameras": cameras])
    }

    static let assetOperation = APIOperation("One asset.", responses: [.json(200, "The asset.", Schema.ref("Asset"))])

    @Sendable
    func asset(_ _: Request, _ context: LightboxRequestContext) async throws -> Response {
        let library = try context.library().library
        return try LightboxServer.jsonResponse(try await Self.asset(try context.parameters.require("id"), in: library))
    }

    static let detailsOperation = APIOperation(
        "The camera, lens and exposure its original's metadata names (absent what it does not).",
        responses: [.json(200, "What the camera wrote.", Schema.ref("CameraDetails"))])

    @Sendable
    func details(_ _: Request, _ context: LightboxRequestContext) async throws -> Response {
        let library = try context.library().library
        let asset = try await Self.asset(try context.parameters.require("id"), in: library)
        return try LightboxServer.jsonResponse(try await library.cameraDetails(for: asset))
    }

    static let updateOperation = APIOperation(
        "Favourites, hides or rates an asset.",
        details: "Any of `favorite`, `hidden` and `rating` (0 to 5), in one transaction.",
        body: .json(AssetRoutes.changeSchema(many: false)),
        responses: [.json(200, "The asset changed.", Schema.ref("Asset"), changeToken: true)])

    @Sendable
    func update(_ request: Request, _ context: LightboxRequestContext) async throws -> Response {
        let library = try context.library().library
        let id = try context.parameters.require("id")
        _ = try await Self.asset(id, in: library)
        let change = try await request.decode(as: Change.self, context: context)
        guard change.assets == nil else {
            throw HTTPError(.badRequest, message: "assets belongs in PATCH /api/assets, not on one asset")
        }
        let token = try await Self.apply(change, to: [id], in: library)
        return try await LightboxServer.written(try await Self.asset(id, in: library), token: token, in: library)
    }

    static let updateManyOperation = APIOperation(
        "Favourites, hides or rates up to 1,000 assets in one transaction.",
        details: """
            The same body with `"assets": [ids]`, at most 1,000, in one transaction: all change or none does.
            """,
        body: .json(AssetRoutes.changeSchema(many: true)),
        responses: [.json(200, "The assets changed.", Schema.ref("ChangedAssets"), changeToken: true)])

    @Sendable
    func updateMany(_ request: Request, _ context: LightboxRequestContext) async throws -> Response {
        let library = try context.library().library
        let change = try await request.decode(as: Change.self, context: context)
        let ids = try Self.checked(change.assets ?? [])
        let token = try await Self.apply(change, to: ids, in: library)
        let assets = try await library.read { library in
            let result = try library.fetchAssets(withLocalIdentifiers: ids)
            return result.objects(at: 0..<result.count)
        }
        let current = try await LightboxServer.token(token, in: library)
        return try await LightboxServer.written(
            Changed(changeToken: current, assets: assets), token: current, in: library)
    }

    static let deleteManyOperation = APIOperation(
        "Moves assets to Recently Deleted, or deletes them for good.",
        details: """
            Up to 1,000 at once. To Recently Deleted, kept there 30 days with their files, edits and albums;
            with `"permanently": true`, deleted for good with their files.
            """,
        body: .json(
            Schema.object(
                ["assets": AssetRoutes.identifiers, "permanently": Schema.boolean], required: ["assets"])),
        responses: [.json(200, "What was deleted.", Schema.ref("DeletedAssets"), changeToken: true)])

    @Sendable
    func deleteMany(_ request: Request, _ context: LightboxRequestContext) async throws -> Response {
        let library = try context.library().library
        let selection = try await request.decode(as: Selection.self, context: context)
        let ids = try Self.checked(selection.assets)
        let permanently = selection.permanently ?? false
        let token = try await library.performChanges { changes in
            permanently ? changes.purgeAssets(ids) : changes.deleteAssets(ids)
        }
        let current = try await LightboxServer.token(token, in: library)
        return try await LightboxServer.written(
            Deleted(changeToken: current, deleted: ids, permanently: permanently), token: current, in: library)
    }

    static let restoreManyOperation = APIOperation(
        "Brings assets back from Recently Deleted, into their albums.",
        body: .json(Schema.object(["assets": AssetRoutes.identifiers], required: ["assets"])),
        responses: [.json(200, "The assets restored.", Schema.ref("ChangedAssets"), changeToken: true)])

    @Sendable
    func restoreMany(_ request: Request, _ context: LightboxRequestContext) async throws -> Response {
        let library = try context.library().library
        let selection = try await request.decode(as: Selection.self, context: context)
        let ids = try Self.checked(selection.assets)
        let token = try await library.performChanges { $0.restoreAssets(ids) }
        let assets = try await ids.asyncMap { try await Self.asset($0, in: library) }
        let current = try await LightboxServer.token(token, in: library)
        return try await LightboxServer.written(
            Changed(changeToken: current, assets: assets), token: current, in: library)
    }

    static let originalOperation = APIOperation(
        "An original file, byte for byte, with its name, ETag and byte ranges.",
        details: """
            The photo, else the movie, by default; `type` names another: a Live Photo's `pairedVideo`, a RAW +
            JPEG pair's `alternatePhoto`. With `ETag`, `If-None-Match` and byte ranges.
            """,
        parameters: [
            .query(
                "type", Schema.string(["photo", "video", "pairedVideo", "alternatePhoto"]),
                "Which original (the photo, else the movie, by default).")
        ],
        responses: [
            .media(200, "The file.", ["*/*"]), .media(206, "A range of it.", ["*/*"]),
            .empty(304, "The client has it."),
        ])

    @Sendable
    func original(_ request: Request, _ context: LightboxRequestContext) async throws -> Response {
        let library = try context.library().library
        let asset = try await Self.asset(try context.parameters.require("id"), in: library)
        let resource: AssetResource?
        if let name = request.uri.formQuery.get("type").map({ String($0) }) {
            let originals: [String: AssetResourceType] = [
                "photo": .photo, "video": .video, "pairedVideo": .pairedVideo, "alternatePhoto": .alternatePhoto,
            ]
            guard let type = originals[name] else {
                throw HTTPError(.badRequest, message: "type must be photo, video, pairedVideo or alternatePhoto")
            }
            resource = asset.resource(ofType: type)
        } else {
            resource = asset.resource(ofType: .photo) ?? asset.resource(ofType: .video)
        }
        guard let resource else {
            throw HTTPError(.notFound, message: "asset \(asset.localIdentifier) has no such original")
        }
        return try await files.response(
            for: resource, in: library, request: request, context: context, attachment: resource.originalFilename)
    }

    static let downloadOperation = APIOperation(
        "The asset's file as it is now (an edit's render) or as imported.",
        details: """
            `current` is an edited photo's render (named after the original, with the render's extension) or an
            edited movie; `original` the file as imported.
            """,
        parameters: [.query("version", Schema.string(["current", "original"]), "current by default.")],
        responses: [
            .media(200, "The file.", ["*/*"]), .media(206, "A range of it.", ["*/*"]),
            .empty(304, "The client has it."),
        ])

    @Sendable
    func download(_ request: Request, _ context: LightboxRequestContext) async throws -> Response {
        let library = try context.library().library
        let asset = try await Self.asset(try context.parameters.require("id"), in: library)
        let version = request.uri.formQuery.get("version").map { String($0) } ?? "current"
        guard version == "current" || version == "original" else {
            throw HTTPError(.badRequest, message: "version must be current or original, not \(version)")
        }
        let original = asset.resource(ofType: .photo) ?? asset.resource(ofType: .video)
        let current =
            asset.resource(ofType: .fullSizePhoto) ?? asset.resource(ofType: .fullSizeVideo) ?? original
        guard let resource = version == "current" ? current : original, let original else {
            throw HTTPError(.notFound, message: "asset \(asset.localIdentifier) has no file")
        }
        // An edit is named after the photo it came from, with the render's extension.
        var name = original.originalFilename
        if resource.type != original.type {
            let base = PathString.deletingPathExtension(name)
            name = base + (resource.type == .fullSizePhoto ? ".jpg" : ".mov")
        }
        return try await files.response(
            for: resource, in: library, request: request, context: context, attachment: name)
    }

    /// A list of asset identifiers, as requests send them.
    static let identifiers = Schema.array(Schema.string(length: 1...200), count: 1...maximumBatch)

    /// The body of a change to one asset, or (`many`) to those it lists.
    static func changeSchema(many: Bool) -> JSONValue {
        var properties: [String: JSONValue] = [
            "favorite": Schema.boolean, "hidden": Schema.boolean,
            "rating": Schema.integer(-1...5).merging(["description": "0: none, -1: rejected."]),
        ]
        if many { properties["assets"] = identifiers }
        return Schema.object(properties, required: many ? ["assets"] : [])
    }

    /// Applies a change to assets in one transaction; its change token.
    static func apply(_ change: Change, to ids: [String], in library: PhotoLibrary) async throws
        -> PersistentChangeToken?
    {
        guard change.favorite != nil || change.hidden != nil || change.rating != nil else {
            throw HTTPError(.badRequest, message: "say what changes: favorite, hidden or rating")
        }
        if let rating = change.rating, !(-1...5).contains(rating) {
            throw HTTPError(.badRequest, message: "rating must be -1...5 (0: none, -1: rejected)")
        }
        return try await library.performChanges { changes in
            for id in ids {
                let request = changes.changeRequest(forAssetWithLocalIdentifier: id)
                if let favorite = change.favorite { request.isFavorite = favorite }
                if let hidden = change.hidden { request.isHidden = hidden }
                if let rating = change.rating { request.rating = rating }
            }
        }
    }

    /// A request's list of assets: 1 to ``maximumBatch`` identifiers, each named once.
    static func checked(_ ids: [String]) throws -> [String] {
        guard (1...maximumBatch).contains(ids.count) else {
            throw HTTPError(.badRequest, message: "assets lists 1 to \(maximumBatch) identifiers")
        }
        guard Set(ids).count == ids.count else {
            throw HTTPError(.badRequest, message: "assets names an asset twice")
        }
        guard ids.allSatisfy({ (1...200).contains($0.utf8.count) }) else {
            throw HTTPError(.badRequest, message: "an asset identifier is 1 to 200 bytes")
        }
        return ids
    }

    static func asset(_ id: String, in library: PhotoLibrary) async throws -> Asset {
        guard let asset = try await library.asset(withLocalIdentifier: id) else {
            throw HTTPError(.notFound, message: "no asset has the identifier \(id)")
        }
        return asset
    }
}

extension Array {
    /// The elements transformed in order, awaiting each.
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        results.reserveCapacity(count)
        for element in self { results.append(try await transform(element)) }
        return results
    }
}
