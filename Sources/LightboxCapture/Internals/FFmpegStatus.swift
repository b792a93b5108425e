import CCapture

extension CaptureError {
    /// The error for a failed CVideo call, its message prefixed by what was being done.
    init(_ status: cvideo_status, _ what: String, _ message: [CChar]) {
        let reason = text(message)
        let text = reason.isEmpty ? what : "\(what): \(reason)"
        switch status {
        case CVIDEO_BUSY: self.init(.deviceBusy, text)
        case CVIDEO_GONE: self.init(.deviceGone, text)
        case CVIDEO_STALLED: self.init(.deviceStalled, text)
        case CVIDEO_UNAVAILABLE: self.init(.unavailable, text)
        case CVIDEO_WRITE_FAILED: self.init(.processingFailed, text)
        default: self.init(.deviceGone, text)
        }
    }
}

/// A C function's message: the characters before the first NUL.
func text(_ message: [CChar]) -> String {
    String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
