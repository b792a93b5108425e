import Foundation
import LightboxTestSupport
import Testing

@testable import Lightbox
@testable import LightboxStore

#if canImport(Glibc)
    import Glibc
#endif

/// `lightbox serve` under a flood: connections past the limits are closed, silent ones time
/// out, and the server still answers; renders past the waiting bound are refused, not queued.
@Suite("Server and render limits")
struct ServeLimitsTests {
    @Test("Connections past the per-address limit are closed, a slow header times out, and the server still answers")
    func connectionLimits() async throws {
        let folder = try TemporaryDirectory()
        let (library, _) = try await ChangeTests.makeLibrary(folder, count: 1)
        let (server, port) = try Self.serve(
            library.url.path, ["--max-connections-per-address", "3", "--idle-timeout", "2", "--header-timeout", "60"])
        defer {
            server.terminate()
            server.waitUntilExit()
        }

        // Three connections are held, each answered once (so the server has counted it); a
        // fourth from the same address is closed at once, unanswered.
        let held = try (0..<3).map { _ in try Self.connect(port) }
        for socket in held {
            Self.send(socket, "GET /api/none HTTP/1.1\r\nHost: localhost\r\n\r\n")
            #expect(Self.readResponse(socket).hasPrefix("HTTP/1.1 404"))
        }
        let refused = try Self.connect(port)
        Self.send(refused, "GET /api/none HTTP/1.1\r\nHost: localhost\r\n\r\n")
        #expect(Self.readUntilClosed(refused) == "", "the fourth connection is closed without an answer")
        close(refused)
        // Silent, the held ones are closed by the server after the idle timeout.
        for socket in held {
            #expect(Self.readUntilClosed(socket) == "", "an idle connection is closed")
            close(socket)
        }

        // A connection answered once, then sending a header in part and nothing more: closed
        // after the idle timeout, unanswered.
        let slow = try Self.connectAnswered(port)
        Self.send(slow, "GET /api/assets HTTP/1.1\r\nHost: localhost\r\n")
        #expect(Self.readUntilClosed(slow) == "", "a header that never ends is dropped")
        close(slow)

        // And a whole request is answered.
        let client = try Self.connectAnswered(port)
        Self.send(client, "GET /api/assets?limit=1 HTTP/1.1\r\nHost: localhost\r\n\r\n")
        #expect(Self.readResponse(client).hasPrefix("HTTP/1.1 200"))
        close(client)
    }

    @Test("Behind a trusted proxy, loopback (where the proxy connects from) is not held to the per-address limit")
    func proxyConnections() async throws {
        let folder = try TemporaryDirectory()
        let (library, _) = try await ChangeTests.makeLibrary(folder, count: 1)
        let (server, port) = try Self.serve(
            library.url.path, ["--max-connections-per-address", "2", "--trust-proxy", "--header-timeout", "60"])
        defer {
            server.terminate()
            server.waitUntilExit()
        }
        // Four at once, all open until each is answered.
        let held = try (0..<4).map { _ in try Self.connect(port) }
        for socket in held {
            Self.send(socket, "GET /api/none HTTP/1.1\r\nHost: localhost\r\n\r\n")
            #expect(Self.readResponse(socket).hasPrefix("HTTP/1.1 404"))
        }
        for socket in held { close(socket) }
    }

    @Test("A new connection trickling its header is closed at the header timeout, long before the idle one")
    func headerTimeout() async throws {
        let (folder, server, port) = try await Self.serveImpatiently()
        defer {
            server.terminate()
            server.waitUntilExit()
            withExtendedLifetime(folder) {}
        }
        let trickle = try Self.connect(port, giveUpAfter: 10)
        for character in "GET /api/assets HTTP/1.1\r\nHost: localhost\r\nX-Slow: " + String(repeating: "a", count: 40) {
            Self.send(trickle, String(character))
            var ready = pollfd(fd: trickle, events: Int16(POLLIN), revents: 0)
            if poll(&ready, 1, 100) > 0 { break }  // closed by the server
        }
        // Within 10 s (the idle timeout, 60 s, would say "timed out"), and unanswered.
        #expect(Self.readUntilClosed(trickle) == "", "a header trickled byte by byte is dropped")
        close(trickle)
        let client = try Self.connectAnswered(port)
        close(client)
    }

    @Test("A body trickled a byte at a time is closed at its pace, long before the idle timeout; a real one is heard")
    func slowBody() async throws {
        let (folder, server, port) = try await Self.serveImpatiently()
        defer {
            server.terminate()
            server.waitUntilExit()
            withExtendedLifetime(folder) {}
        }
        let photo = [UInt8](try Data(contentsOf: URL(fileURLWithPath: try Corpus.path("digikam/body-background.jpg"))))
        let head = [
            "POST /api/uploads/whole?filename=IMG_0001.JPG HTTP/1.1", "Host: localhost",
            "Content-Type: application/octet-stream",
        ]
        let trickle = try Self.connect(port, giveUpAfter: 20)
        Self.send(trickle, (head + ["Content-Length: \(photo.count)"]).joined(separator: "\r\n") + "\r\n\r\n")
        for byte in photo.prefix(200) {
            _ = withUnsafePointer(to: byte) { Glibc.send(trickle, $0, 1, Int32(MSG_NOSIGNAL)) }
            var ready = pollfd(fd: trickle, events: Int16(POLLIN), revents: 0)
            if poll(&ready, 1, 250) > 0 { break }  // closed by the server
        }
        // Within 20 s (the idle timeout, 60 s, would say "timed out"), and nothing imported.
        let answer = Self.readUntilClosed(trickle)
        #expect(answer != "timed out" && !answer.contains("201"), "\(answer)")
        close(trickle)
        let whole = try await RawHTTP.send(port: port, head: head, bytes: photo)
        #expect(whole.status == 201, "\(whole.text)")
    }

    /// A library of one asset served with a header timeout of 1 s and an idle one of 60 s: what
    /// a slow client runs into first is the pace, never the silence.
    static func serveImpatiently() async throws -> (TemporaryDirectory, Process, Int) {
        let folder = try TemporaryDirectory()
        let (library, _) = try await ChangeTests.makeLibrary(folder, count: 1)
        let (server, port) = try serve(library.url.path, ["--idle-timeout", "60", "--header-timeout", "1"])
        return (folder, server, port)
    }

    /// `lightbox serve` on a free port with `options`, once it listens.
    static func serve(_ library: String, _ options: [String]) throws -> (Process, Int) {
        let port = try freePort()
        let (server, said) = try CommandLineTests.start(
            ["serve", "--library", library, "--port", "\(port)"] + options, until: "Serving")
        guard said.contains("Serving") else {
            server.waitUntilExit()
            throw LibraryError(.invalidRequest, "the server stopped: \(said)")
        }
        return (server, port)
    }

    /// A connection the server accepted and answered once: connections the server has not
    /// yet seen closed still count against the address for a moment, so it tries again.
    static func connectAnswered(_ port: Int) throws -> Int32 {
        for _ in 0..<100 {
            let socket = try connect(port)
            send(socket, "GET /api/none HTTP/1.1\r\nHost: localhost\r\n\r\n")
            if readResponse(socket).hasPrefix("HTTP/1.1 404") { return socket }
            close(socket)
            usleep(100_000)
        }
        throw CancellationError()
    }

    /// One response: its head, and as many body bytes as its Content-Length says.
    static func readResponse(_ fd: Int32) -> String {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let text = String(decoding: received, as: UTF8.self)
            if let end = text.range(of: "\r\n\r\n") {
                let length =
                    text[..<end.lowerBound].split(separator: "\r\n").first {
                        $0.lowercased().hasPrefix("content-length:")
                    }.flatMap { Int($0.dropFirst(15).trimmingCharacters(in: .whitespaces)) } ?? 0
                if text.utf8.count - text[..<end.upperBound].utf8.count >= length { return text }
            }
            let count = recv(fd, &buffer, buffer.count, 0)
            guard count > 0 else { return String(decoding: received, as: UTF8.self) }
            received += buffer[0..<count]
        }
    }

    @Test("Renders past the waiting bound are refused at once (busy), caching ones dropped; the rest run")
    func renderQueueBound() async throws {
        let queue = RenderQueue(width: 1, capacity: 2)
        let gate = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        let first = Task {
            try await queue.run(priority: .userInitiated, isCancelled: { false }) {
                started.signal()
                gate.wait()
                return 0
            }
        }
        started.wait()
        // Two wait for the one slot; the third finds the list full.
        let waiting = (1...2).map { n in
            Task { try await queue.run(priority: .userInitiated, isCancelled: { false }) { n } }
        }
        while queue.waitingCount < 2 { await Task.yield() }
        await #expect(throws: RenderQueue.Full.self) {
            try await queue.run(priority: .userInitiated, isCancelled: { false }) { 3 }
        }
        // Caching work has a list of its own, and what overflows it is dropped, not refused.
        let cached = (4...5).map { n in
            Task { try await queue.run(priority: .background, isCancelled: { false }) { n } }
        }
        while queue.waitingCount < 4 { await Task.yield() }
        await #expect(throws: CancellationError.self) {
            try await queue.run(priority: .background, isCancelled: { false }) { 6 }
        }
        gate.signal()
        #expect(try await first.value == 0)
        #expect(try await waiting[0].value + waiting[1].value == 3)
        #expect(try await cached[0].value + cached[1].value == 9)
    }

    /// A port no one listens on now.
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        try #require(bound)
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// A connected socket to 127.0.0.1:`port`, reads given up after `giveUpAfter` seconds.
    static func connect(_ port: Int, giveUpAfter seconds: Int = 30) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        try #require(connected, "cannot connect to port \(port)")
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        return fd
    }

    static func send(_ fd: Int32, _ text: String) {
        _ = text.utf8CString.withUnsafeBufferPointer {
            Glibc.send(fd, $0.baseAddress, $0.count - 1, Int32(MSG_NOSIGNAL))
        }
    }

    /// What the peer sends until it closes the connection (or the socket's read timeout
    /// passes: then "timed out").
    static func readUntilClosed(_ fd: Int32) -> String {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count > 0 {
                received += buffer[0..<count]
                continue
            }
            if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return "timed out" }
            return String(decoding: received, as: UTF8.self)
        }
    }
}
