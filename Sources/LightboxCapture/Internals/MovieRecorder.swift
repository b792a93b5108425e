import CCapture
import Foundation

/// Encodes a session's frames and sound as they arrive and keeps the last seconds of packets:
/// a Live Photo's movie starts 1.5 s before its shutter.
final class MovieRecorder: @unchecked Sendable {
    private let recorder: OpaquePointer

    init(info: ccapture_source_info, keep: Double, preset: String, quality: Int) throws(CaptureError) {
        var options = ccapture_recorder_options()
        options.width = info.width
        options.height = info.height
        options.rate_num = info.rate_num
        options.rate_den = info.rate_den
        options.sample_rate = info.sample_rate
        options.channels = Swift.min(info.channels, 2)
        options.quality = Int32(quality)
        // A keyframe every half second: a movie starts at most that much before it must.
        let rate = Double(info.rate_num) / Double(Swift.max(info.rate_den, 1))
        options.keyframe_interval = Int32(Swift.max(1, Int((rate / 2).rounded())))
        options.keep_us = Int64(keep * 1_000_000)
        var recorder: OpaquePointer?
        var message = [CChar](repeating: 0, count: 512)
        let status = preset.withCString { name in
            options.preset = name
            return ccapture_recorder_open(&options, &recorder, &message, message.count)
        }
        guard status == CVIDEO_OK, let recorder else {
            throw CaptureError(status, "cannot start the Live Photo recorder", message)
        }
        self.recorder = recorder
    }

    deinit { ccapture_recorder_close(recorder) }

    /// Called on the session's thread with each item.
    func add(_ item: ccapture_item) throws(CaptureError) {
        var item = item
        var message = [CChar](repeating: 0, count: 512)
        let status = ccapture_recorder_add(recorder, &item, &message, message.count)
        guard status == CVIDEO_OK else { throw CaptureError(status, "the Live Photo recorder failed", message) }
    }

    /// Keeps the packets from `time` (seconds) on until released.
    func hold(from time: Double) -> Int32 {
        ccapture_recorder_hold(recorder, Int64(Swift.max(0, time) * 1_000_000))
    }

    func release(_ hold: Int32) { ccapture_recorder_release(recorder, hold) }

    /// Writes the packets from the keyframe at or before `from` to `to` (seconds) as a movie;
    /// returns the time its first frame shows.
    func write(to path: String, from: Double, to: Double) throws(CaptureError) -> Double {
        var start: Int64 = 0
        var message = [CChar](repeating: 0, count: 512)
        let status = ccapture_recorder_write(
            recorder, path, Int64(Swift.max(0, from) * 1_000_000), Int64(to * 1_000_000), &start, &message,
            message.count)
        guard status == CVIDEO_OK else { throw CaptureError(status, "cannot write the Live Photo's movie", message) }
        return Double(start) / 1_000_000
    }
}
