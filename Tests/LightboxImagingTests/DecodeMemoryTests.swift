import CVips
import Foundation
import LightboxMetadata
import LightboxTestSupport
import Synchronization
import Testing

@testable import LightboxImaging

/// A value shared between threads.
private final class Shared<Value: Sendable>: Sendable {
    private let value: Mutex<Value>
    init(_ value: Value) { self.value = Mutex(value) }
    func withLock<Result: Sendable>(_ body: (inout Value) -> Result) -> Result { value.withLock { body(&$0) } }
}

/// The process-wide limit on the memory decodes hold at once (`DecodeMemory`).
@Suite("Decode memory")
struct DecodeMemoryTests {
    /// Waits (up to 20 s) until `condition` holds.
    private func eventually(_ condition: () -> Bool) -> Bool {
        let deadline = Date(timeIntervalSinceNow: 20)
        while !condition() {
            if Date() > deadline { return false }
            usleep(2_000)
        }
        return true
    }

    /// Runs a reservation of `bytes` on another thread: it records `name` on entering, then
    /// holds until `release` is signalled.
    private func reserve(
        _ memory: DecodeMemory, _ bytes: Int, _ name: String, entered: Shared<[String]>, release: DispatchSemaphore,
        done: DispatchGroup, cancelled: Shared<Bool> = Shared(false), outcome: Shared<[String: String]> = Shared([:])
    ) {
        done.enter()
        DispatchQueue.global().async {
            let monitor = RenderMonitor(isCancelled: { cancelled.withLock { $0 } })
            do {
                try memory.withReservation(bytes, monitor: monitor, path: name) { () throws(ImagingError) in
                    entered.withLock { $0.append(name) }
                    release.wait()
                }
                outcome.withLock { $0[name] = "ran" }
            } catch {
                let code = (error as? ImagingError).map { "\($0.code)" } ?? "\(error)"
                outcome.withLock { $0[name] = code }
            }
            done.leave()
        }
    }

    @Test("Reservations that fit run side by side; a larger one waits, runs alone, and those after it wait their turn")
    func order() throws {
        let memory = DecodeMemory(limit: 100)
        let entered = Shared<[String]>([])
        let (releaseA, releaseB, releaseBig, releaseC) = (
            DispatchSemaphore(value: 0), DispatchSemaphore(value: 0), DispatchSemaphore(value: 0),
            DispatchSemaphore(value: 0)
        )
        let done = DispatchGroup()
        reserve(memory, 40, "a", entered: entered, release: releaseA, done: done)
        reserve(memory, 40, "b", entered: entered, release: releaseB, done: done)
        #expect(eventually { entered.withLock { $0.count } == 2 }, "two of 40 fit in 100 together")
        reserve(memory, 500, "big", entered: entered, release: releaseBig, done: done)
        #expect(eventually { memory.state.waiting == 1 })
        // Fits beside a and b, but arrives after big: waits its turn.
        reserve(memory, 10, "c", entered: entered, release: releaseC, done: done)
        #expect(eventually { memory.state.waiting == 2 })
        releaseA.signal()
        usleep(100_000)
        #expect(entered.withLock { $0 } == ["a", "b"] || entered.withLock { $0 } == ["b", "a"], "big waits for b too")
        releaseB.signal()
        #expect(eventually { entered.withLock { $0.last } == "big" })
        #expect(memory.state.reserved == 100, "larger than the limit: all of it, alone")
        #expect(memory.state.waiting == 1)
        releaseBig.signal()
        #expect(eventually { entered.withLock { $0.last } == "c" })
        releaseC.signal()
        #expect(done.wait(timeout: .now() + 20) == .success)
        #expect(memory.state.reserved == 0 && memory.state.waiting == 0)
    }

    @Test("A render cancelled while it waits throws cancelled and leaves the queue")
    func cancelledWhileWaiting() throws {
        let memory = DecodeMemory(limit: 100)
        let entered = Shared<[String]>([])
        let (releaseHolder, releaseWaiter) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
        let done = DispatchGroup()
        let cancelled = Shared(false)
        let outcome = Shared<[String: String]>([:])
        reserve(memory, 100, "holder", entered: entered, release: releaseHolder, done: done, outcome: outcome)
        #expect(eventually { entered.withLock { $0.count } == 1 })
        reserve(
            memory, 60, "waiter", entered: entered, release: releaseWaiter, done: done, cancelled: cancelled,
            outcome: outcome)
        #expect(eventually { memory.state.waiting == 1 })
        cancelled.withLock { $0 = true }
        #expect(eventually { outcome.withLock { $0["waiter"] } != nil })
        #expect(outcome.withLock { $0["waiter"] } == "cancelled")
        #expect(memory.state.waiting == 0 && memory.state.reserved == 100)
        releaseHolder.signal()
        #expect(done.wait(timeout: .now() + 20) == .success)
        #expect(entered.withLock { $0 } == ["holder"])
        #expect(memory.state.reserved == 0)
    }

    @Test(
        "A decode reserves its memory: a HEIC decoded whole or a progressive JPEG does not start while the limit is taken",
        arguments: [
            RenderFiles.heic, "lomiri/backgrounds/Dragonfly_by_Bolly.jpg",
        ])
    func decodeReserves(file: String) throws {
        let path = try Corpus.path(file)
        let holder = DispatchSemaphore(value: 0)
        let held = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        done.enter()
        DispatchQueue.global().async {
            _ = try? DecodeMemory.shared.withReservation(DecodeMemory.shared.limit, monitor: nil, path: "holder") {
                () throws(ImagingError) in
                held.signal()
                holder.wait()
            }
            done.leave()
        }
        held.wait()
        let polls = Shared(0)
        let progress = Shared(0)
        let cancel = Shared(false)
        let monitor = RenderMonitor(
            isCancelled: {
                polls.withLock { $0 += 1 }
                return cancel.withLock { $0 }
            }, progress: { _ in progress.withLock { $0 += 1 } })
        let result = Shared<ImagingError?>(nil)
        done.enter()
        DispatchQueue.global().async {
            do {
                _ = try ImageFile.thumbnail(
                    ofFileAt: path, options: RenderOptions(width: 1024, height: 1024), monitor: monitor)
            } catch {
                let failure = error as? ImagingError
                result.withLock { $0 = failure }
            }
            done.leave()
        }
        // Waiting, it asks whether it was cancelled; it decodes nothing.
        #expect(eventually { polls.withLock { $0 } >= 3 })
        #expect(progress.withLock { $0 } == 0)
        cancel.withLock { $0 = true }
        #expect(eventually { result.withLock { $0 } != nil })
        #expect(result.withLock { $0?.code } == .cancelled)
        #expect(progress.withLock { $0 } == 0)
        holder.signal()
        #expect(done.wait(timeout: .now() + 20) == .success)
    }

    // What the render reserves is read back for its own file, not timed against a budget held
    // by the test: other suites decode in the same process, and the gate lets none pass one
    // that arrived first, so a held budget made the render wait behind them.
    @Test("A 256 px HEIC render decodes the embedded thumbnail: it reserves that, and fits beside a limit nearly taken")
    func heicThumbnailRenderFits() throws {
        let folder = try TemporaryDirectory()
        let path = try folder.copy(Corpus.path(RenderFiles.heic), as: "reserved.heic")
        let image = try ImageFile.thumbnail(ofFileAt: path, options: RenderOptions(width: 256, height: 256))
        #expect((image.pixelWidth, image.pixelHeight) == (256, 192))
        let reserved = try #require(DecodeMemory.shared.lastReservation(forPath: path))
        #expect(reserved > 0, "the decode reserves what it holds")
        #expect(reserved <= 2_000_000, "the thumbnail's \(reserved) bytes fit in the 2 MB a nearly taken limit leaves")
        // And the whole image would not: a 1024 px render decodes the primary image.
        let copy = try folder.copy(Corpus.path(RenderFiles.heic), as: "primary.heic")
        _ = try ImageFile.thumbnail(ofFileAt: copy, options: RenderOptions(width: 1024, height: 1024))
        #expect(try #require(DecodeMemory.shared.lastReservation(forPath: copy)) > 2_000_000)
    }

    @Test("A HEIF is shown from its embedded thumbnail when that is smaller than the image and larger than the box")
    func heifThumbnailRule() {
        func uses(_ box: (Int, Int), _ thumbnail: (width: Int, height: Int) = (320, 240)) -> Bool {
            HEIFDecoder.usesThumbnail(width: 4032, height: 3024, thumbnail: thumbnail, box: box)
        }
        #expect(uses((256, 192)))
        #expect(uses((300, 400)), "wider than the box across is enough")
        #expect(!uses((320, 240)), "as large as the box: the image is decoded")
        #expect(!uses((1024, 768)))
        #expect(!uses((16, 16), (4032, 3024)), "a thumbnail the size of the image is no thumbnail")
    }

    @Test("The HEIF thumbnail size Lightbox reads is the one libheif decodes, for every HEIF and AVIF of the corpus")
    func heifThumbnailSizes() throws {
        try Vips.ensureStarted()
        let files = try Corpus.files(extensions: ["heic", "heif", "avif"])
        #expect(files.count >= 20)
        var withThumbnails = 0
        for path in files {
            guard let metadata = try? MetadataReader.read(fileAtPath: path) else { continue }
            guard let thumbnail = cvips_heif_thumbnail(path) else {
                _ = Vips.takeError()
                continue
            }
            let image = VipsImageRef(thumbnail)
            let primary = try Vips.open(path, failOnTruncation: false)
            let read = metadata.heifThumbnailSize.map { "\($0.width)x\($0.height)" }
            if (image.width, image.height) == (primary.width, primary.height) {
                #expect(read == nil, "\(path): libheif has no thumbnail, Lightbox reads \(read ?? "")")
            } else {
                withThumbnails += 1
                #expect(read == "\(image.width)x\(image.height)", "\(path)")
            }
        }
        #expect(withThumbnails >= 2, "the iPhone HEICs embed 320x240 and 240x320 thumbnails")
    }

    @Test("A progressive JPEG's header gives the coefficient memory libjpeg allocates")
    func coefficientMemory() throws {
        let path = try Corpus.path("lomiri/backgrounds/Dragonfly_by_Bolly.jpg")
        let bytes = [UInt8](try #require(FileManager.default.contents(atPath: path)))
        let header = try #require(try JPEGDecoder.header(bytes, path: path))
        #expect((header.width, header.height, header.progressive) == (4224, 3168, true))
        // 4:2:2: 528x396 luma blocks and two planes of 264x396 chroma blocks, 128 bytes each.
        #expect(header.coefficientBytes == (528 * 396 + 2 * 264 * 396) * 128)
        #expect(header.decodeMemory(shrink: 2, turned: false) == 2112 * 1584 * 3 + header.coefficientBytes)
        #expect(header.decodeMemory(shrink: 8, turned: true) == 528 * 396 * 3 * 2)
    }
}

/// Loaders that decode a whole image before Lightbox sees a pixel reserve its bytes first.
@Suite("Decode memory of whole-image loaders")
struct WholeImageDecodeTests {
    @Test("An interlaced PNG reserves its pixels' bytes and half again; a plain one streams and reserves none")
    func interlacedPNG() throws {
        let box = RenderOptions(width: 64, height: 64)
        let interlaced = try Corpus.path("pillow/images/pil123rgba.png")  // 162x150 RGBA, Adam7
        _ = try ImageFile.thumbnail(ofFileAt: interlaced, options: box)
        #expect(DecodeMemory.shared.lastReservation(forPath: interlaced) == 162 * 150 * 4 * 3 / 2)
        let plain = try Corpus.path("pillow/images/hopper.png")
        _ = try ImageFile.thumbnail(ofFileAt: plain, options: box)
        #expect(DecodeMemory.shared.lastReservation(forPath: plain) == 0)
    }

    @Test("An interlaced 16-bit PNG of 14000x14000, within the pixel budget, is refused as too large before decoding")
    func hugeInterlacedPNG() throws {
        // The real interlaced PNG's header made to say 14000x14000, 16-bit RGB: 1.2 GB of
        // pixels, 1.8 GB a decode when three uploads at once took a server to 5.2 GB.
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: try Corpus.path("pillow/images/pil123rgba.png"))))
        let header: [UInt8] =
            HostileFiles.bigEndian32(14000) + HostileFiles.bigEndian32(14000) + [16, 2, 0, 0, 1]
        bytes.replaceSubrange(8..<33, with: HostileFiles.pngChunk("IHDR", header))
        let folder = try TemporaryDirectory()
        let path = folder.path("huge.png")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let error = #expect(throws: ImagingError.self) {
            try ImageFile.thumbnail(ofFileAt: path, options: RenderOptions(width: 256, height: 256))
        }
        #expect(error?.code == .tooLarge && error?.path == path)
        #expect(error?.message.contains("1682 MB at once") == true, "\(error?.message ?? "")")
    }
}
