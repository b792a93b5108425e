import Foundation
import Hummingbird
import Lightbox
import LightboxImaging

/// Editing over HTTP: an asset's edit, the installed editors, previews, saving and reverting.
/// Each route's contract is its `APIOperation` (docs/API.md).
struct EditRoutes: Sendable {
    struct EditBody: Decodable {
        var filters: [String]
        var mode: String?
        /// An installed editor's identifier: it makes the edit, the filters its settings.
        var editor: String?
        /// A preview's long side, to fit the view showing it (at most the display size).
        var maximumSide: Int?
    }

    /// The answer of `GET /api/assets/{id}/edits`.
    struct EditState: Encodable {
        var hasAdjustments: Bool
        var adjustmentFormatIdentifier: String?
        var formatVersion: String?
        var filters: [String]
        var canContinue: Bool
    }

    /// An installed editor as `GET /api/assets/{id}/editors` lists it.
    struct AssetEditor: Encodable {
        var editor: InstalledEditor
        var mayContinue: Bool

        func encode(to encoder: any Encoder) throws {
            try editor.encode(to: encoder)
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(mayContinue, forKey: .mayContinue)
        }

        enum Key: String, CodingKey { case mayContinue }
    }

    static let editOperation = APIOperation(
        "The asset's edit: its recipe when Lightbox can continue it.",
        details: """
            `filters` is the Lightbox recipe (`["exposure=0.5", ...]`) when `canContinue`: an edit view starts
            its sliders from it.
            """,
        responses: [.json(200, "The edit.", Schema.ref("EditState"))])

    @Sendable
    func edit(_ _: Request, _ context: LightboxRequestContext) async throws -> Response {
        let served = try context.library()
        let library = served.library
        let asset = try await Self.asset(try context.parameters.require("id"), in: library)
        var state = EditState(
            hasAdjustments: asset.hasAdjustments, adjustmentFormatIdentifier: asset.adjustmentFormatIdentifier,
            formatVersion: nil, filters: [], canContinue: true)
        if let data = try await library.adjustmentData(for: asset) {
            state.formatVersion = data.formatVersion
            state.filters = data.recipe?.filters.map(\.argument) ?? []
            state.canContinue = data.recipe != nil
        }
        return try LightboxServer.jsonResponse(state)
    }

    static let applyEditOperation = APIOperation(
        "Renders an edit at full size and saves it; the original stays.",
        details: """
            `replace` (the default) makes the filters the whole recipe, applied to the unedited photo; `append`
            adds them to the recipe the asset has. An edit by another editor is chained on either way. With
            `editor`, an installed editor makes the edit, the filters its settings. A movie and a Live Photo's
            movie are edited frame by frame. No filters is refused (400): `DELETE` reverts.
            """,
        body: .json(
            Schema.object(
                [
                    "filters": Schema.array(Schema.string, count: 0...100),
                    "mode": Schema.string(["replace", "append"]), "maximumSide": Schema.integer(16...8192),
                    "editor": Schema.string,
                ], required: ["filters"])),
        responses: [.json(200, "The asset edited.", Schema.ref("Asset"), changeToken: true)])

    @Sendable
    func applyEdit(_ request: Request, _ context: LightboxRequestContext) async throws -> Response {
        let served = try context.library()
        let library = served.library
        let body = try await request.decode(as: EditBody.self, context: context)
        if let identifier = body.editor {
            let asset = try await Self.asset(try context.parameters.require("id"), in: library)
            let installed = try library.installedEditor(identifier, for: asset, settings: body.filters)
            let edited = try await library.edit(asset, with: installed)
            return try await LightboxServer.written(edited, token: nil, in: library)
        }
        let (filters, replaces) = try Self.recipe(body)
        guard !filters.isEmpty else {
            throw HTTPError(
                .badRequest,
                message:
                    "filters is empty: an edit needs at least one filter (DELETE /api/assets/{id}/edits reverts)")
        }
        let asset = try await Self.asset(try context.parameters.require("id"), in: library)
        let editor = replaces ? RecipeEditor(replacingWith: filters) : RecipeEditor(adding: filters)
        let edited = try await library.edit(asset, with: editor)
        // The library's token once the edit has committed.
        return try await LightboxServer.written(edited, token: nil, in: library)
    }

    static let editorsOperation = APIOperation(
        "The installed editors: the system's, the user's and the library's own.",
        responses: [.json(200, "The editors.", Schema.array(Schema.ref("Editor")))])

    @Sendable
    func editors(_ _: Request, _ context: LightboxRequestContext) async throws -> Response {
        let served = try context.library()
        return try LightboxServer.jsonResponse(served.library.installedEditors().editors)
    }

    static let editorsOfAssetOperation = APIOperation(
        "The installed editors that can edit the asset.",
        details: "Each with `mayContinue`: it declares the format of the asset's edit.",
        responses: [.json(200, "The editors.", Schema.array(Schema.ref("Editor")))])

    @Sendable
    func editorsOfAsset(_ _: Request, _ context: LightboxRequestContext) async throws -> Response {
        let served = try context.library()
        let library = served.library
        let asset = try await Self.asset(try context.parameters.require("id"), in: library)
        let editors = library.installedEditors().editors(for: asset).map {
            AssetEditor(editor: $0, mayContinue: $0.mayContinue(asset))
        }
        return try LightboxServer.jsonResponse(editors)
    }

    static let revertOperation = APIOperation(
        "Reverts to the original.",
        responses: [.json(200, "The asset.", Schema.ref("Asset"), changeToken: true)])

    @Sendable
    func revert(_ _: Request, _ context: LightboxRequestContext) async throws -> Response {
        let served = try context.library()
        let library = served.library
        let asset = try await Self.asset(try context.parameters.require("id"), in: library)
        let token = try await library.performChanges {
            $0.changeRequest(for: asset).revertAssetContentToOriginal()
        }
        return try await LightboxServer.written(
            try await Self.asset(asset.localIdentifier, in: library), token: token, in: library)
    }

    static let previewOperation = APIOperation(
        "The display-size image with a recipe applied; nothing is saved.",
        details: """
            At the display size (2048 pixels), or `maximumSide` to fit the view sooner: what sliders redraw.
            """,
        body: .json(
            Schema.object(
                [
                    "filters": Schema.array(Schema.string, count: 0...100),
                    "mode": Schema.string(["replace", "append"]), "maximumSide": Schema.integer(16...8192),
                ], required: ["filters"])),
        responses: [.media(200, "The preview.", ["image/jpeg"])])

    @Sendable
    func preview(_ request: Request, _ context: LightboxRequestContext) async throws -> Response {
        let served = try context.library()
        let library = served.library
        let body = try await request.decode(as: EditBody.self, context: context)
        let (filters, replaces) = try Self.recipe(body)
        let asset = try await Self.asset(try context.parameters.require("id"), in: library)
        var recipe = EditRecipe(filters: filters)
        if !replaces, let inherited = try await Self.currentRecipe(of: asset, in: library) {
            recipe.filters = inherited + filters
        }
        if let side = body.maximumSide, !(16...8192).contains(side) {
            throw HTTPError(.badRequest, message: "maximumSide must be 16...8192")
        }
        let image = try await served.previews.preview(of: asset, recipe: recipe, maximumSide: body.maximumSide)
        var headers = HTTPFields()
        headers[.contentType] = image.format.mimeType
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: image.bytes)))
    }

    static func asset(_ id: String, in library: PhotoLibrary) async throws -> Asset {
        guard let asset = try await library.asset(withLocalIdentifier: id) else {
            throw HTTPError(.notFound, message: "no asset has the identifier \(id)")
        }
        return asset
    }

    /// The filters of a body, checked, and whether they replace the asset's recipe.
    static func recipe(_ body: EditBody) throws -> ([EditFilter], replaces: Bool) {
        let mode = body.mode ?? "replace"
        guard mode == "replace" || mode == "append" else {
            throw HTTPError(.badRequest, message: "mode must be replace or append")
        }
        do {
            return (try EditRecipe(parsing: body.filters).filters, mode == "replace")
        } catch {
            throw HTTPError(.badRequest, message: error.message)
        }
    }

    /// The asset's Lightbox recipe, when it has one Lightbox can continue.
    static func currentRecipe(of asset: Asset, in library: PhotoLibrary) async throws -> [EditFilter]? {
        try await library.adjustmentData(for: asset)?.recipe?.filters
    }
}
