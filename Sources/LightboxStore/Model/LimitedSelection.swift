import Foundation

/// PhotoKit's limited access (`PHAuthorizationStatus.limited`): the assets an owner chose for
/// an app, named one by one or as albums whose assets they all are (an album's assets added
/// later are chosen too).
public struct LimitedSelection: Sendable, Hashable {
    /// The most identifiers a selection names.
    public static let maximumIdentifiers = 10_000

    public var assetIdentifiers: [String]
    public var albumIdentifiers: [String]

    public init(assetIdentifiers: [String] = [], albumIdentifiers: [String] = []) {
        self.assetIdentifiers = assetIdentifiers
        self.albumIdentifiers = albumIdentifiers
    }
}
