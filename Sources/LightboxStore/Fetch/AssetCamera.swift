import Foundation

/// A camera and lens some assets of a fetch result were taken with, and how many: what a
/// search offers to filter by. The fields are as the originals name them (see
/// ``Asset/cameraModel``); all nil for the assets whose files name no camera.
public struct AssetCamera: Sendable, Hashable, Encodable {
    public var make: String?
    public var model: String?
    public var lensModel: String?
    public var count: Int

    public init(make: String?, model: String?, lensModel: String?, count: Int) {
        self.make = make
        self.model = model
        self.lensModel = lensModel
        self.count = count
    }
}
