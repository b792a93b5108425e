import Foundation
import Hummingbird
import HummingbirdTesting
import Lightbox
import LightboxServer
import LightboxTestSupport
import Testing

@Suite("Capturing over HTTP")
struct CaptureRouteTests {
    static func json(_ response: TestResponse) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView))
    }

    @Test("GET /api/capture/devices lists the synthetic camera; POST /api/capture takes a Live Photo into the library")
    func capture() async throws {
        let folder = try TemporaryDirectory()
        let library = try folder.makeLibrary()
        let app = Application(router: LightboxServer.router(library: library))
        try await app.test(.router) { client in
            try await client.execute(uri: "/api/capture/devices", method: .get) { response in
                #expect(response.status == .ok)
                let devices = try #require(try Self.json(response) as? [[String: Any]])
                #expect(devices.contains { $0["kind"] as? String == "synthetic" })
            }
            let body = #"{"device": "test:320x240@30", "live": true, "format": "jpeg"}"#
            try await client.execute(
                uri: "/api/capture", method: .post, headers: [.contentType: "application/json"],
                body: ByteBuffer(string: body)
            ) { response in
                #expect(response.status == .created)
                let answer = try #require(try Self.json(response) as? [String: Any])
                let assets = try #require(answer["assets"] as? [[String: Any]])
                #expect(assets.count == 1)
                #expect((assets.first?["mediaSubtypes"] as? Int).map { $0 & 8 != 0 } == true)  // photoLive
                let events = (answer["events"] as? [[String: Any]])?.compactMap { $0["event"] as? String }
                #expect(events?.first == "willBeginCapture" && events?.last == "didFinishCapture")
            }
            // A movie file on the server is no camera; a burst past the limit is refused.
            for refused in [#"{"device": "file:/etc/passwd"}"#, #"{"burst": 500}"#, #"{"device": "/dev/null"}"#] {
                try await client.execute(
                    uri: "/api/capture", method: .post, headers: [.contentType: "application/json"],
                    body: ByteBuffer(string: refused)
                ) {
                    #expect($0.status == .badRequest, "\(refused)")
                }
            }
        }
        let assets = try await library.assets()
        #expect(assets.count == 1 && assets.first?.mediaSubtypes.contains(.photoLive) == true)
    }

    @Test("The server's cameras are its admin's: a member may neither list nor use them")
    func adminOnly() async throws {
        let (folder, _, _, app) = try await AccessTests.makeServer()
        defer { withExtendedLifetime(folder) {} }
        try await app.test(.router) { client in
            let ann = try await AccessTests.signIn(client, "ann", "ann's password")  // the first user: admin
            let bob = try await AccessTests.signIn(client, "bob", "bob's password")
            try await client.execute(uri: "/api/capture/devices", method: .get, headers: [.cookie: ann]) {
                #expect($0.status == .ok)
            }
            try await client.execute(uri: "/api/capture/devices", method: .get, headers: [.cookie: bob]) {
                #expect($0.status == .forbidden)
            }
            try await client.execute(
                uri: "/api/capture", method: .post, headers: [.cookie: bob, .contentType: "application/json"],
                body: ByteBuffer(string: #"{"device": "test:320x240@30"}"#)
            ) { #expect($0.status == .forbidden) }
        }
    }
}
