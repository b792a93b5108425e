/// One file behind an asset (PhotoKit's `PHAssetResource`). Originals are never modified.
public struct AssetResource: Sendable, Hashable {
    /// The local identifier of the asset the resource belongs to.
    public var assetLocalIdentifier: String
    /// The file's role: the photo, its paired video, a rendered edit, ...
    public var type: AssetResourceType
    /// The file's name when it was imported.
    public var originalFilename: String
    /// The file's Uniform Type Identifier, e.g. "public.jpeg".
    public var uniformTypeIdentifier: String
    /// Size of the file in bytes.
    public var fileSize: Int64
    /// Stored pixel width (before orientation), 0 when unknown.
    public var pixelWidth: Int
    /// Stored pixel height (before orientation), 0 when unknown.
    public var pixelHeight: Int
    /// SHA-256 of the file's bytes, lowercase hex: the key of its content-addressed file.
    public var sha256: String

    /// A resource with every field given.
    public init(
        assetLocalIdentifier: String, type: AssetResourceType, originalFilename: String,
        uniformTypeIdentifier: String, fileSize: Int64, pixelWidth: Int, pixelHeight: Int, sha256: String
    ) {
        self.assetLocalIdentifier = assetLocalIdentifier
        self.type = type
        self.originalFilename = originalFilename
        self.uniformTypeIdentifier = uniformTypeIdentifier
        self.fileSize = fileSize
        self.pixelWidth = pixelWidth
        self.pixelHeight = pixelHeight
        self.sha256 = sha256
    }
}
