/// What libvips reads from a file's header: its stored size and orientation.
public struct ImageProperties: Sendable, Hashable {
    /// Width of the stored pixels, before orientation is applied.
    public var storedWidth: Int
    /// Height of the stored pixels, before orientation is applied.
    public var storedHeight: Int
    /// EXIF orientation, 1...8 (1 when the file has none).
    public var orientation: Int
    /// The libvips loader that recognised the file, e.g. "jpegload".
    public var loader: String?

    /// True when the orientation turns the image a quarter turn (5...8), swapping width and height.
    public var orientationSwapsAxes: Bool { (5...8).contains(orientation) }

    /// Width as displayed, after orientation.
    public var pixelWidth: Int { orientationSwapsAxes ? storedHeight : storedWidth }
    /// Height as displayed, after orientation.
    public var pixelHeight: Int { orientationSwapsAxes ? storedWidth : storedHeight }
}
