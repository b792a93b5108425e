import Foundation
import Hummingbird
import Lightbox
import LightboxImaging

/// The image manager over HTTP: images at any size with their delivery modes, a photo's bytes
/// as stored, and preparing images ahead. Each route's contract is its `APIOperation`
/// (docs/API.md).
package struct ImageRoutes: Sendable {
    static let imageOperation = APIOperation(
        "An image of the asset at any size: the image manager.",
        details: """
            `delivery=high` (the default) answers the final image, from the caches or rendered, with an `ETag`
            (304 for a matching `If-None-Match`); `fast` one quick image resized from the thumbnails the library
            stored, in a millisecond or two (`Cache-Control: no-store`); `opportunistic` the final image when a
            cache has it, else the quick one while the final one renders, so that a `high` request a moment
            later is a hit. Every answer says `X-Lightbox-Degraded` and `X-Lightbox-Source` (memoryCache,
            diskCache, thumbnail, rendered). 503 with `Retry-After` when too many renders already wait.
            """,
        parameters: [
            .query("w", Schema.string, "Width in pixels (1...16384), or max; 1024 by default."),
            .query("h", Schema.string, "Height in pixels or max (the width by default)."),
            .query("mode", Schema.string(["fit", "fill"]), "fit by default."),
            .query("resize", Schema.string(["none", "fast", "exact"]), "fast by default."),
            .query("crop", Schema.string, "X,Y,W,H in unit coordinates of the upright image."),
            .query("version", Schema.string(["current", "unadjusted", "original"]), "current by default."),
            .query("delivery", Schema.string(["high", "fast", "opportunistic"]), "high by default."),
            .query("format", Schema.string(["jpeg", "webp"]), "jpeg by default."),
            .query("q", Schema.integer(1...100), "Quality, 82 by default."),
        ],
        responses: [
            .media(200, "The image.", ["image/jpeg", "image/webp"]), .empty(304, "The client has it."),
        ])

    @Sendable
    func image(_ request: Request, _ context: LightboxRequestContext) async throws -> Response {
        let served = try context.library()
        let library = served.library
        let images = served.images
        let id = try context.parameters.require("id")
        let (size, mode, options) = try ImageParameters(request.uri.formQuery).resolved(
            delivery: .highQualityFormat)
        guard let asset = try await library.recentAsset(withLocalIdentifier: id) else {
            throw HTTPError(.notFound, message: "no asset has the identifier \(id)")
        }
        var headers = HTTPFields()
        let delivery = try await images.deliverImage(
            for: asset, targetSize: size, contentMode: mode, options: options, holds: request.hasEntityTag)
        let delivered: DeliveredImage
        switch delivery {
        case .notModified(let tag):
            headers[.eTag] = tag
            headers[.cacheControl] = "private, max-age=3600"
            return Response(status: .notModified, headers: headers)
        case .delivered(let image):
            delivered = image
        }
        headers[.contentType] = delivered.image.format.mimeType
        headers[.init("X-Lightbox-Degraded")!] = delivered.isDegraded ? "true" : "false"
        headers[.init("X-Lightbox-Source")!] = delivered.source?.rawValue ?? ""
        if delivered.isDegraded {
            headers[.cacheControl] = "no-store"
        } else {
            headers[.cacheControl] = "private, max-age=3600"
            if let tag = delivered.entityTag { headers[.eTag] = tag }
        }
        return Response(
            status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: delivered.image.bytes)))
    }

    static let imageDataOperation = APIOperation(
        "The photo's bytes as stored and the orientation to show them in (requestImageDataAndOrientation).",
        details: """
            The current version is an edit's render when there is one. With `X-Lightbox-Orientation` (the EXIF
            orientation, 1 to 8) and `X-Lightbox-Uniform-Type-Identifier`; ranges and `If-None-Match` as for a
            download. A movie has none: 400.
            """,
        parameters: [
            .query("version", Schema.string(["current", "unadjusted", "original"]), "current by default.")
        ],
        responses: [
            .media(200, "The bytes; X-Lightbox-Orientation says how to turn them.", ["*/*"]),
            .media(206, "A range of them.", ["*/*"]), .empty(304, "The client has them."),
        ])

    @Sendable
    func imageData(_ request: Request, _ context: LightboxRequestContext) async throws -> Response {
        let served = try context.library()
        let asset = try await AssetRoutes.asset(try context.parameters.require("id"), in: served.library)
        let name = request.uri.formQuery.get("version").map { String($0) } ?? "current"
        let versions: [String: ImageRequestOptions.Version] = [
            "current": .current, "unadjusted": .unadjusted, "original": .original,
        ]
        guard let version = versions[name] else {
            throw HTTPError(.badRequest, message: "version must be current, unadjusted or original, not \(name)")
        }
        let (resource, orientation) = try await served.images.imageDataSource(for: asset, version: version)
        var response = try await ResourceFile().response(
            for: resource, in: served.library, request: request, context: context)
        response.headers[.init("X-Lightbox-Orientation")!] = String(orientation)
        response.headers[.init("X-Lightbox-Uniform-Type-Identifier")!] = resource.uniformTypeIdentifier
        return response
    }

    static let cacheOperation = APIOperation(
        "Starts or stops preparing images ahead of requests.",
        details: """
            The caching image manager, at background priority, with the image route's sizes and options: later
            requests for those images are memory hits. Answers how many images are being prepared.
            """,
        body: .json(
            Schema.object(
                [
                    "action": Schema.string(["start", "stop", "stopAll"]),
                    "assets": Schema.array(Schema.string),
                    "w": ["type": ["integer", "string"]], "h": ["type": ["integer", "string"]],
                    "mode": Schema.string, "resize": Schema.string, "version": Schema.string,
                    "format": Schema.string, "crop": Schema.string, "q": ["type": ["integer", "string"]],
                ], required: ["action"])),
        responses: [
            .json(
                200, "The images being prepared.",
                Schema.object(["caching": Schema.integer], required: ["caching"]))
        ])

    @Sendable
    func cache(_ request: Request, _ context: LightboxRequestContext) async throws -> Response {
        let served = try context.library()
        let library = served.library
        let images = served.images
        let body = try await request.decode(as: CacheRequest.self, context: context)
        switch body.action {
        case "stopAll":
            images.stopCachingImagesForAllAssets()
        case "start", "stop":
            let (size, mode, options) = try body.image.resolved(delivery: .opportunistic)
            let identifiers = body.assets ?? []
            let assets = try await library.read { library in
                let result = try library.fetchAssets(withLocalIdentifiers: identifiers)
                return result.objects(at: 0..<result.count)
            }
            if body.action == "start" {
                images.startCachingImages(for: assets, targetSize: size, contentMode: mode, options: options)
            } else {
                images.stopCachingImages(for: assets, targetSize: size, contentMode: mode, options: options)
            }
        default:
            throw HTTPError(.badRequest, message: "action must be start, stop or stopAll")
        }
        return try LightboxServer.jsonResponse(["caching": images.cachingCount])
    }
}

/// What an image or cache request asks for, as its query or its JSON body names it: sizes as
/// numbers or `max`, the rest as the words of docs/API.md. ``resolved(delivery:)`` checks each
/// and gives the image manager's own values.
package struct ImageParameters: Decodable {
    var w: String?
    var h: String?
    var mode: String?
    var resize: String?
    var version: String?
    var format: String?
    var crop: String?
    var q: String?
    var delivery: String?

    private enum CodingKeys: String, CodingKey { case w, h, mode, resize, version, format, crop, q, delivery }

    package init(_ query: Parameters) {
        func text(_ key: String) -> String? { query.get(key).map { String($0) } }
        (w, h, mode, resize, version) = (text("w"), text("h"), text("mode"), text("resize"), text("version"))
        (format, crop, q, delivery) = (text("format"), text("crop"), text("q"), text("delivery"))
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        // Sizes and quality may come as numbers or as text ("max").
        func text(_ key: CodingKeys) throws -> String? {
            if let number = try? container.decodeIfPresent(Int.self, forKey: key) { return String(number) }
            return try container.decodeIfPresent(String.self, forKey: key)
        }
        (w, h, q) = (try text(.w), try text(.h), try text(.q))
        mode = try container.decodeIfPresent(String.self, forKey: .mode)
        resize = try container.decodeIfPresent(String.self, forKey: .resize)
        version = try container.decodeIfPresent(String.self, forKey: .version)
        format = try container.decodeIfPresent(String.self, forKey: .format)
        crop = try container.decodeIfPresent(String.self, forKey: .crop)
        delivery = try container.decodeIfPresent(String.self, forKey: .delivery)
    }

    /// The size, content mode and options asked for, `delivery` where none is named; a 400
    /// naming the first parameter out of range.
    package func resolved(delivery fallback: ImageRequestOptions.DeliveryMode) throws -> (
        PixelSize, ContentMode, ImageRequestOptions
    ) {
        func side(_ key: String, _ text: String?, default value: Int?) throws -> Int? {
            guard let text else { return value }
            if text == "max" { return RenderOptions.maximumSide }
            guard let number = Int(text), (1...ImageManager.maximumTargetSide).contains(number) else {
                throw HTTPError(
                    .badRequest, message: "\(key) must be 1...\(ImageManager.maximumTargetSide) or max, not \(text)")
            }
            return number
        }
        let width = try side("w", w, default: 1024)!
        let height = try side("h", h, default: width)!
        func choice<T>(_ key: String, _ text: String?, _ values: [String: T], _ fallback: T) throws -> T {
            guard let text else { return fallback }
            guard let value = values[text] else {
                throw HTTPError(
                    .badRequest, message: "\(key) must be \(values.keys.sorted().joined(separator: ", ")), not \(text)")
            }
            return value
        }
        func raw<T: RawRepresentable<String> & CaseIterable>(_ key: String, _ text: String?, _ fallback: T) throws -> T
        {
            try choice(key, text, Dictionary(uniqueKeysWithValues: T.allCases.map { ($0.rawValue, $0) }), fallback)
        }
        let contentMode = try raw("mode", mode, ContentMode.aspectFit)
        var options = ImageRequestOptions()
        options.resizeMode = try raw("resize", resize, .fast)
        options.version = try raw("version", version, .current)
        options.format = try raw("format", format, .jpeg)
        options.deliveryMode = try choice(
            "delivery", delivery,
            ["high": .highQualityFormat, "fast": .fastFormat, "opportunistic": .opportunistic], fallback)
        if let crop {
            guard let rect = NormalizedRect(parsing: crop) else {
                throw HTTPError(.badRequest, message: "crop must be X,Y,W,H inside the unit square, not \(crop)")
            }
            options.normalizedCropRect = rect
        }
        if let q {
            guard let value = Int(q), (1...100).contains(value) else {
                throw HTTPError(.badRequest, message: "q must be 1...100, not \(q)")
            }
            options.quality = value
        }
        return (PixelSize(width: width, height: height), contentMode, options)
    }
}

/// The body of `POST /api/cache`: an action, the assets, and the image parameters of
/// `GET /api/assets/{id}/image` beside them.
struct CacheRequest: Decodable {
    var action: String
    var assets: [String]?
    var image: ImageParameters

    private enum CodingKeys: String, CodingKey { case action, assets }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        action = try container.decode(String.self, forKey: .action)
        assets = try container.decodeIfPresent([String].self, forKey: .assets)
        image = try ImageParameters(from: decoder)
    }
}
