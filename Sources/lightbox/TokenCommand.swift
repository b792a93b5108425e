import ArgumentParser
import Foundation
import Lightbox
import LightboxServer

/// `lightbox token create|ls|revoke`: bearer tokens for apps and scripts.
struct TokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Make, list and revoke the tokens apps and scripts use (Authorization: Bearer ...).",
        subcommands: [Create.self, List.self, Revoke.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "create",
            abstract: "Make a token for a user; its secret is printed once, and never kept.")

        @OptionGroup var libraryOptions: LibraryOptions

        @Option(help: "The user the token acts for (default: the only user, or the first admin).")
        var user: String?

        @Option(help: "What to call it, to recognise it in lists.")
        var name = "token"

        @Option(help: "read (fetches, images, changes) or write (changes to the library too).")
        var scope: AccessToken.Scope = .read

        @Option(help: "When it stops working: a number of days (30d) or hours (12h).")
        var expires: String?

        @Option(
            name: .customLong("limited-to"), parsing: .upToNextOption,
            help: ArgumentHelp(
                "PhotoKit's limited access: the token sees only these assets, and the assets of these albums (identifiers; read scope).",
                valueName: "ALBUM_OR_ID"))
        var limitedTo: [String] = []

        func run() async throws {
            let home = try libraryOptions.open()
            let accounts = try AccountsAccess.open(home)
            let owner = try await TokenCommand.user(user, in: accounts)
            let expiry = try expires.map(TokenCommand.expiry)
            var selection: [String]?
            if !limitedTo.isEmpty {
                let library = try AccountsAccess.library(of: owner, in: home)
                let albums = try library.albumIdentifiers(among: limitedTo)
                let names = Names(library: library)
                selection = try limitedTo.map { albums.contains($0) ? $0 : try names.asset($0) }
            }
            let limited = selection
            let (token, secret) = try await AccountsAccess.perform {
                try await accounts.createToken(
                    for: owner, name: name, scope: scope, limitedTo: limited, expires: expiry)
            }
            Output.line(secret)
            Output.message(
                "Token \(token.id) (\(token.scope.rawValue)"
                    + (token.limitedTo.map {
                        ", limited to \($0.count) asset\($0.count == 1 ? "" : "s") or album\($0.count == 1 ? "" : "s")"
                    } ?? "")
                    + ") for \(owner.name)"
                    + (expiry.map { ", until \(ISO8601DateFormatter().string(from: $0))" } ?? "")
                    + ": keep the line above secret; it is not shown again")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "ls", abstract: "List a user's tokens.")

        @OptionGroup var libraryOptions: LibraryOptions

        @Option(help: "The user (default: the only user, or the first admin).")
        var user: String?

        func run() async throws {
            let (accounts, owner) = try await AccountsAccess.open(libraryOptions, user: user)
            let formatter = ISO8601DateFormatter()
            for token in try await accounts.tokens(of: owner) {
                Output.line(
                    [
                        token.id, token.name, token.scope.rawValue,
                        token.expirationDate.map { "expires " + formatter.string(from: $0) } ?? "no expiry",
                        token.lastUsedDate.map { "used " + formatter.string(from: $0) } ?? "never used",
                    ].joined(separator: "\t"))
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "revoke", abstract: "Revoke a token at once.")

        @OptionGroup var libraryOptions: LibraryOptions

        @Option(help: "The user (default: the only user, or the first admin).")
        var user: String?

        @Argument(help: "The token's identifier (lightbox token ls).")
        var id: String

        func run() async throws {
            let (accounts, owner) = try await AccountsAccess.open(libraryOptions, user: user)
            guard try await accounts.revokeToken(id: id, of: owner) else {
                throw CommandError("\(owner.name) has no token \(id)")
            }
            Output.message("Token \(id) revoked")
        }
    }

    /// The named user, or the only one, or the first admin.
    static func user(_ name: String?, in accounts: Accounts) async throws -> UserAccount {
        if let name {
            guard let user = try await accounts.user(named: name) else {
                throw CommandError("no user is called \(name)")
            }
            return user
        }
        let users = try await accounts.users()
        guard let user = users.count == 1 ? users[0] : users.first(where: { $0.role == .admin }) else {
            throw CommandError("the library has no users: `lightbox user add NAME` adds the first")
        }
        return user
    }

    /// `30d` or `12h` from now.
    static func expiry(_ text: String) throws -> Date {
        let unit = text.last
        guard let unit, unit == "d" || unit == "h", let count = Int(text.dropLast()), count > 0,
            count <= (unit == "d" ? 3650 : 87600)
        else { throw ValidationError("--expires takes days or hours, such as 30d or 12h (at most ten years)") }
        return Date().addingTimeInterval(Double(count) * (unit == "d" ? 86400 : 3600))
    }
}

extension AccessToken.Scope: ExpressibleByArgument {}
