/// Why a capture, a session or a device failed.
public struct CaptureError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable, Codable {
        /// Another process has the device.
        case deviceBusy
        /// The device is not there, or went away while running.
        case deviceGone
        /// The device delivered no frame for too long.
        case deviceStalled
        /// A file device's movie ended before the capture had what it needed.
        case sourceEnded
        /// The session is not running, or has no such input or output.
        case notRunning
        /// Settings that cannot be used: a reused unique ID, a bracket on a device that cannot
        /// set its exposure, a Live Photo without a movie URL or with Live Photo capture off.
        case invalidSettings
        /// The photo or the movie could not be encoded or written.
        case processingFailed
        /// FFmpeg's or libheif's libraries are missing.
        case unavailable
        /// The process's memory budget has no room for the capture's frames now.
        case outOfMemory
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
