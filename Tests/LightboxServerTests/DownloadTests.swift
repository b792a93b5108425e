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

    @Test("A limited token downloads what it sees alone; a file that cannot be read is left out and said")
    func limitedAndUnreadable() async throws {
        let (folder, library, accounts, app) = try await AccessTests.makeServer()
        defer { withExtendedLifetime(folder) {} }
        let assets = try await library.assets()
        let (seen, unseen) = (assets[0], assets[1])
        let ann = try #require(try await accounts.user(named: "ann"))
        let (_, limited) = try await accounts.createToken(
            for: ann, name: "one photo", scope: .read, limitedTo: [seen.localIdentifier])
        try await app.test(.router) { client in
            let bearer: HTTPFields = [.authorization: "Bearer " + limited, .contentType: "application/json"]
            func ask(_ ids: [String], _ headers: HTTPFields) async throws -> (HTTPResponse.Status, String?) {
                let list = ids.map { "\"\($0)\"" }.joined(separator: ",")
                return try await client.execute(
                    uri: "/api/downloads", method: .post, headers: headers,
                    body: ByteBuffer(string: #"{"assets": [\#(list)], "version": "original"}"#)
                ) { ($0.status, (try? AccessTests.body($0))?["path"] as? String) }
            }
            // What the token does not see is not there for it: 404, as the image route answers.
            #expect(try await ask([seen.localIdentifier, unseen.localIdentifier], bearer).0 == .notFound)
            let (status, path) = try await ask([seen.localIdentifier], bearer)
            #expect(status == .created)
            let zipPath = folder.path("limited.zip")
            try await client.execute(uri: try #require(path), method: .get, headers: bearer) { response in
                #expect(response.status == .ok)
                try Data(response.body.readableBytesView).write(to: URL(fileURLWithPath: zipPath))
            }
            #expect(try ZipOracle.entries(of: zipPath).map(\.name) == [seen.resources[0].originalFilename])

            // The first photo's original gone from the disk: the other is there, the first named
            // in Not included.txt, and the archive whole.
            let cookie = try await AccessTests.signIn(client, "ann", "ann's password")
            try FileManager.default.removeItem(at: try await library.fileURL(for: assets[0].resources[0]))
            let (_, both) = try await ask(
                assets.map(\.localIdentifier), [.cookie: cookie, .contentType: "application/json"])
            let partPath = folder.path("part.zip")
            try await client.execute(uri: try #require(both), method: .get, headers: [.cookie: cookie]) { response in
                #expect(response.status == .ok)
                try Data(response.body.readableBytesView).write(to: URL(fileURLWithPath: partPath))
            }
            let entries = try ZipOracle.entries(of: partPath)
            #expect(entries.map(\.name) == [assets[1].resources[0].originalFilename, ZipDownload.notIncluded])
            #expect(entries.first?.sha256 == assets[1].resources[0].sha256)
        }
    }

    @Test("One user keeps at most four downloads waiting: a fifth drops the oldest")
    func boundedPerOwner() {
        let pending = DownloadRoutes.Pending()
        func add(_ owner: String) -> String {
            pending.add(
                .init(
                    caller: owner, owner: owner, assets: ["a"], version: .current, name: "a.zip",
                    expires: Date().addingTimeInterval(3600)))
        }
        let first = add("user:ann")
        let others = (0..<DownloadRoutes.Pending.perOwner).map { _ in add("user:ann") }
        let bob = add("user:bob")
        #expect(pending.download(first, for: "user:ann") == nil)
        #expect(others.allSatisfy { pending.download($0, for: "user:ann") != nil })
        #expect(pending.download(bob, for: "user:bob") != nil)
        #expect(pending.download(bob, for: "user:ann") == nil)
    }
}
