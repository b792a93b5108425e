import ArgumentParser
import Foundation
import Lightbox
import LightboxCapture

struct CaptureCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "capture",
        abstract: "Take a photo, a Live Photo or a burst with a camera, into the library.",
        discussion: """
            The camera is a Video4Linux2 device (/dev/video0; the first one unless --device \
            says), the synthetic camera (test, or test:WIDTHxHEIGHT@RATE: FFmpeg's test pattern \
            with a clock and a tone), or a movie played as if it were a camera (file:MOVIE). Each step of the capture is printed as \
            it happens (JSON Lines with --json); the photo is saved into the library once every \
            step succeeded, else nothing is saved. A Live Photo's movie holds 1.5 s before and \
            after the shutter: the camera runs that long before the shutter. `lightbox capture \
            --list-devices` lists the cameras and microphones.
            """)

    @OptionGroup var libraryOptions: LibraryOptions

    @Option(
        help: ArgumentHelp(
            "The camera: /dev/videoN, test[:WxH@RATE] or file:MOVIE (default: the first camera).", valueName: "DEVICE"))
    var device: String?

    @Option(help: ArgumentHelp("A microphone for a Live Photo's sound (alsa:hw:C,D).", valueName: "DEVICE"))
    var microphone: String?

    @Flag(help: "List the cameras and microphones, then stop.")
    var listDevices = false

    @Flag(help: "Take a Live Photo: the still and a 3 s movie around it.")
    var live = false

    @Option(help: ArgumentHelp("Take a burst of N photos at the camera's rate.", valueName: "N"))
    var burst: Int?

    @Option(help: "The photo's format: heic or jpeg.")
    var format: PhotoFormat = .heic

    @Option(help: "What size to ask the camera for: photo, high, hd1920x1080 or hd1280x720.")
    var preset: CaptureSession.Preset = .photo

    @Flag(help: "Print one JSON line per event.")
    var json = false

    func validate() throws {
        let most = PhotoOutput.maximumCapturesInFlight
        if let burst, !(2...most).contains(burst) { throw ValidationError("--burst takes 2 to \(most) photos") }
        if burst != nil && live {
            throw ValidationError("a burst's photos are stills: --burst and --live exclude each other")
        }
    }

    func run() async throws {
        if listDevices { return list() }
        let camera = try captureError { () throws(CaptureError) in
            guard let device else { return try CaptureDevice.defaultCamera() }
            return try CaptureDevice.named(device)
        }
        let request = try captureError { () throws(CaptureError) in
            CaptureRequest(
                device: camera,
                microphone: try microphone.map { id throws(CaptureError) in try CaptureDevice.named(id) },
                format: format, preset: preset, live: live, burst: burst)
        }
        let printer = EventPrinter(json: json)
        let library = try libraryOptions.open(creating: true)
        let result: CaptureResult
        do {
            result = try await library.capture(request) { printer.print($0) }
        } catch let error as CaptureError {
            throw CommandError("the capture failed, nothing was saved: \(error.message)")
        }
        let note =
            result.burstIdentifier.map {
                "burst \($0), represented by \(result.representative?.localIdentifier ?? "-")"
            }
            ?? (live ? "Live Photo" : "photo")
        printer.saved(result.assets.map(\.localIdentifier), note: note)
    }

    private func list() {
        for device in CaptureDevice.discover() {
            if json {
                Output.jsonLine(device)
                continue
            }
            let best =
                device.formats.first.map { " \($0.width)x\($0.height) at \(Int($0.frameRate.rounded())) fps" } ?? ""
            Output.line("\(device.uniqueID)\t\(device.kind.rawValue)\t\(device.localizedName)\(best)")
        }
    }

    /// Runs `body`, turning a capture error into the command's.
    private func captureError<T>(_ body: () throws(CaptureError) -> T) throws -> T {
        do { return try body() } catch { throw CommandError(error.message) }
    }

}

extension PhotoFormat: ExpressibleByArgument {}
extension CaptureSession.Preset: ExpressibleByArgument {}

/// Prints each event of a capture as it happens: a line of text, or of JSON.
final class EventPrinter: Sendable {
    struct Line: Encodable {
        var event: String
        var uniqueID: Int64?
        var seconds: Double
        var photoDimensions: String?
        var bytes: Int?
        var file: String?
        var duration: Double?
        var photoDisplayTime: Double?
        var error: String?
        var assets: [String]?
        var note: String?
    }

    let json: Bool
    let start = Date()

    init(json: Bool) { self.json = json }

    func print(_ event: PhotoCaptureEvent) {
        var line = Line(
            event: event.name, uniqueID: event.resolvedSettings?.uniqueID,
            seconds: (Date().timeIntervalSince(start) * 1000).rounded() / 1000)
        switch event {
        case .willBeginCapture(let settings):
            line.photoDimensions = settings.photoDimensions.description
        case .didFinishProcessingPhoto(.success(let photo)):
            line.photoDimensions = photo.resolvedSettings.photoDimensions.description
            line.bytes = photo.fileData.count
        case .didFinishProcessingPhoto(.failure(let error)):
            line.error = error.message
        case .didFinishRecordingLivePhotoMovie(let url, _):
            line.file = url.lastPathComponent
        case .didFinishProcessingLivePhotoMovie(.success(let movie), _):
            line.file = movie.url.lastPathComponent
            line.duration = movie.duration
            line.photoDisplayTime = movie.photoDisplayTime
        case .didFinishProcessingLivePhotoMovie(.failure(let error), _), .didFinishCapture(_, let error?):
            line.error = error.message
        default: break
        }
        emit(line)
    }

    func saved(_ assets: [String], note: String) {
        var line = Line(event: "saved", seconds: (Date().timeIntervalSince(start) * 1000).rounded() / 1000)
        line.assets = assets
        line.note = note
        emit(line)
    }

    private func emit(_ line: Line) {
        if json { return Output.jsonLine(line) }
        var text = String(format: "%7.3f s  %@", line.seconds, line.event)
        if let id = line.uniqueID { text += "  #\(id)" }
        if let dimensions = line.photoDimensions { text += "  \(dimensions)" }
        if let bytes = line.bytes { text += "  \(bytes) bytes" }
        if let file = line.file { text += "  \(file)" }
        if let duration = line.duration, let time = line.photoDisplayTime {
            text += String(format: "  %.2f s, still at %.2f s", duration, time)
        }
        if let error = line.error { text += "  error: \(error)" }
        if let assets = line.assets { text += "  \(note(line)) \(assets.joined(separator: " "))" }
        Output.line(text)
    }

    private func note(_ line: Line) -> String { line.note.map { $0 + ":" } ?? "" }
}

struct BurstCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "burst",
        abstract: "A burst's photos: list them, or pick the one that stands for the burst.",
        subcommands: [Pick.self])

    struct Pick: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "pick",
            abstract: "Make a burst photo the burst's representative (the user's pick, over the library's).")
        @OptionGroup var libraryOptions: LibraryOptions
        @Argument(help: "The photo: an identifier, or its first characters.") var id: String

        func run() async throws {
            let library = try libraryOptions.open()
            let id = try Names(library: library).asset(id)
            try await Changes.perform(library) {
                $0.changeRequest(forAssetWithLocalIdentifier: id).burstSelectionTypes = .userPick
            }
            Output.message("\(id) now stands for its burst")
        }
    }
}
