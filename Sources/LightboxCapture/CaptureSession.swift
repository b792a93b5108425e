import CCapture
import Foundation
import Synchronization

/// Wires a camera (and a microphone) to photo outputs (AVFoundation's `AVCaptureSession`).
///
/// ```swift
/// let session = CaptureSession(preset: .photo)
/// try session.addInput(CaptureDevice.synthetic())
/// let output = PhotoOutput()
/// output.isLivePhotoCaptureEnabled = true
/// try session.addOutput(output)
/// try session.startRunning()
/// var settings = PhotoSettings(format: .heic)
/// settings.livePhotoMovieFileURL = URL(fileURLWithPath: "/tmp/live.mov")
/// for await event in try output.capturePhoto(with: settings) { print(event.name) }
/// session.stopRunning()
/// ```
///
/// Frames are read on a thread of the session's own, one per device; a Live Photo output
/// encodes them there as they arrive (H.264, with the microphone's or the device's sound as
/// AAC), keeping the last seconds of packets, so that its movie can begin before its shutter.
public final class CaptureSession: Sendable {
    /// What size a session asks its camera for.
    public enum Preset: String, Sendable, Hashable, Codable, CaseIterable {
        /// The camera's largest frames: photos.
        case photo
        /// The camera's preferred video size.
        case high
        case hd1920x1080
        case hd1280x720

        /// The size asked of `device`: nil leaves it to the device.
        func size(for device: CaptureDevice) -> PhotoDimensions? {
            switch self {
            case .photo, .high: device.preferredFormat.map { PhotoDimensions(width: $0.width, height: $0.height) }
            case .hd1920x1080: PhotoDimensions(width: 1920, height: 1080)
            case .hd1280x720: PhotoDimensions(width: 1280, height: 720)
            }
        }
    }

    private struct State {
        var camera: CaptureDevice?
        var microphone: CaptureDevice?
        var outputs: [PhotoOutput] = []
        var sources: [FrameSource] = []
        var threadCount = 0
        var running = false
        var stopping = false
        var runtimeError: CaptureError?
        var recorder: MovieRecorder?
        var info: ccapture_source_info?
        /// The camera's dropped frames when it was closed.
        var droppedFrames = 0
    }

    public let preset: Preset
    /// How long a device may deliver nothing before the session fails as stalled
    /// (``CaptureError/Code/deviceStalled``): 0.1 s to an hour.
    public let stallTimeout: Double
    private let state = Mutex(State())
    /// Signalled as each reading thread ends.
    private let threadsDone = DispatchSemaphore(value: 0)

    public init(preset: Preset = .photo, stallTimeout: Double = 5) {
        self.preset = preset
        self.stallTimeout = stallTimeout
    }

    /// Adds a camera (one per session) or a microphone (one per session). A camera with sound
    /// of its own (the synthetic camera, a movie) needs no microphone.
    public func addInput(_ device: CaptureDevice) throws(CaptureError) {
        try state.withLock { state throws(CaptureError) in
            guard !state.running else { throw CaptureError(.invalidSettings, "add inputs before the session starts") }
            if device.kind == .microphone {
                guard state.microphone == nil else {
                    throw CaptureError(.invalidSettings, "the session has a microphone")
                }
                state.microphone = device
            } else {
                guard state.camera == nil else { throw CaptureError(.invalidSettings, "the session has a camera") }
                state.camera = device
            }
        }
    }

    public func addOutput(_ output: PhotoOutput) throws(CaptureError) {
        try state.withLock { state throws(CaptureError) in
            guard !state.running else { throw CaptureError(.invalidSettings, "add outputs before the session starts") }
            guard !state.outputs.contains(where: { $0 === output }) else { return }
            state.outputs.append(output)
        }
        output.attach(to: self)
    }

    public var camera: CaptureDevice? { state.withLock { $0.camera } }
    public var isRunning: Bool { state.withLock { $0.running } }
    /// What stopped a running session: its device went away, stalled or (a movie) ended.
    public var runtimeError: CaptureError? { state.withLock { $0.runtimeError } }

    /// The size and rate frames arrive at, once running.
    public var activeFormat: CaptureDevice.Format? {
        state.withLock { state in
            state.info.map {
                CaptureDevice.Format(
                    pixelFormat: "I420", width: Int($0.width), height: Int($0.height),
                    frameRate: Double($0.rate_num) / Double(Swift.max($0.rate_den, 1)))
            }
        }
    }

    var recorder: MovieRecorder? { state.withLock { $0.recorder } }

    /// Frames the camera delivered too late to be taken, since the session started: the
    /// synthetic camera and a movie skip a frame when the session's thread is more than a frame
    /// behind, as a camera overwrites one nobody took.
    public var droppedFrameCount: Int { state.withLock { $0.sources.first?.droppedFrames ?? $0.droppedFrames } }

    /// Opens the devices and starts delivering frames. Throws when a device is busy, missing or
    /// cannot be read.
    public func startRunning() throws(CaptureError) {
        let (camera, microphone, outputs) = try state.withLock { state throws(CaptureError) in
            guard !state.running else { throw CaptureError(.invalidSettings, "the session is running") }
            guard let camera = state.camera else { throw CaptureError(.notRunning, "the session has no camera") }
            return (camera, state.microphone, state.outputs)
        }
        let live = outputs.contains { $0.isLivePhotoCaptureEnabled }
        let video = try FrameSource(
            device: camera, size: camera.kind == .file ? nil : preset.size(for: camera), rate: nil,
            withAudio: live && microphone == nil, stallTimeout: stallTimeout)
        var sources = [video]
        var info = video.info
        if let microphone, live {
            let sound = try FrameSource(
                device: microphone, size: nil, rate: nil, withAudio: true, stallTimeout: stallTimeout)
            sources.append(sound)
            info.sample_rate = sound.info.sample_rate
            info.channels = sound.info.channels
        }
        // The recorder keeps 1.5 s before a shutter plus a keyframe interval, and a second to spare.
        let recorder = live ? try MovieRecorder(info: info, keep: 3, preset: "veryfast", quality: 23) : nil
        state.withLock { state in
            state.sources = sources
            state.recorder = recorder
            state.info = info
            state.running = true
            state.stopping = false
            state.runtimeError = nil
        }
        for output in outputs {
            output.sessionStarted(frameSize: PhotoDimensions(width: Int(info.width), height: Int(info.height)))
        }
        let threads = sources.enumerated().map { index, source in
            let thread = Thread { [self] in
                read(source, isCamera: index == 0, outputs: outputs, recorder: recorder)
                threadsDone.signal()
            }
            thread.name = "lightbox-capture-\(index)"
            thread.qualityOfService = .userInteractive
            return thread
        }
        state.withLock { $0.threadCount = threads.count }
        for thread in threads { thread.start() }
    }

    /// Stops the devices; captures still waiting for frames end with an error.
    public func stopRunning() {
        let (sources, threadCount, outputs) = state.withLock { state in
            state.stopping = true
            return (state.sources, state.threadCount, state.outputs)
        }
        for source in sources { source.interrupt() }
        for _ in 0..<threadCount { threadsDone.wait() }
        state.withLock { state in
            state.threadCount = 0
            state.droppedFrames = state.sources.first?.droppedFrames ?? 0
            state.sources = []
            state.running = false
        }
        for output in outputs {
            output.sessionStopped(error: CaptureError(.notRunning, "the session stopped before the capture ended"))
        }
        // The recorder goes once the outputs have written what they hold.
        for output in outputs { output.waitForProcessing() }
        state.withLock { $0.recorder = nil }
    }

    /// One device's loop: each frame to the recorder and the outputs, until stopped or failed.
    private func read(_ source: FrameSource, isCamera: Bool, outputs: [PhotoOutput], recorder: MovieRecorder?) {
        var failure: CaptureError?
        while failure == nil {
            do {
                let more: Void? = try source.read { item throws(CaptureError) in
                    try recorder?.add(item)
                    if isCamera, item.kind == CCAPTURE_ITEM_VIDEO {
                        for output in outputs { output.received(item) }
                    }
                }
                if more == nil {
                    failure = CaptureError(
                        .sourceEnded, "\(source.device.localizedName) ended: its movie has no more frames")
                }
            } catch {
                failure = error
            }
        }
        let stopping = state.withLock { $0.stopping }
        guard !stopping, let failure else { return }
        let others = state.withLock { state in
            if state.runtimeError == nil { state.runtimeError = failure }
            return state.sources.filter { $0 !== source }
        }
        // The other devices stop too: a movie without its camera is no movie.
        for other in others { other.interrupt() }
        for output in outputs { output.sessionStopped(error: failure) }
    }
}
