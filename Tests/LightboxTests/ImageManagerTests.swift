import Crypto
import Foundation
import Lightbox
import LightboxImaging
import LightboxTestSupport
import Synchronization
import Testing

@Suite("The image manager: delivery, sizes, versions, cancellation, caches")
struct ImageManagerTests {
    /// A 12 MP phone JPEG, an iPhone HEIC, and the phone JPEG again turned by a sidecar.
    static func library() async throws -> (PhotoLibrary, [Asset], TemporaryDirectory) {
        let folder = try TemporaryDirectory()
        let library = try folder.makeLibrary()
        let source = try TemporaryDirectory()
        let phone = try source.copy(Corpus.path("forensics/original-files/pic2/IMG_20191224_234846.jpg"))
        let heic = try source.copy(Corpus.path("exiv2/data/IMG_3578.heic"))
        let turned = try source.copy(
            Corpus.path("forensics/original-files/pic2/IMG_20200124_231153.jpg"), as: "turned.jpg")
        try """
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
        <rdf:Description rdf:about="" xmlns:tiff="http://ns.adobe.com/tiff/1.0/" tiff:Orientation="6"/>
        </rdf:RDF></x:xmpmeta>
        """.write(toFile: turned + ".xmp", atomically: true, encoding: .utf8)
        var assets: [Asset] = []
        for path in [phone, heic, turned] {
            let summary = await library.importItems(at: [URL(fileURLWithPath: path)])
            guard case .imported(let asset) = try #require(summary.results.first).outcome else {
                throw LibraryError(.invalidRequest, "\(path) did not import")
            }
            assets.append(asset)
        }
        return (library, assets, folder)
    }

    @Test(
        "Opportunistic: degraded from the stored thumbnails, then final; again: one result from memory, then from disk")
    func opportunistic() async throws {
        let (library, assets, folder) = try await Self.library()
        defer { withExtendedLifetime(folder) {} }
        let manager = ImageManager(library: library)
        let size = PixelSize(width: 600, height: 600)
        for asset in assets.prefix(2) {
            let results = await manager.requestImage(for: asset, targetSize: size).results()
            try #require(results.count == 2)
            #expect(results[0].info.isDegraded && results[0].info.source == .thumbnail)
            #expect(!results[1].info.isDegraded && results[1].info.source == .rendered)
            #expect(results.allSatisfy { $0.info.requestID == results[0].info.requestID && $0.info.error == nil })
            for result in results {
                let image = try #require(result.image)
                // Fast resizing: at least the target on the long side, at most twice it.
                #expect(
                    (600..<1200).contains(max(image.pixelWidth, image.pixelHeight)),
                    "\(image.pixelWidth)x\(image.pixelHeight)")
            }
            let again = await manager.requestImage(for: asset, targetSize: size).results()
            #expect(again.count == 1 && again[0].info.source == .memoryCache && !again[0].info.isDegraded)
            #expect(again[0].image?.bytes == results[1].image?.bytes)
            let fresh = ImageManager(library: library)
            let fromDisk = await fresh.requestImage(for: asset, targetSize: size).results()
            #expect(fromDisk.count == 1 && fromDisk[0].info.source == .diskCache)
            #expect(fromDisk[0].image?.bytes == results[1].image?.bytes)
        }
    }

    @Test("With derivatives/ emptied, the degraded image is the file's own embedded thumbnail, the same picture")
    func embeddedThumbnails() async throws {
        let (library, assets, folder) = try await Self.library()
        defer { withExtendedLifetime(folder) {} }
        try FileManager.default.removeItem(at: library.url.appendingPathComponent("derivatives"))
        try FileManager.default.createDirectory(
            at: library.url.appendingPathComponent("derivatives"), withIntermediateDirectories: true)
        let manager = ImageManager(library: library)
        // The phone JPEG's EXIF thumbnail, the iPhone HEIC's thumbnail item.
        var finals: [EncodedImage] = []
        var quicks: [EncodedImage] = []
        for asset in assets.prefix(2) {
            let results = await manager.requestImage(
                for: asset, targetSize: PixelSize(width: 400, height: 400),
                options: ImageRequestOptions(resizeMode: .exact)
            ).results()
            try #require(results.count == 2)
            #expect(results[0].info.isDegraded && results[0].info.source == .embeddedThumbnail)
            let quick = try #require(results[0].image)
            let final = try #require(results[1].image)
            #expect(max(quick.pixelWidth, quick.pixelHeight) < 400, "a thumbnail smaller than the target, not enlarged")
            // The same picture: the final image shrunk to the quick one's size is close to it.
            let shrunk = try ImageFile.thumbnail(
                ofEncoded: final.bytes,
                options: RenderOptions(width: quick.pixelWidth, height: quick.pixelHeight, contentMode: .aspectFill))
            let near = try ImageComparison.meanAbsoluteDifference(quick, shrunk)
            #expect(near < 10, "mean difference \(near) between the embedded thumbnail and the photo")
            finals.append(final)
            quicks.append(quick)
        }
        // Against the other photo, the comparison fails.
        let other = try ImageFile.thumbnail(
            ofEncoded: finals[1].bytes,
            options: RenderOptions(
                width: quicks[0].pixelWidth, height: quicks[0].pixelHeight, contentMode: .aspectFill))
        #expect(try ImageComparison.meanAbsoluteDifference(quicks[0], other) > 20)
    }

    @Test("High quality delivers only the final; fast format one quick image")
    func deliveryModes() async throws {
        let (library, assets, folder) = try await Self.library()
        defer { withExtendedLifetime(folder) {} }
        let manager = ImageManager(library: library)
        let high = await manager.requestImage(
            for: assets[0], targetSize: PixelSize(width: 300, height: 300),
            options: ImageRequestOptions(deliveryMode: .highQualityFormat)
        ).results()
        #expect(high.count == 1 && !high[0].info.isDegraded && high[0].info.source == .rendered)
        let fast = await manager.requestImage(
            for: assets[1], targetSize: PixelSize(width: 300, height: 300),
            options: ImageRequestOptions(deliveryMode: .fastFormat)
        ).results()
        #expect(fast.count == 1 && !fast[0].info.isDegraded && fast[0].info.source == .thumbnail)
    }

    @Test(
        "One answer per request: opportunistic gives the quick image, then the final once prepared; a held tag is not modified"
    )
    func oneAnswer() async throws {
        let (library, assets, folder) = try await Self.library()
        defer { withExtendedLifetime(folder) {} }
        let manager = CachingImageManager(library: library)
        let size = PixelSize(width: 300, height: 300)
        func deliver(_ mode: ImageRequestOptions.DeliveryMode, holds: String? = nil) async throws -> ImageDelivery {
            try await manager.deliverImage(
                for: assets[0], targetSize: size, options: ImageRequestOptions(deliveryMode: mode),
                holds: { $0 == holds })
        }
        guard case .delivered(let quick) = try await deliver(.opportunistic) else {
            Issue.record("an opportunistic miss was not delivered")
            return
        }
        // The quick image from the stored thumbnails, which no client should keep.
        #expect(quick.isDegraded && quick.entityTag == nil && quick.source == .thumbnail)
        // The final was prepared in the background: a moment later it is a cache hit.
        var final: DeliveredImage?
        for _ in 0..<200 {
            if case .delivered(let image) = try await deliver(.opportunistic), !image.isDegraded {
                final = image
                break
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        let hit = try #require(final, "the final image was never prepared")
        #expect(hit.source == .memoryCache || hit.source == .diskCache)
        let tag = try #require(hit.entityTag)
        // A caller holding the tag gets no image; fast never looks at tags.
        guard case .notModified(let held) = try await deliver(.highQualityFormat, holds: tag) else {
            Issue.record("a held tag was delivered again")
            return
        }
        #expect(held == tag)
        guard case .delivered(let fast) = try await deliver(.fastFormat, holds: tag) else {
            Issue.record("fast delivery answered not modified")
            return
        }
        #expect(fast.isDegraded && fast.entityTag == nil)
    }

    @Test("Exact resizing gives the target, fill fills, a crop is the crop, and the maximum size is the photo")
    func sizes() async throws {
        let (library, assets, folder) = try await Self.library()
        defer { withExtendedLifetime(folder) {} }
        let manager = ImageManager(library: library)
        let high = ImageRequestOptions(deliveryMode: .highQualityFormat, resizeMode: .exact)
        func final(_ size: PixelSize, _ mode: ContentMode = .aspectFit, _ options: ImageRequestOptions = high)
            async throws
            -> EncodedImage
        {
            let results = await manager.requestImage(
                for: assets[0], targetSize: size, contentMode: mode, options: options
            ).results()
            return try #require(results.last?.image)
        }
        let fit = try await final(PixelSize(width: 500, height: 500))
        #expect((fit.pixelWidth, fit.pixelHeight) == (500, 375))
        let fill = try await final(PixelSize(width: 500, height: 200), .aspectFill)
        #expect((fill.pixelWidth, fill.pixelHeight) == (500, 200))
        var cropping = high
        cropping.normalizedCropRect = NormalizedRect(x: 0.25, y: 0.25, width: 0.5, height: 0.5)
        let crop = try await final(PixelSize(width: 1000, height: 1000), .aspectFit, cropping)
        #expect((crop.pixelWidth, crop.pixelHeight) == (1000, 750))
        let full = try await final(.maximum)
        #expect((full.pixelWidth, full.pixelHeight) == (assets[0].pixelWidth, assets[0].pixelHeight))
        // The sidecar's quarter turn: current and unadjusted are turned, the original is not.
        for (version, portrait) in [
            (ImageRequestOptions.Version.current, true), (.unadjusted, true), (.original, false),
        ] {
            var options = high
            options.version = version
            let results = await manager.requestImage(
                for: assets[2], targetSize: PixelSize(width: 400, height: 400), options: options
            ).results()
            let image = try #require(results.last?.image)
            #expect((image.pixelWidth < image.pixelHeight) == portrait, "\(version)")
        }
        let bad = await manager.requestImage(for: assets[0], targetSize: PixelSize(width: 0, height: 10)).results()
        #expect(bad.count == 1 && bad[0].image == nil && bad[0].info.error?.code == .invalidRequest)
    }

    @Test("A cancelled request delivers nothing more, and its render stops")
    func cancellation() async throws {
        let (library, assets, folder) = try await Self.library()
        defer { withExtendedLifetime(folder) {} }
        // One render slot: the second request waits behind the first.
        let manager = ImageManager(library: library, concurrentRenders: 1)
        let options = ImageRequestOptions(deliveryMode: .highQualityFormat, resizeMode: .exact)
        let reports = Mutex(0)
        let requestBox = Mutex<ImageRequest?>(nil)
        let first = manager.requestImage(for: assets[0], targetSize: .maximum, options: options) { _ in
            let count = reports.withLock { value in
                value += 1
                return value
            }
            if count == 1 { requestBox.withLock { $0 }?.cancel() }
        }
        requestBox.withLock { $0 = first }
        let waitingReports = Mutex(0)
        let second = manager.requestImage(for: assets[1], targetSize: .maximum, options: options) { _ in
            waitingReports.withLock { $0 += 1 }
        }
        manager.cancelImageRequest(second.id)
        let firstResults = await first.results()
        let secondResults = await second.results()
        for results in [firstResults, secondResults] {
            #expect(results.allSatisfy { $0.image == nil }, "no image after cancelling")
            #expect(results.last?.info.isCancelled == true)
        }
        #expect(waitingReports.withLock { $0 } == 0, "the waiting render never started")
        // The full decode of a 12 MP JPEG reports many times; it stopped after the first.
        let uncancelled = Mutex(0)
        _ = await ImageManager(library: library).requestImage(for: assets[0], targetSize: .maximum, options: options) {
            _ in
            uncancelled.withLock { $0 += 1 }
        }.results()
        #expect(reports.withLock { $0 } < uncancelled.withLock { $0 })
    }

    @Test("Image data: the stored bytes, their type, and the orientation to show them in")
    func imageData() async throws {
        let (library, assets, folder) = try await Self.library()
        defer { withExtendedLifetime(folder) {} }
        let manager = ImageManager(library: library)
        let heic = try await manager.requestImageDataAndOrientation(for: assets[1])
        #expect(heic.uniformTypeIdentifier == "public.heic")
        #expect(
            SHA256.hash(data: heic.bytes).map { String(format: "%02x", $0) }.joined()
                == assets[1].resource(ofType: .photo)?.sha256)
        let current = try await manager.requestImageDataAndOrientation(for: assets[2])
        let original = try await manager.requestImageDataAndOrientation(
            for: assets[2], options: ImageRequestOptions(version: .original))
        // The sidecar says 6; the file itself says what exiftool reads (3, upside down).
        let fileOrientation = try ExifTool.tags(
            ["Orientation"], of: Corpus.path("forensics/original-files/pic2/IMG_20200124_231153.jpg"))["Orientation"]
        #expect(current.orientation == 6)
        #expect(fileOrientation == "3" && original.orientation == 3)
    }

    @Test("The resource manager streams a resource in chunks and writes it to a new file")
    func resources() async throws {
        let (library, assets, folder) = try await Self.library()
        defer { withExtendedLifetime(folder) {} }
        let resources = AssetResourceManager(library: library)
        let photo = try #require(assets[0].resource(ofType: .photo))
        var bytes: [UInt8] = []
        var chunks = 0
        for try await chunk in resources.requestData(for: photo, chunkSize: 1 << 20) {
            #expect(chunk.count <= 1 << 20)
            bytes += chunk
            chunks += 1
        }
        #expect(chunks == Int((photo.fileSize + (1 << 20) - 1) >> 20))
        #expect(SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined() == photo.sha256)
        let copy = URL(fileURLWithPath: folder.path("copy.jpg"))
        try await resources.writeData(for: photo, toFile: copy)
        #expect([UInt8](try Data(contentsOf: copy)) == bytes)
        await #expect(throws: LibraryError.self) { try await resources.writeData(for: photo, toFile: copy) }
    }

    @Test("Caching ahead makes later requests memory hits; stopping stops")
    func caching() async throws {
        let (library, assets, folder) = try await Self.library()
        defer { withExtendedLifetime(folder) {} }
        let manager = CachingImageManager(library: library)
        let size = PixelSize(width: 700, height: 700)
        manager.startCachingImages(for: assets, targetSize: size, contentMode: .aspectFill)
        await manager.waitForCaching()
        #expect(manager.cachingCount == 0)
        for asset in assets {
            let results = await manager.requestImage(for: asset, targetSize: size, contentMode: .aspectFill).results()
            #expect(results.count == 1 && results[0].info.source == .memoryCache && !results[0].info.isDegraded)
        }
        // Stopping stops: with the one render slot held by a request that waits for us, caching
        // is started and stopped; once the slot is free, nothing it asked for is ever rendered.
        let single = CachingImageManager(library: library, concurrentRenders: 1)
        let release = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        let once = Mutex(false)
        let holder = single.requestImage(
            for: assets[0], targetSize: .maximum, options: ImageRequestOptions(deliveryMode: .highQualityFormat)
        ) { _ in
            let first = once.withLock { reported in
                defer { reported = true }
                return !reported
            }
            if first {
                started.signal()
                release.wait()
            }
        }
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                started.wait()
                continuation.resume()
            }
        }
        let other = PixelSize(width: 1500, height: 1500)
        single.startCachingImages(for: assets, targetSize: other)
        single.stopCachingImages(for: Array(assets.prefix(1)), targetSize: other)
        single.stopCachingImagesForAllAssets()
        #expect(single.cachingCount == 0)
        release.signal()
        _ = await holder.results()
        // A request behind anything the stopped caching might still have queued.
        _ = await single.requestImage(
            for: assets[1], targetSize: PixelSize(width: 100, height: 100),
            options: ImageRequestOptions(deliveryMode: .highQualityFormat)
        ).results()
        let stored = try FileManager.default.subpathsOfDirectory(atPath: library.url.path + "/derivatives")
        #expect(!stored.contains { $0.contains("-1500x1500-") }, "a stopped caching job rendered")
        // The same requests, not stopped, render and store.
        single.startCachingImages(for: assets, targetSize: other)
        await single.waitForCaching()
        let cached = try FileManager.default.subpathsOfDirectory(atPath: library.url.path + "/derivatives")
        #expect(cached.filter { $0.contains("-1500x1500-") }.count == assets.count)
    }
}
