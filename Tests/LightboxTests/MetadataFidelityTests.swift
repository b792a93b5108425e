import Foundation
import LightboxMetadata
import LightboxTestSupport
import Testing

/// `lightbox metadata` against exiftool, the oracle, over every image and movie of the corpus.
@Suite("Metadata agrees with exiftool")
struct MetadataFidelityTests {
    /// Where Lightbox and exiftool disagree on purpose, and why: path (relative to the corpus)
    /// and field.
    static let knownDisagreements: [String: String] = [
        "exiv2/data/test_issue_1472.jpg make":
            "the file starts with FF 01, not a JPEG's start-of-image marker; Lightbox reads a file as what its bytes are, and this is no JPEG",
        "exiv2/data/test_issue_1472.jpg model": "the same file, not a JPEG",
        "exiv2/data/test_issue_1472.jpg orientation": "the same file, not a JPEG",
        "exiv2/data/test_issue_1472.jpg dateTimeOriginal": "the same file, not a JPEG",
        "exiv2/data/test_issue_1472.jpg EXIF:ExposureTime": "the same file, not a JPEG",
        "exiv2/data/test_issue_1472.jpg EXIF:FNumber": "the same file, not a JPEG",
        "exiv2/data/test_issue_1472.jpg EXIF:FocalLength": "the same file, not a JPEG",
        "exiv2/data/test_issue_1472.jpg iso": "the same file, not a JPEG",
        "exiv2/data/issue_1881_coverage.jpg orientation":
            "a fuzzed Orientation of 36865 lies outside EXIF's 1 to 8; Lightbox takes it as absent (upright)",
        "exiv2/data/issue_1833_poc.jpg dimensions":
            "a fuzzing sample whose segment lengths are corrupt: after them both readers look for the next marker, and they land on different frame headers",
        "faces-group/images/mask_white.jpg orientation":
            "an Orientation of 0 lies outside EXIF's 1 to 8; Lightbox takes it as absent (upright), as for 36865 above",
        "pillow/images/hopper_bigtiff.tif orientation": "BigTIFF (8-byte offsets) is not read; no camera writes it",
        "exiftool/images/FujiFilm.raf dimensions":
            "exiftool gives the RAW sensor area of this stripped 8x8 sample from the RAF header; Lightbox gives the image size the camera's EXIF states (1440x960)",
        "exiftool/images/Panasonic.rw2 dimensions":
            "exiftool's File:ImageWidth is this stripped sample's 8x8 raw data; Lightbox gives the sensor's crop from Panasonic's border tags, 3648x2736, exiftool's Composite:ImageSize",
    ]

    struct Comparison {
        var agreed = 0
        var disagreements: [(key: String, exiftool: String, lightbox: String)] = []

        mutating func check(_ path: String, _ field: String, _ theirs: Any?, _ ours: Any?, _ same: Bool) {
            guard let theirs else { return }  // only what exiftool reports
            if same {
                agreed += 1
            } else {
                let relative = String(path.dropFirst(Corpus.root.path.count + 1))
                disagreements.append(("\(relative) \(field)", "\(theirs)", ours.map { "\($0)" } ?? "nothing"))
            }
        }
    }

    @Test(
        "Camera, lens, exposure, dates, GPS, dimensions and Apple identifiers agree on at least 99% of what exiftool reports"
    )
    func agreesWithExiftool() throws {
        let files = try Corpus.files()
        #expect(files.count > 900)
        let run = try CommandLineTests.run(["metadata", "--json"] + files)
        var ours: [String: [String: Any]] = [:]
        for line in try run.jsonLines() {
            if let path = line["path"] as? String { ours[path] = line }
        }
        #expect(ours.count == files.count, "one line per file, errors included")
        let oracle = try ExifTool.allTags(of: files)
        #expect(oracle.count > 900)

        var comparison = Comparison()
        for path in files {
            guard let theirs = oracle[path] else { continue }
            let line = ours[path] ?? [:]
            let exif = line["exif"] as? [String: Any] ?? [:]
            func text(_ key: String) -> String? {
                (theirs[key]).map { "\($0)".trimmingCharacters(in: .whitespaces) }.flatMap { $0.isEmpty ? nil : $0 }
            }
            func close(_ key: String, _ ours: Any?, _ tolerance: Double) {
                guard let value = theirs[key] as? Double else { return }
                let mine = (ours as? Double) ?? (ours as? Int).map(Double.init)
                comparison.check(
                    path, key, value, mine, mine.map { abs($0 - value) <= tolerance * max(1, abs(value)) } ?? false)
            }
            comparison.check(
                path, "make", text("EXIF:Make"), exif["make"], exif["make"] as? String == text("EXIF:Make"))
            comparison.check(
                path, "model", text("EXIF:Model"), exif["model"], exif["model"] as? String == text("EXIF:Model"))
            comparison.check(
                path, "orientation", theirs["EXIF:Orientation"], exif["orientation"],
                (exif["orientation"] as? Int) == (theirs["EXIF:Orientation"] as? Int))
            // exiftool: "2019:07:14 18:03:12"; Lightbox: "2019-07-14T18:03:12".
            let original = (exif["dateTimeOriginal"] as? String)?.replacingOccurrences(of: "-", with: ":")
                .replacingOccurrences(of: "T", with: " ")
            comparison.check(
                path, "dateTimeOriginal", text("EXIF:DateTimeOriginal"), exif["dateTimeOriginal"],
                original != nil && text("EXIF:DateTimeOriginal")?.hasPrefix(original!) == true)
            comparison.check(
                path, "lensModel", text("EXIF:LensModel"), exif["lensModel"],
                exif["lensModel"] as? String == text("EXIF:LensModel"))
            comparison.check(
                path, "offsetTimeOriginal", text("EXIF:OffsetTimeOriginal"), exif["offsetTimeOriginal"],
                exif["offsetTimeOriginal"] as? String == text("EXIF:OffsetTimeOriginal"))
            close("EXIF:ExposureTime", exif["exposureTime"], 1e-4)
            close("EXIF:FNumber", exif["fNumber"], 1e-3)
            close("EXIF:FocalLength", exif["focalLength"], 1e-3)
            if let iso = theirs["EXIF:ISO"] as? Int {
                comparison.check(path, "iso", iso, exif["iso"], exif["iso"] as? Int == iso)
            }
            let identifier =
                text("MakerNotes:ContentIdentifier") ?? text("MakerNotes:MediaGroupUUID")
                ?? text("Keys:ContentIdentifier")
            comparison.check(
                path, "contentIdentifier", identifier, line["contentIdentifier"],
                line["contentIdentifier"] as? String == identifier)
            comparison.check(
                path, "burstIdentifier", text("MakerNotes:BurstUUID"), line["burstIdentifier"],
                line["burstIdentifier"] as? String == text("MakerNotes:BurstUUID"))
            let location = line["location"] as? [String: Any]
            if let latitude = theirs["Composite:GPSLatitude"] as? Double,
                let longitude = theirs["Composite:GPSLongitude"] as? Double
            {
                let ourLatitude = location?["latitude"] as? Double
                let ourLongitude = location?["longitude"] as? Double
                comparison.check(
                    path, "latitude", latitude, ourLatitude, ourLatitude.map { abs($0 - latitude) < 1e-6 } ?? false)
                comparison.check(
                    path, "longitude", longitude, ourLongitude, ourLongitude.map { abs($0 - longitude) < 1e-6 } ?? false
                )
                if let altitude = theirs["Composite:GPSAltitude"] as? Double {
                    let ourAltitude = location?["altitude"] as? Double
                    comparison.check(
                        path, "altitude", altitude, ourAltitude, ourAltitude.map { abs($0 - altitude) < 1e-3 } ?? false)
                }
            }
            // Lightbox gives the displayed size (orientation applied), exiftool the stored one.
            let width = (theirs["File:ImageWidth"] ?? theirs["QuickTime:ImageWidth"]) as? Int
            let height = (theirs["File:ImageHeight"] ?? theirs["QuickTime:ImageHeight"]) as? Int
            if let width, let height {
                let ourWidth = line["pixelWidth"] as? Int
                let ourHeight = line["pixelHeight"] as? Int
                comparison.check(
                    path, "dimensions", "\(width)x\(height)", "\(ourWidth ?? 0)x\(ourHeight ?? 0)",
                    (ourWidth == width && ourHeight == height) || (ourWidth == height && ourHeight == width))
            }
        }

        let total = comparison.agreed + comparison.disagreements.count
        let rate = Double(comparison.agreed) / Double(max(total, 1))
        print(
            "metadata vs exiftool: \(comparison.agreed) of \(total) fields agree (\(String(format: "%.2f", rate * 100))%)"
        )
        for disagreement in comparison.disagreements {
            let reason = Self.knownDisagreements[disagreement.key] ?? "UNEXPLAINED"
            print(
                "  \(disagreement.key): exiftool \(disagreement.exiftool), Lightbox \(disagreement.lightbox): \(reason)"
            )
        }
        #expect(total > 1_000)
        #expect(rate >= 0.99)
        let unexplained = comparison.disagreements.filter { Self.knownDisagreements[$0.key] == nil }
        #expect(unexplained.isEmpty, "disagreements without a reason: \(unexplained.map(\.key))")
    }

    @Test("Every file of the corpus, whole and cut short, gives metadata or a clean error", .timeLimit(.minutes(3)))
    func hostileFiles() throws {
        // All of exiv2's test data (its fuzzing reports among it), whatever the extension.
        let everything = try Corpus.files(under: "exiv2/data", extensions: nil)
        #expect(everything.count > 400)
        var failures = 0
        for path in everything {
            do {
                _ = try MetadataReader.read(fileAtPath: path)
            } catch {
                failures += 1
                #expect(!error.message.isEmpty)
            }
        }
        #expect(failures > 0, "exiv2's data holds files that are not media")
        // Every media file of the corpus truncated at several lengths.
        for path in try Corpus.files() {
            guard let bytes = FileManager.default.contents(atPath: path).map(Array.init), bytes.count > 16 else {
                continue
            }
            for length in Set([8, 16, 100, 1_000, bytes.count / 3, bytes.count / 2, bytes.count - 1])
            where length < bytes.count {
                _ = try? MetadataReader.read(ByteSource(bytes: Array(bytes.prefix(length))))
            }
        }
    }
}
