import Foundation
import Hummingbird
import HummingbirdTesting
import Lightbox
import LightboxTestSupport
import Testing

@testable import LightboxServer

@Suite("Downloads as ZIP archives")
struct DownloadTests {
    @Test("A selection downloads as one archive Python reads: originals byte for byte, a Live Photo's pair")
    func archive() async throws {
        let (folder, library, accounts, app) = try await AccessTests.makeServer()
        defer { withExtendedLifetime(folder) {} }
        let pair = try Corpus.livePhotoPair(in: folder, identifier: "8E6D4C2A-0B1F-4E7A-9C3D-5F2A1B0C9D8E")
        _ = await library.importItems(at: [URL(fileURLWithPath: pair.still), URL(fileURLWithPath: pair.movie)])
        let assets = try await library.assets()
        let live = try #require(assets.first { $0.mediaSubtypes.contains(.photoLive) })
        let photos = assets.filter { !$0.mediaSubtypes.contains(.photoLive) }
        try #require(photos.count == 2)
        let ann = try #require(try await accounts.user(named: "ann"))
        let (_, token) = try await accounts.createToken(for: ann, name: "backup", scope: .read)
        try await app.test(.router) { client in
            let cookie = try await AccessTests.signIn(client, "ann", "ann's password")
            func ask(_ body: String, _ headers: HTTPFields) async throws -> (HTTPResponse.Status, [String: Any]) {
                var headers = headers
                headers[.contentType] = "application/json"
                return try await client.execute(
                    uri: "/api/downloads", method: .post, headers: headers,
                    body: ByteBuffer(string: body)
                ) { ($0.status, (try? AccessTests.body($0)) ?? [:]) }
            }
            let ids = (photos + [live]).map { "\"\($0.localIdentifier)\"" }.joined(separator: ",")
            for version in ["original", "current"] {
                let (status, made) = try await ask(
                    #"{"assets": [\#(ids)], "version": "\#(version)"}"#, [.cookie: cookie])
                #expect(status == .created)
                #expect(made["count"] as? Int == 3)
                let path = try #require(made["path"] as? String)
                let zipPath = folder.path("download-\(version).zip")
                try await client.execute(uri: path, method: .get, headers: [.cookie: cookie]) { response in
                    #expect(response.status == .ok)
                    #expect(response.headers[.contentType] == "application/zip")
                    #expect(response.headers[.contentDisposition]?.contains(".zip") == true)
                    try Data(response.body.readableBytesView).write(to: URL(fileURLWithPath: zipPath))
                }
                let entries = try ZipOracle.entries(of: zipPath)
                let expected =
                    photos.map { $0.resources[0] } + [
                        try #require(live.resource(ofType: .photo)), try #require(live.resource(ofType: .pairedVideo)),
                    ]
                #expect(entries.map(\.name) == expected.map(\.originalFilename))
                // The pair already shares its content identifier: the current version is its bytes.
                #expect(entries.map(\.sha256) == expected.map(\.sha256))
                #expect(entries.map(\.size) == expected.map { Int($0.fileSize) })
            }
            // Another user does not fetch it, whatever they guess; a token of the owner's asks its own.
            let (_, made) = try await ask(#"{"assets": [\#(ids)]}"#, [.cookie: cookie])
            let path = try #require(made["path"] as? String)
            let bob = try await AccessTests.signIn(client, "bob", "bob's password")
            try await client.execute(uri: path, method: .get, headers: [.cookie: bob]) {
                #expect($0.status == .notFound)
            }
            try await client.execute(uri: path, method: .get, headers: [.authorization: "Bearer " + token]) {
                #expect($0.status == .notFound, "another credential of the same user asks its own")
            }
            let (byToken, tokenMade) = try await ask(#"{"assets": [\#(ids)]}"#, [.authorization: "Bearer " + token])
            #expect(byToken == .created)
            try await client.execute(
                uri: try #require(tokenMade["path"] as? String), method: .get,
                headers: [.authorization: "Bearer " + token]
            ) { #expect($0.status == .ok) }
            // Bob's library does not hold ann's assets: 404, never an archive of them.
            let (foreign, _) = try await ask(#"{"assets": [\#(ids)]}"#, [.cookie: bob])
            #expect(foreign == .notFound)
            let (unknown, _) = try await ask(#"{"assets": ["no-such-asset"]}"#, [.cookie: cookie])
            #expect(unknown == .notFound)
            let tooMany = (0...DownloadRoutes.maximumAssets).map { "\"a\($0)\"" }.joined(separator: ",")
            let (refused, _) = try await ask(#"{"assets": [\#(tooMany)]}"#, [.cookie: cookie])
            #expect(refused == .badRequest)
            let (badVersion, _) = try await ask(#"{"assets": [\#(ids)], "version": "raw"}"#, [.cookie: cookie])
            #expect(badVersion == .badRequest)
        }
    }

    @Test("A name taken in the archive gets the next free one, without case")
    func freeNames() {
        var taken = Set<String>()
        #expect(ZipDownload.freeName("IMG_0001.JPG", in: &taken) == "IMG_0001.JPG")
        #expect(ZipDownload.freeName("img_0001.jpg", in: &taken) == "img_0001-1.jpg")
        #expect(ZipDownload.freeName("IMG_0001.JPG", in: &taken) == "IMG_0001-2.JPG")
        #expect(ZipDownload.freeName("README", in: &taken) == "README")
        #expect(ZipDownload.freeName("README", in: &taken) == "README-1")
    }
}
