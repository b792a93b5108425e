import Foundation
import LightboxTestSupport
import Synchronization
import Testing

@testable import Lightbox
@testable import LightboxStore

@Suite("Changing the library: atomic blocks, placeholders, albums")
struct ChangeTests {
    static func makeLibrary(_ folder: TemporaryDirectory, count: Int = 8) async throws -> (PhotoLibrary, [Asset]) {
        let library = try folder.makeLibrary()
        let paths = Array(try Corpus.photoPaths().prefix(count))
        _ = await library.importItems(at: paths.map { URL(fileURLWithPath: $0) })
        let assets = Array(try library.fetchAssets())
        try #require(assets.count == count)
        return (library, assets)
    }

    @Test("Asset edits land together, and hidden assets leave default fetches")
    func assetEdits() async throws {
        let folder = try TemporaryDirectory()
        let (library, assets) = try await Self.makeLibrary(folder, count: 4)
        let date = try #require(ISO8601.date(from: "2019-07-14T18:03:12Z"))
        try await library.performChanges { changes in
            changes.changeRequest(for: assets[0]).isFavorite = true
            changes.changeRequest(for: assets[1]).isHidden = true
            let request = changes.changeRequest(for: assets[2])
            request.creationDate = date
            request.location = Location(latitude: 64.1466, longitude: -21.9426, altitude: 12)
        }
        let favorite = try #require(try await library.asset(withLocalIdentifier: assets[0].localIdentifier))
        #expect(favorite.isFavorite)
        #expect(favorite.modificationDate > assets[0].modificationDate)
        #expect(try library.fetchAssets().count == 3)
        #expect(try library.fetchAssets(options: FetchOptions(includeHiddenAssets: true)).count == 4)
        let moved = try #require(try await library.asset(withLocalIdentifier: assets[2].localIdentifier))
        #expect(moved.creationDate == date)
        #expect(moved.location?.latitude == 64.1466 && moved.location?.altitude == 12)
        #expect(
            try library.fetchAssets(options: FetchOptions(predicate: .favorite == true)).map(\.localIdentifier)
                == [assets[0].localIdentifier])
    }

    @Test("A change request reads its asset's properties and what the block set, as PhotoKit's do")
    func requestsReadTheirProperties() async throws {
        let folder = try TemporaryDirectory()
        let (library, assets) = try await Self.makeLibrary(folder, count: 3)
        try await library.performChanges { $0.changeRequest(for: assets[1]).isFavorite = true }
        let another = try Corpus.photoPaths()[5]
        try await library.performChanges { changes in
            // PHAssetChangeRequest(for:) reads the asset's values: `r.isFavorite = !r.isFavorite`.
            let request = changes.changeRequest(for: assets[0])
            #expect(request.isFavorite == false && request.isHidden == false)
            #expect(request.creationDate == assets[0].creationDate && request.rating == assets[0].rating)
            request.isFavorite = !request.isFavorite
            request.rating = 4
            // Another request for the same asset in the block reads what this one set.
            let again = changes.changeRequest(forAssetWithLocalIdentifier: assets[0].localIdentifier)
            #expect(again.isFavorite == true && again.rating == 4)
            again.rating = 0
            #expect(request.rating == nil, "0 clears the rating")
            // A request by identifier reads the asset as the library holds it now, not as an
            // older object said: the second asset became a favourite after it was fetched.
            let byIdentifier = changes.changeRequest(forAssetWithLocalIdentifier: assets[1].localIdentifier)
            #expect(byIdentifier.isFavorite == true && assets[1].isFavorite == false)
            byIdentifier.isFavorite.toggle()
            // A new asset's: no favourite, no date until its file gives one, no edit yet.
            let created = changes.creationRequestForAssetFromImage(atFileURL: URL(fileURLWithPath: another))
            #expect(created.isFavorite == false && created.creationDate == nil && created.contentEditingOutput == nil)
            created.isHidden = true
            #expect(created.isHidden)
        }
        let first = try #require(try await library.asset(withLocalIdentifier: assets[0].localIdentifier))
        #expect(first.isFavorite && first.rating == nil)
        #expect(try await library.asset(withLocalIdentifier: assets[1].localIdentifier)?.isFavorite == false)
        let hidden = try library.fetchAssets(
            options: FetchOptions(predicate: .hidden == true, includeHiddenAssets: true))
        #expect(hidden.count == 1)
    }

    @Test("A block that only sets properties reads no asset; a read reads its asset once, then what was set")
    func settingReadsNothing() throws {
        let reads = Mutex(0)
        let stored = Asset(
            localIdentifier: "A", mediaType: .image, mediaSubtypes: [], pixelWidth: 8, pixelHeight: 6,
            creationDate: Date(timeIntervalSince1970: 0), creationTimeZoneOffset: 0,
            modificationDate: Date(timeIntervalSince1970: 0), addedDate: Date(timeIntervalSince1970: 0),
            isFavorite: true, playbackStyle: .image, resources: [])
        let requests = ChangeRequests(temporaryFolder: NSTemporaryDirectory()) { identifier in
            reads.withLock { $0 += 1 }
            return identifier == "A" ? stored : nil
        }
        // What a route setting a thousand favourites does: no read of the library per asset.
        for index in 0..<1_000 { requests.changeRequest(forAssetWithLocalIdentifier: "X\(index)").isFavorite = true }
        let request = requests.changeRequest(forAssetWithLocalIdentifier: "A")
        request.isHidden = true
        request.rating = 3
        #expect(reads.withLock { $0 } == 0)
        // The first read reads the asset, with what the block set over it, in order.
        #expect(request.isFavorite == true && request.isHidden == true && request.rating == 3)
        request.rating = 0
        #expect(request.rating == nil && request.isFavorite)
        #expect(reads.withLock { $0 } == 1)
        #expect(requests.operations.count == 1_003)
    }

    @Test("A new album and its assets land in one block through the placeholder")
    func placeholders() async throws {
        let folder = try TemporaryDirectory()
        let (library, assets) = try await Self.makeLibrary(folder, count: 4)
        var placeholder: ObjectPlaceholder?
        try await library.performChanges { changes in
            let request = changes.creationRequestForAssetCollection(withTitle: "Iceland")
            placeholder = request.placeholderForCreatedAssetCollection
            let again = changes.changeRequest(forAssetCollectionWithLocalIdentifier: request.localIdentifier)
            again.addAssets([assets[3].localIdentifier, assets[1].localIdentifier])
        }
        let id = try #require(placeholder?.localIdentifier)
        let album = try #require(try library.fetchAssetCollections(withLocalIdentifiers: [id]).firstObject)
        #expect(album.localizedTitle == "Iceland")
        #expect(album.assetCollectionType == .album && album.assetCollectionSubtype == .albumRegular)
        #expect(album.estimatedAssetCount == 2)
        #expect(album.startDate == min(assets[3].creationDate, assets[1].creationDate))
        #expect(album.endDate == max(assets[3].creationDate, assets[1].creationDate))
        #expect(
            try library.fetchAssets(in: album).map(\.localIdentifier) == [
                assets[3].localIdentifier, assets[1].localIdentifier,
            ])
        #expect(try library.fetchKeyAssets(in: album).map(\.localIdentifier) == [assets[3].localIdentifier])
        #expect(try library.fetchAssetCollectionsContaining(assets[1]).map(\.localIdentifier) == [id])
        #expect(
            try library.fetchAssetCollections(
                with: .album, options: FetchOptions(predicate: try FetchPredicate("title BEGINSWITH[c] 'ice'"))
            ).count == 1)
    }

    @Test("Random album edits match a reference list; an invalid request rolls the whole block back")
    func randomAlbumEdits() async throws {
        let folder = try TemporaryDirectory()
        let (library, assets) = try await Self.makeLibrary(folder, count: 10)
        let ids = assets.map(\.localIdentifier)
        var albumID = ""
        try await library.performChanges { changes in
            albumID = changes.creationRequestForAssetCollection(withTitle: "Random").localIdentifier
        }
        var reference: [String] = []
        var random = SeededRandom(seed: 2024)
        var rolledBack = 0
        for round in 0..<60 {
            var expected = reference
            var valid = true
            let favoriteTarget = ids[Int(random.next()) % ids.count]
            let draws = (0..<6).map { _ in Int(random.next() % 1000) }
            let kind = draws[0] % 6
            let before = try library.fetchAssets(options: FetchOptions(predicate: .favorite == true)).count
            do {
                try await library.performChanges { changes in
                    let album = changes.changeRequest(forAssetCollectionWithLocalIdentifier: albumID)
                    changes.changeRequest(forAssetWithLocalIdentifier: favoriteTarget).isFavorite = round % 2 == 0
                    switch kind {
                    case 0:  // add some
                        let new = [ids[draws[1] % ids.count], ids[draws[2] % ids.count]]
                        album.addAssets(new)
                        for id in new where !expected.contains(id) { expected.append(id) }
                    case 1:  // insert one absent asset, sometimes past the end
                        let absent = ids.filter { !expected.contains($0) }
                        guard let id = absent.first else { return }
                        let index = draws[1] % (expected.count + 2)
                        album.insertAssets([id], at: [index])
                        if index <= expected.count { expected.insert(id, at: index) } else { valid = false }
                    case 2:  // remove by index
                        let index = draws[1] % (expected.count + 1)
                        album.removeAssets(at: [index])
                        if index < expected.count { expected.remove(at: index) } else { valid = false }
                    case 3:  // move up to two to a destination
                        guard expected.count >= 2 else { return }
                        let from = Array(Set([draws[1] % expected.count, draws[2] % expected.count])).sorted()
                        let destination = draws[3] % (expected.count - from.count + 2)
                        album.moveAssets(at: from, to: destination)
                        let moving = from.map { expected[$0] }
                        var rest = expected
                        for index in from.reversed() { rest.remove(at: index) }
                        if destination <= rest.count {
                            rest.insert(contentsOf: moving, at: destination)
                            expected = rest
                        } else {
                            valid = false
                        }
                    case 4:  // replace one with an absent asset
                        let absent = ids.filter { !expected.contains($0) }
                        guard let id = absent.last, !expected.isEmpty else { return }
                        let index = draws[1] % expected.count
                        album.replaceAssets(at: [index], withAssets: [id])
                        expected[index] = id
                    default:  // remove by identifier, one of them unknown to the library sometimes
                        let id = draws[1] % 5 == 0 ? "NOT-AN-ASSET" : ids[draws[1] % ids.count]
                        album.removeAssets([id])
                        if id == "NOT-AN-ASSET" { valid = false } else { expected.removeAll { $0 == id } }
                    }
                }
                #expect(valid, "round \(round): the block should have failed")
                reference = expected
            } catch let error as LibraryError {
                #expect(!valid, "round \(round): \(error)")
                #expect(error.code == .invalidRequest || error.code == .assetNotFound)
                rolledBack += 1
                // Nothing of the block landed: not the album edit, not the favourite.
                #expect(try library.fetchAssets(options: FetchOptions(predicate: .favorite == true)).count == before)
            }
            let fetched = try library.fetchAssets(inCollectionWithLocalIdentifier: albumID).map(\.localIdentifier)
            #expect(fetched == reference, "round \(round), kind \(kind)")
        }
        #expect(rolledBack > 0, "some blocks were invalid and rolled back")
    }

    @Test("Purging an asset removes it from albums, and its original and thumbnails from disk")
    func purgeAssets() async throws {
        let folder = try TemporaryDirectory()
        let (library, assets) = try await Self.makeLibrary(folder, count: 3)
        var albumID = ""
        try await library.performChanges { changes in
            let album = changes.creationRequestForAssetCollection(withTitle: "Doomed")
            album.addAssets(assets.map(\.localIdentifier))
            albumID = album.localIdentifier
        }
        let victim = assets[1]
        let original = try await library.fileURL(for: try #require(victim.resource(ofType: .photo))).path
        #expect(FileManager.default.fileExists(atPath: original))
        try library.performChangesAndWait { changes in changes.purgeAssets([victim.localIdentifier]) }
        #expect(try await library.asset(withLocalIdentifier: victim.localIdentifier) == nil)
        #expect(!FileManager.default.fileExists(atPath: original))
        let thumbnails = library.url.appendingPathComponent("derivatives").appendingPathComponent(
            String(victim.localIdentifier.prefix(2))
        )
        .appendingPathComponent(victim.localIdentifier).path
        #expect(!FileManager.default.fileExists(atPath: thumbnails))
        #expect(
            try library.fetchAssets(inCollectionWithLocalIdentifier: albumID).map(\.localIdentifier)
                == [assets[0].localIdentifier, assets[2].localIdentifier])

        // The log says what each transaction did.
        let log = try library.withCatalog { db in
            try db.rows(
                """
                SELECT objectType, localIdentifier, kind FROM changeRecord
                WHERE transactionId = (SELECT MAX(id) FROM changeTransaction)
                """)
        }
        #expect(
            log.map { [$0["objectType"].text, $0["localIdentifier"].text, $0["kind"].integer.map { "\($0)" }] }
                .contains(["asset", victim.localIdentifier, "3"]))
        #expect(log.map { $0["objectType"].text }.contains("assetCollection"))
    }

    @Test("Unknown identifiers and smart albums are refused with typed errors, changing nothing")
    func badRequests() async throws {
        let folder = try TemporaryDirectory()
        let (library, assets) = try await Self.makeLibrary(folder, count: 2)
        let unknownAsset = await #expect(throws: LibraryError.self) {
            try await library.performChanges { changes in
                changes.changeRequest(for: assets[0]).isFavorite = true
                changes.deleteAssets(["NO-SUCH-ASSET"])
            }
        }
        #expect(unknownAsset?.code == .assetNotFound)
        #expect(unknownAsset?.message.contains("NO-SUCH-ASSET") == true)
        #expect(try await library.asset(withLocalIdentifier: assets[0].localIdentifier)?.isFavorite == false)
        let unknownAlbum = await #expect(throws: LibraryError.self) {
            try await library.performChanges { changes in
                changes.changeRequest(forAssetCollectionWithLocalIdentifier: "NO-SUCH-ALBUM").title = "x"
            }
        }
        #expect(unknownAlbum?.code == .collectionNotFound)
        let noDate = await #expect(throws: LibraryError.self) {
            try await library.performChanges { changes in changes.changeRequest(for: assets[1]).creationDate = nil }
        }
        #expect(noDate?.code == .invalidRequest)
        #expect(try library.fetchAssetCollections(with: .album).count == 0)
    }

    @Test("New assets from files and data, placed in a new album in the same block")
    func creation() async throws {
        let folder = try TemporaryDirectory()
        let library = try folder.makeLibrary()
        let source = try TemporaryDirectory()
        let moved = try source.copy(Corpus.path("digikam/body-background.jpg"))
        let copied = try Corpus.path("exiv2/data/IMG_3578.heic")
        let data = try Data(
            contentsOf: URL(fileURLWithPath: try Corpus.path("lomiri/backgrounds/Wine_by_Jakkub_Mede.jpg")))
        var album: ObjectPlaceholder?
        var created: [ObjectPlaceholder] = []
        try await library.performChanges { changes in
            let first = changes.creationRequestForAsset()
            first.addResource(
                with: .photo, fileURL: URL(fileURLWithPath: moved),
                options: AssetResourceCreationOptions(shouldMoveFile: true))
            first.isFavorite = true
            let second = changes.creationRequestForAssetFromImage(atFileURL: URL(fileURLWithPath: copied))
            let third = changes.creationRequestForAssetFromImage(data: data, originalFilename: "wine.jpg")
            created = [
                first.placeholderForCreatedAsset, second.placeholderForCreatedAsset, third.placeholderForCreatedAsset,
            ]
            let request = changes.creationRequestForAssetCollection(withTitle: "New")
            request.addAssets(created.map(\.localIdentifier))
            album = request.placeholderForCreatedAssetCollection
        }
        let inAlbum = try library.fetchAssets(inCollectionWithLocalIdentifier: try #require(album).localIdentifier)
        #expect(inAlbum.map(\.localIdentifier) == created.map(\.localIdentifier))
        #expect(inAlbum[0].isFavorite)
        #expect(inAlbum[1].pixelWidth == 3024 || inAlbum[1].pixelWidth == 4032)
        #expect(inAlbum[2].resource(ofType: .photo)?.originalFilename == "wine.jpg")
        #expect(!FileManager.default.fileExists(atPath: moved), "moved after the commit")
        #expect(FileManager.default.fileExists(atPath: copied))
        for asset in inAlbum {
            let stored = try await library.fileURL(for: try #require(asset.resource(ofType: .photo)))
            #expect(FileManager.default.fileExists(atPath: stored.path))
        }
        #expect(library.filesInFlight.isEmpty)
    }

    @Test("A .photo and a .pairedVideo make a Live Photo; a movie as .photo or a third type is refused")
    func livePhotoCreation() async throws {
        let folder = try TemporaryDirectory()
        let library = try folder.makeLibrary()
        let still = URL(fileURLWithPath: try Corpus.path("digikam/body-background.jpg"))
        let movie = URL(fileURLWithPath: try Corpus.path("forensics/original-files/movie1/VID_20191220_170832.mp4"))
        await #expect(throws: LibraryError.self) {
            try await library.performChanges { changes in
                changes.creationRequestForAsset().addResource(
                    with: .photo, fileURL: movie, options: AssetResourceCreationOptions())
            }
        }
        await #expect(throws: LibraryError.self) {
            try await library.performChanges { changes in
                let request = changes.creationRequestForAsset()
                request.addResource(with: .photo, fileURL: still, options: AssetResourceCreationOptions())
                request.addResource(with: .alternatePhoto, fileURL: movie, options: AssetResourceCreationOptions())
            }
        }
        #expect(try library.fetchAssets(options: FetchOptions(includeHiddenAssets: true)).count == 0)
        var placeholder: ObjectPlaceholder?
        try await library.performChanges { changes in
            let request = changes.creationRequestForAsset()
            request.addResource(with: .photo, fileURL: still, options: AssetResourceCreationOptions())
            request.addResource(
                with: .pairedVideo, fileURL: movie, options: AssetResourceCreationOptions(originalFilename: "IMG_7.MOV")
            )
            placeholder = request.placeholderForCreatedAsset
        }
        let identifier = try #require(placeholder).localIdentifier
        let live = try #require(try library.fetchAssets(withLocalIdentifiers: [identifier]).firstObject)
        #expect(live.mediaType == .image && live.mediaSubtypes.contains(.photoLive) && live.playbackStyle == .livePhoto)
        #expect(live.resource(ofType: .pairedVideo)?.originalFilename == "IMG_7.MOV")
        // PhotoKit's duration is a movie's: a Live Photo is a photo, of none.
        #expect(live.duration == 0)
    }

    @Test("creationRequestForAssetFromVideo makes a movie an asset of its own, as ffprobe reads it")
    func videoCreation() async throws {
        let folder = try TemporaryDirectory()
        let library = try folder.makeLibrary()
        let still = URL(fileURLWithPath: try Corpus.path("digikam/body-background.jpg"))
        let moviePath = try Corpus.path("forensics/original-files/movie1/VID_20191220_170832.mp4")
        let movie = URL(fileURLWithPath: moviePath)
        // A photo is not a .video, and a movie takes no .pairedVideo: nothing lands.
        for refused in [
            { (changes: ChangeRequests) in _ = changes.creationRequestForAssetFromVideo(atFileURL: still) },
            { (changes: ChangeRequests) in
                changes.creationRequestForAssetFromVideo(atFileURL: movie).addResource(
                    with: .pairedVideo, fileURL: movie, options: AssetResourceCreationOptions())
            },
        ] {
            await #expect(throws: LibraryError.self) { try await library.performChanges(refused) }
        }
        #expect(try library.fetchAssets().count == 0)
        var placeholder: ObjectPlaceholder?
        try await library.performChanges { changes in
            placeholder = changes.creationRequestForAssetFromVideo(atFileURL: movie).placeholderForCreatedAsset
        }
        let identifier = try #require(placeholder?.localIdentifier)
        let asset = try #require(try await library.asset(withLocalIdentifier: identifier))
        let probed = try FFmpeg.probe(moviePath)
        let (_, seconds) = try FFmpeg.videoCodec(moviePath)
        #expect(asset.mediaType == .video && asset.playbackStyle == .video)
        #expect(asset.resource(ofType: .video)?.originalFilename == "VID_20191220_170832.mp4")
        #expect(asset.resource(ofType: .photo) == nil)
        #expect(Set([asset.pixelWidth, asset.pixelHeight]) == Set([probed.width, probed.height]))
        #expect(abs(asset.duration - seconds) < 0.1, "\(asset.duration) against ffprobe's \(seconds)")
        #expect(try library.fetchAssets(with: .video).map(\.localIdentifier) == [identifier])
    }

    @Test("A damaged or duplicate new asset fails the whole block; moved files stay where they were")
    func creationFailures() async throws {
        let folder = try TemporaryDirectory()
        let library = try folder.makeLibrary()
        let source = try TemporaryDirectory()
        let good = try source.copy(Corpus.path("digikam/body-background.jpg"))
        let broken = try source.truncatedCopy(of: good, fraction: 0.4, as: "broken.jpg")
        let damaged = await #expect(throws: LibraryError.self) {
            try await library.performChanges { changes in
                _ = changes.creationRequestForAssetCollection(withTitle: "Never")
                changes.creationRequestForAsset().addResource(
                    with: .photo, fileURL: URL(fileURLWithPath: good),
                    options: AssetResourceCreationOptions(shouldMoveFile: true))
                _ = changes.creationRequestForAssetFromImage(atFileURL: URL(fileURLWithPath: broken))
            }
        }
        #expect(damaged?.code == .corruptFile)
        #expect(damaged?.path == broken)
        #expect(FileManager.default.fileExists(atPath: good))
        #expect(try library.fetchAssets().count == 0)
        #expect(try library.fetchAssetCollections(with: .album).count == 0)

        try await library.performChanges { changes in
            _ = changes.creationRequestForAssetFromImage(atFileURL: URL(fileURLWithPath: good))
        }
        let duplicate = await #expect(throws: LibraryError.self) {
            try await library.performChanges { changes in
                _ = changes.creationRequestForAssetFromImage(atFileURL: URL(fileURLWithPath: good))
            }
        }
        #expect(duplicate?.code == .invalidRequest)
        #expect(duplicate?.message.contains("already holds") == true)
        #expect(try library.fetchAssets().count == 1)
    }
}
