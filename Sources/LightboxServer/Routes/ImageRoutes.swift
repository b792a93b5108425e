import Foundation
import Hummingbird
import Lightbox
import LightboxImaging

/// The image manager over HTTP: images at any size with their delivery modes, a photo's bytes
/// as stored, and preparing images ahead. Each route's contract is its `APIOperation`
/// (docs/API.md).
package enum ImageRoutes {
    static func add(to routes: Routes) {
        routes.get(
            "/api/assets/:id/image",
            doc: APIOperation(
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
        ) { request, context in
            let served = try context.library()
            let library = served.library
            let images = served.images
            let id = try context.parameters.require("id")
            let query = request.uri.formQuery
            let (size, mode, options) = try parameters(query)
            let delivery = query.get("delivery").map { String($0) } ?? "high"
            guard ["high", "fast", "opportunistic"].contains(delivery) else {
                throw HTTPError(.badRequest, message: "delivery must be high, fast or opportunistic")
            }
            guard let asset = try await library.recentAsset(withLocalIdentifier: id) else {
                throw HTTPError(.notFound, message: "no asset has the identifier \(id)")
            }
            var headers = HTTPFields()
            let key = try images.finalImageKey(for: asset, targetSize: size, contentMode: mode, options: options)
            let tag = key?.entityTag
            if delivery != "fast", let tag, request.hasEntityTag(tag) {
                headers[.eTag] = tag
                headers[.cacheControl] = "private, max-age=3600"
                return Response(status: .notModified, headers: headers)
            }
            let image: EncodedImage
            let source: ImageResultSource?
            let degraded: Bool
            // A final image a cache holds answers at once, whatever the delivery but fast: no
            // request, no stream (the route every grid tile asks, again and again).
            if delivery != "fast", let key, let hit = try await images.cachedImage(for: key) {
                (image, source, degraded) = (hit.image, hit.source, false)
            } else {
                // Fast, or opportunistic on a miss: the quick image now. The miss's final is then
                // prepared by the caching manager alone, so it is rendered once.
                var requestOptions = options
                requestOptions.deliveryMode = delivery == "high" ? .highQualityFormat : .fastFormat
                var answer: ImageResult?
                for await result in images.requestImage(
                    for: asset, targetSize: size, contentMode: mode, options: requestOptions)
                {
                    answer = result
                }
                guard let answer else {
                    throw HTTPError(.internalServerError, message: "the image request gave no result")
                }
                if let error = answer.info.error { throw error }
                guard let found = answer.image else {
                    throw HTTPError(.serviceUnavailable, message: "the image request was cancelled")
                }
                (image, source, degraded) = (found, answer.info.source, delivery != "high")
                if delivery == "opportunistic" {
                    images.startCachingImages(for: [asset], targetSize: size, contentMode: mode, options: options)
                }
            }
            headers[.contentType] = image.format.mimeType
            headers[.init("X-Lightbox-Degraded")!] = degraded ? "true" : "false"
            headers[.init("X-Lightbox-Source")!] = source?.rawValue ?? ""
            if degraded {
                headers[.cacheControl] = "no-store"
            } else {
                headers[.cacheControl] = "private, max-age=3600"
                if let tag { headers[.eTag] = tag }
            }
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: image.bytes)))
        }

        routes.get(
            "/api/assets/:id/data",
            doc: APIOperation(
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
        ) { request, context in
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

        routes.post(
            "/api/cache", access: .read,
            doc: APIOperation(
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
                            "mode": Schema.string,
                            "resize": Schema.string, "version": Schema.string, "format": Schema.string,
                        ], required: ["action"])),
                responses: [
                    .json(
                        200, "The images being prepared.",
                        Schema.object(["caching": Schema.integer], required: ["caching"]))
                ])
        ) { request, context in
            let served = try context.library()
            let library = served.library
            let images = served.images
            let body = try await request.decode(as: CacheRequest.self, context: context)
            switch body.action {
            case "stopAll":
                images.stopCachingImagesForAllAssets()
            case "start", "stop":
                var query: [String: String] = [:]
                query["w"] = body.w
                query["h"] = body.h
                query["mode"] = body.mode
                query["resize"] = body.resize
                query["version"] = body.version
                query["format"] = body.format
                let (size, mode, options) = try parameters(
                    Parameters(query.map { (Substring($0.key), Substring($0.value)) }))
                let identifiers = body.assets ?? []
                // A fetch reads SQLite: off the event loop.
                let assets = try await Task.detached {
                    let result = try library.fetchAssets(withLocalIdentifiers: identifiers)
                    return result.objects(at: 0..<result.count)
                }.value
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

    /// The size, content mode and options of an image or cache request.
    package static func parameters(_ query: Parameters) throws -> (PixelSize, ContentMode, ImageRequestOptions) {
        func side(_ key: String, default value: Int?) throws -> Int? {
            guard let text = query.get(key).map({ String($0) }) else { return value }
            if text == "max" { return ThumbnailOptions.maximumSide }
            guard let number = Int(text), (1...ImageManager.maximumTargetSide).contains(number) else {
                throw HTTPError(
                    .badRequest, message: "\(key) must be 1...\(ImageManager.maximumTargetSide) or max, not \(text)")
            }
            return number
        }
        let width = try side("w", default: 1024)!
        let height = try side("h", default: width)!
        func choice<T: RawRepresentable<String>>(_ key: String, _ fallback: T, _ allowed: String) throws -> T {
            guard let text = query.get(key).map({ String($0) }) else { return fallback }
            guard let value = T(rawValue: text) else {
                throw HTTPError(.badRequest, message: "\(key) must be \(allowed), not \(text)")
            }
            return value
        }
        let mode: ContentMode = try choice("mode", .aspectFit, "fit or fill")
        var options = ImageRequestOptions()
        options.resizeMode = try choice("resize", .fast, "none, fast or exact")
        options.version = try choice("version", .current, "current, unadjusted or original")
        options.format = try choice("format", .jpeg, "jpeg or webp")
        if let crop = query.get("crop").map({ String($0) }) {
            guard let rect = NormalizedRect(parsing: crop) else {
                throw HTTPError(.badRequest, message: "crop must be X,Y,W,H inside the unit square, not \(crop)")
            }
            options.normalizedCropRect = rect
        }
        if let quality = query.get("q").map({ String($0) }) {
            guard let value = Int(quality), (1...100).contains(value) else {
                throw HTTPError(.badRequest, message: "q must be 1...100, not \(quality)")
            }
            options.quality = value
        }
        return (PixelSize(width: width, height: height), mode, options)
    }
}

/// The body of `POST /api/cache`.
struct CacheRequest: Decodable {
    var action: String
    var assets: [String]?
    var w: String?
    var h: String?
    var mode: String?
    var resize: String?
    var version: String?
    var format: String?

    private enum CodingKeys: String, CodingKey { case action, assets, w, h, mode, resize, version, format }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        action = try container.decode(String.self, forKey: .action)
        assets = try container.decodeIfPresent([String].self, forKey: .assets)
        // Sizes may come as numbers or as "max".
        func text(_ key: CodingKeys) throws -> String? {
            if let number = try? container.decodeIfPresent(Int.self, forKey: key) { return String(number) }
            return try container.decodeIfPresent(String.self, forKey: key)
        }
        w = try text(.w)
        h = try text(.h)
        mode = try container.decodeIfPresent(String.self, forKey: .mode)
        resize = try container.decodeIfPresent(String.self, forKey: .resize)
        version = try container.decodeIfPresent(String.self, forKey: .version)
        format = try container.decodeIfPresent(String.self, forKey: .format)
    }
}
