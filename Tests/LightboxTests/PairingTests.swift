import Foundation
import Lightbox
import LightboxImaging
import LightboxTestSupport
import Testing

@testable import LightboxMetadata

#if canImport(Glibc)
    import Glibc
#endif

/// Movies, Live Photos, bursts, RAW + JPEG and Motion Photos, built from real files as the
/// corpus README explains: identifiers written with Lightbox's own writers and checked with
/// exiftool (see AppleMetadataWriterTests).
@Suite("Importing movies, Live Photos, bursts, RAW + JPEG and Motion Photos")
struct PairingTests {
    static let movie = Corpus.livePhotoMovie
    static let iPhoneStill = Corpus.livePhotoStill

    /// A Live Photo's two halves, named as an iPhone names them, in `folder`.
    static func livePair(in folder: TemporaryDirectory, identifier: String, name: String = "IMG_0001") throws -> (
        String, String
    ) {
        try Corpus.livePhotoPair(in: folder, identifier: identifier, name: name)
    }

    static func assets(_ summary: ImportSummary) -> [Asset] {
        summary.results.compactMap { result in
            switch result.outcome {
            case .imported(let asset), .paired(let asset): asset
            default: nil
            }
        }
    }

    static func urls(_ paths: [String]) -> [URL] { paths.map { URL(fileURLWithPath: $0) } }

    @Test("A movie imports as a video asset with its duration, size, date and place")
    func video() async throws {
        let folder = try TemporaryDirectory()
        let library = try folder.makeLibrary()
        let path = try Corpus.path(Self.movie)
        let summary = await library.importItems(at: [URL(fileURLWithPath: path)])
        let asset = try #require(Self.assets(summary).first)
        let oracle = try ExifTool.tags(
            ["Duration", "ImageWidth", "ImageHeight", "CreateDate", "GPSCoordinates"], of: path)
        #expect(asset.mediaType == .video && asset.playbackStyle == .video)
        #expect(abs(asset.duration - Double(oracle["Duration"]!)!) < 0.01)
        #expect("\(asset.pixelWidth)" == oracle["ImageWidth"] && "\(asset.pixelHeight)" == oracle["ImageHeight"])
        #expect(asset.resource(ofType: .video)?.uniformTypeIdentifier == "public.mpeg-4")
        // exiftool: QuickTime's CreateDate is UTC.
        #expect(ISO8601.string(from: asset.creationDate, offsetSeconds: 0) == "2019-12-20T20:08:34+00:00")
        #expect(oracle["CreateDate"] == "2019:12:20 20:08:34")
        let coordinates = oracle["GPSCoordinates"]!.split(separator: " ").compactMap { Double($0) }
        #expect(abs((asset.location?.latitude ?? 0) - coordinates[0]) < 1e-4)
        #expect(abs((asset.location?.longitude ?? 0) - coordinates[1]) < 1e-4)
        #expect(try library.fetchAssets(with: .video).count == 1)
        // Its first frame is its thumbnail, rendered during the import, and its image.
        let grid = try await library.finalImage(of: asset.localIdentifier, .grid)
        #expect(grid.wasCached && grid.image.pixelWidth == 360 && grid.image.pixelHeight == 360)
        let results = await ImageManager(library: library).requestImage(
            for: asset, targetSize: PixelSize(width: 640, height: 640),
            options: ImageRequestOptions(deliveryMode: .highQualityFormat, resizeMode: .exact)
        ).results()
        #expect(results.count == 1 && results[0].image?.pixelWidth == 640 && results[0].image?.pixelHeight == 360)
    }

    @Test(
        "A still and a movie with one content identifier become one Live Photo, whatever their order, folders or runs",
        arguments: ["still first", "movie first", "one run", "other folders"])
    func livePhoto(order: String) async throws {
        let folder = try TemporaryDirectory()
        let library = try folder.makeLibrary()
        let halves = try TemporaryDirectory()
        let (still, movie) = try Self.livePair(
            in: halves, identifier: "8A1B2C3D-0000-4000-8000-\(order.count)00000000001")
        var movedMovie = movie
        let other = try TemporaryDirectory()
        if order == "other folders" {
            movedMovie = try other.copy(movie, as: "clip.mov")  // another folder, another name
        }
        var summaries: [ImportSummary] = []
        switch order {
        case "still first":
            summaries.append(await library.importItems(at: Self.urls([still])))
            summaries.append(await library.importItems(at: Self.urls([movedMovie])))
        case "movie first":
            summaries.append(await library.importItems(at: Self.urls([movedMovie])))
            #expect(try library.fetchAssets(with: .video).count == 1, "a lone movie is a video until its still comes")
            summaries.append(await library.importItems(at: Self.urls([still])))
        default:
            summaries.append(
                await library.importItems(
                    at: Self.urls([still, movedMovie]), options: ImportOptions(maximumConcurrentFiles: 2)))
        }
        #expect(summaries.reduce(0) { $0 + $1.progress.failed } == 0)
        #expect(summaries.reduce(0) { $0 + $1.progress.imported } == 1)
        #expect(summaries.reduce(0) { $0 + $1.progress.paired } == 1)

        let all = try library.fetchAssets()
        #expect(all.count == 1)
        let live = try #require(all.firstObject)
        #expect(live.mediaType == .image)
        #expect(live.mediaSubtypes.contains(.photoLive))
        #expect(live.playbackStyle == .livePhoto)
        #expect(live.resource(ofType: .photo)?.originalFilename == "IMG_0001.JPG")
        #expect(live.resource(ofType: .pairedVideo) != nil)
        #expect(live.resource(ofType: .video) == nil)
        // PhotoKit's duration is a movie's: a Live Photo is a photo, of none.
        #expect(live.duration == 0)
        #expect(live.pixelWidth == 4032 && live.pixelHeight == 3024, "the still's size")
        let smart = try #require(
            try library.fetchAssetCollections(with: .smartAlbum, subtype: .smartAlbumLivePhotos).firstObject)
        #expect(try library.fetchAssets(in: smart).count == 1)
    }

    @Test(
        "Android's capture rate makes a movie a time-lapse or slow motion",
        arguments: [
            (Float(4), AssetMediaSubtypes.videoTimelapse), (Float(240), .videoHighFrameRate),
            (Float(30), AssetMediaSubtypes()),
        ])
    func captureRate(fps: Float, subtype: AssetMediaSubtypes) async throws {
        let folder = try TemporaryDirectory()
        let library = try folder.makeLibrary()
        // The key as Android's MediaRecorder writes it: a 32-bit float in the movie's mdta keys.
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Corpus.path(Self.movie))))
        let movie = folder.path("VID_0001.mp4")
        try Data(try QuickTimeKeyWriter.setting(["com.android.capture.fps": .float32(fps)], in: bytes))
            .write(to: URL(fileURLWithPath: movie))
        // exiftool 12.57 has no name for the key: with -u it calls it AndroidCaptureFps.
        #expect(
            try ExifTool.tags(["u", "AndroidCaptureFps"], of: movie)["AndroidCaptureFps"].flatMap(Double.init)
                == Double(fps))
        let asset = try #require(Self.assets(await library.importItems(at: [URL(fileURLWithPath: movie)])).first)
        #expect(asset.mediaSubtypes.intersection([.videoTimelapse, .videoHighFrameRate]) == subtype)
        if subtype == .videoTimelapse {
            let album = try #require(
                library.fetchAssetCollections(with: .smartAlbum, subtype: .smartAlbumTimelapses).firstObject)
            #expect(try library.fetchAssets(in: album).count == 1)
        }
    }

    @Test("A file name alone pairs nothing: a movie with another identifier stays a video")
    func notByName() async throws {
        let folder = try TemporaryDirectory()
        let library = try folder.makeLibrary()
        let first = try TemporaryDirectory()
        let second = try TemporaryDirectory()
        let (still, _) = try Self.livePair(in: first, identifier: "11111111-1111-4111-8111-111111111111")
        let (_, otherMovie) = try Self.livePair(in: second, identifier: "22222222-2222-4222-8222-222222222222")
        let summary = await library.importItems(at: Self.urls([still, otherMovie]))
        #expect(summary.progress.imported == 2 && summary.progress.paired == 0)
        #expect(try library.fetchAssets(with: .video).count == 1)
        #expect(try library.fetchAssets(with: .image).firstObject?.mediaSubtypes.contains(.photoLive) == false)
    }

    @Test("Frames with one burst UUID form a burst: one representative, the first frame taken")
    func bursts() async throws {
        let folder = try TemporaryDirectory()
        let library = try folder.makeLibrary()
        let burst = "C0FFEE00-1234-4321-8765-BADC0FFEE000"
        let frames = [
            "forensics/original-files/pic2/IMG_20200124_231153.jpg",
            "forensics/original-files/pic2/IMG_20191224_234846.jpg",
            "forensics/original-files/pic2/IMG_20200608_111614.jpg",
        ]
        let source = try TemporaryDirectory()
        var paths: [String] = []
        for (index, frame) in frames.enumerated() {
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Corpus.path(frame))))
            let path = source.path("frame\(index).jpg")
            try Data(try AppleMetadataWriter.jpeg(bytes, contentIdentifier: nil, burstUUID: burst)).write(
                to: URL(fileURLWithPath: path))
            paths.append(path)
        }
        let summary = await library.importItems(at: Self.urls(paths))
        #expect(summary.progress.imported == 3)
        // PhotoKit: without includeAllBurstAssets, a burst's fetch gives its representative alone.
        #expect(try library.fetchAssets(withBurstIdentifier: burst).map(\.representsBurst) == [true])
        let all = try library.fetchAssets(
            withBurstIdentifier: burst, options: FetchOptions(includeAllBurstAssets: true))
        #expect(all.count == 3)
        let earliest = try #require(all.min { $0.creationDate < $1.creationDate })
        let shown = try library.fetchAssets()
        #expect(shown.count == 1, "a burst shows as its representative")
        #expect(shown.firstObject?.localIdentifier == earliest.localIdentifier)
        #expect(shown.firstObject?.representsBurst == true)
        #expect(try library.fetchAssets(options: FetchOptions(includeAllBurstAssets: true)).count == 3)
    }

    @Test("A RAW and the JPEG of the same shot become one asset, the RAW its alternate photo, in either order")
    func rawPlusJPEG() async throws {
        for rawFirst in [true, false] {
            let folder = try TemporaryDirectory()
            let library = try folder.makeLibrary()
            let shots = try TemporaryDirectory()
            let raw = try shots.copy(Corpus.path("exiftool/images/Nikon.nef"), as: "DSC_0001.NEF")
            let jpeg = try shots.copy(Corpus.path("exiv2/data/exiv2-nikon-d70.jpg"), as: "DSC_0001.JPG")
            // The camera writes both files of a shot with one capture time.
            try ExifTool.copyTags(["DateTimeOriginal", "SubSecTimeOriginal", "Make", "Model"], from: raw, to: jpeg)
            // Another shot's RAW under a name that matches nothing.
            let lone = try shots.copy(Corpus.path("exiftool/images/DNG.dng"), as: "DSC_0002.DNG")
            let order = rawFirst ? [raw, lone, jpeg] : [jpeg, lone, raw]
            var paired = 0
            for path in order { paired += await library.importItems(at: Self.urls([path])).progress.paired }
            #expect(paired == 1)
            let all = try library.fetchAssets()
            #expect(all.count == 2)
            let pair = try #require(all.first { $0.resource(ofType: .alternatePhoto) != nil })
            #expect(pair.resource(ofType: .photo)?.originalFilename == "DSC_0001.JPG")
            #expect(pair.resource(ofType: .alternatePhoto)?.originalFilename == "DSC_0001.NEF")
            #expect(pair.resource(ofType: .alternatePhoto)?.uniformTypeIdentifier == "com.nikon.raw-image")
            let single = try #require(all.first { $0.localIdentifier != pair.localIdentifier })
            #expect(single.resource(ofType: .photo)?.uniformTypeIdentifier == "com.adobe.raw-image")
            let rawAlbum = try #require(
                try library.fetchAssetCollections(with: .smartAlbum, subtype: .smartAlbumRAW).firstObject)
            #expect(
                try library.fetchAssets(in: rawAlbum).count == 2, "as in Photos: the lone DNG and the RAW + JPEG pair")
        }
    }

    @Test("An Android Motion Photo's embedded movie becomes its paired video")
    func motionPhoto() async throws {
        let folder = try TemporaryDirectory()
        let library = try folder.makeLibrary()
        let shots = try TemporaryDirectory()
        let still = try shots.copy(
            Corpus.path("forensics/original-files/pic1/IMG_20200827_231612.jpg"), as: "PXL_0001.MP.jpg")
        let movie = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Corpus.path(Self.movie))))
        try ExifTool.write(
            [
                "XMP-GCamera:MicroVideo": "1", "XMP-GCamera:MicroVideoVersion": "1",
                "XMP-GCamera:MicroVideoOffset": "\(movie.count)",
            ], to: still)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: still))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(movie))
        try handle.close()

        let summary = await library.importItems(at: Self.urls([still]))
        let asset = try #require(Self.assets(summary).first)
        #expect(asset.mediaSubtypes.contains(.photoLive) && asset.playbackStyle == .livePhoto)
        let paired = try #require(asset.resource(ofType: .pairedVideo))
        #expect(paired.fileSize == Int64(movie.count))
        let stored = try Data(contentsOf: await library.fileURL(for: paired))
        #expect([UInt8](stored) == movie, "the movie, byte for byte")
        #expect(asset.duration == 0, "a photo, though its movie plays for 1.6 s")
    }

    @Test("Export: originals byte for byte; current Live Photos carry one identifier exiftool pairs")
    func export() async throws {
        let folder = try TemporaryDirectory()
        let library = try folder.makeLibrary()
        // A Live Photo made from halves that carry no identifier at all.
        let still = URL(fileURLWithPath: try Corpus.path(Self.iPhoneStill))
        let movie = URL(fileURLWithPath: try Corpus.path(Self.movie))
        var placeholder: ObjectPlaceholder?
        try await library.performChanges { changes in
            let request = changes.creationRequestForAsset()
            request.addResource(
                with: .photo, fileURL: still, options: AssetResourceCreationOptions(originalFilename: "IMG_0042.JPG"))
            request.addResource(
                with: .pairedVideo, fileURL: movie,
                options: AssetResourceCreationOptions(originalFilename: "IMG_0042.MOV"))
            placeholder = request.placeholderForCreatedAsset
        }
        let id = try #require(placeholder).localIdentifier

        let originals = try TemporaryDirectory()
        let written = try await library.export(localIdentifiers: [id], to: originals.url, version: .original)
        #expect(written.map { ($0.path as NSString).lastPathComponent }.sorted() == ["IMG_0042.JPG", "IMG_0042.MOV"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: originals.path("IMG_0042.JPG"))) == Data(contentsOf: still))
        #expect(try Data(contentsOf: URL(fileURLWithPath: originals.path("IMG_0042.MOV"))) == Data(contentsOf: movie))

        let current = try TemporaryDirectory()
        _ = try await library.export(localIdentifiers: [id], to: current.url, version: .current)
        let stillTags = try ExifTool.tags(
            ["MediaGroupUUID", "Make", "Model", "DateTimeOriginal", "Warning"], of: current.path("IMG_0042.JPG"))
        let movieTags = try ExifTool.tags(
            ["ContentIdentifier", "Duration", "Warning"], of: current.path("IMG_0042.MOV"))
        let identifier = try #require(stillTags["MediaGroupUUID"])
        #expect(UUID(uuidString: identifier) != nil)
        #expect(movieTags["ContentIdentifier"] == identifier, "iOS pairs the two by this identifier")
        #expect(stillTags["Model"] == "iPhone 7" && stillTags["Warning"] == nil && movieTags["Warning"] == nil)

        // Exported again into the same folder: nothing is overwritten.
        let again = try await library.export(localIdentifiers: [id], to: current.url, version: .current)
        #expect(again.map { ($0.path as NSString).lastPathComponent }.sorted() == ["IMG_0042-1.JPG", "IMG_0042-1.MOV"])

        #expect(identifier == id, "an export of an asset always writes the same identifier")

        // The exported pair imports back into another library as one Live Photo; the second
        // export holds the same bytes.
        let other = try folder.makeLibrary("Other.lightbox")
        let summary = await other.importItems(at: [current.url])
        #expect(summary.progress.imported == 1 && summary.progress.paired == 1 && summary.progress.duplicates == 2)
        #expect(try other.fetchAssets().firstObject?.mediaSubtypes.contains(.photoLive) == true)
    }

    @Test("An interrupted import resumes: files done are skipped, the rest import")
    func resume() async throws {
        let folder = try TemporaryDirectory()
        let library = try folder.makeLibrary()
        let source = try TemporaryDirectory()
        let done = try source.copy(Corpus.path("forensics/original-files/pic2/IMG_20200124_231153.jpg"))
        _ = try source.copy(Corpus.path("forensics/original-files/pic2/IMG_20191224_234846.jpg"))
        // The run stopped after two files; the third was never reached.
        let stopped = await library.importItems(at: [source.url])
        #expect(stopped.progress.imported == 2)
        _ = try source.copy(Corpus.path("forensics/original-files/pic2/IMG_20200608_111614.jpg"))
        // The journal, not a second hash, says a file is done: bytes swapped behind its back
        // with the same size and time are not read again (as rsync trusts size and time).
        var status = stat()
        try #require(stat(done, &status) == 0)
        let other = try Data(
            contentsOf: URL(fileURLWithPath: Corpus.path("forensics/original-files/pic2/IMG_20200608_111614.jpg")))
        let size = Int(status.st_size)
        try Data(other.prefix(size) + Data(count: max(0, size - other.count))).write(to: URL(fileURLWithPath: done))
        var times = [status.st_atim, status.st_mtim]  // to the nanosecond
        try #require(utimensat(AT_FDCWD, done, &times, 0) == 0)
        let resumed = await library.importItems(at: [source.url])
        #expect(
            resumed.progress.imported == 1 && resumed.progress.duplicates == 2 && resumed.progress.failed == 0,
            "\(resumed.progress)")
        #expect(try library.fetchAssets().count == 3)
    }
}
