import Crypto
import Foundation
import GRDB
import Hummingbird
import HummingbirdTesting
import LightboxImaging
import LightboxTestSupport
import Testing

@testable import Lightbox
@testable import LightboxServer
@testable import LightboxStore

/// The model's writes over HTTP: each one transaction, answered with its change token, and
/// what it did checked against the library itself.
@Suite("The model over HTTP")
struct ModelRouteTests {
    static let json: HTTPFields = [.contentType: "application/json"]
    static let tokenHeader = HTTPFields.headerName("X-Lightbox-Change-Token")

    static func makeApp() async throws -> (TemporaryDirectory, PhotoLibrary, [String], some ApplicationProtocol) {
        let folder = try TemporaryDirectory()
        let library = try folder.makeLibrary()
        let paths = Array(try Corpus.photoPaths().prefix(5))
        let summary = await library.importItems(at: paths.map { URL(fileURLWithPath: $0) })
        try #require(summary.progress.imported == paths.count)
        let ids = try library.fetchAssets().map(\.localIdentifier)
        return (folder, library, ids, Application(router: LightboxServer.router(library: library)))
    }

    static func object(_ response: TestResponse) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any])
    }

    /// The change token the answer carries is the library's newest, and the history since the
    /// token before it holds exactly one transaction.
    static func expectOneTransaction(
        _ response: TestResponse, since before: PersistentChangeToken, in library: PhotoLibrary,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let token = try #require(
            response.headers[tokenHeader].flatMap(PersistentChangeToken.init), sourceLocation: sourceLocation)
        #expect(token == (try library.currentChangeToken()), sourceLocation: sourceLocation)
        #expect(try library.fetchPersistentChanges(since: before).count == 1, sourceLocation: sourceLocation)
    }

    static func send(
        _ client: some TestClientProtocol, _ method: HTTPRequest.Method, _ uri: String, _ body: String
    ) async throws -> TestResponse {
        try await client.execute(uri: uri, method: method, headers: json, body: ByteBuffer(string: body)) { $0 }
    }

    @Test("Favourite, hide and rate many assets in one transaction; delete and restore many")
    func assets() async throws {
        let (folder, library, ids, app) = try await Self.makeApp()
        defer { withExtendedLifetime(folder) {} }
        try await app.test(.router) { client in
            var before = try library.currentChangeToken()
            let list = ids.prefix(3).map { "\"\($0)\"" }.joined(separator: ",")
            var response = try await Self.send(
                client, .patch, "/api/assets", #"{"assets": [\#(list)], "favorite": true, "rating": 4}"#)
            #expect(response.status == .ok)
            try Self.expectOneTransaction(response, since: before, in: library)
            #expect((try Self.object(response)["assets"] as? [Any])?.count == 3)
            for id in ids.prefix(3) {
                let asset = try #require(try await library.asset(withLocalIdentifier: id))
                #expect(asset.isFavorite && asset.rating == 4)
            }
            #expect(try await library.asset(withLocalIdentifier: ids[3])?.isFavorite == false)

            before = try library.currentChangeToken()
            response = try await Self.send(client, .patch, "/api/assets/\(ids[3])", #"{"hidden": true}"#)
            #expect(response.status == .ok)
            try Self.expectOneTransaction(response, since: before, in: library)
            #expect(try await library.asset(withLocalIdentifier: ids[3])?.isHidden == true)

            // Refused whole: an unknown asset among known ones changes nothing.
            before = try library.currentChangeToken()
            response = try await Self.send(
                client, .patch, "/api/assets", #"{"assets": ["\#(ids[4])", "no-such-asset"], "favorite": true}"#)
            #expect(response.status == .notFound)
            #expect(try await library.asset(withLocalIdentifier: ids[4])?.isFavorite == false)
            #expect(try library.currentChangeToken() == before)
            for bad in [
                #"{"assets": [], "favorite": true}"#, #"{"assets": ["\#(ids[0])"]}"#,
                #"{"assets": ["\#(ids[0])"], "rating": 9}"#,
            ] {
                #expect(try await Self.send(client, .patch, "/api/assets", bad).status == .badRequest, "\(bad)")
            }

            before = try library.currentChangeToken()
            response = try await Self.send(client, .post, "/api/assets/delete", #"{"assets": [\#(list)]}"#)
            #expect(response.status == .ok)
            try Self.expectOneTransaction(response, since: before, in: library)
            #expect(try await library.assetCount() == 2)
            before = try library.currentChangeToken()
            response = try await Self.send(client, .post, "/api/assets/restore", #"{"assets": [\#(list)]}"#)
            try Self.expectOneTransaction(response, since: before, in: library)
            #expect(try await library.assetCount() == 5)
            response = try await Self.send(
                client, .post, "/api/assets/delete", #"{"assets": ["\#(ids[0])"], "permanently": true}"#)
            #expect(response.status == .ok)
            #expect(try await library.asset(withLocalIdentifier: ids[0]) == nil)
        }
    }

    @Test("Albums made, renamed, filled, reordered, emptied and deleted; folders hold and move them")
    func albumsAndFolders() async throws {
        let (folder, library, ids, app) = try await Self.makeApp()
        defer { withExtendedLifetime(folder) {} }
        try await app.test(.router) { client in
            var before = try library.currentChangeToken()
            var response = try await Self.send(
                client, .post, "/api/collections", #"{"title": "Iceland", "assets": ["\#(ids[0])", "\#(ids[1])"]}"#)
            #expect(response.status == .created)
            try Self.expectOneTransaction(response, since: before, in: library)
            let album = try #require(try Self.object(response)["localIdentifier"] as? String)
            #expect(try Self.object(response)["estimatedAssetCount"] as? Int == 2)
            #expect(try Self.object(response)["keyAssetIdentifier"] as? String == ids[0])

            response = try await Self.send(client, .patch, "/api/collections/\(album)", #"{"title": "Iceland 2024"}"#)
            #expect(try Self.object(response)["localizedTitle"] as? String == "Iceland 2024")
            response = try await Self.send(
                client, .post, "/api/collections/\(album)/assets", #"{"assets": ["\#(ids[2])"], "at": 0}"#)
            #expect(response.status == .ok)
            // An index that would overflow when the members are counted from it is refused, not a trap.
            for body in [
                #"{"assets": ["\#(ids[3])"], "at": 9223372036854775807}"#, #"{"assets": ["\#(ids[3])"], "at": -1}"#,
            ] {
                #expect(
                    try await Self.send(client, .post, "/api/collections/\(album)/assets", body).status == .badRequest)
            }
            #expect(
                try await Self.send(
                    client, .post, "/api/collections/\(album)/assets/move", #"{"from": [0], "to": 9223372036854775807}"#
                ).status == .badRequest)
            response = try await Self.send(
                client, .post, "/api/collections/\(album)/assets/move", #"{"from": [0], "to": 2}"#)
            #expect(response.status == .ok)
            var order = try library.fetchAssets(inCollectionWithLocalIdentifier: album).map(\.localIdentifier)
            #expect(order == [ids[0], ids[1], ids[2]])
            response = try await Self.send(
                client, .post, "/api/collections/\(album)/assets/remove", #"{"assets": ["\#(ids[1])"]}"#)
            order = try library.fetchAssets(inCollectionWithLocalIdentifier: album).map(\.localIdentifier)
            #expect(order == [ids[0], ids[2]])
            try await client.execute(uri: "/api/collections/\(album)/assets", method: .get) { response throws in
                let assets = try #require(try Self.object(response)["assets"] as? [[String: Any]])
                #expect(assets.compactMap { $0["localIdentifier"] as? String } == order)
            }

            // Folders: one inside another, the album moved from one to the other.
            response = try await Self.send(client, .post, "/api/lists", #"{"title": "Trips"}"#)
            #expect(response.status == .created)
            let trips = try #require(try Self.object(response)["localIdentifier"] as? String)
            response = try await Self.send(client, .post, "/api/lists", #"{"title": "Europe", "list": "\#(trips)"}"#)
            let europe = try #require(try Self.object(response)["localIdentifier"] as? String)
            response = try await Self.send(
                client, .post, "/api/lists/\(trips)/collections", #"{"collections": ["\#(album)"]}"#)
            #expect(try Self.object(response)["count"] as? Int == 2)
            before = try library.currentChangeToken()
            response = try await Self.send(
                client, .post, "/api/lists/\(europe)/collections", #"{"collections": ["\#(album)"]}"#)
            #expect(response.status == .ok)
            try Self.expectOneTransaction(response, since: before, in: library)
            try await client.execute(uri: "/api/lists/\(trips)/collections", method: .get) { response throws in
                let members = try #require(try Self.object(response)["collections"] as? [[String: Any]])
                #expect(members.compactMap { $0["kind"] as? String } == ["folder"])
                #expect(members.first?["count"] as? Int == 1)
            }
            try await client.execute(uri: "/api/lists/top/collections", method: .get) { response throws in
                let members = try #require(try Self.object(response)["collections"] as? [[String: Any]])
                #expect(members.compactMap { $0["localIdentifier"] as? String } == [trips])
            }
            response = try await Self.send(
                client, .post, "/api/lists/\(europe)/collections/remove", #"{"collections": ["\#(album)"]}"#)
            #expect(try Self.object(response)["count"] as? Int == 0)
            // The top level reordered: oldest first (the album, made before the folder) until then.
            let top = { try library.fetchTopLevelUserCollections().map(\.localIdentifier) }
            #expect(try top() == [album, trips])
            before = try library.currentChangeToken()
            response = try await Self.send(client, .post, "/api/lists/top/collections/move", #"{"from": [1], "to": 0}"#)
            #expect(response.status == .noContent)
            try Self.expectOneTransaction(response, since: before, in: library)
            #expect(try top() == [trips, album])
            response = try await Self.send(client, .post, "/api/lists/top/collections/move", #"{"from": [2], "to": 0}"#)
            #expect(response.status == .badRequest)
            #expect(try top() == [trips, album])
            try await client.execute(uri: "/api/lists/\(europe)", method: .delete) { #expect($0.status == .noContent) }
            try await client.execute(uri: "/api/collections/\(album)", method: .delete) { response throws in
                #expect(response.status == .noContent)
                #expect(response.headers[Self.tokenHeader] == (try library.currentChangeToken()).description)
            }
            #expect(try library.fetchAssetCollections(with: .album).count == 0)
            #expect(try await library.assetCount() == 5)
            try await client.execute(uri: "/api/collections/\(album)", method: .get) { #expect($0.status == .notFound) }
        }
    }

    @Test("Smart albums, moments and years list with their counts and key assets, as the library has them")
    func collections() async throws {
        let (folder, library, ids, app) = try await Self.makeApp()
        defer { withExtendedLifetime(folder) {} }
        try await library.performChanges { $0.changeRequest(forAssetWithLocalIdentifier: ids[1]).isFavorite = true }
        try await app.test(.router) { client in
            try await client.execute(uri: "/api/collections?type=smartAlbum", method: .get) { response throws in
                let collections = try #require(try Self.object(response)["collections"] as? [[String: Any]])
                let favorites = try #require(
                    collections.first {
                        $0["assetCollectionSubtype"] as? Int == AssetCollectionSubtype.smartAlbumFavorites.rawValue
                    })
                #expect(favorites["estimatedAssetCount"] as? Int == 1)
                #expect(favorites["keyAssetIdentifier"] as? String == ids[1])
            }
            let moments = try library.fetchMoments()
            try await client.execute(uri: "/api/collections?type=moment", method: .get) { response throws in
                let listed = try #require(try Self.object(response)["collections"] as? [[String: Any]])
                #expect(listed.compactMap { $0["localIdentifier"] as? String } == moments.map(\.localIdentifier))
                for (entry, moment) in zip(listed, moments) {
                    #expect(entry["estimatedAssetCount"] as? Int == moment.estimatedAssetCount)
                    #expect(
                        entry["keyAssetIdentifier"] as? String
                            == (try library.fetchKeyAssets(in: moment).firstObject?.localIdentifier))
                }
            }
            try await client.execute(uri: "/api/collections?type=moment&limit=1", method: .get) { response throws in
                #expect((try Self.object(response)["collections"] as? [Any])?.count == 1)
                #expect(
                    (try Self.object(response)["next"] as? String)
                        == (moments.count > 1 ? moments[0].localIdentifier : nil))
            }
            let years = try library.fetchMomentLists(.momentListYear)
            try await client.execute(uri: "/api/lists?type=year", method: .get) { response throws in
                let lists = try #require(try Self.object(response)["lists"] as? [[String: Any]])
                #expect(lists.compactMap { $0["localizedTitle"] as? String } == years.map { $0.localizedTitle ?? "" })
                #expect(lists.compactMap { $0["count"] as? Int }.reduce(0, +) == moments.count)
            }
            try await client.execute(uri: "/api/collections?type=folder", method: .get) {
                #expect($0.status == .badRequest)
            }
        }
    }

    @Test("Downloads: an original byte for byte with its name; the current version of an edited photo is its render")
    func downloads() async throws {
        let (folder, library, ids, app) = try await Self.makeApp()
        defer { withExtendedLifetime(folder) {} }
        let asset = try #require(try await library.asset(withLocalIdentifier: ids[0]))
        let photo = try #require(asset.resource(ofType: .photo))
        let stored = try Data(contentsOf: try await library.fileURL(for: photo))
        try await app.test(.router) { client in
            try await client.execute(uri: "/api/assets/\(ids[0])/original", method: .get) { response throws in
                #expect(response.status == .ok)
                let bytes = Data(response.body.readableBytesView)
                #expect(bytes == stored)
                #expect(SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined() == photo.sha256)
                #expect(response.headers[.contentDisposition]?.contains(photo.originalFilename) == true)
                #expect(response.headers[.eTag] == "\"\(photo.sha256)\"")
            }
            try await client.execute(
                uri: "/api/assets/\(ids[0])/original", method: .get, headers: [.range: "bytes=10-19"]
            ) { response throws in
                #expect(response.status == .partialContent)
                #expect(Data(response.body.readableBytesView) == stored[10..<20])
            }
            try await client.execute(uri: "/api/assets/\(ids[0])/original?type=pairedVideo", method: .get) {
                #expect($0.status == .notFound)
            }
            try await client.execute(uri: "/api/assets/\(ids[0])/download?version=current", method: .get) {
                response throws in
                #expect(Data(response.body.readableBytesView) == stored, "unedited: the original")
            }
        }
        let edited = try await library.edit(asset, with: RecipeEditor(replacingWith: [.exposure(0.5)]))
        let render = try #require(edited.resource(ofType: .fullSizePhoto))
        try await app.test(.router) { client in
            try await client.execute(uri: "/api/assets/\(ids[0])/download", method: .get) { response throws in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "image/jpeg")
                #expect(
                    Data(response.body.readableBytesView)
                        == (try Data(contentsOf: try library.fileURL(for: render))))
            }
            try await client.execute(uri: "/api/assets/\(ids[0])/download?version=original", method: .get) {
                response throws in
                #expect(Data(response.body.readableBytesView) == stored)
            }
        }
    }
}

extension ModelRouteTests {
    @Test("The timeline's days add up to the count; pages by offset and by asset are the fetch's own slices")
    func timelineAndPositions() async throws {
        let (folder, library, _, app) = try await Self.makeApp()
        defer { withExtendedLifetime(folder) {} }
        // The timeline's order: newest first by the clock where each was taken.
        var newest = FetchOptions()
        newest.sortDescriptors = [FetchSortDescriptor(key: "localCreationDate", ascending: false)]
        let all = try library.fetchAssets(options: newest).map(\.localIdentifier)
        let days = try library.fetchAssets(options: newest).creationDays(aspectRatios: true)
        try await app.test(.router) { client in
            try await client.execute(uri: "/api/timeline", method: .get) { response throws in
                let listed = try #require(try Self.object(response)["days"] as? [[String: Any]])
                #expect(!listed.isEmpty && listed.allSatisfy { $0["aspects"] == nil }, "shapes only when asked for")
            }
            try await client.execute(uri: "/api/timeline?aspects=true", method: .get) { response throws in
                #expect(response.status == .ok)
                let timeline = try Self.object(response)
                #expect(timeline["count"] as? Int == all.count)
                let listed = try #require(timeline["days"] as? [[String: Any]])
                #expect(listed.map { $0["day"] as? String } == days.map(\.isoDay))
                #expect(listed.compactMap { $0["count"] as? Int }.reduce(0, +) == all.count)
                // Each asset's shape in hundredths, the model's.
                let aspects = listed.flatMap { $0["aspects"] as? [Int] ?? [] }
                #expect(aspects == days.flatMap(\.aspectRatios).map { Int(($0 * 100).rounded()) })
                #expect(aspects.count == all.count && aspects.allSatisfy { $0 > 100 }, "\(aspects)")
            }
            // An album's assets in its order, with their shapes: the last two, reversed.
            var album = ""
            let members = Array(all.suffix(2).reversed())
            try await library.performChanges { changes in
                let request = changes.creationRequestForAssetCollection(withTitle: "Shapes")
                request.addAssets(members)
                album = request.localIdentifier
            }
            try await client.execute(uri: "/api/collections/\(album)/timeline?aspects=true", method: .get) {
                response throws in
                #expect(response.status == .ok)
                let timeline = try Self.object(response)
                #expect(timeline["count"] as? Int == 2)
                let listed = try #require(timeline["days"] as? [[String: Any]])
                let shapes = try members.map { id -> Int in
                    let asset = try #require(try library.asset(withLocalIdentifier: id))
                    return Int((Double(asset.pixelWidth) / Double(asset.pixelHeight) * 100).rounded())
                }
                #expect(listed.flatMap { $0["aspects"] as? [Int] ?? [] } == shapes)
            }
            for offset in 0..<all.count {
                try await client.execute(uri: "/api/assets?offset=\(offset)&limit=2", method: .get) { response throws in
                    let page = try Self.object(response)
                    #expect(page["offset"] as? Int == offset && page["count"] as? Int == all.count)
                    let ids = (page["assets"] as? [[String: Any]])?.compactMap { $0["localIdentifier"] as? String }
                    #expect(ids == Array(all[offset..<min(all.count, offset + 2)]))
                }
                try await client.execute(uri: "/api/assets?at=\(all[offset])&limit=1", method: .get) {
                    response throws in
                    #expect(try Self.object(response)["offset"] as? Int == offset)
                }
            }
            // The first page of the index's own paging starts at 0; its later pages do not say.
            try await client.execute(uri: "/api/assets?limit=2", method: .get) { response throws in
                #expect(try Self.object(response)["offset"] as? Int == 0)
            }
            try await client.execute(uri: "/api/assets?limit=2&after=\(all[0])", method: .get) { response throws in
                #expect(try Self.object(response)["offset"] == nil)
            }
            // A timeline with a predicate: only what it selects.
            try await client.execute(
                uri: "/api/timeline?predicate=mediaType%20%3D%3D%202&sort=creationDate%20desc", method: .get
            ) { response throws in
                #expect(try Self.object(response)["count"] as? Int == 0)
            }
            // The cameras of the same fetch, the library's own.
            let cameras = try library.fetchAssets().cameras()
            try await client.execute(uri: "/api/cameras", method: .get) { response throws in
                let listed = try #require(try Self.object(response)["cameras"] as? [[String: Any]])
                #expect(listed.map { $0["model"] as? String } == cameras.map(\.model))
                #expect(listed.map { $0["count"] as? Int } == cameras.map(\.count))
                #expect(cameras.contains { $0.model != nil })
            }
            if let model = cameras.compactMap(\.model).first {
                let predicate = "cameraModel == \"\(model)\"".addingPercentEncoding(
                    withAllowedCharacters: .alphanumerics)!
                try await client.execute(uri: "/api/timeline?predicate=\(predicate)", method: .get) { response throws in
                    #expect(
                        try Self.object(response)["count"] as? Int
                            == cameras.filter { $0.model == model }.reduce(0) { $0 + $1.count })
                }
            }
            for bad in ["offset=1&after=\(all[0])", "offset=-1", "at=NOPE", "offset=x"] {
                try await client.execute(uri: "/api/assets?" + bad, method: .get) { response in
                    #expect(response.status == (bad == "at=NOPE" ? .notFound : .badRequest), "\(bad)")
                }
            }
        }
    }
}

extension ModelRouteTests {
    @Test("A movie asked for as playable: an HEVC one answered as its H.264 copy, with ranges; as stored without")
    func playableMovie() async throws {
        let folder = try TemporaryDirectory()
        let (library, asset) = try await folder.makeLibraryWithHEVCMovie()
        let app = Application(router: LightboxServer.router(library: library))
        try await app.test(.router) { client in
            let path = "/api/assets/\(asset.localIdentifier)/movie"
            let copy = folder.path("copy.mov")
            // The copy is made while the client waits up to 20 s, then 503 until it is there: a
            // busy machine (a CI run) may take longer, and the client asks again as told.
            var status = HTTPResponse.Status.serviceUnavailable
            for _ in 0..<600 where status == .serviceUnavailable {
                try await client.execute(uri: path + "?playable=true", method: .get) { response throws in
                    status = response.status
                    guard status == .ok else {
                        #expect(status == .serviceUnavailable && response.headers[.retryAfter] == "2")
                        return
                    }
                    #expect(response.headers[.contentType] == "video/quicktime")
                    try Data(response.body.readableBytesView).write(to: URL(fileURLWithPath: copy))
                }
                if status == .serviceUnavailable { try await Task.sleep(for: .seconds(1)) }
            }
            #expect(status == .ok)
            #expect(try FFmpeg.videoCodec(copy).codec == "h264")
            try await client.execute(uri: path + "?playable=true", method: .get, headers: [.range: "bytes=0-99"]) {
                response in
                #expect(response.status == .partialContent && response.body.readableBytes == 100)
            }
            try await client.execute(uri: path, method: .get) { response throws in
                #expect(response.status == .ok)
                let stored = folder.path("stored.mov")
                try Data(response.body.readableBytesView).write(to: URL(fileURLWithPath: stored))
                #expect(try FFmpeg.videoCodec(stored).codec == "hevc")
            }
            // At a size: the 640 preset, H.264 (waited for as above).
            status = .serviceUnavailable
            let small = folder.path("small.mov")
            for _ in 0..<600 where status == .serviceUnavailable {
                try await client.execute(uri: path + "?size=700", method: .get) { response throws in
                    status = response.status
                    if status == .ok {
                        try Data(response.body.readableBytesView).write(to: URL(fileURLWithPath: small))
                    }
                }
                if status == .serviceUnavailable { try await Task.sleep(for: .seconds(1)) }
            }
            #expect(status == .ok)
            let probe = try FFmpeg.probe(small)
            #expect(probe.width == 640 && probe.height == 360)
            try await client.execute(uri: path + "?size=8", method: .get) { #expect($0.status == .badRequest) }
            try await client.execute(uri: path + "?playable=maybe", method: .get) { response in
                #expect(response.status == .badRequest)
            }
        }
    }
}

extension ModelRouteTests {
    @Test("An album deleted while a listing reads its cover is listed as the listing's fetch saw it")
    func albumDeletedWhileListed() async throws {
        let (folder, library, ids, _) = try await Self.makeApp()
        defer { withExtendedLifetime(folder) {} }
        var album = ""
        try await library.performChanges { changes in
            let request = changes.creationRequestForAssetCollection(withTitle: "Going")
            request.addAssets(Array(ids.prefix(2)))
            album = request.localIdentifier
        }
        // The listing's fetch, then the deletion, then the cover's read: what a request listing
        // albums meets when another deletes one meanwhile.
        let listed = try #require(try library.fetchAssetCollections(withLocalIdentifiers: [album]).firstObject)
        try await library.performChanges { $0.deleteAssetCollections([album]) }
        let entry = try CollectionRoutes.entry(listed, in: library)
        #expect(entry.collection.localIdentifier == album && entry.keyAssetIdentifier == nil)
    }
}

extension ModelRouteTests {
    @Test("/api/cameras lists at most 1,000 cameras, the most used, however many the files name")
    func camerasAreBounded() async throws {
        let (folder, library, _, app) = try await Self.makeApp()
        defer { withExtendedLifetime(folder) {} }
        // 1,100 assets, each naming a camera of its own but for 10 of one camera: what files
        // written to fill a listing would do.
        try library.store.writeSQL { db in
            for index in 0..<1_100 {
                try db.execute(
                    """
                    INSERT INTO asset (localIdentifier, mediaType, pixelWidth, pixelHeight, creationDate,
                    modificationDate, addedDate, cameraModel) VALUES (?, 1, 10, 10, ?, ?, ?, ?)
                    """,
                    ["CAMERA-\(index)", Date(), Date(), Date(), index < 10 ? "Common" : "Camera \(index)"])
            }
            try db.execute("INSERT INTO changeTransaction (date, author) VALUES (?, 'test')", [Date()])
        }
        try await app.test(.router) { client in
            try await client.execute(uri: "/api/cameras", method: .get) { response throws in
                let listed = try #require(try Self.object(response)["cameras"] as? [[String: Any]])
                #expect(listed.count == AssetRoutes.maximumCameras)
                #expect(listed.first?["model"] as? String == "Common" && listed.first?["count"] as? Int == 10)
            }
        }
    }
}

extension ModelRouteTests {
    @Test("Installed editors over HTTP: listed, those for an asset with mayContinue, an edit by identifier")
    func installedEditors() async throws {
        let (folder, library, ids, app) = try await Self.makeApp()
        defer { withExtendedLifetime(folder) {} }
        let editors = library.url.path + "/editors"
        try FileManager.default.createDirectory(atPath: editors, withIntermediateDirectories: true)
        let examples = Corpus.packageRoot.appendingPathComponent("examples/editors").path
        try FileManager.default.copyItem(atPath: examples + "/negative", toPath: editors + "/negative")
        let identifier = "org.lightbox.example.negative"
        try await app.test(.router) { client in
            try await client.execute(uri: "/api/editors", method: .get) { response throws in
                #expect(response.status == .ok)
                let list = try #require(
                    try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [[String: Any]])
                let negative = try #require(list.first { $0["identifier"] as? String == identifier })
                #expect(
                    negative["mediaTypes"] as? [String] == ["image", "video"]
                        && negative["scope"] as? String == "library")
                #expect((negative["settings"] as? [[String: Any]])?.first?["name"] as? String == "strength")
            }
            let before = try library.currentChangeToken()
            let edited = try await Self.send(
                client, .post, "/api/assets/\(ids[0])/edits",
                #"{"editor": "\#(identifier)", "filters": ["strength=1"]}"#)
            #expect(edited.status == .ok, "\(String(buffer: edited.body))")
            try Self.expectOneTransaction(edited, since: before, in: library)
            #expect(try Self.object(edited)["adjustmentFormatIdentifier"] as? String == identifier)
            try await client.execute(uri: "/api/assets/\(ids[0])/editors", method: .get) { response throws in
                let list = try #require(
                    try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [[String: Any]])
                let negative = try #require(list.first { $0["identifier"] as? String == identifier })
                #expect(negative["mayContinue"] as? Bool == true)
            }
            try await client.execute(uri: "/api/assets/\(ids[1])/editors", method: .get) { response throws in
                let list =
                    try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [[String: Any]]
                #expect(list?.first { $0["identifier"] as? String == identifier }?["mayContinue"] as? Bool == false)
            }
            let unknown = try await Self.send(
                client, .post, "/api/assets/\(ids[1])/edits", #"{"editor": "org.nobody.x", "filters": []}"#)
            #expect(unknown.status == .notFound)
            let refused = try await Self.send(
                client, .post, "/api/assets/\(ids[1])/edits",
                #"{"editor": "\#(identifier)", "filters": ["strength=7"]}"#)
            #expect(
                refused.status == .badRequest && String(buffer: refused.body).contains("strength must be from 0 to 1"))
        }
    }
}

extension ModelRouteTests {
    @Test("Image data over HTTP: the photo's bytes as stored, with its orientation and type")
    func imageData() async throws {
        let (folder, library, _, app) = try await Self.makeApp()
        defer { withExtendedLifetime(folder) {} }
        // A photo turned right by its EXIF tag (6), as exiftool reads it.
        let turned = try Corpus.path("pillow/images/hopper_orientation_6.jpg")
        #expect(try ExifTool.tags(["Orientation"], of: turned)["Orientation"] == "6")
        let summary = await library.importItems(at: [URL(fileURLWithPath: turned)])
        guard case .imported(let asset) = try #require(summary.results.first).outcome else {
            Issue.record("the turned photo did not import")
            return
        }
        #expect(asset.orientation == 6)
        let ids = [asset.localIdentifier]
        let stored = try Data(contentsOf: URL(fileURLWithPath: turned))
        try await app.test(.router) { client in
            try await client.execute(uri: "/api/assets/\(ids[0])/data", method: .get) { response throws in
                #expect(response.status == .ok)
                #expect(Data(response.body.readableBytesView) == stored)
                #expect(response.headers[.init("X-Lightbox-Orientation")!] == "6")
                #expect(
                    response.headers[.init("X-Lightbox-Uniform-Type-Identifier")!]
                        == asset.resources.first?.uniformTypeIdentifier)
            }
            try await client.execute(uri: "/api/assets/\(ids[0])/data?version=sideways", method: .get) {
                #expect($0.status == .badRequest)
            }
            try await client.execute(uri: "/api/assets/\(ids[0])", method: .get) { response throws in
                #expect(try Self.object(response)["orientation"] as? Int == 6)
            }
        }
    }
}

extension ModelRouteTests {
    @Test("The job queue over HTTP; a server alone runs its library's jobs; limited access sees none")
    func jobs() async throws {
        let folder = try TemporaryDirectory()
        let (library, asset) = try await folder.makeLibraryWithHEVCMovie()
        // A server that leaves its jobs to workers shows the ones waiting (the phone's movie has
        // a location, whose place waits for a runner with an analysis service).
        try await Application(router: LightboxServer.router(library: library, jobs: 0)).test(.router) { client in
            try await client.execute(uri: "/api/jobs", method: .get) { response throws in
                #expect(response.status == .ok)
                let queue = try Self.object(response)
                #expect(queue["waiting"] as? [String: Int] == ["playableMovie": 1, "places": 1])
                #expect((queue["running"] as? [Any])?.isEmpty == true && (queue["failed"] as? [Any])?.isEmpty == true)
            }
            try await client.execute(uri: "/api/jobs/retry", method: .post, headers: [.origin: "http://localhost"]) {
                response throws in
                #expect(response.status == .ok)
                #expect(try Self.object(response)["retried"] as? Int == 0)
            }
        }
        let limited = library.limited(to: LimitedSelection(assetIdentifiers: [asset.localIdentifier]))
        try await Application(router: LightboxServer.router(library: limited)).test(.router) { client in
            try await client.execute(uri: "/api/jobs", method: .get) { #expect($0.status == .forbidden) }
        }
        // A server alone runs them: the copy is made without anyone asking for the movie.
        try await Application(router: LightboxServer.router(library: library, jobs: 1)).test(.router) { client in
            var pending = true
            for _ in 0..<900 where pending {
                try await client.execute(uri: "/api/jobs", method: .get) { response throws in
                    let queue = try Self.object(response)
                    // The movie's place waits for a runner with an analysis service, which
                    // this server has not.
                    pending =
                        (queue["waiting"] as? [String: Int])?["playableMovie"] != nil
                        || !((queue["running"] as? [Any])?.isEmpty ?? false)
                }
                if pending { try await Task.sleep(for: .seconds(1)) }
            }
            #expect(!pending, "the server ran its job")
        }
        guard case .transcoded(let path, _) = try await library.playableMovie(for: asset, wait: .zero) else {
            Issue.record("no copy after the server's job")
            return
        }
        #expect(try FFmpeg.videoCodec(path).codec == "h264")
    }
}
