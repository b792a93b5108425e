import ArgumentParser
import Foundation
import Lightbox
import LightboxServer

#if canImport(Glibc)
    import Glibc
#endif

/// `lightbox user add|ls|passwd|rm`: the people who may sign in to `lightbox serve`.
struct UserCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "user",
        abstract: "Add, list, change and remove the users who sign in to the server.",
        discussion: """
            The first user owns this library and is an admin; each later user gets a library of \
            their own inside it (users/ID). A library with users is served only to those signed in \
            or holding a token; one without users is served on loopback alone.
            """,
        subcommands: [Add.self, List.self, Password.self, Remove.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add", abstract: "Add a user; the password is asked for (or read from standard input).")

        @OptionGroup var libraryOptions: LibraryOptions

        @Argument(help: "The name they sign in with: letters, digits, '.', '_', '-' or '@'.")
        var name: String

        @Option(help: "admin (adds and removes users) or member (default: admin for the first user, else member).")
        var role: UserAccount.Role?

        func run() async throws {
            let library = try libraryOptions.open()
            let accounts = try AccountsAccess.open(library)
            let password = try PasswordPrompt.read(confirming: true)
            let user = try await AccountsAccess.perform {
                try await accounts.addUser(name: name, password: password, role: role)
            }
            Output.message(
                "Added \(user.role.rawValue) \(user.name)"
                    + (user.libraryFolder.isEmpty
                        ? ", who owns this library" : ", with a library of their own (\(user.libraryFolder))"))
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "ls", abstract: "List the users.")

        @OptionGroup var libraryOptions: LibraryOptions

        @Flag(help: "One JSON object per line.")
        var json = false

        func run() async throws {
            let accounts = try AccountsAccess.open(try libraryOptions.open())
            let users = try await accounts.users()
            if users.isEmpty && !json { Output.message("No users: `lightbox user add NAME` adds the first") }
            for user in users {
                if json {
                    Output.jsonLine(
                        UserLine(
                            id: user.id, name: user.name, role: user.role.rawValue, library: user.libraryFolder,
                            creationDate: user.creationDate))
                } else {
                    Output.line(
                        "\(user.name)\t\(user.role.rawValue)\t\(user.libraryFolder.isEmpty ? "this library" : user.libraryFolder)"
                    )
                }
            }
        }

        struct UserLine: Encodable {
            var id: String
            var name: String
            var role: String
            var library: String
            var creationDate: Date
        }
    }

    struct Password: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "passwd", abstract: "Set a user's password; it signs them out everywhere.")

        @OptionGroup var libraryOptions: LibraryOptions

        @Argument(help: "The user.")
        var name: String

        func run() async throws {
            let accounts = try AccountsAccess.open(try libraryOptions.open())
            guard try await accounts.user(named: name) != nil else { throw CommandError("no user is called \(name)") }
            let password = try PasswordPrompt.read(confirming: true)
            try await AccountsAccess.perform { try await accounts.setPassword(name: name, password: password) }
            Output.message("Password of \(name) changed; their sessions have ended")
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rm", abstract: "Remove a user with their sessions and tokens (their library's folder stays).")

        @OptionGroup var libraryOptions: LibraryOptions

        @Argument(help: "The user.")
        var name: String

        func run() async throws {
            let library = try libraryOptions.open()
            let accounts = try AccountsAccess.open(library)
            let user = try await AccountsAccess.perform { try await accounts.removeUser(name: name) }
            Output.message(
                "Removed \(user.name)"
                    + (user.libraryFolder.isEmpty
                        ? ""
                        : "; their library stays at \(library.url.appendingPathComponent(user.libraryFolder).path)"))
        }
    }
}

extension UserAccount.Role: ExpressibleByArgument {}

/// The accounts beside a library, for the commands.
enum AccountsAccess {
    static func open(_ library: PhotoLibrary) throws -> Accounts {
        do {
            return try Accounts(library: library)
        } catch let error as LibraryError {
            throw CommandError("cannot open the library's accounts: \(error)")
        }
    }

    /// The accounts of the library `options` name, and the user called `name` (or the only
    /// user, or the first admin): what every token and share command starts from.
    static func open(_ options: LibraryOptions, user name: String?) async throws -> (Accounts, UserAccount) {
        let accounts = try open(try options.open())
        return (accounts, try await TokenCommand.user(name, in: accounts))
    }

    /// A user's own library: the first user's is the server's, the others' inside it.
    static func library(of user: UserAccount, in home: PhotoLibrary) throws -> PhotoLibrary {
        guard !user.libraryFolder.isEmpty else { return home }
        do {
            return try home.memberLibrary(folder: user.libraryFolder)
        } catch let error as LibraryError {
            throw CommandError(error.message)
        }
    }

    /// Runs an accounts operation, its refusals as messages.
    static func perform<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as LibraryError {
            throw CommandError(error.message)
        }
    }
}

/// A password read without echo from the terminal, or as one line from standard input when it
/// is not a terminal (`echo "$PASSWORD" | lightbox user add ann`): never from the command line,
/// where other users of the machine see it in the process list.
enum PasswordPrompt {
    static func read(confirming: Bool) throws -> String {
        guard isatty(STDIN_FILENO) == 1 else {
            guard let line = Swift.readLine(strippingNewline: true), !line.isEmpty else {
                throw CommandError("no password on standard input")
            }
            return line
        }
        let first = try silently("Password: ")
        if confirming {
            let second = try silently("Again: ")
            guard first == second else { throw CommandError("the two passwords differ") }
        }
        return first
    }

    private static func silently(_ prompt: String) throws -> String {
        FileHandle.standardError.write(Data(prompt.utf8))
        var saved = termios()
        tcgetattr(STDIN_FILENO, &saved)
        var quiet = saved
        quiet.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet)
        defer {
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved)
            FileHandle.standardError.write(Data("\n".utf8))
        }
        guard let line = Swift.readLine(strippingNewline: true) else { throw CommandError("no password given") }
        return line
    }
}
