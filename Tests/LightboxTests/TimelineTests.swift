import Foundation
import LightboxTestSupport
import Synchronization
import Testing

@testable import Lightbox
@testable import LightboxStore

/// A fetch's days (``FetchResult/creationDays(aspectRatios:)``) and its pages by position: what the web
/// app's timeline lays out and reads.
@Suite("Timeline: days of a fetch, pages by position")
struct TimelineTests {
    static let seekingOffset = RowIDQuery.seekingOffset
    /// 5,000 asset rows (past twice the first window of ids and more, so that a jump reads a
    /// far batch alone) whose dates cross midnight in many time zones: an asset taken at 23:30
    /// in New York belongs to that day, though it is the next day in UTC.
    static func makeLibrary(_ folder: TemporaryDirectory) async throws -> PhotoLibrary {
        let library = try folder.makeLibrary()
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        try library.withCatalog { db in
            for index in 0..<5_000 {
                let date = start.addingTimeInterval(Double(index * 7_919 % 5_000) * 1_200)
                let offset = ((index * 37) % 27 - 12) * 3_600 + (index % 4 == 0 ? 1_800 : 0)
                // Landscape, portrait, unknown, wide, and a size no layout can use as it is.
                let sizes = [(4032, 3024), (3024, 4032), (0, 0), (1920, 1080), (40_000, 3), (0, 100)]
                let size = (width: sizes[index % 6].0, height: sizes[index % 6].1)
                try db.execute(
                    """
                    INSERT INTO asset (localIdentifier, mediaType, pixelWidth, pixelHeight, creationDate,
                    creationTimeZoneOffset, modificationDate, addedDate, isFavorite, isHidden)
                    VALUES (?, 1, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                    [
                        String(format: "DAY-%05d", index), size.width, size.height, date, offset, date, date,
                        index % 3 == 0, index % 17 == 0,
                    ])
            }
            try db.execute("INSERT INTO changeTransaction (date, author) VALUES (?, 'test')", [Date()])
        }
        return library
    }

    /// A library of the photos of many cameras (the corpus's, and exiv2's test files): some
    /// carry a time zone or a place, most do not.
    static func cameraPhotos(in folder: TemporaryDirectory) async throws -> CameraPhotos {
        let library = try folder.makeLibrary()
        let paths = try Corpus.photoPaths() + Corpus.files(under: "exiv2", extensions: ["jpg", "jpeg", "heic"])
        let summary = await library.importItems(at: paths.map { URL(fileURLWithPath: $0) })
        return CameraPhotos(library: library, paths: paths, summary: summary)
    }

    struct CameraPhotos: Sendable {
        var library: PhotoLibrary
        var paths: [String]
        var summary: ImportSummary

        var unpacked: (PhotoLibrary, [String], ImportSummary) { (library, paths, summary) }
    }

    /// The camera photos imported once for the tests that only read them: each import is
    /// minutes of a loaded machine's blocking work, which the suites share.
    static func sharedCameraPhotos() async throws -> CameraPhotos {
        try await SharedCameraPhotos.shared.photos()
    }
}

/// The one import of the camera photos the read-only tests share, in a folder removed when the
/// test process exits.
private actor SharedCameraPhotos {
    static let shared = SharedCameraPhotos()
    nonisolated static let folder: TemporaryDirectory = {
        let folder = try! TemporaryDirectory("lightbox-camera-photos")
        atexit { try? FileManager.default.removeItem(at: SharedCameraPhotos.folder.url) }
        return folder
    }()
    private var imported: Task<TimelineTests.CameraPhotos, any Error>?

    func photos() async throws -> TimelineTests.CameraPhotos {
        if let imported { return try await imported.value }
        let task = Task { try await TimelineTests.cameraPhotos(in: Self.folder) }
        imported = task
        return try await task.value
    }
}

extension TimelineTests {

    /// The reference: each asset's day through Foundation's calendar in its own time zone, and
    /// runs of equal days folded one asset at a time.
    static func referenceDays(_ assets: [Asset]) -> [(String, Int)] {
        var runs: [(String, Int)] = []
        for asset in assets {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(secondsFromGMT: asset.creationTimeZoneOffset)!
            let parts = calendar.dateComponents([.year, .month, .day], from: asset.creationDate)
            let day = String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!)
            if runs.last?.0 == day { runs[runs.count - 1].1 += 1 } else { runs.append((day, 1)) }
        }
        return runs
    }

    static func pairs(_ days: [AssetDay]) -> [[String]] { days.map { [$0.isoDay, String($0.count)] } }
    static func pairs(_ runs: [(String, Int)]) -> [[String]] { runs.map { [$0.0, String($0.1)] } }

    @Test("Days of a fetch match the calendar's in each asset's time zone, in any order, with a predicate and a limit")
    func daysMatchTheCalendar() async throws {
        let folder = try TemporaryDirectory()
        let library = try await Self.makeLibrary(folder)
        var variants: [FetchOptions] = []
        for sort in [
            [FetchSortDescriptor(key: "creationDate", ascending: false)], [], [FetchSortDescriptor(key: "favorite")],
        ] {
            var options = FetchOptions()
            options.sortDescriptors = sort
            variants.append(options)
        }
        var favourites = FetchOptions()
        favourites.predicate = try FetchPredicate("favorite == true")
        favourites.sortDescriptors = [FetchSortDescriptor(key: "creationDate", ascending: false)]
        variants.append(favourites)
        var limited = FetchOptions()
        limited.fetchLimit = 1_234
        limited.includeHiddenAssets = true
        variants.append(limited)
        for options in variants {
            let result = try library.fetchAssets(options: options)
            let days = try result.creationDays(aspectRatios: true)
            #expect(Self.pairs(days) == Self.pairs(Self.referenceDays(Array(result))), "\(options)")
            #expect(days.reduce(0) { $0 + $1.count } == result.count)
            // Without the shapes asked for: the same days, no shapes read.
            let plain = try result.creationDays()
            #expect(Self.pairs(plain) == Self.pairs(days) && plain.allSatisfy(\.aspectRatios.isEmpty))
            // Each asset's shape, in the result's order, within bounds: 1 where the size is unknown.
            #expect(days.allSatisfy { $0.aspectRatios.count == $0.count })
            let shapes = Array(result).map { asset -> Double in
                guard asset.pixelWidth > 0, asset.pixelHeight > 0 else { return 1 }
                return min(100, max(0.01, Double(asset.pixelWidth) / Double(asset.pixelHeight)))
            }
            #expect(days.flatMap(\.aspectRatios) == shapes, "\(options)")
            // The same from a result made in memory, which walks its objects.
            let walked = try FetchResult(objects: Array(result)).creationDays(aspectRatios: true)
            #expect(Self.pairs(walked) == Self.pairs(days) && walked.flatMap(\.aspectRatios) == shapes)
        }
        // Newest first by date, every day is one run: the days come in order, none twice.
        var newest = FetchOptions()
        newest.sortDescriptors = [FetchSortDescriptor(key: "creationDate", ascending: false)]
        let newestDays = try library.fetchAssets(options: newest).creationDays(aspectRatios: true)
        let days = newestDays.map(\.isoDay)
        #expect(days.count > 100 && Set(days).count < days.count, "time zones make some days come back")
        let expectedShapes: Set<Double> = [4.0 / 3, 0.75, 1, 16.0 / 9, 100]
        #expect(Set(newestDays.flatMap(\.aspectRatios)) == expectedShapes)
    }

    @Test("In the timeline's order the days are the day tally's, and stay every asset's own through each change")
    func dayTally() async throws {
        let folder = try TemporaryDirectory()
        let library = try await Self.makeLibrary(folder)
        func results() throws -> [FetchResult<Asset>] {
            var results: [FetchResult<Asset>] = []
            for (hidden, bursts, ascending) in [(false, false, false), (true, false, true), (false, true, false)] {
                var options = FetchOptions()
                options.sortDescriptors = [FetchSortDescriptor(key: "localCreationDate", ascending: ascending)]
                options.includeHiddenAssets = hidden
                options.includeAllBurstAssets = bursts
                results.append(try library.fetchAssets(options: options))
            }
            return results
        }
        func check(_ step: String) throws {
            for result in try results() {
                // Without shapes, the days come from the tally; with them, from every row's date.
                let tallied = try result.creationDays()
                #expect(Self.pairs(tallied) == Self.pairs(try result.creationDays(aspectRatios: true)), "\(step)")
                #expect(Self.pairs(tallied) == Self.pairs(Self.referenceDays(Array(result))), "\(step)")
                #expect(tallied.reduce(0) { $0 + $1.count } == result.count, "\(step)")
            }
        }
        try check("as inserted")
        // The tally is what is read: a count moved by hand shows in the days.
        try library.withCatalog { db in
            try db.execute("UPDATE assetDayTally SET count = count + 1 WHERE isHidden = 0 AND isTrashed = 0")
            try db.execute("INSERT INTO changeTransaction (date, author) VALUES (?, 'test')", [Date()])
        }
        let moved = try results()[0]
        #expect(try moved.creationDays().reduce(0) { $0 + $1.count } > moved.count)
        try library.withCatalog { db in
            try db.execute("UPDATE assetDayTally SET count = count - 1 WHERE isHidden = 0 AND isTrashed = 0")
            try db.execute("INSERT INTO changeTransaction (date, author) VALUES (?, 'test')", [Date()])
        }
        try check("put back")
        // Each change the triggers follow: hidden and shown, trashed and restored, purged, a
        // burst's frames, a zone and a date moved across midnight, rows deleted.
        let ids = Array(try library.fetchAssets(options: FetchOptions())).map(\.localIdentifier)
        try await library.performChanges { changes in
            for id in ids.prefix(40) { changes.changeRequest(forAssetWithLocalIdentifier: id).isHidden = true }
            changes.deleteAssets(Array(ids[40..<90]))
        }
        try check("hidden and trashed")
        try await library.performChanges { changes in
            changes.restoreAssets(Array(ids[40..<60]))
            changes.purgeAssets(Array(ids[60..<70]))
        }
        try check("restored and purged")
        try library.withCatalog { db in
            try db.execute(
                "UPDATE asset SET burstIdentifier = 'BURST', representsBurst = 0 WHERE localIdentifier IN (?, ?, ?)",
                [ids[100], ids[101], ids[102]])
            try db.execute("UPDATE asset SET representsBurst = 1 WHERE localIdentifier = ?", [ids[100]])
            try db.execute(
                "UPDATE asset SET creationTimeZoneOffset = creationTimeZoneOffset + 3600 WHERE localIdentifier IN (?, ?)",
                [ids[200], ids[201]])
            try db.execute(
                "UPDATE asset SET creationDate = ? WHERE localIdentifier = ?",
                [Date(timeIntervalSince1970: 1_500_000_000), ids[202]])
            try db.execute("DELETE FROM asset WHERE localIdentifier IN (?, ?)", [ids[300], ids[301]])
            try db.execute("INSERT INTO changeTransaction (date, author) VALUES (?, 'test')", [Date()])
        }
        try check("bursts, zones, dates, deletions")
        try await library.performChanges { changes in
            changes.changeRequest(forAssetWithLocalIdentifier: ids[203]).creationDate = Date(
                timeIntervalSince1970: 1_400_000_000)
        }
        try check("a date changed by a change request")
    }

    @Test("A page deep in the timeline's order, found through the day tally, is the result's own slice")
    func deepPages() async throws {
        let folder = try TemporaryDirectory()
        let library = try await Self.makeLibrary(folder)
        // Past the offset from which a page seeks its day (12,000 rows in all).
        let start = Date(timeIntervalSince1970: 1_600_000_000)
        try library.withCatalog { db in
            for index in 0..<7_000 {
                let date = start.addingTimeInterval(Double(index * 7_919 % 7_000) * 3_000)
                try db.execute(
                    """
                    INSERT INTO asset (localIdentifier, mediaType, pixelWidth, pixelHeight, creationDate,
                    creationTimeZoneOffset, modificationDate, addedDate) VALUES (?, 1, 1, 1, ?, ?, ?, ?)
                    """, [String(format: "DEEP-%05d", index), date, (index % 9 - 4) * 3_600, date, date])
            }
            try db.execute("INSERT INTO changeTransaction (date, author) VALUES (?, 'test')", [Date()])
        }
        for ascending in [false, true] {
            var timeline = FetchOptions()
            timeline.sortDescriptors = [FetchSortDescriptor(key: "localCreationDate", ascending: ascending)]
            // The reference: the same order with a condition of its own, which no tally serves.
            var reference = timeline
            reference.predicate = try FetchPredicate("pixelWidth >= 0")
            let all = Array(try library.fetchAssets(options: reference)).map(\.localIdentifier)
            #expect(all.count > TimelineTests.seekingOffset + 1_000)
            for offset in [TimelineTests.seekingOffset, 10_777, all.count - 30] {
                let page = try library.fetchAssets(options: timeline).objects(at: offset..<min(all.count, offset + 100))
                #expect(page.map(\.localIdentifier) == Array(all[offset..<min(all.count, offset + 100)]), "\(offset)")
                let api = try await library.fetchAssetPage(options: timeline, from: .offset(offset), limit: 50)
                #expect(api.assets.map(\.localIdentifier) == Array(all[offset..<min(all.count, offset + 50)]))
            }
        }
        // The tally is what a deep page is found by: one more asset counted on the newest day
        // starts the page one asset earlier.
        try library.withCatalog { db in
            try db.execute(
                """
                UPDATE assetDayTally SET count = count + 1 WHERE isHidden = 0 AND isTrashed = 0 AND isBurstFrame = 0
                AND day = (SELECT MAX(day) FROM assetDayTally) AND mediaType = 1
                """)
            try db.execute("INSERT INTO changeTransaction (date, author) VALUES (?, 'test')", [Date()])
        }
        var newest = FetchOptions()
        newest.sortDescriptors = [FetchSortDescriptor(key: "localCreationDate", ascending: false)]
        var reference = newest
        reference.predicate = try FetchPredicate("pixelWidth >= 0")
        let all = Array(try library.fetchAssets(options: reference)).map(\.localIdentifier)
        let shifted = try library.fetchAssets(options: newest).objects(at: 10_777..<10_787)
        #expect(shifted.map(\.localIdentifier) == Array(all[10_776..<10_786]))
    }

    @Test("Newest first by local time, each day comes once with all its assets, whatever their zones")
    func localOrderKeepsDaysTogether() async throws {
        let folder = try TemporaryDirectory()
        let library = try await Self.makeLibrary(folder)
        var local = FetchOptions()
        local.sortDescriptors = [FetchSortDescriptor(key: "localCreationDate", ascending: false)]
        let result = try library.fetchAssets(options: local)
        let days = try result.creationDays()
        let names = days.map(\.isoDay)
        #expect(names.count > 60 && names == names.sorted(by: >) && Set(names).count == names.count)
        // Each day holds every visible asset whose own calendar puts it there.
        var reference: [String: Int] = [:]
        for (day, count) in Self.referenceDays(Array(result)) { reference[day, default: 0] += count }
        #expect(Dictionary(uniqueKeysWithValues: days.map { ($0.isoDay, $0.count) }) == reference)
        // Within a day, by the clock: 23:30 in New York after 23:00 in Lisbon, though earlier as
        // an instant.
        let clocks = Array(result).map { $0.creationDate.timeIntervalSince1970 + Double($0.creationTimeZoneOffset) }
        #expect(clocks == clocks.sorted(by: >))
        // The keyset pages of the library (the web timeline's first screens) walk the same order.
        var walked: [String] = []
        while true {
            let page = try await library.assets(limit: 700, after: walked.last)
            if page.isEmpty { break }
            walked += page.map(\.localIdentifier)
        }
        #expect(walked == Array(result).map(\.localIdentifier))
    }

    @Test("Each camera photo's shape in the timeline is its size as shown: exiftool's, turned by its Orientation")
    func corpusShapesAreAsShown() async throws {
        let (library, _, summary) = try await Self.sharedCameraPhotos().unpacked
        let result = try library.fetchAssets(options: FetchOptions())
        let shapes = try result.creationDays(aspectRatios: true).flatMap(\.aspectRatios)
        let assets = Array(result)
        #expect(shapes.count == assets.count)
        var shapeOf: [String: Double] = [:]
        for (asset, shape) in zip(assets, shapes) { shapeOf[asset.localIdentifier] = shape }
        let jpegs = summary.results.filter { item in
            [".jpg", ".jpeg"].contains { item.path.lowercased().hasSuffix($0) }
        }
        let tags = try ExifTool.allTags(of: jpegs.map(\.path))
        var checked = 0
        var turned = 0
        for item in jpegs {
            guard case .imported = item.outcome, let id = item.outcome.localIdentifier, let shape = shapeOf[id],
                let file = tags[item.path], let size = file["Composite:ImageSize"] as? String
            else { continue }
            let sides = size.split(whereSeparator: { $0 == " " || $0 == "x" }).compactMap { Double($0) }
            guard sides.count == 2, sides[0] > 0, sides[1] > 0 else { continue }
            let orientation = file["EXIF:Orientation"] as? Int ?? 1
            let expected = orientation >= 5 && orientation <= 8 ? sides[1] / sides[0] : sides[0] / sides[1]
            #expect(abs(shape - expected) < 0.001, "\(item.path): \(shape), exiftool \(expected)")
            checked += 1
            if orientation >= 5 && orientation <= 8 { turned += 1 }
        }
        #expect(checked > 20 && turned > 0, "\(checked) photos, \(turned) turned")
    }

    @Test("A date no clock can move (into the year 10000, by an offset past a day) keeps its place, on either store")
    func unmovableDates() async throws {
        let folder = try TemporaryDirectory()
        let library = try folder.makeLibrary()
        // 9999-12-31 21:00 UTC at +14:00 would be the year 10000: it stays the newest, by its
        // own date. An offset of 115 days (no zone has one) keeps its date too.
        let rows: [(String, Date, Int)] = [
            ("NEAR", Date(timeIntervalSince1970: 1_700_000_000), 3_600),
            ("LATE", Date(timeIntervalSince1970: 253_402_290_000), 50_400),
            ("ODD", Date(timeIntervalSince1970: 1_600_000_000), 10_000_000),
        ]
        try library.withCatalog { db in
            for (name, date, offset) in rows {
                try db.execute(
                    """
                    INSERT INTO asset (localIdentifier, mediaType, pixelWidth, pixelHeight, creationDate,
                    creationTimeZoneOffset, modificationDate, addedDate) VALUES (?, 1, 1, 1, ?, ?, ?, ?)
                    """, [name, date, offset, date, date])
            }
            try db.execute("INSERT INTO changeTransaction (date, author) VALUES (?, 'test')", [Date()])
        }
        var local = FetchOptions()
        local.sortDescriptors = [FetchSortDescriptor(key: "localCreationDate", ascending: false)]
        let fetched = Array(try library.fetchAssets(options: local)).map(\.localIdentifier)
        #expect(fetched == ["LATE", "NEAR", "ODD"])
        var walked: [String] = []
        while let next = try await library.assets(limit: 1, after: walked.last).first {
            walked.append(next.localIdentifier)
        }
        #expect(walked == fetched)
    }

    @Test("The day of each corpus photo is the date its camera wrote (exiftool's DateTimeOriginal)")
    func corpusDaysAreTheCamerasDates() async throws {
        let (library, paths, summary) = try await Self.sharedCameraPhotos().unpacked
        var newest = FetchOptions()
        newest.sortDescriptors = [FetchSortDescriptor(key: "creationDate", ascending: false)]
        let result = try library.fetchAssets(options: newest)
        var dayOfAsset: [String: String] = [:]
        var index = 0
        for day in try result.creationDays() {
            for asset in result.objects(at: index..<index + day.count) {
                dayOfAsset[asset.localIdentifier] = day.isoDay
            }
            index += day.count
        }
        #expect(index == result.count)
        let tags = try ExifTool.allTags(of: paths)
        var checked = 0
        for item in summary.results {
            guard case .imported = item.outcome, let id = item.outcome.localIdentifier,
                let written = tags[item.path]?["EXIF:DateTimeOriginal"] as? String, written.count >= 10,
                let day = dayOfAsset[id]
            else { continue }
            #expect(day == written.prefix(10).replacingOccurrences(of: ":", with: "-"), "\(item.path)")
            checked += 1
        }
        #expect(checked >= 40, "photos with a camera date checked: \(checked)")
    }

    @Test("Pages by offset, by an asset and after an asset are the result's own slices")
    func pagesByPosition() async throws {
        let folder = try TemporaryDirectory()
        let library = try await Self.makeLibrary(folder)
        var newest = FetchOptions()
        newest.sortDescriptors = [FetchSortDescriptor(key: "creationDate", ascending: false)]
        let all = Array(try library.fetchAssets(options: newest)).map(\.localIdentifier)
        // Near the start (the first window of ids), past it (the prefix grows), and far past it
        // (a batch's ids read alone).
        for offset in [0, 1, 999, 1_000, 2_000, 3_150, 4_321, all.count - 3] {
            let page = try await library.fetchAssetPage(options: newest, from: .offset(offset), limit: 50)
            #expect(page.offset == offset && page.count == all.count)
            #expect(page.assets.map(\.localIdentifier) == Array(all[offset..<min(all.count, offset + 50)]))
            let at = try await library.fetchAssetPage(options: newest, from: .at(all[offset]), limit: 5)
            #expect(at.offset == offset && at.assets.first?.localIdentifier == all[offset])
            let after = try await library.fetchAssetPage(options: newest, from: .after(all[offset]), limit: 5)
            #expect(after.offset == offset + 1 && after.assets.first?.localIdentifier == all[safe: offset + 1])
        }
        // One result read far first, then near, then whole: every object where the reference has it.
        let result = try library.fetchAssets(options: newest)
        #expect(
            result[4_321].localIdentifier == all[4_321] && result[all.count - 1].localIdentifier == all[all.count - 1])
        #expect(result[3_500].localIdentifier == all[3_500] && result[10].localIdentifier == all[10])
        #expect(result.index(of: result[4_321]) == 4_321 && result.count == all.count)
        #expect(result.map(\.localIdentifier) == all)
        let past = try await library.fetchAssetPage(options: newest, from: .offset(all.count + 10), limit: 50)
        #expect(past.assets.isEmpty && past.offset == all.count)
        await #expect(throws: LibraryError.self) {
            _ = try await library.fetchAssetPage(options: newest, from: .at("NO-SUCH-ASSET"), limit: 5)
        }
    }
}

extension Array {
    fileprivate subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}

@Suite("Camera details read from originals")
struct CameraDetailsTests {
    @Test("Camera, lens and exposure of the corpus's camera photos are exiftool's")
    func matchExifTool() async throws {
        let (library, paths, summary) = try await TimelineTests.sharedCameraPhotos().unpacked
        let tags = try ExifTool.allTags(of: paths)
        var compared = 0
        for item in summary.results {
            guard case .imported = item.outcome, let id = item.outcome.localIdentifier,
                let asset = try library.fetchAssets(withLocalIdentifiers: [id]).firstObject,
                let written = tags[item.path]
            else { continue }
            let details = try await library.cameraDetails(for: asset)
            func text(_ tag: String) -> String? {
                (written[tag] as? String).map { $0.trimmingCharacters(in: .whitespaces) }.flatMap {
                    $0.isEmpty ? nil : $0
                }
            }
            func number(_ tag: String) -> Double? {
                (written[tag] as? NSNumber)?.doubleValue
            }
            #expect(details.make == text("EXIF:Make"), "\(item.path)")
            #expect(details.model == text("EXIF:Model"), "\(item.path)")
            if let lens = text("EXIF:LensModel") { #expect(details.lensModel == lens, "\(item.path)") }
            // The catalog keeps the camera and lens from import.
            #expect(asset.cameraMake == details.make && asset.cameraModel == details.model, "\(item.path)")
            #expect(asset.lensModel == details.lensModel, "\(item.path)")
            for (value, tag) in [
                (details.exposureTime, "EXIF:ExposureTime"), (details.fNumber, "EXIF:FNumber"),
                (details.focalLength, "EXIF:FocalLength"),
            ] {
                if let expected = number(tag), expected > 0 {
                    #expect(abs((value ?? -1) - expected) <= expected * 0.001, "\(item.path) \(tag)")
                }
            }
            if let iso = number("EXIF:ISO"), iso > 0 { #expect(details.iso == Int(iso), "\(item.path)") }
            if details.model != nil { compared += 1 }
        }
        #expect(compared >= 30, "photos with a camera compared: \(compared)")
    }
}

@Suite("Cameras and lenses in the catalog")
struct CameraSearchTests {
    /// The reference: every asset's camera, counted one by one.
    static func counted(_ assets: [Asset]) -> [String: Int] {
        var counts: [String: Int] = [:]
        for asset in assets {
            counts["\(asset.cameraMake ?? "-")|\(asset.cameraModel ?? "-")|\(asset.lensModel ?? "-")", default: 0] += 1
        }
        return counts
    }

    static func keyed(_ cameras: [AssetCamera]) -> [String: Int] {
        Dictionary(
            uniqueKeysWithValues: cameras.map {
                ("\($0.make ?? "-")|\($0.model ?? "-")|\($0.lensModel ?? "-")", $0.count)
            })
    }

    @Test("A fetch's cameras and the camera and lens keys select what counting every asset in Swift finds")
    func againstBruteForce() async throws {
        let library = try await TimelineTests.sharedCameraPhotos().library
        let all = Array(try library.fetchAssets())
        let cameras = try library.fetchAssets().cameras()
        #expect(Self.keyed(cameras) == Self.counted(all))
        #expect(cameras.map(\.count) == cameras.map(\.count).sorted(by: >), "the most used first")
        #expect(
            try FetchResult(objects: all).cameras() == cameras, "a result in memory counts the same, in the same order")
        #expect(Set(cameras.compactMap(\.model)).count >= 10, "the corpus has many cameras")
        // The first so many, from the catalog and from memory alike.
        #expect(try library.fetchAssets().cameras(limit: 3) == Array(cameras.prefix(3)))
        #expect(try FetchResult(objects: all).cameras(limit: 3) == Array(cameras.prefix(3)))
        #expect(try library.fetchAssets().cameras(limit: 0).isEmpty)
        var limited = FetchOptions()
        limited.fetchLimit = 17
        let few = try library.fetchAssets(options: limited)
        #expect(Self.keyed(try few.cameras()) == Self.counted(Array(few)), "the limit applies")
        var checked = 0
        for camera in cameras.prefix(8) {
            for (key, value, reference) in [
                ("cameraModel", camera.model, { (asset: Asset) in asset.cameraModel == camera.model }),
                ("lensModel", camera.lensModel, { (asset: Asset) in asset.lensModel == camera.lensModel }),
                ("cameraMake", camera.make, { (asset: Asset) in asset.cameraMake == camera.make }),
            ] {
                guard let value else { continue }
                var options = FetchOptions()
                options.predicate = try FetchPredicate(
                    "\(key) == \"\(value.replacingOccurrences(of: "\"", with: "\\\""))\"")
                let found = Set(try library.fetchAssets(options: options).map(\.localIdentifier))
                #expect(found == Set(all.filter(reference).map(\.localIdentifier)), "\(key) == \(value)")
                checked += 1
            }
        }
        #expect(checked >= 10)
    }

    @Test("A library from before the catalog kept cameras reads them from its originals, resuming where it stopped")
    func backfill() async throws {
        let folder = try TemporaryDirectory()
        let imported = try await TimelineTests.cameraPhotos(in: folder).library
        let expected = Self.counted(Array(try imported.fetchAssets(options: FetchOptions(includeHiddenAssets: true))))
        #expect(try imported.captureDetailsBacklogCount() == 0, "imports write their cameras")
        // What schema step v17 leaves in a library that had assets: no cameras, and the backlog.
        let assetCount = try imported.withCatalog { db in
            try db.execute("UPDATE asset SET cameraMake = NULL, cameraModel = NULL, lensModel = NULL")
            try db.execute(
                """
                INSERT INTO libraryState (key, value) VALUES ('captureDetailsAfter', 0),
                ('captureDetailsThrough', (SELECT MAX(id) FROM asset))
                """)
            return Int(try db.integer("SELECT COUNT(*) FROM asset") ?? 0)
        }
        let library = try PhotoLibrary(url: imported.url)
        #expect(try library.captureDetailsBacklogCount() == assetCount)
        #expect(try library.fetchAssets().cameras().count == 1, "no camera known before")
        // Stopped after the first batch: the next run goes on from there.
        let stopped = Task {
            try await library.fillCaptureDetails { done, _ in
                if done >= 100 { withUnsafeCurrentTask { $0?.cancel() } }
            }
        }
        #expect(try await stopped.value == 100)
        #expect(try library.captureDetailsBacklogCount() == assetCount - 100)
        let progress = Mutex<[Int]>([])
        let rest = try await library.fillCaptureDetails { done, total in progress.withLock { $0.append(total) } }
        #expect(rest == assetCount - 100 && progress.withLock { $0.allSatisfy { $0 == assetCount - 100 } })
        #expect(try library.captureDetailsBacklogCount() == 0)
        let filled = Self.counted(Array(try library.fetchAssets(options: FetchOptions(includeHiddenAssets: true))))
        #expect(
            filled == expected,
            "\(filled.filter { expected[$0.key] != $0.value }) \(expected.filter { filled[$0.key] != $0.value })")
        let left = try library.withCatalog { db in
            try db.integer("SELECT COUNT(*) FROM libraryState WHERE key LIKE 'captureDetails%'")
        }
        #expect(left == 0, "the backlog's keys go when it is done")
        #expect(try await library.fillCaptureDetails() == 0)
    }
}

@Suite("Search keys: file name and place")
struct SearchKeyTests {
    @Test("filename and latitude/longitude predicates select what filtering every asset in Swift selects")
    func againstBruteForce() async throws {
        let library = try await TimelineTests.sharedCameraPhotos().library
        let all = Array(try library.fetchAssets())
        #expect(all.contains { $0.location != nil }, "some photos carry a place")
        func name(_ asset: Asset) -> String {
            (asset.resources.first { $0.type == .photo } ?? asset.resources.first { $0.type == .video })?
                .originalFilename ?? ""
        }
        let cases: [(String, (Asset) -> Bool)] = [
            (#"filename CONTAINS[c] "exiv2""#, { name($0).lowercased().contains("exiv2") }),
            (#"filename BEGINSWITH "IMG""#, { name($0).hasPrefix("IMG") }),
            (#"filename ENDSWITH[c] ".heic""#, { name($0).lowercased().hasSuffix(".heic") }),
            (
                "latitude BETWEEN {30, 60} AND longitude BETWEEN {-10, 40}",
                {
                    guard let place = $0.location else { return false }
                    return (30...60).contains(place.latitude) && (-10...40).contains(place.longitude)
                }
            ),
        ]
        for (text, reference) in cases {
            var options = FetchOptions()
            options.predicate = try FetchPredicate(text)
            let found = Set(try library.fetchAssets(options: options).map(\.localIdentifier))
            let expected = Set(all.filter(reference).map(\.localIdentifier))
            #expect(found == expected, "\(text)")
            #expect(!expected.isEmpty, "\(text) selects something in the corpus")
        }
    }
}
