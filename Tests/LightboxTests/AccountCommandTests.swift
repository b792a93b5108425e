import Foundation
import Lightbox
import LightboxTestSupport
import Testing

/// `lightbox user` and `lightbox token`, and `serve` refusing the network without users: run
/// as a user would, passwords on standard input.
@Suite("Users and tokens on the command line")
struct AccountCommandTests {
    typealias CLI = CommandLineTests

    @Test("Users added, listed and refused; tokens made, listed, revoked; serve stays on loopback without users")
    func accounts() throws {
        let folder = try TemporaryDirectory()
        let library = folder.path("Home.lightbox")
        let photo = try #require(try Corpus.photoPaths().first)
        #expect(try CLI.run(["import", "--library", library, photo]).status == 0)

        let exposed = try CLI.run(["serve", "--library", library, "--host", "0.0.0.0", "--port", "1"])
        #expect(exposed.status != 0)
        #expect(exposed.stderr.contains("lightbox user add"))

        var run = try CLI.run(["user", "add", "ann", "--library", library], input: "ann's password\n")
        #expect(run.status == 0 && run.stderr.contains("Added admin ann"), "\(run.stderr)")
        run = try CLI.run(["user", "add", "bob", "--library", library], input: "bob's password\n")
        #expect(run.status == 0 && run.stderr.contains("member bob") && run.stderr.contains("users/"))
        run = try CLI.run(["user", "add", "carl", "--library", library], input: "short\n")
        #expect(run.status != 0 && run.stderr.contains("at least 8"))
        run = try CLI.run(["user", "add", "ANN", "--library", library], input: "another password\n")
        #expect(run.status != 0 && run.stderr.contains("already called"))
        let users = try CLI.run(["user", "ls", "--json", "--library", library]).jsonLines()
        #expect(users.compactMap { $0["name"] as? String } == ["ann", "bob"])
        #expect(users.compactMap { $0["role"] as? String } == ["admin", "member"])
        #expect(!(try CLI.run(["user", "ls", "--json", "--library", library]).stdout.contains("scrypt")))
        run = try CLI.run(["user", "rm", "ann", "--library", library])
        #expect(run.status != 0 && run.stderr.contains("last admin"))

        run = try CLI.run([
            "token", "create", "--user", "ann", "--scope", "read", "--expires", "30d", "--library", library,
        ])
        #expect(run.status == 0)
        let secret = run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(secret.hasPrefix("lbx_") && secret.count > 40)
        let listed = try CLI.run(["token", "ls", "--user", "ann", "--library", library]).stdout
        let id = try #require(listed.split(separator: "\t").first.map(String.init))
        #expect(listed.contains("read") && listed.contains("expires") && !listed.contains(secret))
        // A limited token reads; one that would write is refused.
        let asset = try #require(try PhotoLibrary(url: URL(fileURLWithPath: library)).assets().first?.localIdentifier)
        run = try CLI.run([
            "token", "create", "--user", "ann", "--limited-to", asset, "--scope", "write", "--library", library,
        ])
        #expect(run.status != 0 && run.stderr.contains("read"))
        run = try CLI.run(["token", "create", "--user", "ann", "--limited-to", asset, "--library", library])
        #expect(run.status == 0 && run.stderr.contains("limited to 1"))
        #expect(try CLI.run(["token", "revoke", id, "--user", "ann", "--library", library]).status == 0)
        #expect(!(try CLI.run(["token", "ls", "--user", "ann", "--library", library]).stdout.contains(id)))
    }

    @Test("Albums shared with a user and by link: made, listed on both sides, refused for a smart album, ended")
    func shares() throws {
        let folder = try TemporaryDirectory()
        let library = folder.path("Home.lightbox")
        let photo = try #require(try Corpus.photoPaths().first)
        #expect(try CLI.run(["import", "--library", library, photo]).status == 0)
        #expect(try CLI.run(["album", "create", "Trip", "--library", library]).status == 0)
        for name in ["ann", "bob"] {
            #expect(
                try CLI.run(["user", "add", name, "--library", library], input: "\(name)'s password\n").status == 0)
        }
        var run = try CLI.run(["share", "add", "Trip", "--with", "bob", "--contribute", "--library", library])
        #expect(run.status == 0, "\(run.stderr)")
        let shareID = run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        run = try CLI.run(["share", "add", "Favorites", "--with", "bob", "--library", library])
        #expect(run.status != 0 && run.stderr.contains("only an album"), "\(run.stderr)")
        run = try CLI.run(["share", "add", "Trip", "--with", "nobody", "--library", library])
        #expect(run.status != 0 && run.stderr.contains("no user is called nobody"))
        run = try CLI.run(
            ["share", "link", "Trip", "--expires", "7d", "--password", "--library", library], input: "link password\n")
        #expect(run.status == 0 && run.stdout.hasPrefix("/s/") && run.stderr.contains("with a password"))
        let key = String(run.stdout.trimmingCharacters(in: .whitespacesAndNewlines).dropFirst(3))

        let made = try CLI.run(["share", "ls", "--user", "ann", "--library", library]).stdout
        #expect(made.contains("with bob") && made.contains("contribute") && made.contains("/s/" + key))
        #expect(made.contains("(password)") && made.contains("until"))
        let received = try CLI.run(["share", "ls", "--user", "bob", "--library", library]).stdout
        #expect(received.contains(shareID) && received.contains("from ann") && !received.contains(key))
        // The recipient may leave; then neither side lists it.
        #expect(try CLI.run(["share", "rm", shareID, "--user", "bob", "--library", library]).status == 0)
        #expect(!(try CLI.run(["share", "ls", "--user", "ann", "--library", library]).stdout.contains("with bob")))
        run = try CLI.run(["share", "rm", shareID, "--user", "ann", "--library", library])
        #expect(run.status != 0 && run.stderr.contains("shares nothing"))
    }
}
