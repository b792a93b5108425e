import Foundation
import Hummingbird
import HummingbirdTesting
import Lightbox
import LightboxTestSupport
import Testing

@testable import LightboxServer

/// The change push: Server-Sent Events of each transaction, with RICE details of the fetches
/// a client registered, catching up from a token or saying to refetch.
@Suite("Change push")
struct ChangeStreamTests {
    /// The data of each event named `name`, decoded, in order.
    static func events(_ name: String, in text: String) -> [[String: Any]] {
        // "\r\n" (the chunks' framing) is one Character: split on both.
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
        var found: [[String: Any]] = []
        for (index, line) in lines.enumerated() where line == "event: \(name)" {
            guard let data = lines[(index + 1)...].first(where: { $0.hasPrefix("data: ") }),
                let object = try? JSONSerialization.jsonObject(with: Data(data.dropFirst(6).utf8)) as? [String: Any]
            else { continue }
            found.append(object)
        }
        return found
    }

    @Test("Each transaction arrives with its token and the RICE details of the watched fetches; a reconnect catches up")
    func stream() async throws {
        let folder = try TemporaryDirectory()
        let library = try folder.makeLibrary()
        let paths = Array(try Corpus.photoPaths().prefix(3))
        _ = await library.importItems(at: paths.map { URL(fileURLWithPath: $0) })
        let ids = try library.fetchAssets().map(\.localIdentifier)
        try await Application(router: LightboxServer.router(library: library)).test(.live) { client in
            let port = try #require(client.port)
            let watch = "favorite%20%3D%3D%20true"
            let stream = try RawHTTP.Stream(
                port: port, head: ["GET /api/changes/stream?watch=\(watch)&watch= HTTP/1.1", "Host: localhost"])
            #expect(await stream.read(until: "event: ready"))
            #expect(stream.text.contains("text/event-stream"))
            let ready = try #require(Self.events("ready", in: stream.text).first)
            let counts = (ready["fetches"] as? [[String: Any]])?.compactMap { $0["count"] as? Int }
            #expect(counts == [0, 3])

            let first = try await library.performChanges {
                $0.changeRequest(forAssetWithLocalIdentifier: ids[1]).isFavorite = true
            }
            #expect(await stream.read(until: "event: change"))
            var change = try #require(Self.events("change", in: stream.text).last)
            #expect(change["changeToken"] as? Int == first.map { Int($0.rawValue) })
            var fetches = try #require(change["fetches"] as? [[String: Any]])
            #expect(fetches.count == 2)
            #expect(fetches[0]["watch"] as? Int == 0 && fetches[0]["insertedIdentifiers"] as? [String] == [ids[1]])
            #expect(fetches[0]["insertedIndexes"] as? [Int] == [0] && fetches[0]["count"] as? Int == 1)
            #expect(fetches[1]["changedIdentifiers"] as? [String] == [ids[1]])
            #expect(fetches[1]["changedIndexes"] as? [Int] == [1])

            let second = try await library.performChanges { $0.deleteAssets([ids[0]]) }
            #expect(await stream.read(until: "event: change", count: 2))
            change = try #require(Self.events("change", in: stream.text).last)
            fetches = try #require(change["fetches"] as? [[String: Any]])
            #expect(fetches.count == 1, "the favourites did not change")
            #expect(fetches[0]["watch"] as? Int == 1 && fetches[0]["removedIndexes"] as? [Int] == [0])
            #expect(fetches[0]["count"] as? Int == 2)
            #expect(stream.text.contains("id: \(second!)"))

            // A client that saw the first change reconnects with it and gets the second.
            let again = try RawHTTP.Stream(
                port: port,
                head: ["GET /api/changes/stream HTTP/1.1", "Host: localhost", "Last-Event-ID: \(first!)"])
            #expect(await again.read(until: "event: change"))
            let caughtUp = Self.events("change", in: again.text)
            #expect(caughtUp.compactMap { $0["changeToken"] as? Int } == [Int(second!.rawValue)])
        }
    }

    @Test("A token older than the history kept is 410: refetch")
    func expired() async throws {
        let folder = try TemporaryDirectory()
        let library = try PhotoLibrary(
            url: URL(fileURLWithPath: folder.path("Short.lightbox")),
            historyRetention: HistoryRetention(maximumTransactions: 2))
        let paths = Array(try Corpus.photoPaths().prefix(4))
        for path in paths { _ = await library.importItems(at: [URL(fileURLWithPath: path)]) }
        try await Application(router: LightboxServer.router(library: library)).test(.router) { client in
            try await client.execute(uri: "/api/changes/stream?since=1", method: .get) { response in
                #expect(response.status == .gone)
            }
            try await client.execute(uri: "/api/changes/stream?since=x", method: .get) { response in
                #expect(response.status == .badRequest)
            }
            try await client.execute(uri: "/api/changes/stream?watch=favorite%20%3D%3D", method: .get) { response in
                #expect(response.status == .badRequest)
            }
        }
    }
}
