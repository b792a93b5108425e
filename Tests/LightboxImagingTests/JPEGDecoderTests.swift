import CJPEG
import Foundation
import LightboxTestSupport
import Synchronization
import Testing

@testable import LightboxImaging

/// Lightbox's own 1/8 scale JPEG decoder (`cjpeg_fast.c`) against libjpeg-turbo, which it stands
/// in for, and against libvips' box shrink of the full decode, which both approximate.
@Suite("The 1/8 scale JPEG decoder")
struct JPEGDecoderTests {
    /// The pixels of a 1/8 decode, and whether Lightbox's own decoder made them.
    private func decode(_ path: String, libjpegOnly: Bool = false) throws -> (
        pixels: [UInt8], width: Int, height: Int, bands: Int, own: Bool
    ) {
        let bytes = try readFile(path)
        let (image, _, own) = try JPEGDecoder.decode(
            bytes, shrink: 8, path: path, monitor: nil, libjpegOnly: libjpegOnly)
        return (try Vips.pixels(image), image.width, image.height, image.bands, own)
    }

    private func readFile(_ path: String) throws -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ImagingError(.unreadable, "cannot read", path: path)
        }
        return [UInt8](data)
    }

    /// The mean absolute difference per value over the rows and columns both images have.
    private func difference(
        _ a: (pixels: [UInt8], width: Int, height: Int, bands: Int),
        _ b: (pixels: [UInt8], width: Int, height: Int, bands: Int)
    ) -> (mean: Double, max: Int) {
        precondition(a.bands == b.bands)
        let width = min(a.width, b.width)
        let height = min(a.height, b.height)
        var total = 0
        var largest = 0
        for y in 0..<height {
            for x in 0..<width * a.bands {
                let d = abs(Int(a.pixels[(y * a.width * a.bands) + x]) - Int(b.pixels[(y * b.width * b.bands) + x]))
                total += d
                largest = max(largest, d)
            }
        }
        return (Double(total) / Double(width * height * a.bands), largest)
    }

    /// libvips' 8 by 8 box shrink of the whole image decoded at full size: what a 1/8 scale
    /// image should be.
    private func boxShrink(_ path: String, in folder: TemporaryDirectory) throws -> (
        pixels: [UInt8], width: Int, height: Int, bands: Int
    ) {
        let output = folder.path("shrunk-\((path as NSString).lastPathComponent).v")
        try VipsTool.run("shrink", path, output, "8", "8")
        let image = try ImageComparison.pixels(ofFileAt: output)
        return (image.pixels, image.width, image.height, image.bands)
    }

    @Test(
        "It makes libjpeg-turbo's pixels: 4:2:0 phone photos, 4:4:4 and 4:2:0 with restart markers, grey, progressive",
        arguments: [
            RenderFiles.phone, RenderFiles.displayP3, "forensics/original-files/pic1/IMG_20200827_231612.jpg",
            "exiv2/data/Reagan.jpg", "sigal/pictures/iptcTest/1.jpg", "piexif/images/02.jpg",
            // Progressive 4:2:0 (DC and AC refinement passes) and 4:4:4.
            "lomiri/backgrounds/picosdeeuropa_by_Aitzol_Berasategi.jpg",
            "lomiri/backgrounds/seeding_by_Clements_Engelhardt.jpg",
            "lomiri/backgrounds/greentock_by_Peter_Nerlich.jpg",
        ])
    func agreesWithLibjpeg(file: String) throws {
        let path = try Corpus.path(file)
        let ours = try decode(path)
        let theirs = try decode(path, libjpegOnly: true)
        #expect(ours.own, "Lightbox's decoder took the file")
        #expect(!theirs.own)
        #expect(ours.width == theirs.width && ours.height == theirs.height && ours.bands == theirs.bands)
        // The DC of a full-resolution block is exactly libjpeg's; a subsampled block's two
        // halves differ by rounding (float here, fixed point there) and by frequencies 5 and 7,
        // which this decoder leaves out.
        let (mean, largest) = difference(
            (ours.pixels, ours.width, ours.height, ours.bands),
            (theirs.pixels, theirs.width, theirs.height, theirs.bands))
        #expect(mean < 0.1, "mean difference \(mean)")
        #expect(largest <= 8, "largest difference \(largest)")

        // Both stand for the box shrink of the full decode; Lightbox's is as close as libjpeg's.
        let folder = try TemporaryDirectory()
        let box = try boxShrink(path, in: folder)
        let oursToBox = difference((ours.pixels, ours.width, ours.height, ours.bands), box).mean
        let theirsToBox = difference((theirs.pixels, theirs.width, theirs.height, theirs.bands), box).mean
        #expect(
            oursToBox < theirsToBox + 0.05, "to the box shrink: Lightbox \(oursToBox), libjpeg-turbo \(theirsToBox)")
        #expect(oursToBox < 1.5, "mean difference to the box shrink of the full decode: \(oursToBox)")
    }

    @Test("Every coefficient it keeps from a progressive file is libjpeg's, on every progressive JPEG of the corpus")
    func progressiveCoefficients() throws {
        var checked: [String] = []
        for path in try Corpus.files(extensions: ["jpg", "jpeg"]) {
            let bytes = try readFile(path)
            var header = cjpeg_header()
            var message = [CChar](repeating: 0, count: 256)
            let status = bytes.withUnsafeBufferPointer {
                cjpeg_read_header($0.baseAddress, $0.count, &header, &message, message.count)
            }
            guard status == CJPEG_OK, header.progressive != 0, header.supported != 0, header.components != 4 else {
                continue
            }
            // Files libjpeg itself stops on (cut short, damaged) are the other tests' business.
            guard (try? decode(path, libjpegOnly: true)) != nil, (try? decode(path))?.own == true else { continue }
            var compared = 0
            let differ = bytes.withUnsafeBufferPointer {
                cjpeg_check_progressive_coefficients($0.baseAddress, $0.count, &compared)
            }
            #expect(differ == 0, "\(path): \(differ) of \(compared) coefficients differ")
            #expect(compared > 0)
            checked.append(path)
        }
        // The wallpapers (4:2:0, 4:2:2, 4:4:4) and Pillow's samples.
        #expect(checked.count >= 12, "\(checked)")
    }

    @Test(
        "A 4:2:2 photo's chroma is the mean of each half block, closer to the full decode than libjpeg-turbo's copies",
        arguments: [
            "exiv2/data/exiv2-bug922a.jpg", "exiv2/data/FurnaceCreekInn2.jpg", "exiv2/data/FurnaceCreekInn3.jpg",
            "lomiri/backgrounds/Dragonfly_by_Bolly.jpg", "lomiri/backgrounds/life_by_Aitzol_Berasategi.jpg",
        ])
    func subsampledAcross(file: String) throws {
        let path = try Corpus.path(file)
        let ours = try decode(path)
        let theirs = try decode(path, libjpegOnly: true)
        #expect(ours.own)
        let folder = try TemporaryDirectory()
        let box = try boxShrink(path, in: folder)
        let oursToBox = difference((ours.pixels, ours.width, ours.height, ours.bands), box).mean
        let theirsToBox = difference((theirs.pixels, theirs.width, theirs.height, theirs.bands), box).mean
        #expect(oursToBox < theirsToBox, "to the box shrink: Lightbox \(oursToBox), libjpeg-turbo \(theirsToBox)")
        #expect(oursToBox < 1, "mean difference to the box shrink: \(oursToBox)")
    }

    @Test("Damaged data goes to libjpeg-turbo, which decodes it as before; a file cut short fails with its path")
    func declines() throws {
        // A block in this file runs past its 64th coefficient: libjpeg-turbo warns and goes on.
        let path = try Corpus.path("pillow/images/hopper_bad_exif.jpg")
        let ours = try decode(path)
        let theirs = try decode(path, libjpegOnly: true)
        #expect(!ours.own)
        #expect(ours.pixels == theirs.pixels)
        // Cut short, baseline and progressive: an error naming the file, as libjpeg-turbo gives.
        let folder = try TemporaryDirectory()
        for (index, file) in [RenderFiles.phone, "lomiri/backgrounds/Dragonfly_by_Bolly.jpg"].enumerated() {
            let cut = try folder.truncatedCopy(of: try Corpus.path(file), fraction: 0.6, as: "cut-\(index).jpg")
            let error = #expect(throws: ImagingError.self) { try decode(cut) }
            #expect(error?.path == cut)
            #expect(error?.code == .corrupt)
        }
    }

    @Test("Progress rises to 1 row by row, and a cancelled decode stops and throws")
    func cancellation() throws {
        let path = try Corpus.path(RenderFiles.phone)
        let bytes = try readFile(path)
        let fractions = Mutex<[Double]>([])
        let monitor = RenderMonitor(
            isCancelled: { false }, progress: { fraction in fractions.withLock { $0.append(fraction) } })
        let (_, _, own) = try JPEGDecoder.decode(bytes, shrink: 8, path: path, monitor: monitor)
        #expect(own)
        let seen = fractions.withLock { $0 }
        #expect(seen.count > 100)
        #expect(seen.last == 1)
        #expect(zip(seen, seen.dropFirst()).allSatisfy { $0 <= $1 })

        let reports = Mutex(0)
        let cancelling = RenderMonitor(
            isCancelled: { reports.withLock { $0 } >= 3 }, progress: { _ in reports.withLock { $0 += 1 } })
        let error = #expect(throws: ImagingError.self) {
            try JPEGDecoder.decode(bytes, shrink: 8, path: path, monitor: cancelling)
        }
        #expect(error?.code == .cancelled)
        #expect(reports.withLock { $0 } < 10)
    }
}
