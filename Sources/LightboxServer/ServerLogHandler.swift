import Foundation
import Logging

/// The server's log: lines on standard error exactly as swift-log's stream handler writes
/// them, but with the metadata formatted when a line is written rather than whenever it is
/// set. Hummingbird sets a request identifier on every request's logger, and the stream
/// handler formats all of a logger's metadata at each setting: work for every request, for a
/// line almost never written.
struct ServerLogHandler: LogHandler {
    let label: String
    var logLevel: Logger.Level
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?

    init(label: String, level: Logger.Level) {
        self.label = label
        logLevel = level
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var stream = StreamLogHandler.standardError(label: label, metadataProvider: metadataProvider)
        stream.logLevel = logLevel
        stream.metadata = metadata
        stream.log(event: event)
    }

    /// The server's logger, at `LOG_LEVEL` from the environment (as Hummingbird reads it) or
    /// `info`.
    static func logger(label: String) -> Logger {
        let level = ProcessInfo.processInfo.environment["LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .info
        return Logger(label: label) { ServerLogHandler(label: $0, level: level) }
    }
}
