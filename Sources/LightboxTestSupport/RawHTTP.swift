import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// An HTTP/1.1 request written byte for byte to a server on loopback: for what an HTTP client
/// library will not send as asked (a `Host` of the test's choosing, one header only).
public enum RawHTTP {
    /// Sends `head` (lines without the final blank line) and `body` to 127.0.0.1:`port`, and
    /// answers the response's status code and its text; the connection is closed after.
    public static func send(port: Int, head: [String], body: String = "") async throws -> (status: Int, text: String) {
        try await send(port: port, head: head, bytes: Array(body.utf8))
    }

    /// Sends `head` and `bytes` as the body; answers the status and the whole response's text.
    public static func send(port: Int, head: [String], bytes: [UInt8]) async throws -> (status: Int, text: String) {
        try await offPool { try sendBlocking(port: port, head: head, body: bytes) }
    }

    /// The body of a response's text (after the blank line that ends its head).
    public static func body(of text: String) -> String {
        guard let range = text.range(of: "\r\n\r\n") else { return "" }
        return String(text[range.upperBound...])
    }

    /// Runs blocking socket work on a Dispatch thread: the cooperative pool has as many threads as
    /// cores, and a test blocked in `recv` on one of them can starve the server it waits for.
    static func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try work() }) }
        }
    }

    static func sendBlocking(port: Int, head: [String], body: [UInt8]) throws -> (status: Int, text: String) {
        let fd = try connect(port: port)
        defer { close(fd) }
        let bytes =
            Array(
                (head + ["Connection: close", "Content-Length: \(body.count)", "", ""]).joined(separator: "\r\n").utf8)
            + body
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { throw RawHTTPError(message: "send failed") }
            sent += count
        }
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { break }
            response += buffer[0..<count]
        }
        let text = String(decoding: response, as: UTF8.self)
        let status = text.split(separator: " ", maxSplits: 2).dropFirst().first.flatMap { Int($0) } ?? 0
        return (status, text)
    }

    /// A socket connected to 127.0.0.1:`port`, whose reads give up after five minutes of
    /// silence. A request that imports (an upload's last bytes) answers once the import is done,
    /// and under the whole suite's load on two cores that import waited past a minute behind the
    /// other suites' blocking work (the library's blocking pool is as wide as the cores).
    static func connect(port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw RawHTTPError(message: "socket failed") }
        var timeout = timeval(tv_sec: 300, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(fd)
            throw RawHTTPError(message: "cannot connect to port \(port)")
        }
        return fd
    }

    struct RawHTTPError: Error {
        var message: String
    }
}

extension RawHTTP {
    /// Sends `head` and the first `sent` bytes of a body of `total` bytes (the head says
    /// `total`), then closes the connection without reading: a client whose connection
    /// dropped mid-upload.
    public static func sendAndDrop(port: Int, head: [String], body: [UInt8], total: Int) async throws {
        try await offPool { try sendAndDropBlocking(port: port, head: head, body: body, total: total) }
    }

    static func sendAndDropBlocking(port: Int, head: [String], body: [UInt8], total: Int) throws {
        let fd = try connect(port: port)
        defer { close(fd) }
        let bytes = Array((head + ["Content-Length: \(total)", "", ""]).joined(separator: "\r\n").utf8) + body
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { throw RawHTTPError(message: "send failed") }
            sent += count
        }
    }
}

extension RawHTTP {
    /// A request whose response is read as it arrives: a stream of Server-Sent Events.
    /// Used by one task at a time; its reads run on a Dispatch thread, one at a time.
    public final class Stream: @unchecked Sendable {
        private let fd: Int32
        private var received: [UInt8] = []

        /// Connects to 127.0.0.1:`port` and sends `head` (no body).
        public init(port: Int, head: [String]) throws {
            fd = try RawHTTP.connect(port: port)
            let bytes = Array((head + ["", ""]).joined(separator: "\r\n").utf8)
            _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, 0) }
        }

        deinit { close(fd) }

        /// Everything received so far, as text.
        public var text: String { String(decoding: received, as: UTF8.self) }

        /// Reads until the text received holds `count` occurrences of `marker`, the last one
        /// followed by a blank line (a whole event); false when the server went quiet or closed
        /// first.
        public func read(until marker: String, count: Int = 1) async -> Bool {
            (try? await RawHTTP.offPool { self.readBlocking(until: marker, count: count) }) ?? false
        }

        func readBlocking(until marker: String, count: Int) -> Bool {
            var buffer = [UInt8](repeating: 0, count: 65536)
            func whole() -> Bool {
                let parts = text.components(separatedBy: marker)
                return parts.count - 1 >= count && parts.last!.contains("\n\n")
            }
            while !whole() {
                let read = recv(fd, &buffer, buffer.count, 0)
                if read <= 0 { return false }
                received += buffer[0..<read]
            }
            return true
        }
    }
}
