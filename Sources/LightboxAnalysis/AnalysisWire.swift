import Foundation
import LightboxImaging

/// What an analysis service runs, as its `GET /v1/info` described it, checked.
public struct AnalysisServiceInfo: Sendable, Hashable {
    /// The protocol's version: 1.
    public var protocolVersion: Int
    /// The service's own version, for a person reading a log.
    public var version: String
    /// The face model's identifier: a library analyses again what another identifier answered.
    public var faceModel: String
    /// How many numbers a face's embedding has.
    public var dimensions: Int
    /// Below this distance two embeddings are likely the same person.
    public var sameFaceDistance: Double
    /// The longest side of an image the service takes.
    public var maximumSide: Int
    /// The most faces it answers for one image.
    public var maximumFaces: Int
    /// Analyses it runs at once.
    public var concurrent: Int
    /// The places' model's identifier, nil when the service finds no places.
    public var placeModel: String?
    /// The most points one request for places takes.
    public var maximumPoints: Int
    /// The text model's identifier, nil when the service reads no text.
    public var textModel: String?
    /// The most lines it answers for one image.
    public var maximumLines: Int
    /// The things' model identifier, nil when the service finds no things.
    public var thingModel: String?
    /// The most things it answers for one image.
    public var maximumThings: Int
    /// The CLIP model's identifier, nil when the service embeds nothing (no operator gave it one).
    public var clipModel: String?
    /// How many numbers its embeddings have.
    public var clipDimensions: Int

    public init(
        protocolVersion: Int = 1, version: String, faceModel: String, dimensions: Int, sameFaceDistance: Double,
        maximumSide: Int, maximumFaces: Int, concurrent: Int, placeModel: String? = nil, maximumPoints: Int = 0,
        textModel: String? = nil, maximumLines: Int = 0, thingModel: String? = nil, maximumThings: Int = 0,
        clipModel: String? = nil, clipDimensions: Int = 0
    ) {
        self.protocolVersion = protocolVersion
        self.version = version
        self.faceModel = faceModel
        self.dimensions = dimensions
        self.sameFaceDistance = sameFaceDistance
        self.maximumSide = maximumSide
        self.maximumFaces = maximumFaces
        self.concurrent = concurrent
        self.placeModel = placeModel
        self.maximumPoints = maximumPoints
        self.textModel = textModel
        self.maximumLines = maximumLines
        self.thingModel = thingModel
        self.maximumThings = maximumThings
        self.clipModel = clipModel
        self.clipDimensions = clipDimensions
    }
}

/// The protocol's JSON as it arrives: every field optional, so that what is missing is named.
struct WireInfo: Decodable {
    var `protocol`: Int?
    var version: String?
    var models: Models?
    var limits: Limits?

    struct Models: Decodable {
        var faces: FaceModel?
        var places: PlaceModel?
        var text: PlaceModel?
        var things: PlaceModel?
        var clip: FaceModel?
    }
    /// A model known by its identifier alone (places, text).
    struct PlaceModel: Decodable { var id: String? }
    struct FaceModel: Decodable {
        var id: String?
        var dimensions: Int?
        var sameFaceDistance: Double?
    }
    struct Limits: Decodable {
        var maxSide: Int?
        var maxFaces: Int?
        var maxPoints: Int?
        var maxLines: Int?
        var maxThings: Int?
        var concurrent: Int?
    }

    /// The description, each number within what a library can work with.
    func checked(service: URL) throws(AnalysisError) -> AnalysisServiceInfo {
        func bad(_ what: String) -> AnalysisError {
            AnalysisError(.badAnswer, "\(service) describes itself wrongly: \(what)", service: service)
        }
        guard let version = self.protocol else { throw bad("no protocol version") }
        guard version == 1 else {
            throw AnalysisError(
                .unsupportedProtocol, "\(service) speaks protocol \(version); this Lightbox speaks 1", service: service)
        }
        guard let face = models?.faces, let model = face.id, WireText.isIdentifier(model) else {
            throw bad("no face model identifier (letters, digits, '.', '-', '_', at most 200)")
        }
        guard let dimensions = face.dimensions, (1...2_048).contains(dimensions) else {
            throw bad("a face embedding's dimensions must be 1 to 2048")
        }
        guard let distance = face.sameFaceDistance, distance.isFinite, distance > 0, distance < 100 else {
            throw bad("no same-face distance above 0")
        }
        guard let side = limits?.maxSide, (16...16_384).contains(side) else {
            throw bad("its largest image side must be 16 to 16384 pixels")
        }
        // Places are optional: a service without them describes none.
        var placeModel: String?
        if let places = models?.places {
            guard let id = places.id, WireText.isIdentifier(id) else {
                throw bad("a places model without an identifier")
            }
            guard let points = limits?.maxPoints, (1...100_000).contains(points) else {
                throw bad("a places model needs the most points a request takes, 1 to 100000")
            }
            placeModel = id
        }
        var textModel: String?
        if let text = models?.text {
            guard let id = text.id, WireText.isIdentifier(id) else { throw bad("a text model without an identifier") }
            guard let lines = limits?.maxLines, (1...1_000).contains(lines) else {
                throw bad("a text model needs the most lines an answer holds, 1 to 1000")
            }
            textModel = id
        }
        var thingModel: String?
        if let things = models?.things {
            guard let id = things.id, WireText.isIdentifier(id) else {
                throw bad("a things model without an identifier")
            }
            guard let most = limits?.maxThings, (1...256).contains(most) else {
                throw bad("a things model needs the most things an answer holds, 1 to 256")
            }
            thingModel = id
        }
        var clipModel: String?
        var clipDimensions = 0
        if let clip = models?.clip {
            guard let id = clip.id, WireText.isIdentifier(id) else { throw bad("a CLIP model without an identifier") }
            guard let dimensions = clip.dimensions, (1...ClipEmbedding.maximumDimensions).contains(dimensions) else {
                throw bad("a CLIP model's dimensions must be 1 to \(ClipEmbedding.maximumDimensions)")
            }
            (clipModel, clipDimensions) = (id, dimensions)
        }
        return AnalysisServiceInfo(
            protocolVersion: version, version: String((self.version ?? "unknown").prefix(100)), faceModel: model,
            dimensions: dimensions, sameFaceDistance: distance, maximumSide: side,
            maximumFaces: min(max(limits?.maxFaces ?? 64, 1), 256),
            concurrent: min(max(limits?.concurrent ?? 1, 1), 64),
            placeModel: placeModel, maximumPoints: placeModel == nil ? 0 : min(limits?.maxPoints ?? 0, 100_000),
            textModel: textModel, maximumLines: textModel == nil ? 0 : min(limits?.maxLines ?? 0, 1_000),
            thingModel: thingModel, maximumThings: thingModel == nil ? 0 : min(limits?.maxThings ?? 0, 256),
            clipModel: clipModel, clipDimensions: clipDimensions)
    }
}

struct WireFaces: Decodable {
    var model: String?
    var faces: [Face]?

    struct Face: Decodable {
        var box: Box?
        var landmarks: [Point]?
        var quality: Double?
        var embedding: [Double]?
    }
    struct Box: Decodable {
        var x: Double?
        var y: Double?
        var width: Double?
        var height: Double?
    }
    struct Point: Decodable {
        var x: Double?
        var y: Double?
    }

    /// The faces, each checked: a box inside the image with some area, at most 16 landmarks
    /// (clamped into the image), a quality from 0 to 1, an embedding of the model's dimensions in
    /// finite numbers. An answer with a face that fails is refused whole: a model that answers
    /// one wrong face is not trusted with the others.
    func checked(info: AnalysisServiceInfo, service: URL) throws(AnalysisError) -> FaceAnalysis {
        func bad(_ what: String) -> AnalysisError {
            AnalysisError(.badAnswer, "\(service) answered faces wrongly: \(what)", service: service)
        }
        let (model, faces) = try WireAnswer.check(
            model, expected: info.faceModel, self.faces, most: info.maximumFaces, what: "faces", bad: bad)
        var checked: [FaceObservation] = []
        checked.reserveCapacity(faces.count)
        for (index, face) in faces.enumerated() {
            guard let box = face.box?.rect else { throw bad("face \(index + 1)'s box is not inside the image") }
            let landmarks = face.landmarks ?? []
            guard landmarks.count <= 16 else { throw bad("face \(index + 1) has \(landmarks.count) landmarks") }
            var points: [NormalizedPoint] = []
            for point in landmarks {
                guard let px = point.x, let py = point.y, px.isFinite, py.isFinite else {
                    throw bad("face \(index + 1) has a landmark that is not a point")
                }
                points.append(NormalizedPoint(x: min(max(px, 0), 1), y: min(max(py, 0), 1)))
            }
            guard let quality = face.quality, quality.isFinite, (0...1).contains(quality) else {
                throw bad("face \(index + 1)'s quality is not 0 to 1")
            }
            guard let embedding = face.embedding, embedding.count == info.dimensions,
                embedding.allSatisfy({ $0.isFinite && abs($0) <= 1_000 })
            else { throw bad("face \(index + 1)'s embedding is not \(info.dimensions) finite numbers") }
            checked.append(
                FaceObservation(
                    box: box,
                    landmarks: points, quality: quality, embedding: embedding.map { Float($0) }))
        }
        return FaceAnalysis(model: model, faces: checked)
    }
}

struct WirePlaces: Decodable {
    var model: String?
    var places: [Place?]?

    struct Place: Decodable {
        var name: String?
        var city: String?
        var region: String?
        var country: String?
        var countryCode: String?
        var distance: Double?
    }

    /// One place or none for each of `count` points, each checked: names of at most 200
    /// characters without control characters (an empty one is none), a country code of two
    /// letters, a distance from 0 to the earth's half circumference. An answer with a place
    /// that fails is refused whole.
    func checked(count: Int, info: AnalysisServiceInfo, service: URL) throws(AnalysisError) -> PlaceAnalysis {
        func bad(_ what: String) -> AnalysisError {
            AnalysisError(.badAnswer, "\(service) answered places wrongly: \(what)", service: service)
        }
        guard let model, WireText.isIdentifier(model) else { throw bad("no model identifier") }
        guard model == info.placeModel else {
            throw bad(
                "the places come from model \(model.prefix(200)), the service said it runs \(info.placeModel ?? "none")"
            )
        }
        guard let places, places.count == count else {
            throw bad("\(places?.count ?? 0) places for \(count) points")
        }
        var checked: [PlaceObservation?] = []
        checked.reserveCapacity(count)
        for (index, place) in places.enumerated() {
            guard let place else {
                checked.append(nil)
                continue
            }
            var names: [String?] = []
            for text in [place.name, place.city, place.region, place.country] {
                guard let text, !text.isEmpty else {
                    names.append(nil)
                    continue
                }
                guard WireText.isName(text) else { throw bad("place \(index + 1) has a name that is not one") }
                names.append(text)
            }
            var code: String?
            if let given = place.countryCode, !given.isEmpty {
                guard given.utf8.count == 2, given.utf8.allSatisfy({ $0 >= 0x41 && $0 <= 0x5A }) else {
                    throw bad("place \(index + 1)'s country code is not two capital letters")
                }
                code = given
            }
            guard let distance = place.distance, distance.isFinite, (0...20_100_000).contains(distance) else {
                throw bad("place \(index + 1)'s distance is not 0 to 20,100 km")
            }
            checked.append(
                PlaceObservation(
                    name: names[0], city: names[1], region: names[2], country: names[3], countryCode: code,
                    distance: distance))
        }
        return PlaceAnalysis(model: model, places: checked)
    }
}

struct WireLines: Decodable {
    var model: String?
    var lines: [Line]?
    var checkedOnly: Bool?

    struct Line: Decodable {
        var text: String?
        var box: WireFaces.Box?
        var confidence: Double?
    }

    /// The lines, each checked: 1 to ``TextAnalysis/maximumLineLength`` characters, none a
    /// control character or a direction override (``WireText/isName(_:maximumLength:)``), a
    /// box inside the image with some area, a confidence from 0 to 1; at most the lines the
    /// service said it answers. An answer with a line that fails is refused whole.
    func checked(info: AnalysisServiceInfo, service: URL) throws(AnalysisError) -> TextAnalysis {
        func bad(_ what: String) -> AnalysisError {
            AnalysisError(.badAnswer, "\(service) answered text wrongly: \(what)", service: service)
        }
        let (model, lines) = try WireAnswer.check(
            model, expected: info.textModel, self.lines, most: info.maximumLines, what: "lines", bad: bad)
        var checked: [TextObservation] = []
        checked.reserveCapacity(lines.count)
        for (index, line) in lines.enumerated() {
            guard let text = line.text, !text.isEmpty,
                WireText.isName(text, maximumLength: TextAnalysis.maximumLineLength)
            else { throw bad("line \(index + 1) is no text a library keeps") }
            guard let box = line.box?.rect else { throw bad("line \(index + 1)'s box is not inside the image") }
            guard let confidence = line.confidence, confidence.isFinite, (0...1).contains(confidence) else {
                throw bad("line \(index + 1)'s confidence is not 0 to 1")
            }
            checked.append(
                TextObservation(
                    text: text, box: box,
                    confidence: confidence))
        }
        let checkedOnly = checked.isEmpty && (self.checkedOnly ?? false)
        return TextAnalysis(model: model, lines: checked, checkedOnly: checkedOnly)
    }
}

struct WireThings: Decodable {
    var model: String?
    var things: [Thing]?

    struct Thing: Decodable {
        var label: String?
        var confidence: Double?
        var wordnet: String?
        var terms: [String]?
        var box: WireFaces.Box?
    }

    /// The things, each checked: a label and words of 1 to 100 characters with no control
    /// character or direction override, at most 40 words, a synset of `n` and eight digits, a
    /// confidence from 0 to 1, a box (when given) inside the image with some area; at most the
    /// things the service said it answers. An answer with a thing that fails is refused whole.
    func checked(info: AnalysisServiceInfo, service: URL) throws(AnalysisError) -> ThingAnalysis {
        func bad(_ what: String) -> AnalysisError {
            AnalysisError(.badAnswer, "\(service) answered things wrongly: \(what)", service: service)
        }
        let (model, things) = try WireAnswer.check(
            model, expected: info.thingModel, self.things, most: info.maximumThings, what: "things", bad: bad)
        func isWord(_ text: String) -> Bool {
            !text.isEmpty && WireText.isName(text, maximumLength: ThingObservation.maximumLength)
                && !text.unicodeScalars.contains { $0.properties.isWhitespace && $0 != " " }
        }
        var checked: [ThingObservation] = []
        checked.reserveCapacity(things.count)
        for (index, thing) in things.enumerated() {
            guard let label = thing.label, isWord(label) else { throw bad("thing \(index + 1) has no label") }
            guard let confidence = thing.confidence, confidence.isFinite, (0...1).contains(confidence) else {
                throw bad("thing \(index + 1)'s confidence is not 0 to 1")
            }
            let terms = thing.terms ?? []
            guard terms.count <= ThingObservation.maximumTerms, terms.allSatisfy(isWord) else {
                throw bad("thing \(index + 1)'s terms are not at most \(ThingObservation.maximumTerms) words")
            }
            if let synset = thing.wordnet {
                guard synset.utf8.count == 9, synset.hasPrefix("n"),
                    synset.utf8.dropFirst().allSatisfy({ $0 >= 0x30 && $0 <= 0x39 })
                else { throw bad("thing \(index + 1)'s synset is not n and eight digits") }
            }
            var rect: NormalizedRect?
            if let box = thing.box {
                guard let inside = box.rect else { throw bad("thing \(index + 1)'s box is not inside the image") }
                rect = inside
            }
            checked.append(
                ThingObservation(label: label, confidence: confidence, synset: thing.wordnet, terms: terms, box: rect))
        }
        return ThingAnalysis(model: model, things: checked)
    }
}

extension WireFaces.Box {
    /// The box as a rectangle inside the image with some area (clamped to its edges against
    /// rounding), or nil when it is not one.
    var rect: NormalizedRect? {
        guard let x, let y, let width, let height, [x, y, width, height].allSatisfy(\.isFinite), x >= 0, y >= 0,
            width > 0, height > 0, x + width <= 1.0001, y + height <= 1.0001
        else { return nil }
        return NormalizedRect(x: x, y: y, width: min(width, 1 - x), height: min(height, 1 - y))
    }
}

struct WireEmbedding: Decodable {
    var model: String?
    var embedding: [Double]?

    /// The embedding, checked: of the model the service said it runs, its dimensions in finite
    /// numbers, a unit vector (made one again, after the rounding of its decimals).
    func checked(info: AnalysisServiceInfo, service: URL) throws(AnalysisError) -> ClipEmbedding {
        func bad(_ what: String) -> AnalysisError {
            AnalysisError(.badAnswer, "\(service) answered an embedding wrongly: \(what)", service: service)
        }
        guard let model, WireText.isIdentifier(model) else { throw bad("no model identifier") }
        guard model == info.clipModel else {
            throw bad("it comes from model \(model.prefix(200)), the service said it runs \(info.clipModel ?? "none")")
        }
        guard let embedding, embedding.count == info.clipDimensions,
            embedding.allSatisfy({ $0.isFinite && abs($0) <= 1.001 })
        else { throw bad("it is not \(info.clipDimensions) finite numbers from -1 to 1") }
        let norm = embedding.reduce(0) { $0 + $1 * $1 }.squareRoot()
        guard (0.99...1.01).contains(norm) else { throw bad("it is not a unit vector (its length is \(norm))") }
        return ClipEmbedding(model: model, vector: embedding.map { Float($0 / norm) })
    }
}

enum WireAnswer {
    /// An answer's model and list, checked: the model the service said it runs, and at most the
    /// items it said it answers.
    static func check<Item>(
        _ model: String?, expected: String?, _ items: [Item]?, most: Int, what: String,
        bad: (String) -> AnalysisError
    ) throws(AnalysisError) -> (String, [Item]) {
        guard let model, WireText.isIdentifier(model) else { throw bad("no model identifier") }
        guard model == expected else {
            throw bad(
                "the \(what) come from model \(model.prefix(200)), the service said it runs \(expected ?? "none")")
        }
        guard let items else { throw bad("no list of \(what)") }
        guard items.count <= most else {
            throw bad("\(items.count) \(what), more than the \(most) it said it answers at most")
        }
        return (model, items)
    }
}

struct WireError: Decodable {
    var error: String?
}

enum WireText {
    /// Whether `text` can be a place's name (or a line read) in a catalog, a page and a log: at
    /// most `maximumLength` characters, none of them a control character, a line break or a
    /// direction override (the joiners some scripts' names need aside).
    static func isName(_ text: String, maximumLength: Int = 200) -> Bool {
        text.unicodeScalars.count <= maximumLength
            && text.unicodeScalars.allSatisfy { scalar in
                switch scalar.properties.generalCategory {
                case .control, .lineSeparator, .paragraphSeparator, .surrogate, .privateUse, .unassigned: false
                case .format: scalar.value == 0x200C || scalar.value == 0x200D
                default: true
                }
            }
    }

    /// Whether `text` can name a model in a catalog and a log: 1 to 200 characters of letters,
    /// digits, '.', '-' and '_'.
    static func isIdentifier(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 200
            && text.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || byte == 0x2E || byte == 0x2D || byte == 0x5F
            }
    }
}
