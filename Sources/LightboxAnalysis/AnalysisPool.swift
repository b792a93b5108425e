import Foundation

/// What analyses a library's photos (their faces, their places): one analysis service, several
/// (``AnalysisPool``), or a test's own.
public protocol PhotoAnalyzing: Sendable {
    /// What answers: its face model (the library records it beside each face), its places'
    /// model, its limits, and how many analyses it takes at once.
    func describe() async throws(AnalysisError) -> AnalysisServiceInfo

    /// The faces in an image of `width` by `height` pixels given as 8-bit RGB rows, top to
    /// bottom, at most ``AnalysisServiceInfo/maximumSide`` a side.
    func faces(width: Int, height: Int, pixels: [UInt8]) async throws(AnalysisError) -> FaceAnalysis

    /// The place of each point, or none, at most ``AnalysisServiceInfo/maximumPoints`` points.
    func places(_ points: [GeoPoint]) async throws(AnalysisError) -> PlaceAnalysis

    /// The lines of text in an image given as ``faces(width:height:pixels:)`` takes it, at
    /// most ``AnalysisServiceInfo/maximumLines``.
    func text(width: Int, height: Int, pixels: [UInt8]) async throws(AnalysisError) -> TextAnalysis

    /// The things in an image given as ``faces(width:height:pixels:)`` takes it, at most
    /// ``AnalysisServiceInfo/maximumThings``.
    func things(width: Int, height: Int, pixels: [UInt8]) async throws(AnalysisError) -> ThingAnalysis

    /// The CLIP embedding of an image given as ``faces(width:height:pixels:)`` takes it.
    func clipImage(width: Int, height: Int, pixels: [UInt8]) async throws(AnalysisError) -> ClipEmbedding

    /// The CLIP embedding of a text, in the images' space.
    func clipText(_ text: String) async throws(AnalysisError) -> ClipEmbedding
}

extension PhotoAnalyzing {
    /// One that finds no places (its description names no places' model) refuses.
    public func places(_ points: [GeoPoint]) async throws(AnalysisError) -> PlaceAnalysis {
        throw AnalysisError(.refused, "this analysis finds no places")
    }

    /// One that reads no text (its description names no text model) refuses.
    public func text(width: Int, height: Int, pixels: [UInt8]) async throws(AnalysisError) -> TextAnalysis {
        throw AnalysisError(.refused, "this analysis reads no text")
    }

    /// One that finds no things (its description names no things model) refuses.
    public func things(width: Int, height: Int, pixels: [UInt8]) async throws(AnalysisError) -> ThingAnalysis {
        throw AnalysisError(.refused, "this analysis finds no things")
    }

    /// One that embeds nothing (its description names no CLIP model) refuses.
    public func clipImage(width: Int, height: Int, pixels: [UInt8]) async throws(AnalysisError) -> ClipEmbedding {
        throw AnalysisError(.refused, "this analysis embeds no images")
    }

    public func clipText(_ text: String) async throws(AnalysisError) -> ClipEmbedding {
        throw AnalysisError(.refused, "this analysis embeds no text")
    }
}

/// Several analysis services sharing a library's work (`--analysis URL`, given more than once):
/// each image goes to the service with the fewest analyses under way, and one a service cannot
/// take (unreachable, busy) to another. The services must run one face model, since a library
/// groups faces by their embeddings: one running another model than the first that answers is
/// left out, and said so.
public actor AnalysisPool: PhotoAnalyzing {
    private struct Member {
        var client: AnalysisClient
        var info: AnalysisServiceInfo?
        var running = 0
        /// Until when it is not asked, after a failure that may pass.
        var restingUntil: ContinuousClock.Instant?
    }

    private var members: [Member]
    private var described: AnalysisServiceInfo?
    /// Why a service was left out, for a log: one line each.
    public private(set) var leftOut: [String] = []

    /// How long a service that could not take an image rests before it is asked again.
    static let rest: Duration = .seconds(30)

    public init(_ clients: [AnalysisClient]) {
        members = clients.map { Member(client: $0) }
    }

    public func describe() async throws(AnalysisError) -> AnalysisServiceInfo {
        if let described { return described }
        var failures: [AnalysisError] = []
        for index in members.indices {
            do {
                members[index].info = try await members[index].client.info()
            } catch {
                failures.append(error)
            }
        }
        guard let first = members.compactMap(\.info).first else {
            throw AnalysisError(
                .unreachable,
                members.isEmpty
                    ? "no analysis service is configured"
                    : "no analysis service answered: " + failures.map(\.message).joined(separator: "; "),
                service: members.first?.client.url)
        }
        leftOut = failures.map(\.message)
        for index in members.indices {
            guard let info = members[index].info,
                info.faceModel != first.faceModel || info.dimensions != first.dimensions
            else { continue }
            leftOut.append(
                "\(members[index].client.url) runs the face model \(info.faceModel), not \(first.faceModel): left out")
            members[index].info = nil
        }
        let answering = members.compactMap(\.info)
        var combined = first
        combined.maximumSide = answering.map(\.maximumSide).min() ?? first.maximumSide
        combined.maximumFaces = answering.map(\.maximumFaces).min() ?? first.maximumFaces
        combined.concurrent = answering.reduce(0) { $0 + $1.concurrent }
        // Places come from the members that run the first's places model.
        let placing = answering.filter { $0.placeModel != nil && $0.placeModel == first.placeModel }
        combined.maximumPoints = placing.map(\.maximumPoints).min() ?? 0
        // Text, from those that run the first text model there is (a service without OCR's
        // package reads none, and others may).
        combined.textModel = answering.compactMap(\.textModel).first
        let reading = answering.filter { $0.textModel != nil && $0.textModel == combined.textModel }
        combined.maximumLines = reading.map(\.maximumLines).min() ?? 0
        combined.thingModel = answering.compactMap(\.thingModel).first
        let finding = answering.filter { $0.thingModel != nil && $0.thingModel == combined.thingModel }
        combined.maximumThings = finding.map(\.maximumThings).min() ?? 0
        // CLIP, from those that run the first model there is, as an operator gave it.
        let clip = answering.first { $0.clipModel != nil }
        (combined.clipModel, combined.clipDimensions) = (clip?.clipModel, clip?.clipDimensions ?? 0)
        described = combined
        return combined
    }

    public func faces(width: Int, height: Int, pixels: [UInt8]) async throws(AnalysisError) -> FaceAnalysis {
        let model = try await describe()
        var tried: Set<Int> = []
        var last: AnalysisError?
        while let index = choose(excluding: tried) {
            tried.insert(index)
            guard let info = members[index].info else { continue }
            members[index].running += 1
            let answer: FaceAnalysis
            do {
                answer = try await members[index].client.faces(width: width, height: height, pixels: pixels, info: info)
            } catch  where error.isTransient {
                members[index].running -= 1
                members[index].restingUntil = .now + Self.rest
                last = error
                continue
            } catch {
                members[index].running -= 1
                throw error
            }
            members[index].running -= 1
            guard answer.model == model.faceModel else {
                throw AnalysisError(
                    .badAnswer, "\(members[index].client.url) answered with \(answer.model), not \(model.faceModel)",
                    service: members[index].client.url)
            }
            return answer
        }
        throw last ?? AnalysisError(.unreachable, "every analysis service is resting after a failure")
    }

    public func places(_ points: [GeoPoint]) async throws(AnalysisError) -> PlaceAnalysis {
        try await served(\.placeModel, "finds places") { client, info async throws(AnalysisError) in
            try await client.places(points, info: info)
        }
    }

    public func text(width: Int, height: Int, pixels: [UInt8]) async throws(AnalysisError) -> TextAnalysis {
        try await served(\.textModel, "reads text") { client, info async throws(AnalysisError) in
            try await client.text(width: width, height: height, pixels: pixels, info: info)
        }
    }

    public func things(width: Int, height: Int, pixels: [UInt8]) async throws(AnalysisError) -> ThingAnalysis {
        try await served(\.thingModel, "finds things") { client, info async throws(AnalysisError) in
            try await client.things(width: width, height: height, pixels: pixels, info: info)
        }
    }

    public func clipImage(width: Int, height: Int, pixels: [UInt8]) async throws(AnalysisError) -> ClipEmbedding {
        try await served(\.clipModel, "embeds images") { client, info async throws(AnalysisError) in
            try await client.clipImage(width: width, height: height, pixels: pixels, info: info)
        }
    }

    public func clipText(_ text: String) async throws(AnalysisError) -> ClipEmbedding {
        try await served(\.clipModel, "embeds text") { client, info async throws(AnalysisError) in
            try await client.clipText(text, info: info)
        }
    }

    /// Asks the members that run the combined description's `model` (the first there is of
    /// that kind), as ``ask(_:what:_:)`` does; refused when none runs one.
    private func served<Answer: Sendable>(
        _ model: KeyPath<AnalysisServiceInfo, String?>, _ what: String,
        _ call: (AnalysisClient, AnalysisServiceInfo) async throws(AnalysisError) -> Answer
    ) async throws(AnalysisError) -> Answer {
        guard let wanted = try await describe()[keyPath: model] else {
            throw AnalysisError(.refused, "no analysis service \(what)", service: members.first?.client.url)
        }
        return try await ask({ $0[keyPath: model] == wanted }, what: what, call)
    }

    /// Asks the members that `serve` one after another, the least busy first, until one answers;
    /// one that cannot be reached or is busy rests, and another is asked.
    private func ask<Answer: Sendable>(
        _ serves: (AnalysisServiceInfo) -> Bool, what: String,
        _ call: (AnalysisClient, AnalysisServiceInfo) async throws(AnalysisError) -> Answer
    ) async throws(AnalysisError) -> Answer {
        var tried: Set<Int> = []
        var last: AnalysisError?
        while let index = choose(excluding: tried, serves) {
            tried.insert(index)
            guard let info = members[index].info else { continue }
            members[index].running += 1
            defer { members[index].running -= 1 }
            do {
                return try await call(members[index].client, info)
            } catch  where error.isTransient {
                members[index].restingUntil = .now + Self.rest
                last = error
            }
        }
        throw last ?? AnalysisError(.unreachable, "every analysis service that \(what) is resting after a failure")
    }

    /// The member to ask: one that answered its description (and `serves` what is asked), not
    /// resting, not tried for this request, with the fewest analyses under way for what it
    /// takes at once.
    private func choose(excluding tried: Set<Int>, _ serves: (AnalysisServiceInfo) -> Bool = { _ in true }) -> Int? {
        let now = ContinuousClock.now
        return members.indices.filter { index in
            guard let info = members[index].info else { return false }
            return !tried.contains(index) && serves(info)
                && (members[index].restingUntil.map { $0 <= now } ?? true)
        }.min { a, b in
            Double(members[a].running) / Double(max(1, members[a].info?.concurrent ?? 1))
                < Double(members[b].running) / Double(max(1, members[b].info?.concurrent ?? 1))
        }
    }
}
