import Foundation
import LightboxImaging
import LightboxTestSupport
import Testing

@testable import LightboxAnalysis

/// The client against answers that break the protocol, and against the real service on real
/// photos of people decoded by Lightbox itself, as a library's job will send them.
@Suite struct AnalysisAnswerTests {
    static let service = URL(string: "http://127.0.0.1:9")!
    static let info = AnalysisServiceInfo(
        version: "1", faceModel: "model-1", dimensions: 4, sameFaceDistance: 0.6, maximumSide: 2048, maximumFaces: 2,
        concurrent: 1)

    /// An answer of faces written as JSON objects, each the good face with `fields` replaced.
    static func answer(_ faces: [[String: String]], model: String = "model-1") -> Data {
        let objects = faces.map { fields in
            let face = good.merging(fields) { $1 }
            return "{" + face.sorted { $0.key < $1.key }.map { "\"\($0.key)\": \($0.value)" }.joined(separator: ", ")
                + "}"
        }
        return Data(#"{"model": "\#(model)", "faces": [\#(objects.joined(separator: ", "))]}"#.utf8)
    }

    static let good: [String: String] = [
        "box": #"{"x": 0.1, "y": 0.2, "width": 0.3, "height": 0.4}"#,
        "landmarks": #"[{"x": 0.2, "y": 0.3}, {"x": 1.5, "y": -0.2}]"#, "quality": "0.8",
        "embedding": "[0.1, -0.2, 0.3, 0.05]",
    ]

    @Test func aGoodAnswerReadsWithLandmarksKeptInsideTheImage() throws {
        let analysis = try AnalysisClient.faces(fromAnswer: Self.answer([[:]]), info: Self.info, service: Self.service)
        #expect(analysis.model == "model-1")
        #expect(analysis.faces.count == 1)
        #expect(analysis.faces[0].box == NormalizedRect(x: 0.1, y: 0.2, width: 0.3, height: 0.4))
        #expect(analysis.faces[0].landmarks[1] == NormalizedPoint(x: 1, y: 0))
        #expect(analysis.faces[0].embedding == [0.1, -0.2, 0.3, 0.05])
    }

    @Test(arguments: [
        ("box", #"{"x": 0.9, "y": 0.2, "width": 0.3, "height": 0.4}"#, "box"),
        ("box", #"{"x": 0.1, "y": 0.2, "width": 0, "height": 0.4}"#, "box"),
        ("box", #"{"x": 0.1, "y": 0.2, "width": 0.3}"#, "box"),
        ("quality", "1.5", "quality"),
        ("embedding", "[0.1, 0.2]", "embedding"),
        ("embedding", "[0.1, 0.2, 1e300, 0.1]", "embedding"),
        (
            "landmarks", "[" + Array(repeating: #"{"x": 0.1, "y": 0.1}"#, count: 17).joined(separator: ",") + "]",
            "landmarks"
        ),
    ])
    func aFaceThatBreaksTheProtocolRefusesTheWholeAnswer(field: String, value: String, named: String) {
        #expect {
            try AnalysisClient.faces(
                fromAnswer: Self.answer([[:], [field: value]]), info: Self.info, service: Self.service)
        } throws: { error in
            let error = error as? AnalysisError
            return error?.code == .badAnswer && error?.message.contains(named) == true
                && error?.message.contains("127.0.0.1:9") == true
        }
    }

    @Test func moreFacesThanSaidOrAnotherModelAreRefused() {
        #expect(throws: AnalysisError.self) {
            try AnalysisClient.faces(
                fromAnswer: Self.answer([[:], [:], [:]]), info: Self.info, service: Self.service)
        }
        #expect(throws: AnalysisError.self) {
            try AnalysisClient.faces(
                fromAnswer: Self.answer([[:]], model: "model-2"), info: Self.info, service: Self.service)
        }
        #expect(throws: AnalysisError.self) {
            try AnalysisClient.faces(fromAnswer: Data("[[[[".utf8), info: Self.info, service: Self.service)
        }
    }

    @Test func aServiceOfAnotherProtocolIsNamedSo() {
        let data = Data(
            #"{"protocol": 2, "models": {"faces": {"id": "m", "dimensions": 128, "sameFaceDistance": 0.6}}, "limits": {"maxSide": 2048}}"#
                .utf8)
        #expect {
            try AnalysisClient.info(fromAnswer: data, service: Self.service)
        } throws: { ($0 as? AnalysisError)?.code == .unsupportedProtocol }
    }
}

/// Text answers (`POST /v1/text`) against what breaks the protocol.
@Suite struct TextAnswerTests {
    static let service = URL(string: "http://127.0.0.1:9")!
    static let info = AnalysisServiceInfo(
        version: "1", faceModel: "model-1", dimensions: 4, sameFaceDistance: 0.6, maximumSide: 2048, maximumFaces: 2,
        concurrent: 1, textModel: "ocr-1", maximumLines: 2)

    static func answer(_ lines: [String], model: String = "ocr-1", checkedOnly: Bool = false) -> Data {
        Data(
            #"{"model": "\#(model)", "lines": [\#(lines.joined(separator: ", "))], "checkedOnly": \#(checkedOnly)}"#
                .utf8)
    }

    static func line(
        text: String = #""MENU""#, box: String = #"{"x": 0.1, "y": 0.2, "width": 0.3, "height": 0.05}"#,
        confidence: String = "0.9"
    ) -> String {
        #"{"text": \#(text), "box": \#(box), "confidence": \#(confidence)}"#
    }

    @Test func aGoodAnswerReads() throws {
        let text = try AnalysisClient.text(
            fromAnswer: Self.answer([Self.line()]), info: Self.info, service: Self.service)
        #expect(text.model == "ocr-1" && !text.checkedOnly)
        #expect(
            text.lines == [
                TextObservation(
                    text: "MENU", box: NormalizedRect(x: 0.1, y: 0.2, width: 0.3, height: 0.05), confidence: 0.9)
            ])
        let none = try AnalysisClient.text(
            fromAnswer: Self.answer([], checkedOnly: true), info: Self.info, service: Self.service)
        #expect(none.lines.isEmpty && none.checkedOnly)
    }

    @Test(arguments: [
        (Self.line(text: #""""#), "line 1"),
        (Self.line(text: #""evil\u202egnp.exe""#), "line 1"),
        (Self.line(text: #""a\nb""#), "line 1"),
        (Self.line(text: "\"" + String(repeating: "x", count: 501) + "\""), "line 1"),
        (Self.line(box: #"{"x": 0.9, "y": 0.2, "width": 0.3, "height": 0.05}"#), "box"),
        (Self.line(box: #"{"x": 0.1, "y": 0.2, "width": 0.3}"#), "box"),
        (Self.line(confidence: "1.5"), "confidence"),
        (Self.line(confidence: "null"), "confidence"),
    ])
    func aLineThatBreaksTheProtocolRefusesTheWholeAnswer(line: String, named: String) {
        #expect {
            try AnalysisClient.text(fromAnswer: Self.answer([line]), info: Self.info, service: Self.service)
        } throws: { error in
            let error = error as? AnalysisError
            return error?.code == .badAnswer && error?.message.contains(named) == true
        }
    }

    @Test func moreLinesThanSaidAnotherModelOrNoTextModelAreRefused() throws {
        #expect(throws: AnalysisError.self) {
            try AnalysisClient.text(
                fromAnswer: Self.answer([Self.line(), Self.line(), Self.line()]), info: Self.info, service: Self.service
            )
        }
        #expect(throws: AnalysisError.self) {
            try AnalysisClient.text(fromAnswer: Self.answer([], model: "ocr-2"), info: Self.info, service: Self.service)
        }
        var without = Self.info
        without.textModel = nil
        #expect(throws: AnalysisError.self) {
            try AnalysisClient.text(fromAnswer: Self.answer([]), info: without, service: Self.service)
        }
        // A description: a text model needs its limit of lines, within 1 to 1000.
        func info(_ limits: String) throws -> AnalysisServiceInfo {
            try AnalysisClient.info(
                fromAnswer: Data(
                    #"{"protocol": 1, "models": {"faces": {"id": "m", "dimensions": 128, "sameFaceDistance": 0.6}, "text": {"id": "ocr-1"}}, "limits": {"maxSide": 2048\#(limits)}}"#
                        .utf8), service: Self.service)
        }
        #expect(try info(#", "maxLines": 200"#).textModel == "ocr-1")
        #expect(try info(#", "maxLines": 200"#).maximumLines == 200)
        #expect(throws: AnalysisError.self) { try info("") }
        #expect(throws: AnalysisError.self) { try info(#", "maxLines": 1000000"#) }
    }
}

/// Things answers (`POST /v1/things`) against what breaks the protocol.
@Suite struct ThingAnswerTests {
    static let service = URL(string: "http://127.0.0.1:9")!
    static let info = AnalysisServiceInfo(
        version: "1", faceModel: "model-1", dimensions: 4, sameFaceDistance: 0.6, maximumSide: 2048, maximumFaces: 2,
        concurrent: 1, thingModel: "things-1", maximumThings: 2)

    static func answer(_ things: [String], model: String = "things-1") -> Data {
        Data(#"{"model": "\#(model)", "things": [\#(things.joined(separator: ", "))]}"#.utf8)
    }

    static func thing(
        label: String = #""dog""#, confidence: String = "0.8", wordnet: String = #""n02084071""#,
        terms: String = #"["dog", "canine", "animal"]"#,
        box: String = #"{"x": 0.1, "y": 0.2, "width": 0.3, "height": 0.4}"#
    ) -> String {
        #"{"label": \#(label), "confidence": \#(confidence), "wordnet": \#(wordnet), "terms": \#(terms), "box": \#(box)}"#
    }

    @Test func aGoodAnswerReads() throws {
        let found = try AnalysisClient.things(
            fromAnswer: Self.answer([Self.thing(), #"{"label": "alp", "confidence": 0.9, "terms": ["mountain"]}"#]),
            info: Self.info, service: Self.service)
        #expect(found.things.count == 2)
        #expect(found.things[0].box == NormalizedRect(x: 0.1, y: 0.2, width: 0.3, height: 0.4))
        #expect(found.things[0].synset == "n02084071" && found.things[0].terms == ["dog", "canine", "animal"])
        #expect(found.things[1].box == nil && found.things[1].synset == nil)
    }

    @Test(arguments: [
        (Self.thing(label: #""""#), "label"),
        (Self.thing(label: #""dog\u202e""#), "label"),
        (Self.thing(confidence: "2"), "confidence"),
        (Self.thing(wordnet: #""x02084071""#), "synset"),
        (Self.thing(terms: #"["dog", "a\tb"]"#), "terms"),
        (Self.thing(terms: "[" + Array(repeating: #""dog""#, count: 41).joined(separator: ",") + "]"), "terms"),
        (Self.thing(box: #"{"x": 0.9, "y": 0.2, "width": 0.3, "height": 0.4}"#), "box"),
    ])
    func aThingThatBreaksTheProtocolRefusesTheWholeAnswer(thing: String, named: String) {
        #expect {
            try AnalysisClient.things(fromAnswer: Self.answer([thing]), info: Self.info, service: Self.service)
        } throws: { error in
            let error = error as? AnalysisError
            return error?.code == .badAnswer && error?.message.contains(named) == true
        }
    }

    @Test func moreThingsThanSaidOrAnotherModelAreRefused() {
        #expect(throws: AnalysisError.self) {
            try AnalysisClient.things(
                fromAnswer: Self.answer([Self.thing(), Self.thing(), Self.thing()]), info: Self.info,
                service: Self.service)
        }
        #expect(throws: AnalysisError.self) {
            try AnalysisClient.things(
                fromAnswer: Self.answer([], model: "things-2"), info: Self.info, service: Self.service)
        }
    }
}

@Suite(.serialized) struct AnalysisServiceTests {
    /// A photo as a library sends it: its preview (1000 px on the long side) decoded to RGB.
    static func preview(_ relative: String) throws -> (width: Int, height: Int, pixels: [UInt8]) {
        let path = try Corpus.path(relative)
        let preview = try ImageFile.thumbnail(
            ofFileAt: path, options: RenderOptions(width: 1000, height: 1000, contentMode: .aspectFit))
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("analysis-\(UUID().uuidString).jpg")
        try Data(preview.bytes).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let decoded = try ImageComparison.pixels(ofFileAt: file.path)
        #expect(decoded.bands == 3)
        return (decoded.width, decoded.height, decoded.pixels)
    }

    @Test func theServiceFindsPeopleAndTellsThemApart() async throws {
        let process = try AnalysisServiceProcess()
        defer { process.stop() }
        let client = AnalysisClient(url: process.url)
        let info = try await client.info()
        #expect(info.dimensions == 128)
        #expect(info.faceModel.contains("resnet128"))
        var obama: [[Float]] = []
        for name in ["obama.jpg", "obama2.jpg", "obama3.jpg"] {
            let image = try Self.preview("faces/test_images/" + name)
            let found = try await client.faces(
                width: image.width, height: image.height, pixels: image.pixels, info: info)
            #expect(found.faces.count == 1, "\(name)")
            obama += found.faces.map(\.embedding)
        }
        let biden = try Self.preview("faces/test_images/biden.jpg")
        let other = try await client.faces(width: biden.width, height: biden.height, pixels: biden.pixels, info: info)
        #expect(other.faces.count == 1)
        for a in obama.indices {
            for b in obama.indices where b > a { #expect(distance(obama[a], obama[b]) < Float(info.sameFaceDistance)) }
            #expect(distance(obama[a], other.faces[0].embedding) > Float(info.sameFaceDistance))
        }
        // The group photo: everyone found, and clustering keeps them apart.
        let group = try Self.preview("faces-group/images/t1.jpg")
        let everyone = try await client.faces(
            width: group.width, height: group.height, pixels: group.pixels, info: info)
        #expect(everyone.faces.count >= 5)
        var clustering = FaceClustering(dimensions: info.dimensions)
        for (offset, embedding) in (obama + everyone.faces.map(\.embedding) + obama).enumerated() {
            if case .founding(let faces) = clustering.add(Int64(offset), embedding: embedding, quality: 0.9) {
                clustering.found(faces, person: 1)
            }
        }
        // Obama's three, then his three again: one person of six; nobody of the group joins him.
        #expect((0..<3).allSatisfy { clustering.membership(of: Int64($0))?.person == 1 })
        let groupIDs = (3..<(3 + everyone.faces.count)).map(Int64.init)
        #expect(groupIDs.allSatisfy { clustering.membership(of: $0) == .waiting })
        // A landscape: no face.
        let landscape = try Self.preview("lomiri/backgrounds/Dragonfly_by_Bolly.jpg")
        let none = try await client.faces(
            width: landscape.width, height: landscape.height, pixels: landscape.pixels, info: info)
        #expect(none.faces.isEmpty)
    }

    static let placesInfo = AnalysisServiceInfo(
        version: "1", faceModel: "model-1", dimensions: 4, sameFaceDistance: 0.6, maximumSide: 2048, maximumFaces: 2,
        concurrent: 1, placeModel: "places-1", maximumPoints: 3)

    static func places(_ places: String, model: String = "places-1") -> Data {
        Data(#"{"model": "\#(model)", "places": [\#(places)]}"#.utf8)
    }

    @Test func placesReadOneForEachPointAndNoneAtSea() throws {
        let answer = try AnalysisClient.places(
            fromAnswer: Self.places(
                #"{"name": "Intendente", "city": "Lisbon", "region": "Lisbon", "country": "Portugal", "#
                    + #""countryCode": "PT", "distance": 339.8}, null, {"name": "", "region": "Volta", "distance": 4}"#),
            count: 3, info: Self.placesInfo, service: AnalysisAnswerTests.service)
        #expect(answer.places.count == 3)
        #expect(answer.places[0]?.city == "Lisbon" && answer.places[0]?.countryCode == "PT")
        #expect(answer.places[1] == nil)
        // An empty name is none.
        #expect(answer.places[2]?.name == nil && answer.places[2]?.region == "Volta")
    }

    @Test(arguments: [
        (#"null, null"#, "2 places for 3 points"),
        (#"null, null, {"name": "A\u0000B", "distance": 1}"#, "name that is not one"),
        (#"null, null, {"name": "A\u202eB", "distance": 1}"#, "name that is not one"),
        (#"null, null, {"name": "A\nB", "distance": 1}"#, "name that is not one"),
        (#"null, null, {"countryCode": "pt", "distance": 1}"#, "country code"),
        (#"null, null, {"countryCode": "PRT", "distance": 1}"#, "country code"),
        (#"null, null, {"name": "A", "distance": -1}"#, "distance"),
        (#"null, null, {"name": "A"}"#, "distance"),
        (#"null, null, {"name": "\#(String(repeating: "a", count: 201))", "distance": 1}"#, "name that is not one"),
    ])
    func placesThatBreakTheProtocolAreRefusedWhole(places: String, why: String) {
        #expect {
            try AnalysisClient.places(
                fromAnswer: Self.places(places), count: 3, info: Self.placesInfo, service: AnalysisAnswerTests.service)
        } throws: { error in
            (error as? AnalysisError)?.code == .badAnswer && "\(error)".contains(why)
        }
    }

    @Test func placesOfAnotherModelOrTooManyPointsAreRefused() async {
        #expect(throws: AnalysisError.self) {
            try AnalysisClient.places(
                fromAnswer: Self.places("null, null, null", model: "places-2"), count: 3, info: Self.placesInfo,
                service: AnalysisAnswerTests.service)
        }
        let client = AnalysisClient(url: AnalysisAnswerTests.service)
        let four = Array(repeating: GeoPoint(latitude: 1, longitude: 2), count: 4)
        await #expect(throws: AnalysisError.self) { try await client.places(four, info: Self.placesInfo) }
        let off = [GeoPoint(latitude: 91, longitude: 0)]
        await #expect(throws: AnalysisError.self) { try await client.places(off, info: Self.placesInfo) }
    }

    @Test func aStoppedServiceIsUnreachableAndSaysWhich() async throws {
        let process = try AnalysisServiceProcess()
        let url = process.url
        process.stop()
        await #expect {
            _ = try await AnalysisClient(url: url).info()
        } throws: { error in
            let error = error as? AnalysisError
            return error?.code == .unreachable && error?.isTransient == true
                && error?.message.contains(url.absoluteString) == true
        }
    }
}
