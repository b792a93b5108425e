import ArgumentParser
import Foundation
import LightboxCapture

/// Live Photo capture from the synthetic camera: frames dropped while recording and encoding,
/// the time from pressing the shutter to the photo, and peak memory.
struct CaptureBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "capture",
        abstract: "Take Live Photos from the synthetic camera; print frames dropped, shutter latency and peak memory.")

    @Option(help: "The synthetic camera's frame size.") var width = 1920
    @Option var height = 1080
    @Option(help: "Frames per second.") var rate = 30
    @Option(help: "Live Photos to take.") var captures = 10
    @Option(help: "Seconds between shutters (captures overlap when shorter than 1.5 s).") var interval = 1.0
    @Option(help: "The photos' format: heic or jpeg.") var format = "heic"

    func run() async throws {
        guard let photoFormat = PhotoFormat(rawValue: format) else { throw ValidationError("format: heic or jpeg") }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lightbox-capture-bench-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let session = CaptureSession(preset: .photo)
        try session.addInput(.synthetic(width: width, height: height, frameRate: rate))
        let output = PhotoOutput()
        output.isLivePhotoCaptureEnabled = true
        try session.addOutput(output)
        let startCPU = Report.processorSeconds()
        let start = Date()
        try session.startRunning()
        // The recorder holds the first movie's first half.
        try await Task.sleep(for: .seconds(PhotoOutput.livePhotoHalfDuration + 0.5))

        let results = try await withThrowingTaskGroup(of: (photo: Double, movie: Double, failed: Bool).self) { group in
            for index in 0..<captures {
                if index > 0 { try await Task.sleep(for: .seconds(interval)) }
                var settings = PhotoSettings(format: photoFormat)
                settings.livePhotoMovieFileURL = folder.appendingPathComponent("\(index).mov")
                let shutter = Date()
                let events = try output.capturePhoto(with: settings)
                group.addTask {
                    var photo = 0.0
                    var movie = 0.0
                    var failed = false
                    for await event in events {
                        switch event {
                        case .didFinishProcessingPhoto(let result):
                            photo = Date().timeIntervalSince(shutter)
                            if case .failure(let error) = result {
                                failed = true
                                FileHandle.standardError.write(Data("photo failed: \(error.message)\n".utf8))
                            }
                        case .didFinishProcessingLivePhotoMovie(let result, _):
                            movie = Date().timeIntervalSince(shutter)
                            if case .failure = result { failed = true }
                        case .didFinishCapture(_, let error): failed = failed || error != nil
                        default: break
                        }
                    }
                    return (photo, movie, failed)
                }
            }
            var all: [(photo: Double, movie: Double, failed: Bool)] = []
            for try await result in group { all.append(result) }
            return all
        }
        let seconds = Date().timeIntervalSince(start)
        let dropped = session.droppedFrameCount
        session.stopRunning()
        let cpu = Report.processorSeconds()
        let photoLatencies = results.map { $0.photo * 1000 }
        let movieLatencies = results.map { $0.movie * 1000 }
        Report.print([
            "bench": "capture", "width": width, "height": height, "rate": rate, "format": format,
            "captures": captures, "failed": results.filter(\.failed).count, "intervalSeconds": interval,
            "seconds": Report.round(seconds), "framesDropped": dropped,
            "framesExpected": Int(seconds * Double(rate)),
            "shutterToPhotoMedianMs": Report.round(Report.percentile(photoLatencies, 0.5)),
            "shutterToPhotoMaxMs": Report.round(photoLatencies.max() ?? 0),
            "shutterToMovieMedianMs": Report.round(Report.percentile(movieLatencies, 0.5)),
            "cpuSeconds": Report.round(cpu.user + cpu.system - startCPU.user - startCPU.system),
            "peakResidentMB": Report.peakResidentMegabytes(),
        ])
    }
}
