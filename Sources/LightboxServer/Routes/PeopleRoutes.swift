import Foundation
import Hummingbird
import Lightbox

/// People and faces over HTTP (docs/ANALYSIS.md): the People list, a person, their faces, and
/// the choices someone makes of them. A person's photos are a collection's: `GET
/// /api/collections/{id}/timeline` and `/assets` take a person's identifier. A limited caller (a
/// limited token, a link) sees no person, and the faces of the photos it sees. Each route's
/// contract is its `APIOperation` (docs/API.md).
struct PeopleRoutes: Sendable {
    struct PeoplePage: Encodable {
        var people: [AssetCollection]
        var next: String?
        /// Whether the library finds faces.
        var facesEnabled: Bool
    }

    struct Faces: Encodable {
        var faces: [FaceEntry]
    }

    /// A face with its person's name, so that a page can label it without asking again.
    struct FaceEntry: Encodable {
        var face: Face
        var personName: String?

        private enum CodingKeys: String, CodingKey { case personName }

        func encode(to encoder: any Encoder) throws {
            try face.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeIfPresent(personName, forKey: .personName)
        }
    }

    struct NewPerson: Decodable {
        var name: String?
        var faces: [String]
    }

    struct PersonChange: Decodable {
        var name: String?
        var hidden: Bool?
        var keyFace: String?
    }

    struct Merge: Decodable {
        var people: [String]
    }

    struct Assignment: Decodable {
        var faces: [String]
        var person: String?
    }

    struct Rejection: Decodable {
        var faces: [String]
    }

    /// What the library analyses.
    struct Analysis: Encodable {
        var faces: Bool
        var places: Bool
        var text: Bool
        var things: Bool
        var clip: Bool
    }

    /// A change of it: each kind given is switched, the others stay.
    struct AnalysisChange: Decodable {
        var faces: Bool?
        var places: Bool?
        var text: Bool?
        var things: Bool?
        var clip: Bool?
    }

    /// The most people one page holds, and faces one request names.
    static let maximumPage = 500
    static let faceIdentifiers = Schema.array(Schema.string(length: 1...200), count: 1...1000)

    static let peopleOperation = APIOperation(
        "The people found in photos, most faces first.",
        details: """
            Hidden people only with `hidden=true`; only the named with `named=true`. Each person is a
            collection (`assetCollectionType` 4) with `faceCount`, `isHidden` and `keyFace`, the face on
            their cover; `facesEnabled` says whether the library finds faces at all.
            """,
        parameters: [
            .query("hidden", Schema.boolean, "Include the people hidden from the list."),
            .query("named", Schema.boolean, "Only the people with a name."), .limit, .after,
        ],
        responses: [.json(200, "The page.", Schema.ref("PeoplePage"))])

    @Sendable
    func people(_ request: Request, _ context: LightboxRequestContext) async throws -> Response {
        let library = try context.library().library
        let query = request.uri.formQuery
        var options = FetchOptions(includeHiddenAssets: Self.flag(query.get("hidden")))
        options.sortDescriptors = [
            FetchSortDescriptor(key: "faceCount", ascending: false)
        ]
        if Self.flag(query.get("named")) { options.predicate = .comparison(key: "name", .notEqual, .null) }
        let limit = try query.limit(default: 100, maximum: Self.maximumPage)
        let after = query.get("after").map { String($0) }
        let fetch = options
        let enabled = try await library.facesEnabled()
        let page = try await library.read { library in
            let result = try library.fetchPeople(options: fetch)
            var start = 0
            if let after {
                // Found by its row id, not by loading each person before it (their counts with them).
                let marker = AssetCollection(
                    localIdentifier: after, assetCollectionType: .person, assetCollectionSubtype: .person,
                    localizedTitle: nil, estimatedAssetCount: 0, startDate: nil, endDate: nil)
                guard let index = result.index(of: marker) else {
                    throw LibraryError(.collectionNotFound, "no person \(after) in this list to page after")
                }
                start = index + 1
            }
            let end = min(result.count, start + limit)
            let people = result.objects(at: start..<end)
            return PeoplePage(
                people: people, next: end < result.count ? people.last?.localIdentifier : nil, facesEnabled: enabled)
        }
        return try LightboxServer.jsonResponse(page)
    }

    static let personOperation = APIOperation(
        "One person.", responses: [.json(200, "The person.", Schema.ref("Person"))])

    @Sendable
    func person(_ _: Request, _ context: LightboxRequestContext) async throws -> Response {
        let library = try context.library().library
        let id = try context.parameters.require("id")
        return try LightboxServer.jsonResponse(try await library.read { try Self.person(id, in: $0) })
    }

    static let personFacesOperation = APIOperation(
        "A person's faces, the surest first.",
        parameters: [.limit, .offset], responses: [.json(200, "Their faces.", Schema.ref("Faces"))])

    @Sendable
    func personFaces(_ request: Request, _ context: LightboxRequestContext) async throws -> Response {
        let library = try context.library().library
        let id = try context.parameters.require("id")
        let query = request.uri.formQuery
        let limit = try query.limit(default: 100, maximum: Self.maximumPage)
        let offset = try query.get("offset", as: Int.self) ?? 0
        guard offset >= 0 else { throw HTTPError(.badRequest, message: "offset must be 0 or more") }
        let person = try await library.read { try Self.person(id, in: $0) }
        let faces = try await library.faces(of: person, offset: offset, limit: limit)
        return try LightboxServer.jsonResponse(
            Faces(faces: faces.map { FaceEntry(face: $0, personName: person.localizedTitle) }))
    }

    static let assetFacesOperation = APIOperation(
        "The faces found in an asset, the surest first, each with its person's name.",
        details: "None for an asset no analysis has seen, or where faces are switched off.",
        responses: [.json(200, "Its faces.", Schema.ref("Faces"))])

    @Sendable
    func assetFaces(_ _: Request, _ context: LightboxRequestContext) async throws -> Response {
        let library = try context.library().library
        let asset = try await AssetRoutes.asset(try context.parameters.require("id"), in: library)
        let faces = try await library.faces(in: asset)
        let people = Set(faces.compactMap(\.personLocalIdentifier))
        let names = try await library.read { library in
            Dictionary(
                try library.fetchAssetCollections(withLocalIdentifiers: people.sorted()).map {
                    ($0.localIdentifier, $0.localizedTitle)
                }, uniquingKeysWith: { first, _ in first })
        }
        return try LightboxServer.jsonResponse(
            Faces(
                faces: faces.map { face in
                    FaceEntry(face: face, personName: face.personLocalIdentifier.flatMap { names[$0] ?? nil })
                }))
    }

    static let makePersonOperation = APIOperation(
        "Makes a person of faces (a split), named or not.",
        details: "The faces leave whoever had them, and never join those again by grouping.",
        body: .json(
            Schema.object(
                ["name": Schema.string(length: 0...200), "faces": Self.faceIdentifiers], required: ["faces"])),
        responses: [.json(201, "The person.", Schema.ref("Person"), changeToken: true)])

    @Sendable
    func makePerson(_ request: Request, _ context: LightboxRequestContext) async throws -> Response {
        let library = try context.library().library
        let body = try await request.decode(as: NewPerson.self, context: context)
        try Self.check(body.faces)
        var id = ""
        let token = try await library.performChanges { changes in
            id = changes.creationRequestForPerson(named: body.name).localIdentifier
            changes.assignFaces(withLocalIdentifiers: body.faces, toPersonWithLocalIdentifier: id)
        }
        let made = id
        return try await LightboxServer.written(
            try await library.read { try Self.person(made, in: $0) }, token: token, in: library, status: .created)
    }

    static let changePersonOperation = APIOperation(
        "Names a person, hides or shows them, or chooses their key face.",
        details: """
            `name` empty takes the name away; a name another person has, case aside, is refused
            (400): merge them instead. `keyFace` is one of their faces' identifiers.
            """,
        body: .json(
            Schema.object([
                "name": Schema.string(length: 0...200), "hidden": Schema.boolean,
                "keyFace": Schema.string(length: 1...200),
            ])),
        responses: [.json(200, "The person.", Schema.ref("Person"), changeToken: true)])

    @Sendable
    func changePerson(_ request: Request, _ context: LightboxRequestContext) async throws -> Response {
        let library = try context.library().library
        let id = try context.parameters.require("id")
        let body = try await request.decode(as: PersonChange.self, context: context)
        let person = try await library.read { try Self.person(id, in: $0) }
        let token = try await library.performChanges { changes in
            let request = changes.changeRequest(forPerson: person)
            if let name = body.name { request.name = name }
            if let hidden = body.hidden { request.isHidden = hidden }
            if let face = body.keyFace { request.setKeyFace(withLocalIdentifier: face) }
        }
        return try await LightboxServer.written(
            try await library.read { try Self.person(id, in: $0) }, token: token, in: library)
    }

    static let mergeOperation = APIOperation(
        "Merges people into this one: their faces become theirs, and they go.",
        details: "The person keeps their name; with none, they take the first merged person's.",
        body: .json(
            Schema.object(
                ["people": Schema.array(Schema.string(length: 1...200), count: 1...100)], required: ["people"])),
        responses: [.json(200, "The person.", Schema.ref("Person"), changeToken: true)])

    @Sendable
    func merge(_ request: Request, _ context: LightboxRequestContext) async throws -> Response {
        let library = try context.library().library
        let id = try context.parameters.require("id")
        let body = try await request.decode(as: Merge.self, context: context)
        guard (1...100).contains(body.people.count) else {
            throw HTTPError(.badRequest, message: "people names 1 to 100 people to merge")
        }
        let (into, merged) = try await library.read { library in
            (try Self.person(id, in: library), try body.people.map { try Self.person($0, in: library) })
        }
        let token = try await library.performChanges { $0.mergePeople(merged, into: into) }
        return try await LightboxServer.written(
            try await library.read { try Self.person(id, in: $0) }, token: token, in: library)
    }

    static let assignOperation = APIOperation(
        "Puts faces in a person (\"this is Anna\"), or in nobody known (`person` null: \"not Anna\").",
        details: """
            A face put in a person is never moved by grouping; a face taken from a person never joins
            them again.
            """,
        body: .json(
            Schema.object(
                ["faces": Self.faceIdentifiers, "person": Schema.string(length: 1...200)], required: ["faces"])),
        responses: [.empty(204, "Done.", changeToken: true)])

    @Sendable
    func assign(_ request: Request, _ context: LightboxRequestContext) async throws -> Response {
        let library = try context.library().library
        let body = try await request.decode(as: Assignment.self, context: context)
        try Self.check(body.faces)
        if let person = body.person { _ = try await library.read { try Self.person(person, in: $0) } }
        let token = try await library.performChanges {
            $0.assignFaces(withLocalIdentifiers: body.faces, toPersonWithLocalIdentifier: body.person)
        }
        return try await LightboxServer.noContent(token: token, in: library)
    }

    static let rejectOperation = APIOperation(
        "Marks what was found as no face at all: never shown or grouped again.",
        body: .json(Schema.object(["faces": Self.faceIdentifiers], required: ["faces"])),
        responses: [.empty(204, "Done.", changeToken: true)])

    @Sendable
    func reject(_ request: Request, _ context: LightboxRequestContext) async throws -> Response {
        let library = try context.library().library
        let body = try await request.decode(as: Rejection.self, context: context)
        try Self.check(body.faces)
        let token = try await library.performChanges { $0.rejectFaces(withLocalIdentifiers: body.faces) }
        return try await LightboxServer.noContent(token: token, in: library)
    }

    static let analysisOperation = APIOperation(
        "What the library analyses: whether it finds faces, and names places.",
        responses: [.json(200, "The settings.", Schema.ref("Analysis"))])

    @Sendable
    func analysis(_ _: Request, _ context: LightboxRequestContext) async throws -> Response {
        try LightboxServer.jsonResponse(try await Self.analysis(of: context.library().library))
    }

    static func analysis(of library: PhotoLibrary) async throws -> Analysis {
        Analysis(
            faces: try await library.facesEnabled(), places: try await library.placesEnabled(),
            text: try await library.analysisEnabled(.text), things: try await library.analysisEnabled(.things),
            clip: try await library.analysisEnabled(.clip))
    }

    static let changeAnalysisOperation = APIOperation(
        "Switches finding faces, naming places, reading text, finding things or CLIP on or off in the caller's library.",
        details: """
            Each user's library has its own switches, for a person signed in (or the local owner), not a
            token; a kind not given stays as it is. Faces off deletes every face, embedding and person of
            the library, and what anyone chose of them, at once; on analyses every photo again (the faces
            job). Places off deletes every place named (the locations stay) and sends no location to the
            analysis service; on names them again (the places job). Text off deletes every line read in the
            photos and sends none to be read; on reads them again (the text job). Things off deletes every
            thing found in the photos, and on finds them again (the things job). CLIP off deletes every
            photo's embedding and sends none to be embedded; on embeds them again (the clip job, where the
            analysis service has a CLIP model).
            """,
        body: .json(Schema.ref("AnalysisChange")), responses: [.json(200, "The settings.", Schema.ref("Analysis"))])

    @Sendable
    func changeAnalysis(_ request: Request, _ context: LightboxRequestContext) async throws -> Response {
        let library = try context.library().library
        let body = try await request.decode(as: AnalysisChange.self, context: context)
        if let faces = body.faces { try await library.setFacesEnabled(faces) }
        if let places = body.places { try await library.setPlacesEnabled(places) }
        if let text = body.text { try await library.setAnalysisEnabled(.text, text) }
        if let things = body.things { try await library.setAnalysisEnabled(.things, things) }
        if let clip = body.clip { try await library.setAnalysisEnabled(.clip, clip) }
        return try LightboxServer.jsonResponse(try await Self.analysis(of: library))
    }

    /// The person with this identifier, as the caller's library sees them.
    static func person(_ id: String, in library: PhotoLibrary) throws -> AssetCollection {
        guard let person = try library.fetchAssetCollections(withLocalIdentifiers: [id]).firstObject,
            person.assetCollectionType == .person
        else { throw LibraryError(.collectionNotFound, "no person has the identifier \(id)") }
        return person
    }

    private static func check(_ faces: [String]) throws {
        guard (1...1000).contains(faces.count) else {
            throw HTTPError(.badRequest, message: "faces names 1 to 1000 faces")
        }
    }

    private static func flag(_ value: (some StringProtocol)?) -> Bool {
        value == "true" || value == "1"
    }
}
