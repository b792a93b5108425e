import Foundation
import Testing

@testable import LightboxMetadata

@Suite("Paths taken apart without NSString")
struct PathStringTests {
    /// Paths NSString takes apart on Linux without stopping: the answers must be its answers.
    static let ordinary = [
        "", "/", "a.jpg", "/a", "a/b", "a/b.jpg", "a/b/", "a//b", "/a/b.tar.gz", ".profile", "a/.profile",
        "b.", "a.b/c", "IMG_0001.JPG", "/tmp/x/IMG_0001.HEIC", "dir.d/file", "a/b.jpg/", "x y/z w.png",
    ]

    @Test("The same answers as NSString wherever it answers")
    func sameAsFoundation() {
        for path in Self.ordinary {
            let ns = path as NSString
            #expect(PathString.lastComponent(path) == ns.lastPathComponent, "\(path)")
            #expect(PathString.deletingLastComponent(path) == ns.deletingLastPathComponent, "\(path)")
            #expect(PathString.pathExtension(path) == ns.pathExtension, "\(path)")
            // NSString makes a run of slashes one here; the path names the same file either way.
            #expect(
                PathString.deletingPathExtension(path) == ns.deletingPathExtension
                    || PathString.deletingPathExtension(path).replacingOccurrences(of: "//", with: "/")
                        == ns.deletingPathExtension,
                "\(path)")
        }
    }

    /// Names that stop Foundation's NSString methods on Linux (the fuzzer's upload name first).
    @Test("Names that stop Foundation are taken apart")
    func hostileNames() {
        #expect(PathString.lastComponent("//\u{FFFD}") == "\u{FFFD}")
        #expect(PathString.lastComponent("x//é") == "é")
        #expect(PathString.pathExtension("x//é.jpg") == "jpg")
        #expect(PathString.deletingLastComponent("é/") == "")
        // Even a name of one character stops NSString's deletingLastPathComponent.
        #expect(PathString.deletingLastComponent("a") == "")
        #expect(PathString.deletingLastComponent("x//é") == "x")
        #expect(PathString.stem("//été.HEIC") == "été")
        #expect(PathString.deletingPathExtension("é//") == "é")
        #expect(PathString.appending("a", "b.jpg") == "a/b.jpg")
        #expect(PathString.appending("a/", "b.jpg") == "a/b.jpg")
        #expect(PathString.appending("", "b.jpg") == "b.jpg")
    }
}
