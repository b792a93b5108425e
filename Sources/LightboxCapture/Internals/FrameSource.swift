import CCapture
import Foundation

/// One opened device, read on the session's thread.
final class FrameSource: @unchecked Sendable {
    private let source: OpaquePointer
    let info: ccapture_source_info
    let device: CaptureDevice

    /// Opens `device` asking for `size` (nil: the device's own) at `rate` frames a second.
    init(device: CaptureDevice, size: PhotoDimensions?, rate: Int?, withAudio: Bool, stallTimeout: Double)
        throws(CaptureError)
    {
        self.device = device
        var options = ccapture_source_options()
        var path = ""
        switch device.kind {
        case .synthetic: options.kind = CCAPTURE_SYNTHETIC
        case .camera:
            options.kind = CCAPTURE_V4L2
            path = device.uniqueID
        case .file:
            options.kind = CCAPTURE_FILE
            path = String(device.uniqueID.dropFirst(5))
        case .microphone:
            options.kind = CCAPTURE_ALSA
            path = String(device.uniqueID.dropFirst(5))
        }
        let format = device.preferredFormat
        options.width = Int32(size?.width ?? format?.width ?? 0)
        options.height = Int32(size?.height ?? format?.height ?? 0)
        options.rate = Int32(rate ?? Int(format?.frameRate ?? 0))
        options.with_audio = withAudio && device.hasAudio ? 1 : 0
        options.max_pixels = 7680 * 4320
        options.stall_us = Int64(Swift.min(Swift.max(stallTimeout, 0.1), 3600) * 1_000_000)
        // A webcam sends large frames at full rate only compressed: MJPEG where the device
        // offers it at the size asked for (its YUYV at 1920x1080 is often 5 frames a second).
        let wanted = (Int(options.width), Int(options.height))
        let mjpeg =
            device.kind == .camera
            && device.formats.contains { $0.pixelFormat == "MJPG" && ($0.width, $0.height) == wanted }
        var source: OpaquePointer?
        var info = ccapture_source_info()
        var message = [CChar](repeating: 0, count: 512)
        let status = path.withCString { pointer in
            "mjpeg".withCString { format in
                options.path = device.kind == .synthetic ? nil : pointer
                options.input_format = mjpeg ? format : nil
                return ccapture_open(&options, &source, &info, &message, message.count)
            }
        }
        guard status == CVIDEO_OK, let source else {
            throw CaptureError(status, "cannot open \(device.localizedName) (\(device.uniqueID))", message)
        }
        self.source = source
        self.info = info
    }

    deinit { ccapture_close(source) }

    /// The next item; `body` sees it while it is valid. Nil at a movie's end.
    func read<T>(_ body: (ccapture_item) throws(CaptureError) -> T) throws(CaptureError) -> T? {
        var item = ccapture_item()
        var message = [CChar](repeating: 0, count: 512)
        let status = ccapture_read(source, &item, &message, message.count)
        guard status == CVIDEO_OK else {
            throw CaptureError(status, "\(device.localizedName) (\(device.uniqueID)) failed", message)
        }
        if item.kind == CCAPTURE_ITEM_END { return nil }
        return try body(item)
    }

    func interrupt() { ccapture_interrupt(source) }

    /// Frames skipped because the session's thread fell behind (the synthetic camera and movies;
    /// a V4L2 driver drops them itself, unseen).
    var droppedFrames: Int { Int(ccapture_dropped(source)) }
}
