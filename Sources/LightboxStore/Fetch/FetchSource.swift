import Foundation

/// An object a fetch can return: an immutable snapshot with a stable identifier.
public protocol FetchableObject: Sendable {
    /// Stable identifier, unique in the library.
    var localIdentifier: String { get }
}

/// Where a fetched result reads its rows, given by the store: one state of the catalog that
/// later commits do not change (a database snapshot), holding the fetch's row ids in order
/// and its objects by row id.
package protocol FetchSource<Object>: Sendable {
    associatedtype Object
    /// The fetch limit; 0 for none.
    var limit: Int { get }
    /// Whether ``count(mediaType:)`` counts (asset fetches).
    var countsMediaTypes: Bool { get }
    /// `count` row ids from `offset` (all the rest when `count` is negative), in order.
    func rowIDs(offset: Int, count: Int) throws -> [Int64]
    /// The number of rows, the limit applied.
    func count() throws -> Int
    /// The number of rows of one media type, the limit applied.
    func count(mediaType: Int) throws -> Int
    /// The objects of these rows, by row id.
    func objects(_ rowIDs: [Int64]) throws -> [Int64: Object]
    /// The row ids of the objects with these identifiers (those that exist).
    func rowIDs(forLocalIdentifiers identifiers: [String]) throws -> [Int64]
    /// For asset fetches read by a query: the days the rows were taken on, as runs in order
    /// (see ``FetchResult/creationDays(aspectRatios:)``); nil where the source cannot say at once.
    func creationDays(aspectRatios: Bool) throws -> [AssetDay]?
    /// For asset fetches read by a query: the rows' cameras and lenses with their counts, at
    /// most `limit` of them (see ``FetchResult/cameras(limit:)``); nil where the source cannot
    /// say at once.
    func cameras(limit: Int?) throws -> [AssetCamera]?
}

extension FetchSource {
    package func creationDays(aspectRatios: Bool) throws -> [AssetDay]? { nil }
    package func cameras(limit: Int?) throws -> [AssetCamera]? { nil }
}
