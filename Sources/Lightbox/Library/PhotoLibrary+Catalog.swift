import Foundation
import LightboxStore

extension PhotoLibrary {
    /// The accounts (users, sessions, tokens, shares) of the server serving this library: with
    /// its catalog on PostgreSQL, tables beside it that every server of the library shares;
    /// else `accounts.sqlite` in its folder.
    public func accountStore() throws -> any AccountStore {
        try store.accountStore(libraryFolder: url)
    }
}

extension PhotoLibrary {
    /// The library of one of this library's server's members, in `folder` inside this one's
    /// (`users/ID`), made on first use. On PostgreSQL it is a schema of its own in the same
    /// database, its originals under the same bucket's prefix, so that every server of the
    /// library opens the same one from a folder of its own.
    public func memberLibrary(
        folder: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> PhotoLibrary {
        let memberURL = try UserAccount.libraryURL(folder: folder, inside: url)
        guard memberURL != url else {
            throw LibraryError(.invalidRequest, "a member's library needs a folder of its own")
        }
        guard let address = try store.memberAddress(schema: Self.memberSchema(folder: folder)) else {
            return try PhotoLibrary(url: memberURL)
        }
        var originals = try store.sharedOriginals()
        if let shared = originals { originals?.url = shared.url + "/" + folder }
        return try PhotoLibrary(url: memberURL, originals: originals, database: address, environment: environment)
    }
}
