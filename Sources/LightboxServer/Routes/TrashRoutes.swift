import Foundation
import Hummingbird
import Lightbox

/// Deleting, restoring and purging over HTTP (see `PhotoLibrary+Trash`). Each route's contract
/// is its `APIOperation` (docs/API.md).
struct TrashRoutes: Sendable {
    struct TrashPage: Encodable {
        var assets: [Asset]
        var next: String?
        var retentionDays: Double
    }

    struct Purged: Encodable {
        var purged: [String]
    }

    static let trashAssetOperation = APIOperation(
        "Moves an asset to Recently Deleted, or deletes it for good.",
        details: """
            To Recently Deleted, answering the asset with its `trashedDate`; `permanently=true` deletes it and
            its files for good (204).
            """,
        parameters: [
            .query("permanently", Schema.string(["true", "false", "1", "0"]), "For good, with its files.")
        ],
        responses: [
            .json(200, "The asset, in Recently Deleted.", Schema.ref("Asset"), changeToken: true),
            .empty(204, "Deleted for good.", changeToken: true),
        ])

    @Sendable
    func trashAsset(_ request: Request, _ context: LightboxRequestContext) async throws -> Response {
        let served = try context.library()
        let library = served.library
        let id = try context.parameters.require("id")
        guard try await library.asset(withLocalIdentifier: id) != nil else {
            throw HTTPError(.notFound, message: "no asset has the identifier \(id)")
        }
        let permanently = request.uri.formQuery.get("permanently").map { $0 == "true" || $0 == "1" } ?? false
        if permanently {
            let token = try await library.performChanges { $0.purgeAssets([id]) }
            return try await LightboxServer.noContent(token: token, in: library)
        }
        let token = try await library.performChanges { $0.deleteAssets([id]) }
        return try await Self.answer(id, library, token: token)
    }

    static let restoreAssetOperation = APIOperation(
        "Brings an asset back from Recently Deleted.",
        details: "Back into the albums it was in.",
        responses: [.json(200, "The asset.", Schema.ref("Asset"), changeToken: true)])

    @Sendable
    func restoreAsset(_ _: Request, _ context: LightboxRequestContext) async throws -> Response {
        let served = try context.library()
        let library = served.library
        let id = try context.parameters.require("id")
        let token = try await library.performChanges { $0.restoreAssets([id]) }
        return try await Self.answer(id, library, token: token)
    }

    static let trashOperation = APIOperation(
        "Recently Deleted, the last deleted first.",
        details: "With `retentionDays`, how long Recently Deleted keeps an asset.",
        parameters: [.limit, .after],
        responses: [.json(200, "The page.", Schema.ref("TrashPage"))])

    @Sendable
    func trash(_ request: Request, _ context: LightboxRequestContext) async throws -> Response {
        let served = try context.library()
        let library = served.library
        let query = request.uri.formQuery
        let limit = try query.limit(
            default: LightboxServer.defaultPageSize, maximum: LightboxServer.maximumPageSize)
        let after = query.get("after").map { String($0) }
        let (trash, retention) = try await library.read { library in
            (
                try library.fetchAssetCollections(with: .smartAlbum, subtype: .smartAlbumRecentlyDeleted)
                    .firstObject,
                try library.trashRetention()
            )
        }
        guard let trash else {
            throw HTTPError(.internalServerError, message: "the library has no Recently Deleted album")
        }
        let assets = try await library.fetchAssetPage(
            inCollectionWithLocalIdentifier: trash.localIdentifier, options: FetchOptions(), from: .after(after),
            limit: limit + 1
        ).assets
        return try LightboxServer.jsonResponse(
            TrashPage(
                assets: Array(assets.prefix(limit)),
                next: assets.count > limit ? assets[limit - 1].localIdentifier : nil,
                retentionDays: retention / 86400))
    }

    static let emptyTrashOperation = APIOperation(
        "Empties Recently Deleted.",
        responses: [
            .json(
                200, "The assets purged.",
                Schema.object(["purged": Schema.array(Schema.string)], required: ["purged"]), changeToken: true)
        ])

    @Sendable
    func emptyTrash(_ _: Request, _ context: LightboxRequestContext) async throws -> Response {
        let served = try context.library()
        let library = served.library
        let purged = try await library.read { try $0.emptyTrash() }
        // The library's token once the purge has committed.
        return try await LightboxServer.written(Purged(purged: purged), token: nil, in: library)
    }

    private static func answer(_ id: String, _ library: PhotoLibrary, token: PersistentChangeToken?) async throws
        -> Response
    {
        guard let asset = try await library.asset(withLocalIdentifier: id) else {
            throw HTTPError(.notFound, message: "no asset has the identifier \(id)")
        }
        return try await LightboxServer.written(asset, token: token, in: library)
    }
}
