import ArgumentParser
import Foundation
import Lightbox
import LightboxServer

/// `lightbox share add|link|ls|rm`: albums shared with other users and by link.
struct ShareCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "share",
        abstract: "Share albums with other users of the server, or by link.",
        subcommands: [Add.self, Link.self, List.self, Remove.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Share an album with another user: they see it (and, with --contribute, add to it).")

        @OptionGroup var libraryOptions: LibraryOptions

        @Option(help: "The album's owner (default: the only user, or the first admin).")
        var user: String?

        @Option(name: .customLong("with"), help: "The user to share it with.")
        var recipient: String

        @Flag(help: "Let them add photos and movies to the album.")
        var contribute = false

        @Argument(help: "The album: its identifier or its title.")
        var album: String

        func run() async throws {
            let (accounts, owner, identifier) = try await ShareCommand.album(album, of: user, libraryOptions)
            let share = try await AccountsAccess.perform {
                try await accounts.shareAlbum(
                    identifier, of: owner, with: recipient, permission: contribute ? .contribute : .view)
            }
            Output.line(share.id)
            Output.message(
                "Shared with \(recipient) to \(contribute ? "view and contribute to" : "view"): they find it in their shares"
            )
        }
    }

    struct Link: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "link",
            abstract: "Make a link that shows an album to whoever holds it, read-only; its path is printed.")

        @OptionGroup var libraryOptions: LibraryOptions

        @Option(help: "The album's owner (default: the only user, or the first admin).")
        var user: String?

        @Option(help: "When it stops working: a number of days (30d) or hours (12h).")
        var expires: String?

        @Flag(help: "Ask for a password the link's visitors must give (or read it from standard input).")
        var password = false

        @Argument(help: "The album: its identifier or its title.")
        var album: String

        func run() async throws {
            let (accounts, owner, identifier) = try await ShareCommand.album(album, of: user, libraryOptions)
            let expiry = try expires.map(TokenCommand.expiry)
            let secret = password ? try PasswordPrompt.read(confirming: true) : nil
            let share = try await AccountsAccess.perform {
                try await accounts.createLink(to: identifier, of: owner, password: secret, expires: expiry)
            }
            Output.line("/s/" + (share.linkKey ?? ""))
            Output.message(
                "Link \(share.id): the path above on the server's address"
                    + (expiry.map { ", until \(ISO8601DateFormatter().string(from: $0))" } ?? "")
                    + (secret == nil ? "" : ", with a password"))
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "ls", abstract: "List the albums a user shares, and those shared with them.")

        @OptionGroup var libraryOptions: LibraryOptions

        @Option(help: "The user (default: the only user, or the first admin).")
        var user: String?

        func run() async throws {
            let (accounts, owner) = try await AccountsAccess.open(libraryOptions, user: user)
            let formatter = ISO8601DateFormatter()
            let names = Dictionary(try await accounts.users().map { ($0.id, $0.name) }, uniquingKeysWith: { a, _ in a })
            for share in try await accounts.sharesMade(by: owner) {
                let audience: String
                switch share.audience {
                case .user(let id): audience = "with " + (names[id] ?? id)
                case .link(let key):
                    audience =
                        "link /s/\(key)" + (share.passwordHash == nil ? "" : " (password)")
                        + (share.expirationDate.map { " until " + formatter.string(from: $0) } ?? "")
                }
                Output.line(
                    [share.id, share.albumIdentifier, share.permission.rawValue, audience].joined(separator: "\t"))
            }
            for shared in try await accounts.sharesReceived(by: owner) {
                Output.line(
                    [
                        shared.share.id, shared.share.albumIdentifier, shared.share.permission.rawValue,
                        "from " + shared.owner.name,
                    ].joined(separator: "\t"))
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rm", abstract: "Stop sharing (a user's share or a link), or leave a share.")

        @OptionGroup var libraryOptions: LibraryOptions

        @Option(help: "The user (default: the only user, or the first admin).")
        var user: String?

        @Argument(help: "The share's identifier (lightbox share ls).")
        var id: String

        func run() async throws {
            let (accounts, owner) = try await AccountsAccess.open(libraryOptions, user: user)
            guard try await accounts.endShare(id: id, by: owner) else {
                throw CommandError("\(owner.name) shares nothing as \(id), and nothing is shared with them so")
            }
            Output.message("Share \(id) ended")
        }
    }

    /// The accounts, the owner (`name`, or the only user, or the first admin) and the album
    /// `text` names in their library: a user album, not a smart album.
    static func album(_ text: String, of name: String?, _ options: LibraryOptions) async throws -> (
        Accounts, UserAccount, String
    ) {
        let home = try options.open()
        let accounts = try AccountsAccess.open(home)
        let owner = try await TokenCommand.user(name, in: accounts)
        let library = try AccountsAccess.library(of: owner, in: home)
        let identifier = try Names(library: library).assetCollection(text)
        guard
            try library.fetchAssetCollections(withLocalIdentifiers: [identifier]).firstObject?.assetCollectionType
                == .album
        else {
            throw CommandError("only an album is shared: \(text) is a smart album or a moment")
        }
        return (accounts, owner, identifier)
    }
}
