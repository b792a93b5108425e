import Foundation
import Hummingbird
import HummingbirdTesting
import Lightbox
import LightboxTestSupport
import Testing

@testable import LightboxServer

/// Albums shared with another user and by link: the audience sees the album's assets and
/// nothing else of the owner's library, changes nothing but what a contributor adds, and loses
/// it all when the share ends.
@Suite("Shared albums")
struct SharingTests {
    static let json = AccessTests.json

    /// A server whose owner, ann, has an album holding the first of her two photos.
    static func makeShared() async throws -> (
        TemporaryDirectory, PhotoLibrary, Accounts, some ApplicationProtocol, album: String, inside: String,
        outside: String
    ) {
        let (folder, library, accounts, app) = try await AccessTests.makeServer()
        let assets = try await library.assets(limit: 2).map(\.localIdentifier)
        var album = ""
        try await library.performChanges { changes in
            let request = changes.creationRequestForAssetCollection(withTitle: "Trip")
            request.addAssets([assets[0]])
            album = request.localIdentifier
        }
        return (folder, library, accounts, app, album, assets[0], assets[1])
    }

    static func object(_ response: TestResponse) throws -> [String: Any] {
        try AccessTests.body(response)
    }

    static func assetIDs(_ response: TestResponse) throws -> [String] {
        try #require(try object(response)["assets"] as? [[String: Any]]).compactMap { $0["localIdentifier"] as? String }
    }

    @Test("Shared with a user: its assets alone, read-only to a viewer; a contributor's upload joins the album")
    func withUser() async throws {
        let (folder, library, _, app, album, inside, outside) = try await Self.makeShared()
        defer { withExtendedLifetime(folder) {} }
        let photo = try #require(try Corpus.photoPaths().dropFirst(2).first)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: photo)))
        try await app.test(.router) { client in
            let ann = try await AccessTests.signIn(client, "ann", "ann's password")
            let bob = try await AccessTests.signIn(client, "bob", "bob's password")
            func share(_ body: String) async throws -> String {
                try await client.execute(
                    uri: "/api/collections/\(album)/shares", method: .post, headers: Self.json.merging([.cookie: ann]),
                    body: ByteBuffer(string: body)
                ) { response throws in
                    #expect(response.status == .created, "\(String(buffer: response.body))")
                    return try #require(try Self.object(response)["id"] as? String)
                }
            }
            func status(_ uri: String, _ cookie: String, method: HTTPRequest.Method = .get, body: String? = nil)
                async throws -> HTTPResponse.Status
            {
                try await client.execute(
                    uri: uri, method: method, headers: Self.json.merging([.cookie: cookie]),
                    body: body.map { ByteBuffer(string: $0) }
                ) { $0.status }
            }
            // A smart album or a moment is not shared, nor is an album to oneself.
            let favorites = try #require(
                try library.fetchAssetCollections(with: .smartAlbum, subtype: .smartAlbumFavorites).firstObject)
            #expect(
                try await status(
                    "/api/collections/\(favorites.localIdentifier)/shares", ann, method: .post,
                    body: #"{"user": "bob"}"#) == .badRequest)
            #expect(
                try await status("/api/collections/\(album)/shares", ann, method: .post, body: #"{"user": "ann"}"#)
                    == .badRequest)
            // Bob's own library knows nothing of ann's album.
            #expect(
                try await status("/api/collections/\(album)/shares", bob, method: .post, body: #"{"user": "ann"}"#)
                    == .notFound)

            let viewing = try await share(#"{"user": "bob"}"#)
            try await client.execute(uri: "/api/shares", method: .get, headers: [.cookie: bob]) { response throws in
                let received = try #require(try Self.object(response)["received"] as? [[String: Any]])
                #expect(received.count == 1)
                #expect(received.first?["owner"] as? String == "ann")
                let collection = try #require(received.first?["collection"] as? [String: Any])
                #expect(collection["localizedTitle"] as? String == "Trip")
                #expect(collection["estimatedAssetCount"] as? Int == 1)
            }
            try await client.execute(uri: "/api/shares", method: .get, headers: [.cookie: ann]) { response throws in
                let made = try #require(try Self.object(response)["made"] as? [[String: Any]])
                #expect(made.count == 1 && made.first?["user"] as? String == "bob")
            }
            // Through the share: the album's asset, its image; not the other asset, not a change.
            let through = "share=" + viewing
            try await client.execute(uri: "/api/assets?" + through, method: .get, headers: [.cookie: bob]) {
                response throws in
                #expect(try Self.assetIDs(response) == [inside])
            }
            #expect(try await status("/api/assets/\(inside)/image?w=64&h=64&" + through, bob) == .ok)
            #expect(try await status("/api/assets/\(outside)?" + through, bob) == .notFound)
            #expect(try await status("/api/assets/\(outside)/image?w=64&h=64&" + through, bob) == .notFound)
            #expect(try await status("/api/assets/\(inside)", bob) == .notFound)
            #expect(
                try await status("/api/assets/\(inside)?" + through, bob, method: .patch, body: #"{"favorite": true}"#)
                    == .forbidden)
            #expect(try await status("/api/tokens?" + through, bob) == .ok)
            try await client.execute(uri: "/api/authorization?" + through, method: .get, headers: [.cookie: bob]) {
                response throws in
                let answer = try Self.object(response)
                #expect(answer["status"] as? String == "limited" && answer["accessLevel"] as? String == "read")
                #expect((answer["sharedAlbum"] as? [String: Any])?["owner"] as? String == "ann")
            }
            // The share is bob's: ann (or a guess) reaches nothing through it.
            #expect(try await status("/api/assets?" + through, ann) == .notFound)
            #expect(try await status("/api/assets?share=0123456789abcdef", bob) == .notFound)
            let upload = (
                uri: "/api/uploads/whole?filename=from-bob.jpg",
                headers: [.contentType: "application/octet-stream", .contentLength: String(bytes.count)] as HTTPFields,
                body: ByteBuffer(bytes: bytes)
            )
            try await client.execute(
                uri: upload.uri + "&" + through, method: .post, headers: upload.headers.merging([.cookie: bob]),
                body: upload.body
            ) { response in
                #expect(response.status == .forbidden)
            }

            // Contributing: sharing again replaces the share; bob's upload lands in ann's album.
            let contributing = try await share(#"{"user": "bob", "permission": "contribute"}"#)
            #expect(try await status("/api/assets?" + through, bob) == .notFound)
            let added = try await client.execute(
                uri: upload.uri + "&share=" + contributing, method: .post,
                headers: upload.headers.merging([.cookie: bob]), body: upload.body
            ) { response throws in
                #expect(response.status == .created, "\(String(buffer: response.body))")
                return try #require(
                    (try Self.object(response)["asset"] as? [String: Any])?["localIdentifier"] as? String)
            }
            #expect(try await library.assets(limit: 10).count == 3)
            let members = try await library.fetchAssetPage(
                inCollectionWithLocalIdentifier: album, options: FetchOptions(), from: .after(nil), limit: 10
            ).assets
            #expect(Set(members.map(\.localIdentifier)) == [inside, added])
            try await client.execute(uri: "/api/assets?share=" + contributing, method: .get, headers: [.cookie: bob]) {
                response throws in
                #expect(Set(try Self.assetIDs(response)) == [inside, added])
            }
            try await client.execute(uri: "/api/assets", method: .get, headers: [.cookie: bob]) { response throws in
                #expect(try Self.assetIDs(response).isEmpty)
            }
            // A contributor still changes nothing that is there.
            #expect(
                try await status(
                    "/api/assets/\(inside)?share=" + contributing, bob, method: .patch, body: #"{"favorite": true}"#)
                    == .forbidden)

            // Leaving: the share is gone for both.
            #expect(try await status("/api/shares/\(contributing)", bob, method: .delete) == .noContent)
            #expect(try await status("/api/assets?share=" + contributing, bob) == .notFound)
            #expect(try await status("/api/shares/\(contributing)", ann, method: .delete) == .notFound)
        }
    }

    @Test("A user keeps at most so many shares; sharing an album again with the same user replaces its share")
    func shareBound() async throws {
        let (folder, _, accounts, _, album, _, _) = try await Self.makeShared()
        defer { withExtendedLifetime(folder) {} }
        let ann = try #require(try await accounts.user(named: "ann"))
        let bob = try #require(try await accounts.user(named: "bob"))
        // Filled to the bound through the store, as the accounts would have made them.
        for index in 0..<Accounts.maximumShares {
            try await accounts.store.addShare(
                AlbumShare(
                    id: "filler\(index)", ownerID: ann.id, albumIdentifier: album,
                    audience: .link(key: "filler-\(index)"),
                    permission: .view, passwordHash: nil, expirationDate: nil, creationDate: Date()))
        }
        await #expect(throws: LibraryError.self) {
            _ = try await accounts.createLink(to: album, of: ann, password: nil, expires: nil)
        }
        await #expect(throws: LibraryError.self) {
            _ = try await accounts.shareAlbum(album, of: ann, with: "bob", permission: .view)
        }
        // Making room lets one more in; the same album with the same user again replaces it.
        #expect(try await accounts.endShare(id: "filler0", by: ann))
        let first = try await accounts.shareAlbum(album, of: ann, with: "bob", permission: .view)
        let again = try await accounts.shareAlbum(album, of: ann, with: "bob", permission: .contribute)
        #expect(first.id != again.id)
        #expect(try await accounts.sharesReceived(by: bob).map(\.share.id) == [again.id])
    }

    @Test(
        "A contributor's duplicate of what the album does not show is refused: nothing restored, published or told")
    func contributorDuplicates() async throws {
        let (folder, library, accounts, app, album, inside, outside) = try await Self.makeShared()
        defer { withExtendedLifetime(folder) {} }
        let ann = try #require(try await accounts.user(named: "ann"))
        let share = try await accounts.shareAlbum(album, of: ann, with: "bob", permission: .contribute)
        // Three more of ann's photos: one hidden, one in Recently Deleted; `outside` is in no album.
        let more = Array(try Corpus.photoPaths().dropFirst(2).prefix(2))
        _ = await library.importItems(at: more.map { URL(fileURLWithPath: $0) })
        let all = try await library.assets(limit: 10).map(\.localIdentifier)
        let added = all.filter { $0 != inside && $0 != outside }
        try #require(added.count == 2)
        try await library.performChanges { changes in
            changes.changeRequest(forAssetWithLocalIdentifier: added[0]).isHidden = true
        }
        try await library.performChanges { $0.deleteAssets([added[1]]) }
        var originals: [String: [UInt8]] = [:]
        for id in [inside, outside] + added {
            let asset = try #require(try await library.asset(withLocalIdentifier: id))
            originals[id] = [UInt8](try Data(contentsOf: try await library.fileURL(for: asset.resources[0])))
        }
        let bytes = originals
        try await app.test(.router) { client in
            let bob = try await AccessTests.signIn(client, "bob", "bob's password")
            func upload(_ id: String) async throws -> (HTTPResponse.Status, String) {
                let body = bytes[id] ?? []
                return try await client.execute(
                    uri: "/api/uploads/whole?filename=IMG_0001.JPG&share=" + share.id, method: .post,
                    headers: [
                        .contentType: "application/octet-stream", .contentLength: String(body.count), .cookie: bob,
                    ], body: ByteBuffer(bytes: body)
                ) { ($0.status, String(buffer: $0.body)) }
            }
            for id in [outside, added[0], added[1]] {
                let (status, text) = try await upload(id)
                #expect(status == .conflict, "\(text)")
                #expect(!text.contains(id), "the answer names none of the owner's assets")
            }
            // What the album shows is answered as a duplicate, as before.
            let (status, text) = try await upload(inside)
            #expect(status == .ok && text.contains(inside) && text.contains("duplicate"), "\(text)")
        }
        // The owner's photos are as they were: still hidden, still deleted, the album unchanged.
        #expect(try await library.asset(withLocalIdentifier: added[0])?.isHidden == true)
        #expect(try await library.asset(withLocalIdentifier: added[1])?.trashedDate != nil)
        let members = try await library.fetchAssetPage(
            inCollectionWithLocalIdentifier: album, options: FetchOptions(), from: .after(nil), limit: 10
        ).assets
        #expect(members.map(\.localIdentifier) == [inside])
    }

    @Test("A contributor holds at most their share of the owner's upload slots; no one sees another's upload")
    func contributorSlots() async throws {
        let (folder, _, accounts, app, album, _, _) = try await Self.makeShared()
        defer { withExtendedLifetime(folder) {} }
        let ann = try #require(try await accounts.user(named: "ann"))
        let share = try await accounts.shareAlbum(album, of: ann, with: "bob", permission: .contribute)
        try await app.test(.router) { client in
            let annCookie = try await AccessTests.signIn(client, "ann", "ann's password")
            let bob = try await AccessTests.signIn(client, "bob", "bob's password")
            func start(_ cookie: String, _ query: String = "") async throws -> (HTTPResponse.Status, String?) {
                try await client.execute(
                    uri: "/api/uploads" + query, method: .post, headers: Self.json.merging([.cookie: cookie]),
                    body: ByteBuffer(string: #"{"filename": "IMG_0001.JPG", "size": 1000}"#)
                ) { response throws in
                    (response.status, (try? Self.object(response))?["id"] as? String)
                }
            }
            var first: String?
            for index in 0..<UploadStaging.openPerContributor {
                let (status, id) = try await start(bob, "?share=" + share.id)
                try #require(status == .created, "upload \(index)")
                first = first ?? id
            }
            // Bob's next waits; ann's own uploads, 400 slots on, do not.
            #expect(try await start(bob, "?share=" + share.id).0 == .tooManyRequests)
            let (own, annUpload) = try await start(annCookie)
            #expect(own == .created)
            // Each sees only their own: ann's library holds bob's uploads, which are bob's.
            let bobs = try #require(first)
            let anns = try #require(annUpload)
            try await client.execute(uri: "/api/uploads/" + bobs, method: .get, headers: [.cookie: annCookie]) {
                #expect($0.status == .notFound)
            }
            try await client.execute(
                uri: "/api/uploads/" + anns + "?share=" + share.id, method: .get, headers: [.cookie: bob]
            ) { #expect($0.status == .notFound) }
            try await client.execute(
                uri: "/api/uploads/" + bobs + "?share=" + share.id, method: .delete, headers: [.cookie: bob]
            ) { #expect($0.status == .noContent) }
        }
    }

    @Test("A link shows its album to whoever holds it: password, expiry, nothing else reachable, ended by its owner")
    func byLink() async throws {
        let (folder, _, accounts, app, album, inside, outside) = try await Self.makeShared()
        defer { withExtendedLifetime(folder) {} }
        let ann = try #require(try await accounts.user(named: "ann"))
        try await app.test(.router) { client in
            let cookie = try await AccessTests.signIn(client, "ann", "ann's password")
            let (id, key) = try await client.execute(
                uri: "/api/collections/\(album)/links", method: .post, headers: Self.json.merging([.cookie: cookie]),
                body: ByteBuffer(string: #"{"password": "link password", "expiresInDays": 7}"#)
            ) { response throws in
                #expect(response.status == .created, "\(String(buffer: response.body))")
                let link = try Self.object(response)
                #expect(link["hasPassword"] as? Bool == true && link["expirationDate"] != nil)
                let key = try #require(link["link"] as? String)
                #expect(link["path"] as? String == "/s/" + key)
                return (try #require(link["id"] as? String), key)
            }
            func call(
                _ uri: String, _ headers: HTTPFields = [:], method: HTTPRequest.Method = .get, body: String? = nil
            )
                async throws -> TestResponse
            {
                try await client.execute(
                    uri: uri, method: method, headers: headers, body: body.map { ByteBuffer(string: $0) }
                ) { $0 }
            }
            let link = "link=" + key
            // The page is there; the album waits for the password.
            var response = try await call("/s/" + key)
            #expect(response.status == .ok && response.headers[.contentType]?.hasPrefix("text/html") == true)
            response = try await call("/api/assets?" + link)
            #expect(response.status == .unauthorized && AccessTests.errorCode(response) == "linkLocked")
            response = try await call(
                "/api/links/unlock", Self.json, method: .post, body: #"{"link": "\#(key)", "password": "wrong one!"}"#)
            #expect(response.status == .unauthorized)
            response = try await call(
                "/api/links/unlock", Self.json, method: .post,
                body: #"{"link": "\#(key)", "password": "link password"}"#)
            #expect(response.status == .ok)
            let proof = try #require(try Self.object(response)["unlock"] as? String)
            let set = try #require(response.headers[.setCookie])
            #expect(set.contains("HttpOnly") && set.contains("SameSite=Strict"))
            let unlockCookie: HTTPFields = [.cookie: String(set.prefix { $0 != ";" })]
            let unlockHeader: HTTPFields = [HTTPFields.headerName("X-Lightbox-Link-Unlock"): proof]

            // Unlocked (cookie or header): the album's asset and its image, nothing else.
            response = try await call("/api/assets?" + link, unlockCookie)
            #expect(response.status == .ok)
            #expect(try Self.assetIDs(response) == [inside])
            response = try await call(
                "/api/assets", unlockHeader.merging([HTTPFields.headerName("X-Lightbox-Link"): key]))
            #expect(response.status == .ok)
            #expect(try Self.assetIDs(response) == [inside])
            #expect(try await call("/api/assets/\(inside)/image?w=64&h=64&" + link, unlockCookie).status == .ok)
            #expect(try await call("/api/assets/\(outside)?" + link, unlockCookie).status == .notFound)
            #expect(try await call("/api/collections?type=album&" + link, unlockCookie).status == .ok)
            response = try await call("/api/authorization?" + link, unlockCookie)
            #expect((try Self.object(response)["credential"] as? String) == "link")
            for (method, uri) in [
                (HTTPRequest.Method.patch, "/api/assets/\(inside)"), (.get, "/api/tokens"), (.get, "/api/shares"),
                (.get, "/api/users"), (.get, "/api/sessions"), (.post, "/api/collections"),
            ] {
                let status = try await call(
                    uri + "?" + link, unlockCookie.merging(Self.json), method: method,
                    body: method == .get ? nil : #"{"title": "x", "favorite": true}"#
                ).status
                #expect(status == .forbidden, "\(method) \(uri)")
            }
            // A forged or stretched proof unlocks nothing.
            let forged = String(proof.prefix { $0 != "." }) + "." + String(repeating: "0", count: 64)
            let far = "99999999999999." + String(proof.split(separator: ".")[1])
            for bad in [forged, far, "x", String(repeating: "9", count: 40) + ".0"] {
                response = try await call("/api/assets?" + link, [HTTPFields.headerName("X-Lightbox-Link-Unlock"): bad])
                #expect(AccessTests.errorCode(response) == "linkLocked", "\(bad)")
            }

            // A link without a password opens at once; an expired one and a removed one are gone.
            let open = try await accounts.createLink(to: album, of: ann, password: nil, expires: nil)
            #expect(try await call("/api/assets?link=" + (open.linkKey ?? "")).status == .ok)
            let expired = AlbumShare(
                id: "expiredlink00000", ownerID: ann.id, albumIdentifier: album, audience: .link(key: "expired-key"),
                permission: .view, passwordHash: nil, expirationDate: Date().addingTimeInterval(-10),
                creationDate: Date().addingTimeInterval(-100))
            try await accounts.store.addShare(expired)
            #expect(try await call("/api/assets?link=expired-key").status == .notFound)
            #expect(try await call("/api/shares/\(id)", [.cookie: cookie], method: .delete).status == .noContent)
            #expect(try await call("/api/assets?" + link, unlockCookie).status == .notFound)
            #expect(try await call("/api/assets?link=not-a-key").status == .notFound)
        }
    }
}

extension HTTPFields {
    /// These fields and `other`'s.
    fileprivate func merging(_ other: HTTPFields) -> HTTPFields {
        var merged = self
        for field in other { merged.append(field) }
        return merged
    }
}
