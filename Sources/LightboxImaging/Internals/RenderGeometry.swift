/// The arithmetic of a render, in the upright image's pixels: the region to show, the scale it
/// is shown at, and the size that comes out. Pure, so that every option's geometry is tested
/// without decoding.
struct RenderGeometry: Hashable {
    /// The full image, upright.
    let uprightWidth: Int
    let uprightHeight: Int
    /// The region shown, in upright pixels of the full image.
    let cropX: Double
    let cropY: Double
    let cropWidth: Double
    let cropHeight: Double
    /// Output pixels per upright pixel of the full image.
    let scale: Double
    /// The exact result: the fitted size, or the filled box.
    let outputWidth: Int
    let outputHeight: Int
    /// The region scaled, before a fill trims it to the box.
    let scaledWidth: Int
    let scaledHeight: Int

    init(uprightWidth: Int, uprightHeight: Int, options: RenderOptions) {
        self.uprightWidth = max(1, uprightWidth)
        self.uprightHeight = max(1, uprightHeight)
        let crop = options.normalizedCropRect.flatMap { $0.isValid ? $0 : nil } ?? .full
        let (width, height) = (Double(self.uprightWidth), Double(self.uprightHeight))
        cropX = (crop.x * width).rounded(.down)
        cropY = (crop.y * height).rounded(.down)
        cropWidth = max(1, min(width - cropX, (crop.width * width).rounded()))
        cropHeight = max(1, min(height - cropY, (crop.height * height).rounded()))
        let boxWidth = Double(max(1, options.width))
        let boxHeight = Double(max(1, options.height))
        let fill = options.contentMode == .aspectFill
        var scale =
            fill
            ? max(boxWidth / cropWidth, boxHeight / cropHeight) : min(boxWidth / cropWidth, boxHeight / cropHeight)
        if !options.allowsUpscaling { scale = min(scale, 1) }
        self.scale = scale
        scaledWidth = max(1, Int((cropWidth * scale).rounded()))
        scaledHeight = max(1, Int((cropHeight * scale).rounded()))
        if fill {
            outputWidth = min(scaledWidth, Int(boxWidth))
            outputHeight = min(scaledHeight, Int(boxHeight))
        } else {
            outputWidth = min(scaledWidth, max(1, Int(boxWidth)))
            outputHeight = min(scaledHeight, max(1, Int(boxHeight)))
        }
    }

    /// The largest of `factors` a decoder may shrink the full image by on load and still give
    /// at least `gap` times the pixels the output needs across and down. A JPEG's DCT scaling
    /// needs no more than the output (gap 1); a box average leaves its blur in the result
    /// unless the resize after it still reduces by a good part (see `HEIFDecoder.shrinkGap`).
    func loadShrink(among factors: [Int], gap: Double = 1) -> Int {
        factors.filter { Double($0) * scale * gap <= 1.000_001 }.max() ?? 1
    }

    /// The crop region in an upright image decoded at `decodedWidth`x`decodedHeight` (the full
    /// image shrunk on load), clamped inside it.
    func cropRegion(decodedWidth: Int, decodedHeight: Int) -> (left: Int, top: Int, width: Int, height: Int) {
        let sx = Double(decodedWidth) / Double(uprightWidth)
        let sy = Double(decodedHeight) / Double(uprightHeight)
        let left = min(decodedWidth - 1, max(0, Int((cropX * sx).rounded(.down))))
        let top = min(decodedHeight - 1, max(0, Int((cropY * sy).rounded(.down))))
        let width = max(1, min(decodedWidth - left, Int((cropWidth * sx).rounded())))
        let height = max(1, min(decodedHeight - top, Int((cropHeight * sy).rounded())))
        return (left, top, width, height)
    }
}
