import Foundation
import LightboxStore

extension PhotoLibrary {
    /// The token of the library's present state.
    public func currentChangeToken() throws -> PersistentChangeToken {
        PersistentChangeToken(rawValue: try store.read { try $0.lastChangeTransaction() })
    }

    /// Every transaction committed after `token`, oldest first (PhotoKit's
    /// `fetchPersistentChanges(since:)`), whoever made it: this process or another.
    ///
    /// Throws ``LibraryError/Code-swift.struct/persistentChangeTokenExpired`` when the history
    /// after `token` has been pruned (see ``HistoryRetention``): the caller must then read
    /// the library afresh; and ``LibraryError/Code-swift.struct/invalidRequest`` for a token
    /// newer than the library's (from another library, or one restored from a backup).
    ///
    /// - Parameter limit: at most this many transactions (the oldest); the last one's token
    ///   asks for the next ones. Nil for all.
    public func fetchPersistentChanges(since token: PersistentChangeToken, limit: Int? = nil) throws
        -> [PersistentChange]
    {
        try store.read { store in
            let floor = try store.historyFloor()
            guard token.rawValue >= floor else {
                throw LibraryError(
                    .persistentChangeTokenExpired,
                    "change token \(token) is older than the history the library keeps (from \(floor)); fetch again")
            }
            let current = try store.lastChangeTransaction()
            guard token.rawValue <= current else {
                throw LibraryError(
                    .invalidRequest,
                    "change token \(token) is newer than the library's, \(current): it comes from another library, "
                        + "or from this one before a backup was restored; fetch again")
            }
            return try store.changes(after: token.rawValue, limit: limit)
        }
    }
}
