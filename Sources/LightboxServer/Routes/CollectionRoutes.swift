import Foundation
import Hummingbird
import Lightbox

/// Albums, smart albums, moments, folders and years over HTTP, read and changed. Each route's
/// contract is its `APIOperation` (docs/API.md).
struct CollectionRoutes: Sendable {
    /// A collection with its key asset.
    struct CollectionEntry: Encodable {
        var collection: AssetCollection
        var keyAssetIdentifier: String?

        private enum CodingKeys: String, CodingKey { case keyAssetIdentifier }

        func encode(to encoder: any Encoder) throws {
            try collection.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeIfPresent(keyAssetIdentifier, forKey: .keyAssetIdentifier)
        }
    }

    /// A list with the number of collections it holds.
    struct ListEntry: Encodable {
        var list: CollectionList
        var count: Int

        private enum CodingKeys: String, CodingKey { case count }

        func encode(to encoder: any Encoder) throws {
            try list.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(count, forKey: .count)
        }
    }

    /// What a list holds: a collection or a list, said by `kind`.
    struct Member: Encodable {
        var kind: String
        var collection: CollectionEntry?
        var list: ListEntry?

        private enum CodingKeys: String, CodingKey { case kind }

        func encode(to encoder: any Encoder) throws {
            try collection?.encode(to: encoder)
            try list?.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(kind, forKey: .kind)
        }
    }

    struct CollectionsPage: Encodable {
        var collections: [CollectionEntry]
        var next: String?
    }

    struct NewContainer: Decodable {
        var title: String
        var assets: [String]?
        var list: String?
    }

    struct Rename: Decodable {
        var title: String
    }

    struct Members: Decodable {
        var assets: [String]?
        var collections: [String]?
        var at: Int?
    }

    struct Move: Decodable {
        var from: [Int]
        var to: Int
    }

    /// The most collections one page holds.
    static let maximumPage = 1000

    static let collectionsOperation = APIOperation(
        "Albums, smart albums or moments, each with its count and key asset.",
        details: """
            Albums by default; `type` asks for smart albums or moments. Each comes with its count
            (`estimatedAssetCount`) and `keyAssetIdentifier`, the asset on its cover.
            """,
        parameters: [
            .query("type", Schema.string(["album", "smartAlbum", "moment"]), "album by default."),
            .query("predicate", Schema.string, "A predicate over collections."),
            .query("sort", Schema.string, "Sort descriptors."),
            .query("limit", Schema.integer(1...1000), "The most collections in the page."), .after,
        ],
        responses: [.json(200, "The page.", Schema.ref("CollectionPage"))])

    @Sendable
    func collections(_ request: Request, _ context: LightboxRequestContext) async throws -> Response {
        let library = try context.library().library
        let query = request.uri.formQuery
        let type = query.get("type").map { String($0) } ?? "album"
        let types: [String: AssetCollectionType] = ["album": .album, "smartAlbum": .smartAlbum, "moment": .moment]
        guard let collectionType = types[type] else {
            throw HTTPError(.badRequest, message: "type must be album, smartAlbum or moment, not \(type)")
        }
        var options = FetchOptions()
        options.predicate = try query.get("predicate").map { try FetchPredicate(String($0)) }
        options.sortDescriptors = try query.get("sort").map { try FetchSortDescriptor.parse(String($0)) } ?? []
        let limit = try query.limit(default: Self.maximumPage, maximum: Self.maximumPage)
        let after = query.get("after").map { String($0) }
        let fetch = options
        let page = try await library.read { library in
            let result = try library.fetchAssetCollections(with: collectionType, options: fetch)
            var start = 0
            if let after {
                guard let index = (0..<result.count).first(where: { result[$0].localIdentifier == after }) else {
                    throw LibraryError(.collectionNotFound, "no collection \(after) in this list to page after")
                }
                start = index + 1
            }
            let end = min(result.count, start + limit)
            let collections = try result.objects(at: start..<end).map { try Self.entry($0, in: library) }
            return CollectionsPage(
                collections: collections,
                next: end < result.count ? collections.last?.collection.localIdentifier : nil)
        }
        return try LightboxServer.jsonResponse(page)
    }

    static let collectionOperation = APIOperation(
        "One collection.", responses: [.json(200, "The collection.", Schema.ref("Collection"))])

    @Sendable
    func collection(_ _: Request, _ context: LightboxRequestContext) async throws -> Response {
        let library = try context.library().library
        let id = try context.parameters.require("id")
        return try LightboxServer.jsonResponse(try await library.read { try Self.entry(id, in: $0) })
    }

    static let collectionTimelineOperation = APIOperation(
        """
        A collection's assets as runs of days, in its order (and, asked, each one's shape): its \
        rows laid out before its pages are read, as `/api/timeline` gives the library's.
        """,
        details: """
            Runs of days in the collection's own order, as `/api/timeline` gives the library's; with
            `aspects=true`, each asset's shape.
            """,
        parameters: [AssetRoutes.aspectsParameter],
        responses: [.json(200, "The days, in the collection's order.", Schema.ref("Timeline"))])

    @Sendable
    func collectionTimeline(_ request: Request, _ context: LightboxRequestContext) async throws -> Response {
        let library = try context.library().library
        let id = try context.parameters.require("id")
        let aspects = AssetRoutes.Timeline.wantsAspects(request.uri.formQuery)
        let days = try await library.read {
            try $0.fetchAssets(inCollectionWithLocalIdentifier: id, options: FetchOptions())
                .creationDays(aspectRatios: aspects)
        }
        return try LightboxServer.jsonResponse(AssetRoutes.Timeline(days, aspects: aspects))
    }

    static let collectionAssetsOperation = APIOperation(
        "A collection's assets, in its order.", parameters: [.limit, .after, .offset, .at],
        responses: [.json(200, "The page.", Schema.ref("AssetPage"))])

    @Sendable
    func collectionAssets(_ request: Request, _ context: LightboxRequestContext) async throws -> Response {
        let library = try context.library().library
        let id = try context.parameters.require("id")
        let query = request.uri.formQuery
        let limit = try query.limit(
            default: LightboxServer.defaultPageSize, maximum: LightboxServer.maximumPageSize)
        let page = try await library.fetchAssetPage(
            inCollectionWithLocalIdentifier: id, options: FetchOptions(), from: try query.pageStart(),
            limit: limit + 1)
        return try LightboxServer.jsonResponse(AssetPage(page, limit: limit))
    }

    static let makeAlbumOperation = APIOperation(
        "Makes an album, with assets and in a folder if asked.",
        details: """
            `assets` and `list` are optional: the album's first assets, and the folder it goes in. A
            title another album has, case aside, is refused (400).
            """,
        body: .json(
            Schema.object(
                [
                    "title": Schema.string(length: 1...500), "assets": AssetRoutes.identifiers,
                    "list": Schema.string,
                ],
                required: ["title"])),
        responses: [.json(201, "The album.", Schema.ref("Collection"), changeToken: true)])

    @Sendable
    func makeAlbum(_ request: Request, _ context: LightboxRequestContext) async throws -> Response {
        let library = try context.library().library
        let body = try await request.decode(as: NewContainer.self, context: context)
        let title = try Self.checkedTitle(body.title)
        let assets = try body.assets.map(AssetRoutes.checked) ?? []
        var id = ""
        let token = try await library.performChanges { changes in
            let album = changes.creationRequestForAssetCollection(withTitle: title)
            if !assets.isEmpty { album.addAssets(assets) }
            id = album.localIdentifier
            if let list = body.list {
                changes.changeRequest(forCollectionListWithLocalIdentifier: list).addChildCollections([id])
            }
        }
        let createdID = id
        let created = try await library.read { try Self.entry(createdID, in: $0) }
        return try await LightboxServer.written(created, token: token, in: library, status: .created)
    }

    static let renameAlbumOperation = APIOperation(
        "Renames an album.",
        details: "A title another album has, case aside, is refused (400).",
        body: .json(Schema.object(["title": Schema.string(length: 1...500)], required: ["title"])),
        responses: [.json(200, "The album.", Schema.ref("Collection"), changeToken: true)])

    @Sendable
    func renameAlbum(_ request: Request, _ context: LightboxRequestContext) async throws -> Response {
        let library = try context.library().library
        let id = try context.parameters.require("id")
        let title = try Self.checkedTitle(try await request.decode(as: Rename.self, context: context).title)
        let token = try await library.performChanges {
            $0.changeRequest(forAssetCollectionWithLocalIdentifier: id).title = title
        }
        return try await LightboxServer.written(
            try await library.read { try Self.entry(id, in: $0) }, token: token, in: library)
    }

    static let deleteAlbumOperation = APIOperation(
        "Deletes an album; its assets stay in the library.",
        details: "The assets stay in the library.",
        responses: [.empty(204, "Deleted.", changeToken: true)])

    @Sendable
    func deleteAlbum(_ _: Request, _ context: LightboxRequestContext) async throws -> Response {
        let library = try context.library().library
        let id = try context.parameters.require("id")
        _ = try await library.read { try Self.entry(id, in: $0) }
        let token = try await library.performChanges { $0.deleteAssetCollections([id]) }
        return try await LightboxServer.noContent(token: token, in: library)
    }

    static let addAssetsOperation = APIOperation(
        "Adds assets to an album, at the end or at an index.",
        details: "At the end, or before the index `at`.",
        body: .json(
            Schema.object(
                ["assets": AssetRoutes.identifiers, "at": Schema.integer(0...1_000_000)], required: ["assets"])),
        responses: [.json(200, "The album.", Schema.ref("Collection"), changeToken: true)])

    @Sendable
    func addAssets(_ request: Request, _ context: LightboxRequestContext) async throws -> Response {
        try await Self.changeAlbum(request, context) { album, body in
            let assets = try AssetRoutes.checked(body.assets ?? [])
            if let at = body.at {
                album.insertAssets(assets, at: Array(at..<(at + assets.count)))
            } else {
                album.addAssets(assets)
            }
        }
    }

    static let removeAssetsOperation = APIOperation(
        "Takes assets out of an album.",
        body: .json(Schema.object(["assets": AssetRoutes.identifiers], required: ["assets"])),
        responses: [.json(200, "The album.", Schema.ref("Collection"), changeToken: true)])

    @Sendable
    func removeAssets(_ request: Request, _ context: LightboxRequestContext) async throws -> Response {
        try await Self.changeAlbum(request, context) { album, body in
            album.removeAssets(try AssetRoutes.checked(body.assets ?? []))
        }
    }

    static let moveAssetsOperation = APIOperation(
        "Reorders an album: the assets at `from` move so the first lands at `to`.",
        details: """
            `{"from": [indexes], "to": INDEX}`, as PhotoKit's `moveAssets(at:to:)`.
            """,
        body: .json(
            Schema.object(
                [
                    "from": Schema.array(Schema.integer(0...1_000_000), count: 1...1000),
                    "to": Schema.integer(0...1_000_000),
                ], required: ["from", "to"])),
        responses: [.json(200, "The album.", Schema.ref("Collection"), changeToken: true)])

    @Sendable
    func moveAssets(_ request: Request, _ context: LightboxRequestContext) async throws -> Response {
        let library = try context.library().library
        let id = try context.parameters.require("id")
        let move = try await request.decode(as: Move.self, context: context)
        try Self.checkedMove(move)
        let token = try await library.performChanges {
            $0.changeRequest(forAssetCollectionWithLocalIdentifier: id).moveAssets(at: move.from, to: move.to)
        }
        return try await LightboxServer.written(
            try await library.read { try Self.entry(id, in: $0) }, token: token, in: library)
    }

    static let foldersOperation = APIOperation(
        "Folders, years or clusters of moments, each with the number of collections it holds.",
        details: """
            `type` is `folder` (by default), `year` or `cluster`; each with `count`, the collections it holds.
            """,
        parameters: [.query("type", Schema.string(["folder", "year", "cluster"]), "folder by default.")],
        responses: [
            .json(
                200, "The lists.",
                Schema.object(["lists": Schema.array(Schema.ref("List"))], required: ["lists"]))
        ])

    @Sendable
    func folders(_ request: Request, _ context: LightboxRequestContext) async throws -> Response {
        let library = try context.library().library
        let type = request.uri.formQuery.get("type").map { String($0) } ?? "folder"
        let selections: [String: (CollectionListType, CollectionListSubtype)] = [
            "folder": (.folder, .any), "year": (.momentList, .momentListYear),
            "cluster": (.momentList, .momentListCluster),
        ]
        guard let (listType, subtype) = selections[type] else {
            throw HTTPError(.badRequest, message: "type must be folder, year or cluster, not \(type)")
        }
        let lists = try await library.read { library in
            let result = try library.fetchCollectionLists(with: listType, subtype: subtype)
            return try result.objects(at: 0..<result.count).map {
                ListEntry(list: $0, count: try library.fetchCollections(in: $0).count)
            }
        }
        return try LightboxServer.jsonResponse(["lists": lists])
    }

    static let folderContentsOperation = APIOperation(
        "What a list holds, in its order (`top`: the albums and folders in no folder).",
        details: """
            In the list's order, each with `kind` (`album`, `folder`, `moment`); `top` is the albums and folders
            in no folder.
            """,
        responses: [
            .json(
                200, "The collections and lists.",
                Schema.object(
                    ["collections": Schema.array(Schema.ref("ListMember"))], required: ["collections"]))
        ])

    @Sendable
    func folderContents(_ _: Request, _ context: LightboxRequestContext) async throws -> Response {
        let library = try context.library().library
        let id = try context.parameters.require("id")
        let members = try await library.read { library in
            let children =
                id == "top"
                ? try library.fetchTopLevelUserCollections()
                : try library.fetchCollections(in: try Self.list(id, in: library))
            return try children.objects(at: 0..<children.count).map { child -> Member in
                switch child {
                case .assetCollection(let collection):
                    return Member(
                        kind: collection.assetCollectionType == .moment ? "moment" : "album",
                        collection: try Self.entry(collection, in: library))
                case .collectionList(let list):
                    return Member(
                        kind: "folder",
                        list: ListEntry(list: list, count: try library.fetchCollections(in: list).count))
                }
            }
        }
        return try LightboxServer.jsonResponse(["collections": members])
    }

    static let makeFolderOperation = APIOperation(
        "Makes a folder, inside another if asked.",
        details:
            "Inside another folder when `list` names one. A title another folder has, case aside, is refused (400).",
        body: .json(
            Schema.object(
                ["title": Schema.string(length: 1...500), "list": Schema.string], required: ["title"])),
        responses: [.json(201, "The folder.", Schema.ref("List"), changeToken: true)])

    @Sendable
    func makeFolder(_ request: Request, _ context: LightboxRequestContext) async throws -> Response {
        let library = try context.library().library
        let body = try await request.decode(as: NewContainer.self, context: context)
        let title = try Self.checkedTitle(body.title)
        var id = ""
        let token = try await library.performChanges { changes in
            let folder = changes.creationRequestForCollectionList(withTitle: title)
            id = folder.localIdentifier
            if let parent = body.list {
                changes.changeRequest(forCollectionListWithLocalIdentifier: parent).addChildCollections([id])
            }
        }
        let createdID = id
        return try await LightboxServer.written(
            try await library.read { try Self.listEntry(createdID, in: $0) }, token: token, in: library,
            status: .created
        )
    }

    static let renameFolderOperation = APIOperation(
        "Renames a folder.",
        details: "A title another folder has, case aside, is refused (400).",
        body: .json(Schema.object(["title": Schema.string(length: 1...500)], required: ["title"])),
        responses: [.json(200, "The folder.", Schema.ref("List"), changeToken: true)])

    @Sendable
    func renameFolder(_ request: Request, _ context: LightboxRequestContext) async throws -> Response {
        let library = try context.library().library
        let id = try context.parameters.require("id")
        let title = try Self.checkedTitle(try await request.decode(as: Rename.self, context: context).title)
        let token = try await library.performChanges {
            $0.changeRequest(forCollectionListWithLocalIdentifier: id).title = title
        }
        return try await LightboxServer.written(
            try await library.read { try Self.listEntry(id, in: $0) }, token: token, in: library)
    }

    static let deleteFolderOperation = APIOperation(
        "Deletes a folder.", responses: [.empty(204, "Deleted.", changeToken: true)])

    @Sendable
    func deleteFolder(_ _: Request, _ context: LightboxRequestContext) async throws -> Response {
        let library = try context.library().library
        let id = try context.parameters.require("id")
        _ = try await library.read { try Self.list(id, in: $0) }
        let token = try await library.performChanges { $0.deleteCollectionLists([id]) }
        return try await LightboxServer.noContent(token: token, in: library)
    }

    static let addToFolderOperation = APIOperation(
        "Moves albums and folders into a folder (out of the one they were in).",
        details: """
            Albums and folders moved into this folder, out of where they were, at the end or before `at`.
            """,
        body: .json(
            Schema.object(
                ["collections": AssetRoutes.identifiers, "at": Schema.integer(0...1_000_000)],
                required: ["collections"])),
        responses: [.json(200, "The folder.", Schema.ref("List"), changeToken: true)])

    @Sendable
    func addToFolder(_ request: Request, _ context: LightboxRequestContext) async throws -> Response {
        let library = try context.library().library
        let id = try context.parameters.require("id")
        let body = try await request.decode(as: Members.self, context: context)
        let children = try Self.checkedCollections(body.collections)
        try Self.checkedIndex(body.at)
        // Each child leaves the folder it was in, in the same transaction.
        let parents = try await library.read { library in
            try children.map { child -> String? in
                let collection: PhotoCollection
                if let album = try library.fetchAssetCollections(withLocalIdentifiers: [child]).firstObject {
                    collection = .assetCollection(album)
                } else if let folder = try library.fetchCollectionLists(withLocalIdentifiers: [child]).firstObject {
                    collection = .collectionList(folder)
                } else {
                    throw LibraryError(.collectionNotFound, "no album or folder has the identifier \(child)")
                }
                return try library.fetchCollectionListsContaining(collection).firstObject?.localIdentifier
            }
        }
        let token = try await library.performChanges { changes in
            for (child, parent) in zip(children, parents) {
                if let parent {
                    changes.changeRequest(forCollectionListWithLocalIdentifier: parent).removeChildCollections([
                        child
                    ])
                }
            }
            let folder = changes.changeRequest(forCollectionListWithLocalIdentifier: id)
            if let at = body.at {
                folder.insertChildCollections(children, at: Array(at..<(at + children.count)))
            } else {
                folder.addChildCollections(children)
            }
        }
        return try await LightboxServer.written(
            try await library.read { try Self.listEntry(id, in: $0) }, token: token, in: library)
    }

    static let removeFromFolderOperation = APIOperation(
        "Takes albums and folders out of a folder, to the top level.",
        details: "Out to the top level.",
        body: .json(Schema.object(["collections": AssetRoutes.identifiers], required: ["collections"])),
        responses: [.json(200, "The folder.", Schema.ref("List"), changeToken: true)])

    @Sendable
    func removeFromFolder(_ request: Request, _ context: LightboxRequestContext) async throws -> Response {
        let library = try context.library().library
        let id = try context.parameters.require("id")
        let body = try await request.decode(as: Members.self, context: context)
        let children = try Self.checkedCollections(body.collections)
        let token = try await library.performChanges {
            $0.changeRequest(forCollectionListWithLocalIdentifier: id).removeChildCollections(children)
        }
        return try await LightboxServer.written(
            try await library.read { try Self.listEntry(id, in: $0) }, token: token, in: library)
    }

    static let moveInFolderOperation = APIOperation(
        "Reorders a folder, or with `top` the albums and folders in no folder.",
        details: "`top` reorders the top level (204).",
        body: .json(
            Schema.object(
                [
                    "from": Schema.array(Schema.integer(0...1_000_000), count: 1...1000),
                    "to": Schema.integer(0...1_000_000),
                ], required: ["from", "to"])),
        responses: [
            .json(200, "The folder.", Schema.ref("List"), changeToken: true),
            .empty(204, "The top level reordered.", changeToken: true),
        ])

    @Sendable
    func moveInFolder(_ request: Request, _ context: LightboxRequestContext) async throws -> Response {
        let library = try context.library().library
        let id = try context.parameters.require("id")
        let move = try await request.decode(as: Move.self, context: context)
        try Self.checkedMove(move)
        if id == "top" {
            let token = try await library.performChanges {
                $0.changeRequestForTopLevelCollections().moveChildCollections(at: move.from, to: move.to)
            }
            return try await LightboxServer.noContent(token: token, in: library)
        }
        let token = try await library.performChanges {
            $0.changeRequest(forCollectionListWithLocalIdentifier: id).moveChildCollections(
                at: move.from, to: move.to)
        }
        return try await LightboxServer.written(
            try await library.read { try Self.listEntry(id, in: $0) }, token: token, in: library)
    }

    /// Changes an album's assets as `body` says, in one transaction; answers the album.
    private static func changeAlbum(
        _ request: Request, _ context: LightboxRequestContext,
        _ change: @escaping (AssetCollectionChangeRequest, Members) throws -> Void
    ) async throws -> Response {
        let library = try context.library().library
        let id = try context.parameters.require("id")
        let body = try await request.decode(as: Members.self, context: context)
        try checkedIndex(body.at)
        var failure: (any Error)?
        let token = try await library.performChanges { changes in
            do {
                try change(changes.changeRequest(forAssetCollectionWithLocalIdentifier: id), body)
            } catch {
                failure = error
                throw error
            }
        }
        if let failure { throw failure }
        return try await LightboxServer.written(
            try await library.read { try entry(id, in: $0) }, token: token, in: library)
    }

    /// The collection with this identifier (an album, a smart album or a moment) and its key asset.
    static func entry(_ id: String, in library: PhotoLibrary) throws -> CollectionEntry {
        if id.hasPrefix("moment-") {
            guard let moment = try library.fetchMoments().first(where: { $0.localIdentifier == id }) else {
                throw LibraryError(.collectionNotFound, "no moment has the identifier \(id)")
            }
            return try entry(moment, in: library)
        }
        guard let collection = try library.fetchAssetCollections(withLocalIdentifiers: [id]).firstObject else {
            throw LibraryError(.collectionNotFound, "no album has the identifier \(id)")
        }
        return try entry(collection, in: library)
    }

    static func entry(_ collection: AssetCollection, in library: PhotoLibrary) throws -> CollectionEntry {
        // An empty collection has no cover: not looked for (a smart album's search for its first
        // asset walks every asset when there is none).
        guard collection.estimatedAssetCount > 0 else { return CollectionEntry(collection: collection) }
        do {
            return CollectionEntry(
                collection: collection,
                keyAssetIdentifier: try library.fetchKeyAssets(in: collection).firstObject?.localIdentifier)
        } catch let error as LibraryError where error.code == .collectionNotFound {
            // Deleted since the fetch that listed it (each fetch reads the library as it is
            // then): listed as that fetch saw it, without a cover.
            return CollectionEntry(collection: collection)
        }
    }

    static func list(_ id: String, in library: PhotoLibrary) throws -> CollectionList {
        if let list = try library.fetchCollectionLists(withLocalIdentifiers: [id]).firstObject { return list }
        for subtype in [CollectionListSubtype.momentListYear, .momentListCluster] {
            if let list = try library.fetchMomentLists(subtype).first(where: { $0.localIdentifier == id }) {
                return list
            }
        }
        throw LibraryError(.collectionNotFound, "no folder has the identifier \(id)")
    }

    static func listEntry(_ id: String, in library: PhotoLibrary) throws -> ListEntry {
        let list = try list(id, in: library)
        return ListEntry(list: list, count: try library.fetchCollections(in: list).count)
    }

    static func checkedTitle(_ title: String) throws -> String {
        let trimmed = title.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...500).contains(trimmed.count), !trimmed.contains(where: \.isNewline) else {
            throw HTTPError(.badRequest, message: "a title is 1 to 500 characters on one line")
        }
        return trimmed
    }

    static func checkedCollections(_ ids: [String]?) throws -> [String] {
        let ids = ids ?? []
        guard (1...AssetRoutes.maximumBatch).contains(ids.count), Set(ids).count == ids.count else {
            throw HTTPError(
                .badRequest, message: "collections lists 1 to \(AssetRoutes.maximumBatch) identifiers, each once")
        }
        return ids
    }

    /// The most an index of an album or folder may be; past any real one, and far from
    /// overflowing when the members' count is added to it.
    static let maximumIndex = 1_000_000

    /// An insertion index from a request: absent, or 0...``maximumIndex``.
    static func checkedIndex(_ index: Int?) throws {
        if let index, !(0...maximumIndex).contains(index) {
            throw HTTPError(.badRequest, message: "at must be 0...\(maximumIndex)")
        }
    }

    static func checkedMove(_ move: Move) throws {
        guard (1...AssetRoutes.maximumBatch).contains(move.from.count), (0...maximumIndex).contains(move.to),
            move.from.allSatisfy({ (0...maximumIndex).contains($0) })
        else {
            throw HTTPError(
                .badRequest, message: "from lists 1 to \(AssetRoutes.maximumBatch) indexes and to is 0 or more")
        }
    }
}
