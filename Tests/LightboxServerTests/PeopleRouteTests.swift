import Foundation
import Hummingbird
import HummingbirdTesting
import LightboxTestSupport
import Testing

@testable import Lightbox
@testable import LightboxServer

/// People over HTTP: the People list, naming, moving faces, a split, a merge, "not a face" and
/// the privacy switch, each one transaction; a limited token sees no person.
@Suite("People over HTTP")
struct PeopleRouteTests {
    /// Three photos of one made-up person and one of another, grouped: one person.
    static func recordFaces(_ library: PhotoLibrary) async throws -> [Asset] {
        let assets = try library.fetchAssets(
            options: FetchOptions(sortDescriptors: [FetchSortDescriptor(key: "localIdentifier")]))
        for (index, person) in [0, 0, 0, 1].enumerated() {
            let embedding = (0..<128).map { (i: Int) -> Float in
                (i % 4 == person ? 0.3 : 0) + sin(Float(i * 7 + index * 13)) * 0.01
            }
            try await library.recordFaces(
                [FoundFace(x: 0.2, y: 0.2, width: 0.3, height: 0.3, quality: 0.9, landmarks: [], embedding: embedding)],
                in: assets[index], model: "made-up")
        }
        var state = PhotoLibrary.FaceGroupingState(model: "made-up")
        try await library.groupFaces(&state)
        return Array(assets.objects(at: 0..<4))
    }

    static func faceID(_ library: PhotoLibrary, _ asset: Asset) async throws -> String {
        try #require(try await library.faces(in: asset).first?.localIdentifier)
    }

    @Test("The People list, a name, a move, a split, a merge and not a face; off deletes them all")
    func people() async throws {
        let (folder, library, _, app) = try await ModelRouteTests.makeApp()
        defer { withExtendedLifetime(folder) {} }
        let assets = try await Self.recordFaces(library)
        try await app.test(.router) { client in
            var response = try await client.execute(uri: "/api/people", method: .get) { $0 }
            #expect(response.status == .ok)
            var page = try ModelRouteTests.object(response)
            #expect(page["facesEnabled"] as? Bool == true)
            let people = try #require(page["people"] as? [[String: Any]])
            #expect(people.count == 1)
            let anna = try #require(people.first?["localIdentifier"] as? String)
            #expect(people.first?["estimatedAssetCount"] as? Int == 3)
            #expect((people.first?["keyFace"] as? [String: Any])?["isKeyFace"] as? Bool == true)

            var before = try library.currentChangeToken()
            response = try await ModelRouteTests.send(client, .patch, "/api/people/\(anna)", #"{"name": "Anna"}"#)
            #expect(response.status == .ok)
            #expect(try ModelRouteTests.object(response)["localizedTitle"] as? String == "Anna")
            try ModelRouteTests.expectOneTransaction(response, since: before, in: library)
            // Her photos are a collection's.
            response = try await client.execute(uri: "/api/collections/\(anna)/assets", method: .get) { $0 }
            #expect((try ModelRouteTests.object(response)["assets"] as? [Any])?.count == 3)
            response = try await client.execute(uri: "/api/assets/\(assets[0].localIdentifier)/faces", method: .get) {
                $0
            }
            let faces = try #require(try ModelRouteTests.object(response)["faces"] as? [[String: Any]])
            #expect(faces.first?["personName"] as? String == "Anna")

            // "Not Anna", then a person of her own: a split.
            let moved = try await Self.faceID(library, assets[0])
            before = try library.currentChangeToken()
            response = try await ModelRouteTests.send(
                client, .post, "/api/faces/assign", #"{"faces": ["\#(moved)"], "person": null}"#)
            #expect(response.status == .noContent)
            try ModelRouteTests.expectOneTransaction(response, since: before, in: library)
            response = try await client.execute(uri: "/api/people/\(anna)", method: .get) { $0 }
            #expect(try ModelRouteTests.object(response)["estimatedAssetCount"] as? Int == 2)
            response = try await ModelRouteTests.send(
                client, .post, "/api/people", #"{"name": "Cleo", "faces": ["\#(moved)"]}"#)
            #expect(response.status == .created)
            let cleo = try #require(try ModelRouteTests.object(response)["localIdentifier"] as? String)
            // Two people of one name cannot be told apart.
            response = try await ModelRouteTests.send(client, .patch, "/api/people/\(cleo)", #"{"name": "anna"}"#)
            #expect(response.status == .badRequest)

            // Merged back: one person, with three faces, named Anna.
            response = try await ModelRouteTests.send(
                client, .post, "/api/people/\(anna)/merge", #"{"people": ["\#(cleo)"]}"#)
            #expect(response.status == .ok)
            #expect(try ModelRouteTests.object(response)["faceCount"] as? Int == 3)
            response = try await client.execute(uri: "/api/people/\(cleo)", method: .get) { $0 }
            #expect(response.status == .notFound)

            // Not a face.
            let wrong = try await Self.faceID(library, assets[1])
            response = try await ModelRouteTests.send(client, .post, "/api/faces/reject", #"{"faces": ["\#(wrong)"]}"#)
            #expect(response.status == .noContent)
            #expect(try await library.faces(in: assets[1]).isEmpty)

            // Off: every face and person goes.
            response = try await ModelRouteTests.send(client, .patch, "/api/analysis", #"{"faces": false}"#)
            #expect(try ModelRouteTests.object(response)["faces"] as? Bool == false)
            response = try await client.execute(uri: "/api/people?hidden=true", method: .get) { $0 }
            page = try ModelRouteTests.object(response)
            #expect((page["people"] as? [Any])?.isEmpty == true)
            #expect(page["facesEnabled"] as? Bool == false)
            #expect(try await library.faces(in: assets[2]).isEmpty)
        }
    }

    @Test("A token limited to an album sees no person, and no one's name on its photos' faces")
    func limited() async throws {
        let (folder, library, accounts, app) = try await AccessTests.makeServer()
        defer { withExtendedLifetime(folder) {} }
        // Two photos: made-up faces of one person, three of them on one photo's... one each here.
        let assets = try library.fetchAssets(
            options: FetchOptions(sortDescriptors: [FetchSortDescriptor(key: "localIdentifier")]))
        let embedding = (0..<128).map { (i: Int) -> Float in (i % 4 == 0 ? 0.3 : 0) + sin(Float(i)) * 0.01 }
        for asset in assets {
            try await library.recordFaces(
                [
                    FoundFace(
                        x: 0.1, y: 0.1, width: 0.2, height: 0.2, quality: 0.9, landmarks: [], embedding: embedding),
                    FoundFace(
                        x: 0.5, y: 0.5, width: 0.2, height: 0.2, quality: 0.9, landmarks: [], embedding: embedding),
                ], in: asset, model: "made-up")
        }
        var state = PhotoLibrary.FaceGroupingState(model: "made-up")
        try await library.groupFaces(&state)
        let person = try #require(try library.fetchPeople().firstObject)
        try await library.performChanges { $0.changeRequest(forPerson: person).name = "Anna" }
        var made = ""
        try await library.performChanges { changes in
            let album = changes.creationRequestForAssetCollection(withTitle: "Shown")
            album.addAssets([assets[0].localIdentifier])
            made = album.localIdentifier
        }
        let ann = try #require(try await accounts.user(named: "ann"))
        let (_, secret) = try await accounts.createToken(for: ann, name: "frame", scope: .read, limitedTo: [made])
        let limited: HTTPFields = [.authorization: "Bearer " + secret]
        let (_, whole) = try await accounts.createToken(for: ann, name: "reader", scope: .read)
        try await app.test(.router) { client in
            var response = try await client.execute(uri: "/api/people", method: .get, headers: limited) { $0 }
            #expect((try AccessTests.body(response)["people"] as? [Any])?.isEmpty == true)
            response = try await client.execute(
                uri: "/api/people/\(person.localIdentifier)", method: .get, headers: limited
            ) { $0 }
            #expect(response.status == .notFound)
            response = try await client.execute(
                uri: "/api/people/\(person.localIdentifier)/faces", method: .get, headers: limited
            ) { $0 }
            #expect(response.status == .notFound)
            response = try await client.execute(
                uri: "/api/assets/\(assets[0].localIdentifier)/faces", method: .get, headers: limited
            ) { $0 }
            let faces = try #require(try AccessTests.body(response)["faces"] as? [[String: Any]])
            #expect(faces.count == 2)
            #expect(faces.allSatisfy { $0["personLocalIdentifier"] == nil && $0["personName"] == nil })
            let text = String(decoding: response.body.readableBytesView, as: UTF8.self)
            #expect(!text.contains(person.localIdentifier) && !text.contains("Anna"))
            // Its photo outside the album: not found.
            response = try await client.execute(
                uri: "/api/assets/\(assets[1].localIdentifier)/faces", method: .get, headers: limited
            ) { $0 }
            #expect(response.status == .notFound)
            response = try await client.execute(
                uri: "/api/collections/\(person.localIdentifier)/assets", method: .get, headers: limited
            ) { $0 }
            #expect(response.status == .notFound)
            // Nor learns a name by asking which of its photos show someone.
            let predicates = [
                "person == \"Anna\"", "personIdentifier == \"\(person.localIdentifier)\"", "people.@count > 0",
            ]
            for predicate in predicates {
                let query = predicate.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
                response = try await client.execute(
                    uri: "/api/timeline?predicate=\(query)", method: .get, headers: limited
                ) { $0 }
                #expect(response.status == .badRequest, "\(predicate)")
            }
            // A token of the whole library asks the same, and is answered: both photos.
            let owned = "person == \"Anna\"".addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            response = try await client.execute(
                uri: "/api/timeline?predicate=\(owned)", method: .get, headers: [.authorization: "Bearer " + whole]
            ) { $0 }
            #expect(response.status == .ok)
            #expect(try AccessTests.body(response)["count"] as? Int == 2)
        }
    }

    @Test("Each user switches finding faces off in their own library; a token may not")
    func facesOffPerUser() async throws {
        let (folder, library, accounts, app) = try await AccessTests.makeServer()
        defer { withExtendedLifetime(folder) {} }
        let asset = try #require(try library.fetchAssets().firstObject)
        try await library.recordFaces(
            [
                FoundFace(
                    x: 0.1, y: 0.1, width: 0.2, height: 0.2, quality: 0.9, landmarks: [],
                    embedding: [Float](repeating: 0.1, count: 128))
            ], in: asset, model: "made-up")
        let ann = try #require(try await accounts.user(named: "ann"))
        let (_, writer) = try await accounts.createToken(for: ann, name: "script", scope: .write)
        try await app.test(.router) { client in
            let off = ByteBuffer(string: #"{"faces": false}"#)
            // A program may not delete what people named: only a person, signed in.
            var response = try await client.execute(
                uri: "/api/analysis", method: .patch,
                headers: [.authorization: "Bearer " + writer, .contentType: "application/json"], body: off
            ) { $0 }
            #expect(response.status == .forbidden)
            // Bob, a member, switches his own library off...
            let bob = try await AccessTests.signIn(client, "bob", "bob's password")
            response = try await client.execute(
                uri: "/api/analysis", method: .patch, headers: [.cookie: bob, .contentType: "application/json"],
                body: off
            ) { $0 }
            #expect(response.status == .ok)
            response = try await client.execute(uri: "/api/analysis", method: .get, headers: [.cookie: bob]) { $0 }
            #expect(try AccessTests.body(response)["faces"] as? Bool == false)
            // ...and Ann's keeps finding faces, and keeps the ones it found.
            let anna = try await AccessTests.signIn(client, "ann", "ann's password")
            response = try await client.execute(uri: "/api/analysis", method: .get, headers: [.cookie: anna]) { $0 }
            #expect(try AccessTests.body(response)["faces"] as? Bool == true)
            #expect(try await library.facesEnabled())
            #expect(try await library.faces(in: asset).count == 1)
        }
    }
}
