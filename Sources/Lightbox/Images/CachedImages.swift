import Foundation
import LightboxImaging
import LightboxStore

extension DerivativeStorage {
    /// A cached image with its size, read from the bytes (no second read, no decode); nil when
    /// absent or not an image.
    func cachedImage(localIdentifier: String, key: String, format: EncodedImageFormat) -> EncodedImage? {
        guard let bytes = cached(localIdentifier: localIdentifier, key: key),
            let size = try? ImageFile.size(ofEncoded: bytes)
        else { return nil }
        return EncodedImage(bytes: bytes, format: format, pixelWidth: size.width, pixelHeight: size.height)
    }
}
