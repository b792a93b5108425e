import Foundation
import LightboxAnalysis
import LightboxImaging
import LightboxTestSupport
import Testing

@testable import Lightbox

/// Text in photos: each photo's preview read by the analysis service's text model (PP-OCRv4, as
/// PyPI's rapidocr_onnxruntime ships it) through the text job, its lines kept with their boxes,
/// found by a fetch, and none for a photo without text.
@Suite("Text read in photos", .serialized)
struct TextTests {
    /// The lines drawn on a real photo, as on the photo of a receipt.
    static let lines = ["RECEIPT 42.50 EUR", "Rua Augusta 27, Lisboa"]
    static let withText = "lomiri/backgrounds/Bridge_by_Sander_Klootwijk.jpg"
    /// A real photo without text.
    static let withoutText = "lomiri/backgrounds/Dragonfly_by_Bolly.jpg"

    static func asset(_ library: PhotoLibrary, named name: String) throws -> Asset {
        try #require(try library.fetchAssets().first { $0.resources.first?.originalFilename == name }, "\(name)")
    }

    static func count(_ library: PhotoLibrary, _ text: String) throws -> Int {
        var options = FetchOptions()
        options.predicate = try FetchPredicate(text)
        return try library.fetchAssets(options: options).count
    }

    /// Letters and digits only, in capitals: what a reading is compared by (a model may read
    /// "42.50" as "42,50" no more than it may drop a space; neither is asked of it).
    static func letters(_ text: String) -> String {
        String(text.uppercased().unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) })
    }

    @Test("The job reads the text of a real photo where it lies, none in one without, and a fetch finds it")
    func realService() async throws {
        let service = try AnalysisServiceProcess()
        defer { service.stop() }
        let folder = try TemporaryDirectory()
        let library = try folder.makeLibrary()
        let receipt = folder.url.appendingPathComponent("RECEIPT.jpg")
        let drawn = try AnalysisServiceProcess.drawText(
            Self.lines, on: try Corpus.path(Self.withText), to: receipt)
        let plain = URL(fileURLWithPath: try Corpus.path(Self.withoutText))
        let summary = await library.importItems(at: [receipt, plain])
        #expect(summary.progress.imported == 2, "\(summary)")
        // The import queued the job; both photos wait for the model.
        #expect(try await library.jobQueue().waiting[.text] == 1)
        let pool = AnalysisPool([AnalysisClient(url: service.url)])
        let model = try #require(try await pool.describe().textModel)
        #expect(model.hasPrefix("ppocrv4-rapidocr_onnxruntime-"))
        #expect(try await library.analysisBacklogCount(.text, model: model) == 2)
        try await library.runJobs(
            PhotoLibrary.JobRunnerOptions(kinds: [.text], untilIdle: true, retryDelay: 0, analyzer: pool))
        #expect(try await library.jobQueue().waiting[.text] == nil)
        #expect(try await library.jobQueue().failed.isEmpty)
        #expect(try await library.analysisBacklogCount(.text, model: model) == 0)

        let photo = try Self.asset(library, named: "RECEIPT.jpg")
        let text = try #require(try await library.text(of: photo))
        #expect(text.model == model)
        #expect(text.lines.map { Self.letters($0.text) } == Self.lines.map(Self.letters), "\(text.lines)")
        for (line, box) in zip(text.lines, drawn) {
            // Where it was drawn, give or take the band around it.
            #expect(abs(line.x - box[0]) < 0.03 && abs(line.y - box[1]) < 0.03, "\(line) against \(box)")
            #expect(abs(line.x + line.width - box[2]) < 0.03 && abs(line.y + line.height - box[3]) < 0.03)
            #expect(line.confidence > 0.8, "\(line)")
        }
        let none = try #require(try await library.text(of: try Self.asset(library, named: plain.lastPathComponent)))
        #expect(none.lines.isEmpty && none.model == model, "a photo without text is read, and holds none")

        // Found by what it says, whatever the case; and a second run reads nothing.
        #expect(try Self.count(library, #"text CONTAINS[c] "receipt""#) == 1)
        #expect(try Self.count(library, #"text CONTAINS[c] "augusta" AND mediaType == 1"#) == 1)
        #expect(try Self.count(library, #"text CONTAINS "receipt""#) == 0, "without [c], case counts")
        #expect(try Self.count(library, #"text == nil"#) == 1)
        #expect(try await library.readText(with: pool).tally.analysed == 0)

        // A limited view sees the text of its photos only.
        let limited = library.limited(
            to: LimitedSelection(assetIdentifiers: [
                try Self.asset(library, named: plain.lastPathComponent).localIdentifier
            ]))
        #expect(try await limited.text(of: photo) == nil)
        #expect(try Self.count(limited, #"text CONTAINS[c] "receipt""#) == 0)

        // An edit shows another image: what was read goes at once, and the job reads it again.
        let edited = try await library.edit(photo, with: RecipeEditor(adding: [.rotate(quarterTurns: 1)]))
        #expect(try await library.text(of: edited) == nil)
        #expect(try Self.count(library, #"text CONTAINS[c] "receipt""#) == 0)
        #expect(try await library.jobQueue().waiting[.text] == 1)
        try await library.runJobs(
            PhotoLibrary.JobRunnerOptions(kinds: [.text], untilIdle: true, retryDelay: 0, analyzer: pool))
        let turned = try #require(try await library.text(of: edited))
        #expect(turned.analysedDate >= text.analysedDate)
        // Turned a quarter clockwise, the lines run down the right half.
        #expect(
            !turned.lines.isEmpty && turned.lines.allSatisfy { $0.x > 0.5 && $0.height > $0.width }, "\(turned.lines)")

        // Switched off: every line forgotten, nothing read; on again, all read anew.
        try await library.setAnalysisEnabled(.text, false)
        #expect(try await library.text(of: edited) == nil)
        #expect(try Self.count(library, #"text CONTAINS[c] "receipt""#) == 0)
        #expect(try await library.readText(with: pool).tally.analysed == 0)
        try await library.setAnalysisEnabled(.text, true)
        #expect(try await library.jobQueue().waiting[.text] == 1)
        #expect(try await library.analysisBacklogCount(.text, model: model) == 2)
    }

    @Test("An answer that breaks the protocol fails that photo with why, and the others are read")
    func wrongAnswers() async throws {
        let folder = try TemporaryDirectory()
        let library = try folder.makeLibrary()
        let photos = [Self.withText, Self.withoutText]
        let summary = await library.importItems(at: try photos.map { URL(fileURLWithPath: try Corpus.path($0)) })
        #expect(summary.progress.imported == 2, "\(summary)")
        let bridge = try Self.asset(library, named: "Bridge_by_Sander_Klootwijk.jpg")
        let stub = TextStub { width, height in
            // The bridge's answer comes from another model; the other's is good.
            width * 10 > height * 16
                ? TextAnalysis(model: "someone-else", lines: [], checkedOnly: true)
                : TextAnalysis(
                    model: "text-test",
                    lines: [
                        TextObservation(
                            text: "WING", box: .init(x: 0.1, y: 0.2, width: 0.3, height: 0.05), confidence: 0.9)
                    ], checkedOnly: false)
        }
        let run = try await library.readText(with: stub)
        #expect(run.tally.analysed == 1 && run.tally.failed == 1 && run.tally.found == 1, "\(run)")
        #expect(run.tally.failures.first?.contains(bridge.localIdentifier) == true, "\(run.tally.failures)")
        #expect(
            try await library.analysisFailures(.text, model: "text-test").map(\.localIdentifier) == [
                bridge.localIdentifier
            ])
        #expect(try await library.text(of: bridge) == nil)
        #expect(try Self.count(library, #"text == "WING""#) == 1)
        // A failed photo waits for another model, not for ever.
        #expect(try await library.analysisBacklogCount(.text, model: "text-test") == 0)
        #expect(try await library.analysisBacklogCount(.text, model: "text-test-2") == 2)
    }
}
