import Foundation
import LightboxStore

extension PhotoLibrary {
    /// The library as limited access sees it: the same library, through which only the
    /// selected assets exist: in fetches and their counts, smart albums (counting those only),
    /// the selected albums (no other album, no folder), moments, images, history and changes,
    /// where a change to another asset does not appear at all. It reads; changes through it
    /// are refused.
    ///
    /// ```swift
    /// let limited = library.limited(to: LimitedSelection(albumIdentifiers: [trip.localIdentifier]))
    /// let count = try limited.fetchAssets().count   // the trip's photos only
    /// ```
    public func limited(to selection: LimitedSelection) -> PhotoLibrary {
        PhotoLibrary(
            url: url, store: LimitedStore(base: store, selection: selection), originals: originals,
            derivatives: derivatives)
    }

    /// Whether this is a limited view (``limited(to:)``), which reads a selection only.
    public var isLimited: Bool { store.isLimited }

    /// The identifiers among `identifiers` that name an album (or smart album) of the library.
    public func albumIdentifiers(among identifiers: [String]) throws -> Set<String> {
        let found = try fetchAssetCollections(withLocalIdentifiers: identifiers)
        return Set(found.objects(at: 0..<found.count).map(\.localIdentifier))
    }
}
