import ArgumentParser
import LightboxImaging

/// `--size` of the thumbnail commands: `512` (the long edge, or the side of a square filled)
/// or `512x384` (a box), in pixels, 1 to 8192 each.
struct SizeArgument: ExpressibleByArgument, Sendable {
    var width: Int
    var height: Int

    static let sides = 1...8192

    init?(argument: String) {
        let parts = argument.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let width = Int(parts[0]), let height = Int(parts.last!),
            Self.sides.contains(width), Self.sides.contains(height)
        else { return nil }
        (self.width, self.height) = (width, height)
    }

    static var defaultCompletionKind: CompletionKind { .default }
}

/// `--size` and `--mode`, shared by `thumbnail` (files on disk) and `asset-thumbnail`.
struct ThumbnailSizeOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "512: the long edge (fit) or the square's side (fill); 512x384: the box, in pixels (1...8192).",
            valueName: "N|WxH"))
    var size: SizeArgument

    @Option(help: "fit: the whole image inside the size; fill: the size filled, cropped around the centre.")
    var mode: String = ContentMode.aspectFit.rawValue

    func validate() throws {
        guard ContentMode(rawValue: mode) != nil else {
            throw ValidationError("--mode must be fit or fill, not \(mode)")
        }
    }

    /// The mode, checked by `validate`.
    var contentMode: ContentMode { ContentMode(rawValue: mode) ?? .aspectFit }
}
