import Foundation
import LightboxImaging
import LightboxMetadata
import LightboxTestSupport
import Testing

@testable import Lightbox
@testable import LightboxStore

@Suite("Importing real photos")
struct ImportTests {
    @Test("Every photo imports, with the displayed size libvips gives after autorotation")
    func importsEveryPhoto() async throws {
        let folder = try TemporaryDirectory()
        let library = try folder.makeLibrary()
        let paths = try Corpus.photoPaths()
        let summary = await library.importItems(at: paths.map { URL(fileURLWithPath: $0) })

        #expect(summary.progress.imported == paths.count)
        #expect(summary.progress.failed == 0)
        for result in summary.results {
            guard case .imported(let asset) = result.outcome else {
                Issue.record("\(result.path) was not imported: \(result.outcome)")
                continue
            }
            let oracle = try ImageComparison.autorotatedSize(ofFileAt: result.path)
            #expect(asset.pixelWidth == oracle.width, "\(result.path)")
            #expect(asset.pixelHeight == oracle.height, "\(result.path)")
            #expect(asset.mediaType == .image)
            let photo = try #require(asset.resource(ofType: .photo))
            #expect(photo.originalFilename == (result.path as NSString).lastPathComponent)
            #expect(photo.fileSize == Int64(try Data(contentsOf: URL(fileURLWithPath: result.path)).count))

            // The stored original is byte for byte the file, and read-only.
            let stored = try await library.fileURL(for: photo)
            #expect(FileManager.default.contentsEqual(atPath: stored.path, andPath: result.path))
            #expect(!FileManager.default.isWritableFile(atPath: stored.path) || getuid() == 0)
            let permissions = try FileManager.default.attributesOfItem(atPath: stored.path)[.posixPermissions] as? Int
            #expect(permissions == 0o444)
        }
        #expect(try await library.assetCount() == paths.count)
    }

    @Test(
        "A camera maker's plain TIFF imports as a TIFF, at exiftool's size",
        arguments: ["exiv2/data/test.tiff", "exiv2/data/Reagan.tiff"])
    func cameraTIFF(file: String) async throws {
        let folder = try TemporaryDirectory()
        let library = try folder.makeLibrary()
        let path = try Corpus.path(file)
        let summary = await library.importItems(at: [URL(fileURLWithPath: path)])
        guard case .imported(let asset) = try #require(summary.results.first).outcome else {
            Issue.record("\(file): \(String(describing: summary.results.first?.outcome))")
            return
        }
        let tags = try ExifTool.tags(["FileType", "ImageWidth", "ImageHeight"], of: path)
        #expect(tags["FileType"] == "TIFF")
        #expect(asset.resource(ofType: .photo)?.uniformTypeIdentifier == "public.tiff")
        #expect("\(asset.pixelWidth)" == tags["ImageWidth"] && "\(asset.pixelHeight)" == tags["ImageHeight"])
    }

    @Test("Importing the same bytes again adds nothing, whatever the file is called")
    func secondImportAddsNothing() async throws {
        let folder = try TemporaryDirectory()
        let library = try folder.makeLibrary()
        let paths = Array(try Corpus.photoPaths().prefix(5))
        let first = await library.importItems(at: paths.map { URL(fileURLWithPath: $0) })
        #expect(first.progress.imported == 5)

        let renamed = try folder.copy(paths[0], as: "copies/renamed.bin")
        let second = await library.importItems(at: (paths + [renamed]).map { URL(fileURLWithPath: $0) })
        #expect(second.progress.imported == 0)
        #expect(second.progress.duplicates == 6)
        #expect(try await library.assetCount() == 5)
        let originals = try FileManager.default.subpathsOfDirectory(atPath: library.url.path + "/originals")
            .filter { !$0.hasPrefix(".") && $0.contains(".") }
        #expect(originals.count == 5)
    }

    @Test("A truncated JPEG and random bytes are reported, a text file in the folder skipped; the others still import")
    func damagedFilesAreReported() async throws {
        let folder = try TemporaryDirectory()
        let source = try TemporaryDirectory()
        let good = try source.copy(Corpus.path("lomiri/backgrounds/Wine_by_Jakkub_Mede.jpg"), as: "a/good.jpg")
        let heic = try source.copy(Corpus.path("exiv2/data/IMG_3578.heic"), as: "b/phone.heic")
        let truncated = try source.truncatedCopy(
            of: Corpus.path("forensics/original-files/pic2/IMG_20200608_111614.jpg"), fraction: 0.6, as: "cut.jpg")
        let noise = source.randomFile("noise.jpg", count: 50_000)
        let notes = source.path("notes.txt")
        try "shopping list".write(toFile: notes, atomically: true, encoding: .utf8)

        let library = try folder.makeLibrary()
        let summary = await library.importItems(at: [source.url])
        #expect(summary.progress.total == 5)
        #expect(summary.progress.imported == 2)
        #expect(summary.progress.failed == 2)
        #expect(summary.progress.skipped == 1, "notes.txt is no photo: passed over, not failed")

        var failures: [String: LibraryError] = [:]
        var imported: Set<String> = []
        var skipped: [String] = []
        for result in summary.results {
            switch result.outcome {
            case .failed(let error): failures[result.path] = error
            case .imported: imported.insert(result.path)
            case .skipped: skipped.append(result.path)
            case .duplicate, .paired: Issue.record("unexpected duplicate or pairing \(result.path)")
            }
        }
        #expect(skipped == [notes])
        #expect(imported == [good, heic])
        #expect(failures[truncated]?.code == .corruptFile)
        #expect(failures[truncated]?.path == truncated)
        #expect(failures[truncated]?.description.contains(truncated) == true)
        #expect(failures[noise]?.code == .unsupportedFormat)
        #expect(failures[noise]?.path == noise)
        // Named on its own, it is asked for: a failure.
        let named = await library.importItems(at: [URL(fileURLWithPath: notes)])
        #expect(named.progress.failed == 1 && named.progress.skipped == 0)
        // Nothing of the failed files reached the library.
        #expect(try await library.assetCount() == 2)
        #expect(library.filesInFlight.isEmpty)
    }

    @Test("Moving deletes each source only once the library holds it")
    func moveDeletesSources() async throws {
        let folder = try TemporaryDirectory()
        let source = try TemporaryDirectory()
        let photo = try source.copy(Corpus.path("digikam/body-background.jpg"))
        let broken = try source.truncatedCopy(of: photo, fraction: 0.3, as: "broken.jpg")
        let library = try folder.makeLibrary()
        let summary = await library.importItems(
            at: [URL(fileURLWithPath: photo), URL(fileURLWithPath: broken)],
            options: ImportOptions(shouldMoveFile: true))
        #expect(summary.progress.imported == 1)
        #expect(!FileManager.default.fileExists(atPath: photo))
        #expect(FileManager.default.fileExists(atPath: broken), "a file that failed is left where it was")
        let asset = try #require(await library.assets().first)
        let stored = try await library.fileURL(for: try #require(asset.resource(ofType: .photo)))
        #expect(
            FileManager.default.contentsEqual(
                atPath: stored.path, andPath: try Corpus.path("digikam/body-background.jpg")))
    }

    @Test("The creation date is EXIF DateTimeOriginal in the file's offset, else the file's time")
    func creationDates() async throws {
        let folder = try TemporaryDirectory()
        let library = try folder.makeLibrary()
        let iphone = try Corpus.path("exiv2/data/2021-02-13-1929.heic")  // 2021:02:13 11:03:31 -06:00
        let wallpaper = try folder.copy(Corpus.path("lomiri/backgrounds/Dragonfly_by_Bolly.jpg"))  // no EXIF
        let fileDate = Date(timeIntervalSince1970: 1_500_000_000)
        try FileManager.default.setAttributes([.modificationDate: fileDate], ofItemAtPath: wallpaper)
        let summary = await library.importItems(at: [iphone, wallpaper].map { URL(fileURLWithPath: $0) })
        let assets = summary.results.compactMap { result -> Asset? in
            if case .imported(let asset) = result.outcome { asset } else { nil }
        }
        try #require(assets.count == 2)
        // exiftool's composite of DateTimeOriginal, SubSecTimeOriginal and OffsetTimeOriginal.
        let oracle = try #require(try ExifTool.tags(["SubSecDateTimeOriginal"], of: iphone)["SubSecDateTimeOriginal"])
        let expected = oracle.replacingOccurrences(
            of: ":", with: "-", options: [], range: oracle.startIndex..<oracle.index(oracle.startIndex, offsetBy: 10)
        )
        .replacingOccurrences(of: " ", with: "T")
        #expect(
            ISO8601.string(from: assets[0].creationDate, offsetSeconds: assets[0].creationTimeZoneOffset) == expected)
        #expect(expected == "2021-02-13T11:03:31.864-06:00")
        #expect(assets[1].creationDate == fileDate)
        // Newest first: the 2021 photo before the file dated 2017.
        #expect(
            try await library.assets().map(\.localIdentifier) == [assets[0].localIdentifier, assets[1].localIdentifier])
    }

    @Test("A sidecar's numbers out of range are dropped: the photo imports, and every page that holds it reads")
    func hostileSidecar() async throws {
        let folder = try TemporaryDirectory()
        let library = try folder.makeLibrary()
        let photo = try folder.copy(Corpus.path("digikam/body-background.jpg"), as: "IMG_0001.JPG")
        let other = try folder.copy(
            Corpus.path("forensics/original-files/pic2/IMG_20200124_231153.jpg"), as: "IMG_0002.JPG")
        for (name, attributes) in [
            ("IMG_0001.xmp", #"xmp:Rating="nan" exif:GPSLatitude="1000" exif:GPSLongitude="10""#),
            (
                "IMG_0002.xmp",
                #"xmp:Rating="inf" exif:GPSLatitude="10" exif:GPSLongitude="10" exif:GPSAltitude="1e999""#
            ),
        ] {
            try """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
            <rdf:Description rdf:about="" xmlns:exif="http://ns.adobe.com/exif/1.0/" xmlns:xmp="http://ns.adobe.com/xap/1.0/"
             \(attributes)/></rdf:RDF></x:xmpmeta>
            """.write(toFile: folder.path(name), atomically: true, encoding: .utf8)
        }
        let summary = await library.importItems(at: [URL(fileURLWithPath: photo), URL(fileURLWithPath: other)])
        #expect(summary.progress.imported == 2 && summary.progress.failed == 0)
        for asset in try library.fetchAssets() {
            #expect(asset.rating == nil)
            #expect(asset.location.map { $0.latitude.isFinite && ($0.altitude ?? 0).isFinite } ?? true)
            #expect(try JSONEncoder.lightbox.encode(asset).count > 0)
        }
        // The photo with a sane place keeps it, without the altitude.
        let placed = try #require(try library.fetchAssets().first { $0.location?.latitude == 10 })
        #expect(placed.location?.altitude == nil)
    }

    @Test(
        "A sidecar larger than any XMP packet, or a named pipe, is passed over unread and the photo imports",
        .timeLimit(.minutes(10)))
    func oversizedSidecar() async throws {
        let folder = try TemporaryDirectory()
        let library = try folder.makeLibrary()
        let sparse = try folder.copy(Corpus.path("digikam/body-background.jpg"), as: "IMG_0001.JPG")
        let piped = try folder.copy(
            Corpus.path("forensics/original-files/pic2/IMG_20200124_231153.jpg"), as: "IMG_0002.JPG")
        // 3 GB that take no disk: read whole, they were 3 GB of memory before a size was looked at.
        #expect(FileManager.default.createFile(atPath: folder.path("IMG_0001.xmp"), contents: nil))
        #expect(truncate(folder.path("IMG_0001.xmp"), 3 << 30) == 0)
        // Opened to be read, a pipe no one writes waits for ever.
        #expect(mkfifo(folder.path("IMG_0002.JPG.xmp"), 0o600) == 0)
        // Bytes this process reads through read(2): the other tests running beside this one
        // read far less than the sidecar's 3 GB in the moment the sidecar is looked at.
        func bytesRead() throws -> Int {
            let io = try ProcFile.read("/proc/self/io")
            let line = io.split(separator: "\n").first { $0.hasPrefix("rchar:") } ?? ""
            return Int(line.dropFirst("rchar:".count).trimmingCharacters(in: .whitespaces)) ?? 0
        }
        // Timed around the sidecar's own read: the whole import, beside a full suite, is minutes.
        let before = try bytesRead()
        #expect(PhotoLibrary.sidecar(of: sparse) == nil)
        #expect(try bytesRead() - before < 1 << 30)
        let summary = await library.importItems(at: [URL(fileURLWithPath: sparse), URL(fileURLWithPath: piped)])
        #expect(summary.progress.imported == 2 && summary.progress.failed == 0)
    }

    @Test(
        "A movie whose tables claim 80 million samples, or 300 tracks, is refused by name before FFmpeg reads it",
        arguments: ["samples", "tracks"])
    func hostileMovieTables(shape: String) async throws {
        let folder = try TemporaryDirectory()
        let real = [UInt8](
            try Data(
                contentsOf: URL(
                    fileURLWithPath: try Corpus.path("forensics/original-files/movie1/VID_20191220_170832.mp4"))))
        let hostile =
            shape == "samples"
            ? HostileFiles.movie(real, claimingSamples: 80_000_000, ofSize: 1)
            : HostileFiles.movie(real, withTracks: 300)
        let path = folder.path("VID_0001.mp4")
        try Data(hostile).write(to: URL(fileURLWithPath: path))
        let named = shape == "samples" ? "stsz" : "tracks"
        // Its headers still read, as exiftool reads them; its structure is what is refused.
        #expect(try MetadataReader.read(fileAtPath: path).quickTime != nil)
        let structure = #expect(throws: MetadataError.self) {
            try MetadataReader.checkStructure(ByteSource(fileAtPath: path))
        }
        #expect(structure?.message.contains(named) == true, "\(structure?.message ?? "")")
        // A poster frame: FFmpeg took 1.9 GB to index it (and 1.5 GB for 999 tracks).
        let thumbnail = #expect(throws: ImagingError.self) {
            try ImageFile.thumbnail(ofFileAt: path, options: RenderOptions(width: 256, height: 256))
        }
        #expect(thumbnail?.code == .corrupt && thumbnail?.path == path)
        let library = try folder.makeLibrary()
        let summary = await library.importItems(at: [URL(fileURLWithPath: path)])
        #expect(summary.progress.failed == 1 && summary.progress.imported == 0)
        if case .failed(let error) = summary.results.first?.outcome {
            #expect(error.message.contains(named), "\(error.message)")
        }
        // The real movie itself still reads and imports.
        let original = try folder.copy(Corpus.path("forensics/original-files/movie1/VID_20191220_170832.mp4"))
        #expect(try MetadataReader.read(fileAtPath: original).quickTime?.videoWidth != nil)
        #expect(await library.importItems(at: [URL(fileURLWithPath: original)]).progress.imported == 1)
    }

    @Test("Import records GPS, the offset GPS time implies, and what an XMP sidecar corrects")
    func metadataAndSidecars() async throws {
        let folder = try TemporaryDirectory()
        let library = try folder.makeLibrary()
        // A Xiaomi photo with GPS but no OffsetTimeOriginal: GPS time says it was UTC-3.
        let xiaomi = try Corpus.path("forensics/original-files/pic1/IMG_20200827_231612.jpg")
        // An iPhone photo with a sidecar that moves it to another date and place.
        let iphone = try folder.copy(Corpus.path("digikam/body-background.jpg"), as: "IMG_0001.JPG")
        let sidecar = """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
            <rdf:Description rdf:about="" xmlns:exif="http://ns.adobe.com/exif/1.0/" xmlns:xmp="http://ns.adobe.com/xap/1.0/"
             exif:GPSLatitude="48,51.3948N" exif:GPSLongitude="2,17.7000E" xmp:Rating="4">
            <exif:DateTimeOriginal>2019-07-14T18:03:12+02:00</exif:DateTimeOriginal>
            </rdf:Description></rdf:RDF></x:xmpmeta>
            """
        try sidecar.write(toFile: folder.path("IMG_0001.xmp"), atomically: true, encoding: .utf8)
        let summary = await library.importItems(at: [xiaomi, iphone].map { URL(fileURLWithPath: $0) })
        let assets = summary.results.compactMap { result -> Asset? in
            if case .imported(let asset) = result.outcome { asset } else { nil }
        }
        try #require(assets.count == 2)

        let oracle = try ExifTool.tags(["GPSLatitude", "GPSLongitude", "GPSAltitude", "DateTimeOriginal"], of: xiaomi)
        let location = try #require(assets[0].location)
        #expect(abs(location.latitude - Double(oracle["GPSLatitude"]!)!) < 1e-6)
        #expect(abs(location.longitude - Double(oracle["GPSLongitude"]!)!) < 1e-6)
        #expect(abs((location.altitude ?? 0) - Double(oracle["GPSAltitude"]!)!) < 1e-3)
        #expect(oracle["DateTimeOriginal"] == "2020:08:27 23:16:12")
        #expect(
            ISO8601.string(from: assets[0].creationDate, offsetSeconds: assets[0].creationTimeZoneOffset)
                == "2020-08-27T23:16:12.007-03:00")

        #expect(
            ISO8601.string(from: assets[1].creationDate, offsetSeconds: assets[1].creationTimeZoneOffset)
                == "2019-07-14T18:03:12+02:00")
        let corrected = try #require(assets[1].location)
        #expect(abs(corrected.latitude - (48 + 51.3948 / 60)) < 1e-9)
        #expect(abs(corrected.longitude - (2 + 17.7 / 60)) < 1e-9)

        // The sidecar's four stars are kept, found by predicate, and changed like any property.
        #expect(assets[0].rating == nil)
        #expect(assets[1].rating == 4)
        let rated = try library.fetchAssets(options: FetchOptions(predicate: FetchPredicate("rating >= 3")))
        #expect(rated.count == 1 && rated.object(at: 0).localIdentifier == assets[1].localIdentifier)
        try await library.performChanges { $0.changeRequest(for: assets[0]).rating = -1 }
        #expect(try await library.asset(withLocalIdentifier: assets[0].localIdentifier)?.rating == -1)
        let refused = await #expect(throws: LibraryError.self) {
            try await library.performChanges { $0.changeRequest(for: assets[1]).rating = 6 }
        }
        #expect(refused?.message.contains("rating 6") == true)
        try await library.performChanges { $0.changeRequest(for: assets[1]).rating = 0 }
        #expect(try await library.asset(withLocalIdentifier: assets[1].localIdentifier)?.rating == nil)
    }

    @Test("A folder's sidecars and iPhone adjustment files are read or passed over, not failures")
    func folderCompanions() async throws {
        let folder = try TemporaryDirectory()
        let source = try TemporaryDirectory()
        try source.copy(Corpus.path("digikam/body-background.jpg"), as: "DCIM/IMG_0001.JPG")
        try """
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
        <rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmp:Rating="3"/>
        </rdf:RDF></x:xmpmeta>
        """.write(toFile: source.path("DCIM/IMG_0001.xmp"), atomically: true, encoding: .utf8)
        // What an iPhone writes beside a photo edited in its Photos app.
        try """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0"><dict><key>adjustmentFormatIdentifier</key>
        <string>com.apple.photo</string></dict></plist>
        """.write(toFile: source.path("DCIM/IMG_0001.AAE"), atomically: true, encoding: .utf8)

        let library = try folder.makeLibrary()
        let summary = await library.importItems(at: [source.url])
        #expect(summary.progress.total == 1)
        #expect(summary.progress.imported == 1)
        #expect(summary.progress.failed == 0)
        let asset = try #require(try await library.assets(limit: 10).first)
        #expect(asset.rating == 3, "the sidecar was read with its photo")

        // Named on its own, a sidecar is still a file that is not a photo.
        let named = await library.importItems(at: [URL(fileURLWithPath: source.path("DCIM/IMG_0001.xmp"))])
        #expect(named.progress.failed == 1)
    }

    @Test("A sidecar's orientation turns the photo as shown; its file stays as it was")
    func sidecarOrientation() async throws {
        let folder = try TemporaryDirectory()
        let library = try folder.makeLibrary()
        let source = try TemporaryDirectory()
        let photo = try source.copy(Corpus.path("lomiri/backgrounds/Wine_by_Jakkub_Mede.jpg"), as: "wine.jpg")  // no EXIF
        let sidecar = """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
            <rdf:Description rdf:about="" xmlns:tiff="http://ns.adobe.com/tiff/1.0/" tiff:Orientation="6"/>
            </rdf:RDF></x:xmpmeta>
            """
        try sidecar.write(toFile: photo + ".xmp", atomically: true, encoding: .utf8)
        // The oracle: the same photo with its own EXIF orientation set to 6, turned by libvips.
        let oracle = try source.copy(photo, as: "oracle.jpg")
        try ExifTool.write(["Orientation#": "6"], to: oracle)

        let summary = await library.importItems(at: [URL(fileURLWithPath: photo)])
        guard case .imported(let asset) = try #require(summary.results.first).outcome else {
            Issue.record("did not import")
            return
        }
        let upright = try ImageComparison.autorotatedSize(ofFileAt: oracle)
        #expect(asset.pixelWidth == upright.width && asset.pixelHeight == upright.height)
        let resource = try #require(asset.resource(ofType: .photo))
        #expect(asset.pixelWidth == resource.pixelHeight && asset.pixelHeight == resource.pixelWidth, "a quarter turn")
        for options in [
            RenderOptions.grid, .preview, RenderOptions(width: 300, height: 200, contentMode: .aspectFill),
        ] {
            let thumbnail = try await library.finalImage(of: asset.localIdentifier, options)
            let width = thumbnail.image.pixelWidth
            let height = thumbnail.image.pixelHeight
            let near = try ImageComparison.meanAbsoluteDifference(
                thumbnail.image,
                try ImageComparison.referenceThumbnail(
                    ofFileAt: oracle, width: width, height: height, contentMode: options.contentMode))
            let far = try ImageComparison.meanAbsoluteDifference(
                thumbnail.image,
                try ImageComparison.referenceThumbnail(
                    ofFileAt: oracle, width: width, height: height, contentMode: options.contentMode,
                    rotatedHalfTurn: true))
            #expect(near < 6, "\(options.width)x\(options.height): mean difference \(near) to the oracle")
            #expect(far > near * 2, "\(options.width)x\(options.height): upside down \(far), oracle \(near)")
        }
        let stored = try await library.fileURL(for: try #require(asset.resource(ofType: .photo)))
        #expect(
            try Data(contentsOf: stored) == Data(contentsOf: URL(fileURLWithPath: photo)), "the original is untouched")
    }

    @Test("A RAW file alone shows the JPEG preview it embeds, turned by the RAW's orientation")
    func rawPreview() async throws {
        let folder = try TemporaryDirectory()
        let library = try folder.makeLibrary()
        let source = try TemporaryDirectory()
        // A Nikon NEF and a Canon CR2 from exiftool's samples carry a real 12 MP phone JPEG as
        // their preview (JpgFromRaw, PreviewImage); the NEF is turned a quarter turn by its tag.
        let phone = try Corpus.path("forensics/original-files/pic2/IMG_20191224_234846.jpg")
        let nef = try source.copy(Corpus.path("exiftool/images/Nikon.nef"), as: "DSC_0002.NEF")
        try ExifTool.embed("JpgFromRaw", from: phone, into: nef)
        try ExifTool.write(["Orientation#": "6"], to: nef, ignoringMinorErrors: true)
        let cr2 = try source.copy(Corpus.path("exiftool/images/CanonRaw.cr2"), as: "IMG_0003.CR2")
        try ExifTool.embed("PreviewImage", from: phone, into: cr2)
        // The oracles: the phone JPEG itself, as is and turned by the same tag.
        let turned = try source.copy(phone, as: "turned.jpg")
        try ExifTool.write(["Orientation#": "6"], to: turned)
        // A RAW whose preview is cut off: it imports, without thumbnails.
        let bare = try source.copy(Corpus.path("exiftool/images/DNG.dng"), as: "bare.dng")

        let summary = await library.importItems(at: [nef, cr2, bare].map { URL(fileURLWithPath: $0) })
        let assets = summary.results.compactMap { result -> Asset? in
            if case .imported(let asset) = result.outcome { asset } else { nil }
        }
        try #require(assets.count == 3)
        for (asset, oracle) in [(assets[0], turned), (assets[1], phone)] {
            let thumbnail = try await library.finalImage(of: asset.localIdentifier, .grid)
            #expect(thumbnail.wasCached, "rendered during the import")
            let width = thumbnail.image.pixelWidth
            let height = thumbnail.image.pixelHeight
            let near = try ImageComparison.meanAbsoluteDifference(
                thumbnail.image,
                try ImageComparison.referenceThumbnail(
                    ofFileAt: oracle, width: width, height: height, contentMode: .aspectFill))
            let far = try ImageComparison.meanAbsoluteDifference(
                thumbnail.image,
                try ImageComparison.referenceThumbnail(
                    ofFileAt: oracle, width: width, height: height, contentMode: .aspectFill, rotatedHalfTurn: true))
            #expect(near < 6, "mean difference \(near) to the oracle")
            #expect(far > near * 2, "upside down \(far), oracle \(near)")
        }
        let preview = try await library.finalImage(of: assets[0].localIdentifier, .preview)
        #expect(preview.image.pixelWidth < preview.image.pixelHeight, "the NEF's preview is turned upright")
        let error = await #expect(throws: LibraryError.self) {
            try await library.finalImage(of: assets[2].localIdentifier, .grid)
        }
        #expect(error?.message.contains("without a JPEG preview") == true)
    }

    @Test("The library reopens with its assets, and paging is newest first without gaps")
    func reopenAndPage() async throws {
        let folder = try TemporaryDirectory()
        let paths = try Corpus.photoPaths()
        do {
            let library = try folder.makeLibrary()
            _ = await library.importItems(at: paths.map { URL(fileURLWithPath: $0) })
        }
        let library = try folder.makeLibrary()
        let all = try await library.assets()
        #expect(all.count == paths.count)
        #expect(zip(all, all.dropFirst()).allSatisfy { $0.creationDate >= $1.creationDate })
        var paged: [String] = []
        var after: String?
        repeat {
            let page = try await library.assets(limit: 4, after: after)
            paged += page.map(\.localIdentifier)
            after = page.count == 4 ? page.last?.localIdentifier : nil
        } while after != nil
        #expect(paged == all.map(\.localIdentifier))
    }
}
