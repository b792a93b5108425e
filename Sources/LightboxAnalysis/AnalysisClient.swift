import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// A client of one analysis service (docs/ANALYSIS.md, protocol 1): it sends pixels a library
/// decoded already and reads back what the service found, checked as any outside input is: a
/// service on another machine, or a model gone wrong, may answer anything.
public struct AnalysisClient: Sendable {
    /// The service's address, e.g. `http://127.0.0.1:8700`.
    public let url: URL
    private let http: HTTPClient

    /// The largest answer read: 64 faces of 128 numbers are about 100 KB.
    static let maximumAnswerBytes = 1 << 20

    public init(url: URL, http: HTTPClient = AnalysisClient.http) {
        self.url = url
        self.http = http
    }

    /// The process's client for analysis services: a refused connection fails at once (the
    /// caller tries another service or later), an analysis may take a minute on a busy machine.
    public static let http: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.timeout = .init(connect: .seconds(5), read: .seconds(120))
        configuration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    /// What the service runs: its protocol, its face model and its limits.
    public func info() async throws(AnalysisError) -> AnalysisServiceInfo {
        try Self.info(
            fromAnswer: try await send(HTTPClientRequest(url: address("/v1/info")), what: "its description"),
            service: url)
    }

    /// A `GET /v1/info` answer read and checked.
    public static func info(fromAnswer data: Data, service: URL) throws(AnalysisError) -> AnalysisServiceInfo {
        let wire: WireInfo
        do {
            wire = try JSONDecoder().decode(WireInfo.self, from: data)
        } catch {
            throw AnalysisError(.badAnswer, "\(service) answered no description of itself: \(error)", service: service)
        }
        return try wire.checked(service: service)
    }

    /// A `POST /v1/faces` answer read and checked against what the service said of itself.
    public static func faces(fromAnswer data: Data, info: AnalysisServiceInfo, service: URL) throws(AnalysisError)
        -> FaceAnalysis
    {
        let wire: WireFaces
        do {
            wire = try JSONDecoder().decode(WireFaces.self, from: data)
        } catch {
            throw AnalysisError(.badAnswer, "\(service) answered faces that do not read: \(error)", service: service)
        }
        return try wire.checked(info: info, service: service)
    }

    /// The faces in an image of `width` by `height` pixels given as 8-bit RGB rows, top to bottom
    /// (`pixels.count` is `width * height * 3`), at most `info.maximumFaces` of them.
    public func faces(width: Int, height: Int, pixels: [UInt8], info: AnalysisServiceInfo) async throws(AnalysisError)
        -> FaceAnalysis
    {
        let request = try imageRequest("/v1/faces", width: width, height: height, pixels: pixels, info: info)
        return try Self.faces(
            fromAnswer: try await send(request, what: "the faces of an image"), info: info, service: url)
    }

    /// A `POST /v1/text` answer read and checked against what the service said of itself.
    public static func text(fromAnswer data: Data, info: AnalysisServiceInfo, service: URL) throws(AnalysisError)
        -> TextAnalysis
    {
        let wire: WireLines
        do {
            wire = try JSONDecoder().decode(WireLines.self, from: data)
        } catch {
            throw AnalysisError(.badAnswer, "\(service) answered text that does not read: \(error)", service: service)
        }
        return try wire.checked(info: info, service: service)
    }

    /// The lines of text in an image given as ``faces(width:height:pixels:info:)`` takes it, at
    /// most `info.maximumLines` of them.
    public func text(width: Int, height: Int, pixels: [UInt8], info: AnalysisServiceInfo) async throws(AnalysisError)
        -> TextAnalysis
    {
        guard info.textModel != nil else { throw AnalysisError(.refused, "\(url) reads no text", service: url) }
        let request = try imageRequest("/v1/text", width: width, height: height, pixels: pixels, info: info)
        return try Self.text(
            fromAnswer: try await send(request, what: "the text of an image"), info: info, service: url)
    }

    /// A `POST /v1/things` answer read and checked against what the service said of itself.
    public static func things(fromAnswer data: Data, info: AnalysisServiceInfo, service: URL) throws(AnalysisError)
        -> ThingAnalysis
    {
        let wire: WireThings
        do {
            wire = try JSONDecoder().decode(WireThings.self, from: data)
        } catch {
            throw AnalysisError(.badAnswer, "\(service) answered things that do not read: \(error)", service: service)
        }
        return try wire.checked(info: info, service: service)
    }

    /// The things in an image given as ``faces(width:height:pixels:info:)`` takes it, at most
    /// `info.maximumThings` of them.
    public func things(width: Int, height: Int, pixels: [UInt8], info: AnalysisServiceInfo) async throws(AnalysisError)
        -> ThingAnalysis
    {
        guard info.thingModel != nil else { throw AnalysisError(.refused, "\(url) finds no things", service: url) }
        let request = try imageRequest("/v1/things", width: width, height: height, pixels: pixels, info: info)
        return try Self.things(
            fromAnswer: try await send(request, what: "the things of an image"), info: info, service: url)
    }

    /// A `POST /v1/clip/image` or `/v1/clip/text` answer read and checked against what the
    /// service said of itself.
    public static func embedding(fromAnswer data: Data, info: AnalysisServiceInfo, service: URL)
        throws(AnalysisError) -> ClipEmbedding
    {
        let wire: WireEmbedding
        do {
            wire = try JSONDecoder().decode(WireEmbedding.self, from: data)
        } catch {
            throw AnalysisError(
                .badAnswer, "\(service) answered an embedding that does not read: \(error)", service: service)
        }
        return try wire.checked(info: info, service: service)
    }

    /// The CLIP embedding of an image given as ``faces(width:height:pixels:info:)`` takes it.
    public func clipImage(width: Int, height: Int, pixels: [UInt8], info: AnalysisServiceInfo)
        async throws(AnalysisError) -> ClipEmbedding
    {
        guard info.clipModel != nil else { throw AnalysisError(.refused, "\(url) embeds no images", service: url) }
        let request = try imageRequest("/v1/clip/image", width: width, height: height, pixels: pixels, info: info)
        return try Self.embedding(
            fromAnswer: try await send(request, what: "the embedding of an image"), info: info, service: url)
    }

    /// The CLIP embedding of a text: what a person searches for, 1 to
    /// ``ClipEmbedding/maximumText`` characters.
    public func clipText(_ text: String, info: AnalysisServiceInfo) async throws(AnalysisError) -> ClipEmbedding {
        guard info.clipModel != nil else { throw AnalysisError(.refused, "\(url) embeds no text", service: url) }
        guard !text.isEmpty, text.count <= ClipEmbedding.maximumText else {
            throw AnalysisError(
                .invalidImage, "a text of \(text.count) characters is not one \(url) embeds (1 to 1000)", service: url)
        }
        let request = try jsonRequest("/v1/clip/text", ["text": text], what: "the text")
        return try Self.embedding(
            fromAnswer: try await send(request, what: "the embedding of a text"), info: info, service: url)
    }

    /// A request carrying an image's RGB rows, refused before it is sent when the image is not
    /// one the service takes.
    private func imageRequest(_ path: String, width: Int, height: Int, pixels: [UInt8], info: AnalysisServiceInfo)
        throws(AnalysisError) -> HTTPClientRequest
    {
        guard width > 0, height > 0, width <= info.maximumSide, height <= info.maximumSide,
            pixels.count == width * height * 3
        else {
            throw AnalysisError(
                .invalidImage,
                "an image of \(width)x\(height) pixels (\(pixels.count) bytes) is not one \(url) takes "
                    + "(at most \(info.maximumSide) pixels a side, 3 bytes a pixel)",
                service: url)
        }
        var request = HTTPClientRequest(url: address("\(path)?width=\(width)&height=\(height)"))
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/octet-stream")
        request.body = .bytes(ByteBuffer(bytes: pixels))
        return request
    }

    /// A `POST /v1/places` answer read and checked: a place or none for each of `count` points.
    public static func places(fromAnswer data: Data, count: Int, info: AnalysisServiceInfo, service: URL)
        throws(AnalysisError) -> PlaceAnalysis
    {
        let wire: WirePlaces
        do {
            wire = try JSONDecoder().decode(WirePlaces.self, from: data)
        } catch {
            throw AnalysisError(.badAnswer, "\(service) answered places that do not read: \(error)", service: service)
        }
        return try wire.checked(count: count, info: info, service: service)
    }

    /// The place of each point (none far from any), at most `info.maximumPoints` points.
    public func places(_ points: [GeoPoint], info: AnalysisServiceInfo) async throws(AnalysisError) -> PlaceAnalysis {
        guard info.placeModel != nil else {
            throw AnalysisError(.refused, "\(url) finds no places", service: url)
        }
        guard points.count <= info.maximumPoints, points.allSatisfy(\.isValid) else {
            throw AnalysisError(
                .invalidImage,
                "\(points.count) points are not what \(url) takes (at most \(info.maximumPoints), each in degrees)",
                service: url)
        }
        let request = try jsonRequest(
            "/v1/places", ["points": points.map { [$0.latitude, $0.longitude] }], what: "the points")
        return try Self.places(
            fromAnswer: try await send(request, what: "the places of \(points.count) points"), count: points.count,
            info: info, service: url)
    }

    /// A request carrying `body` as JSON.
    private func jsonRequest(_ path: String, _ body: some Encodable, what: String) throws(AnalysisError)
        -> HTTPClientRequest
    {
        let data: Data
        do {
            data = try JSONEncoder().encode(body)
        } catch {
            throw AnalysisError(.invalidImage, "\(what) could not be written: \(error)", service: url)
        }
        var request = HTTPClientRequest(url: address(path))
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: data))
        return request
    }

    private func address(_ path: String) -> String {
        var base = url.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        return base + path
    }

    private func send(_ request: HTTPClientRequest, what: String) async throws(AnalysisError) -> Data {
        let response: HTTPClientResponse
        do {
            response = try await http.execute(request, deadline: .now() + .minutes(2))
        } catch {
            throw AnalysisError(.unreachable, "\(url) could not be asked for \(what): \(error)", service: url)
        }
        let body: ByteBuffer
        do {
            body = try await response.body.collect(upTo: Self.maximumAnswerBytes)
        } catch {
            throw AnalysisError(
                .badAnswer, "\(url) answered more than \(Self.maximumAnswerBytes) bytes for \(what)", service: url)
        }
        let data = Data(body.readableBytesView)
        guard response.status == .ok else {
            let message = (try? JSONDecoder().decode(WireError.self, from: data))?.error ?? "no reason given"
            let code: AnalysisError.Code = response.status == .serviceUnavailable ? .busy : .refused
            throw AnalysisError(
                code, "\(url) refused \(what) (\(response.status.code)): \(message.prefix(300))", service: url)
        }
        return data
    }
}

extension AnalysisClient {
    /// Where a service just started listens: its first line (`{"listening": "http://HOST:PORT",
    /// "protocol": 1}`), read from its standard output, at most 4 KiB; nil when the line is
    /// not that (the service failed to start, or is not one).
    public static func listeningAddress(readingFrom output: FileHandle) throws -> URL? {
        var line = Data()
        while line.count < 4_096, let byte = try output.read(upToCount: 1), let first = byte.first, first != 0x0A {
            line.append(first)
        }
        guard let object = try? JSONSerialization.jsonObject(with: line) as? [String: Any],
            let address = object["listening"] as? String, let url = URL(string: address),
            ["http", "https"].contains(url.scheme ?? "")
        else { return nil }
        return url
    }
}
