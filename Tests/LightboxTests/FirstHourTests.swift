import Foundation
import Lightbox
import LightboxTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// What a new user meets in the first hour with `lightbox`: mistakes get a clear answer and
/// leave nothing behind.
@Suite("The first hour")
struct FirstHourTests {
    typealias CLI = CommandLineTests

    @Test("A command other than import makes no library where there is none")
    func noLibraryIsMade() throws {
        let empty = try TemporaryDirectory()
        let listed = try CLI.run(["ls"], currentDirectory: empty.url.path)
        #expect(listed.status == 1)
        #expect(listed.stderr.contains("no library at Photos.lightbox (lightbox import creates one)"), "\(listed.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: empty.url.path).isEmpty)

        let missing = empty.path("nowhere/X.lightbox")
        for command in [["serve"], ["album", "create", "Iceland"], ["history"], ["show", "ID"]] {
            let run = try CLI.run(command + ["--library", missing])
            #expect(run.status == 1, "\(command)")
            #expect(run.stderr.contains("no library at \(missing) (lightbox import creates one)"), "\(command): \(run.stderr)")
            #expect(!run.stderr.contains("Serving"))
        }
        #expect(!FileManager.default.fileExists(atPath: empty.path("nowhere")))
    }

    @Test("serve on a port in use says so, and never that it serves")
    func busyPort() throws {
        let folder = try TemporaryDirectory()
        _ = try folder.makeLibrary()
        // A socket of this process holds a port.
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #expect(fd >= 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        #expect(bound == 0 && listen(fd, 1) == 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        let port = Int(UInt16(bigEndian: address.sin_port))
        let run = try CLI.run(["serve", "--library", folder.path("Test.lightbox"), "--port", "\(port)"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("port \(port) on 127.0.0.1 is in use"), "\(run.stderr)")
        #expect(!run.stderr.contains("Serving"), "\(run.stderr)")
    }
}
