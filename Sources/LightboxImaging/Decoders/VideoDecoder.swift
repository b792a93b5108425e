import CVideo

/// Movies' poster frames through FFmpeg's libraries (the `CVideo` target): the first frame,
/// as RGB.
enum VideoDecoder {
    /// The most pixels a frame may have (an 8K frame is 33 MP).
    static let maximumPixels = 100_000_000
    /// Packets read before giving up on a frame: a damaged movie ends here, not at its end.
    static let maximumPackets = 2_000

    /// The first frame as stored, and the EXIF orientation (1, 3, 6 or 8) that turns it
    /// upright as the track's matrix asks.
    static func posterFrame(path: String) throws(ImagingError) -> (image: VipsImageRef, orientation: Int) {
        // Sample tables FFmpeg would index past any bound, refused first.
        let entries = try FileBytes.checkStructure(path)
        let pixels = MovieMemory.framePixels(of: path, atMost: maximumPixels)
        var frame = cvideo_frame()
        var message = [CChar](repeating: 0, count: 256)
        let status = try MovieMemory.withReservation(
            entries: entries, pixels: pixels, bytesPerPixel: MovieMemory.posterBytesPerPixel,
            for: "its poster frame", path: path
        ) { () throws(ImagingError) in
            cvideo_poster_frame(path, pixels, Int32(maximumPackets), &frame, &message, message.count)
        }
        let reason = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        switch status {
        case CVIDEO_OK: break
        case CVIDEO_UNREADABLE, CVIDEO_NO_VIDEO: throw ImagingError(.unreadable, reason, path: path)
        case CVIDEO_TOO_LARGE: throw ImagingError(.tooLarge, reason, path: path)
        case CVIDEO_UNAVAILABLE: throw ImagingError(.libraryUnavailable, reason, path: path)
        default: throw ImagingError(.corrupt, reason, path: path)
        }
        let orientation =
            switch frame.rotation {
            case 90: 6
            case 180: 3
            case 270: 8
            default: 1
            }
        guard let pixels = frame.pixels else {
            throw ImagingError(.corrupt, "the movie's frame has no pixels", path: path)
        }
        frame.pixels = nil
        // Plain pixels, as a JPEG's decode gives them: a poster frame's render never opens
        // libvips. The block is malloc'ed, which `PixelBuffers` takes back.
        return (
            VipsImageRef(
                pixels: UnsafeMutableRawPointer(pixels), width: Int(frame.width), height: Int(frame.height), bands: 3),
            orientation
        )
    }

    /// A movie's first frame, upright as its track's matrix turns it.
    static func decodeUpright(path: String, options: [RenderOptions]) throws(ImagingError) -> DecodedImage {
        let (stored, orientation) = try posterFrame(path: path)
        let properties = ImageProperties(
            storedWidth: stored.width, storedHeight: stored.height, orientation: orientation, loader: "ffmpeg")
        let image = try Vips.upright(
            stored, orientation: validOrientation(options.first?.orientation) ?? orientation, path: path)
        return DecodedImage(
            image: image, properties: properties, uprightWidth: image.width, uprightHeight: image.height,
            iccProfile: nil)
    }
}
