import CCapture
import Foundation

/// A source of frames or sound a capture session can take: a camera (a Video4Linux2 device), a
/// microphone (ALSA), a synthetic camera, or a movie played as if it were a camera.
///
/// The synthetic camera is FFmpeg's `testsrc2` pattern at any size and rate, with a running
/// clock stamped into every frame (its milliseconds, ``SyntheticClock``) and a 1 kHz tone:
/// deterministic, and what tests and benchmarks capture from on machines without a camera.
public struct CaptureDevice: Sendable, Hashable, Codable {
    public enum Kind: String, Sendable, Hashable, Codable {
        case camera, microphone, synthetic, file
    }

    /// One frame size and rate the device offers.
    public struct Format: Sendable, Hashable, Codable {
        /// The device's pixel format as a FourCC ("YUYV", "MJPG"), "I420" for the synthetic camera.
        public var pixelFormat: String
        public var width: Int
        public var height: Int
        /// The fastest rate at that size, in frames per second.
        public var frameRate: Double
    }

    /// How to name the device again: "/dev/video0", "alsa:hw:1,0", "test", "test:1920x1080@30",
    /// "file:/path/movie.mov".
    public let uniqueID: String
    public let localizedName: String
    /// The maker written into photos' EXIF (`Make`); the name goes into `Model`.
    public let manufacturer: String
    public let kind: Kind
    public let formats: [Format]
    /// Whether it delivers sound (a microphone, the synthetic camera's tone, a movie's sound).
    public let hasAudio: Bool
    /// Linux cameras have no flash Lightbox can fire: every one says false, and a flash asked
    /// for resolves to off.
    public var hasFlash: Bool { false }
    /// Whether its exposure can be set for a bracket: the synthetic camera's gain is Lightbox's.
    public var isExposureAdjustable: Bool { kind == .synthetic }

    /// The size and rate a session asks for when its preset leaves the choice to the device.
    public var preferredFormat: Format? { formats.first }

    /// The synthetic camera at this size and rate, with its tone unless told otherwise.
    public static func synthetic(width: Int = 1920, height: Int = 1080, frameRate: Int = 30, tone: Bool = true)
        -> CaptureDevice
    {
        let width = Swift.min(Swift.max(width, 64), 7680) & ~1
        let height = Swift.min(Swift.max(height, 48), 4320) & ~1
        let rate = Swift.min(Swift.max(frameRate, 1), 120)
        let id = "test:\(width)x\(height)@\(rate)" + (tone ? "" : ":silent")
        return CaptureDevice(
            uniqueID: id, localizedName: "Lightbox Test Camera", manufacturer: "FFmpeg", kind: .synthetic,
            formats: [Format(pixelFormat: "I420", width: width, height: height, frameRate: Double(rate))],
            hasAudio: tone)
    }

    /// A movie played at its own pace, as a camera would deliver it.
    public static func file(_ url: URL) throws(CaptureError) -> CaptureDevice {
        let path = url.standardizedFileURL.path
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw CaptureError(.deviceGone, "\(path): no such movie, or it cannot be read")
        }
        return CaptureDevice(
            uniqueID: "file:" + path, localizedName: url.lastPathComponent, manufacturer: "Lightbox", kind: .file,
            formats: [], hasAudio: true)
    }

    /// The device a unique ID names (as ``uniqueID`` gives it, or "test" for the synthetic
    /// camera at 1920x1080, 30 frames a second).
    public static func named(_ id: String) throws(CaptureError) -> CaptureDevice {
        if id == "test" { return synthetic() }
        if id.hasPrefix("test:") { return try parseSynthetic(String(id.dropFirst(5))) }
        if id.hasPrefix("file:") { return try file(URL(fileURLWithPath: String(id.dropFirst(5)))) }
        if id.hasPrefix("alsa:") {
            let name = String(id.dropFirst(5))
            guard let microphone = microphones().first(where: { $0.uniqueID == id }) else {
                throw CaptureError(.deviceGone, "no ALSA capture device \(name)")
            }
            return microphone
        }
        return try camera(at: id)
    }

    /// The machine's first camera; an error saying how to use the synthetic camera when there is
    /// none.
    public static func defaultCamera() throws(CaptureError) -> CaptureDevice {
        guard let camera = cameras().first else {
            throw CaptureError(
                .deviceGone,
                "no camera on this machine (no /dev/videoN captures video); the synthetic camera is \"test\"")
        }
        return camera
    }

    /// Every camera and microphone on this machine, then the synthetic camera.
    public static func discover() -> [CaptureDevice] {
        cameras() + microphones() + [synthetic()]
    }

    /// The Video4Linux2 nodes that capture video (a camera also has metadata nodes, left out).
    public static func cameras() -> [CaptureDevice] {
        let nodes = (try? FileManager.default.contentsOfDirectory(atPath: "/dev")) ?? []
        return nodes.filter { $0.hasPrefix("video") && Int($0.dropFirst(5)) != nil }
            .sorted { Int($0.dropFirst(5))! < Int($1.dropFirst(5))! }
            .compactMap { try? camera(at: "/dev/" + $0) }
    }

    /// The camera at a device node, with the sizes and rates it offers.
    public static func camera(at path: String) throws(CaptureError) -> CaptureDevice {
        var name = [CChar](repeating: 0, count: 64)
        var message = [CChar](repeating: 0, count: 256)
        var modes = [ccapture_v4l2_mode](repeating: ccapture_v4l2_mode(), count: 128)
        let count = ccapture_v4l2_describe(path, &name, name.count, &modes, Int32(modes.count), &message, message.count)
        guard count >= 0 else { throw CaptureError(.deviceGone, text(message)) }
        let formats = modes.prefix(Int(count)).map { mode in
            var code = mode.fourcc
            let fourcc = withUnsafeBytes(of: &code) { String(decoding: $0.prefix(4), as: UTF8.self) }
            let rate = mode.rate_den > 0 ? Double(mode.rate_num) / Double(mode.rate_den) : 0
            return Format(pixelFormat: fourcc, width: Int(mode.width), height: Int(mode.height), frameRate: rate)
        }
        // Largest first: a photo preset takes the first.
        let sorted = formats.sorted { ($0.width * $0.height, $0.frameRate) > ($1.width * $1.height, $1.frameRate) }
        let label = text(name)
        return CaptureDevice(
            uniqueID: path, localizedName: label.isEmpty ? path : label, manufacturer: "Video4Linux2", kind: .camera,
            formats: sorted, hasAudio: false)
    }

    /// ALSA's capture devices, from /proc/asound/pcm ("00-00: name : name : playback 1 : capture 1").
    public static func microphones() -> [CaptureDevice] {
        guard let data = FileManager.default.contents(atPath: "/proc/asound/pcm"), data.count < 1 << 16 else {
            return []
        }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").prefix(256).compactMap { line in
            let fields = line.split(separator: ":").map { $0.trimmingCharacters(in: .whitespaces) }
            guard fields.count >= 3, fields.contains(where: { $0.hasPrefix("capture") }) else { return nil }
            let numbers = fields[0].split(separator: "-").compactMap { Int($0) }
            guard numbers.count == 2 else { return nil }
            return CaptureDevice(
                uniqueID: "alsa:hw:\(numbers[0]),\(numbers[1])", localizedName: fields[1], manufacturer: "ALSA",
                kind: .microphone, formats: [], hasAudio: true)
        }
    }

    /// "1920x1080@30", optionally followed by ":silent".
    private static func parseSynthetic(_ text: String) throws(CaptureError) -> CaptureDevice {
        let parts = text.split(separator: ":")
        let silent = parts.count > 1 && parts[1] == "silent"
        let sizeAndRate = parts.first.map { $0.split(separator: "@") } ?? []
        let size = sizeAndRate.first.map { $0.split(separator: "x").compactMap { Int($0) } } ?? []
        let rate = sizeAndRate.count > 1 ? Int(sizeAndRate[1]) : 30
        guard size.count == 2, let rate, (64...7680).contains(size[0]), (48...4320).contains(size[1]),
            (1...120).contains(rate)
        else {
            throw CaptureError(
                .invalidSettings,
                "test camera \(text): give WIDTHxHEIGHT@RATE, 64x48 to 7680x4320 at 1 to 120 frames a second")
        }
        return synthetic(width: size[0], height: size[1], frameRate: rate, tone: !silent)
    }
}

/// The clock the synthetic camera stamps into its frames: its milliseconds since the session
/// started, as 32 black and white squares along the top of the picture. Tests read it back from
/// a movie's decoded frames to know which moment each frame shows.
public enum SyntheticClock {
    /// The stamped milliseconds, read from a luma plane; nil when no stamp is there.
    public static func milliseconds(inLuma luma: [UInt8], width: Int, height: Int) -> UInt32? {
        guard width > 0, height > 0, luma.count >= width * height else { return nil }
        var value: UInt32 = 0
        let found = luma.withUnsafeBufferPointer {
            ccapture_read_clock($0.baseAddress, Int32(width), Int32(width), Int32(height), &value)
        }
        return found == 1 ? value : nil
    }
}
