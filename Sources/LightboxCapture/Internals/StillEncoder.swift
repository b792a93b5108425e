import CHEIF
import CJPEG
import Foundation
import LightboxMetadata

/// A captured frame made into a photo file: HEIC (HEVC by libheif) from the frame's own 4:2:0
/// planes, or JPEG (libjpeg-turbo) from RGB; with the EXIF block a camera writes, the Apple
/// maker note that pairs a Live Photo and gathers a burst, and an embedded thumbnail.
enum StillEncoder {
    /// libheif's quality for HEIC and libjpeg's for JPEG: close to what phones write.
    static let heicQuality = 80
    static let jpegQuality = 92
    /// x265's speed for HEIC, in place of libheif's default, "slow" (docs/BENCHMARKS.md, Capture).
    static let heicPreset = "veryfast"

    static func encode(_ frame: Frame, as format: PhotoFormat, thumbnailSide: Int?, exif: CaptureExif)
        throws(CaptureError) -> Data
    {
        var exif = exif
        switch format {
        case .jpeg:
            if let side = thumbnailSide {
                let size = PhotoDimensions(width: frame.width, height: frame.height).fitting(side: side)
                exif.thumbnailJPEG = try jpeg(frame, size, quality: 80)
            }
            let bytes = try jpeg(frame, PhotoDimensions(width: frame.width, height: frame.height), quality: jpegQuality)
            do {
                return Data(try exif.jpeg(inserting: bytes))
            } catch {
                throw CaptureError(.processingFailed, "cannot write the photo's EXIF block: \(error)")
            }
        case .heic:
            let block: [UInt8]
            do {
                block = try exif.tiffStream()
            } catch {
                throw CaptureError(.processingFailed, "cannot write the photo's EXIF block: \(error)")
            }
            var output: UnsafeMutablePointer<UInt8>?
            var length = 0
            var message = [CChar](repeating: 0, count: 512)
            let done = frame.withPlanes { planes, strides in
                block.withUnsafeBufferPointer { exifBytes in
                    cheif_encode_yuv420(
                        planes, strides, Int32(frame.width), Int32(frame.height), Int32(heicQuality), heicPreset,
                        exifBytes.baseAddress, exifBytes.count, Int32(thumbnailSide ?? 0), &output, &length, &message,
                        message.count)
                }
            }
            guard done == 1, let output else {
                throw CaptureError(.processingFailed, "cannot encode the HEIC: \(text(message))")
            }
            defer { free(output) }
            return Data(bytes: output, count: length)
        }
    }

    /// The frame at `size` as a baseline JPEG.
    static func jpeg(_ frame: Frame, _ size: PhotoDimensions, quality: Int) throws(CaptureError) -> [UInt8] {
        guard let rgb = frame.rgb(width: size.width, height: size.height) else {
            throw CaptureError(.processingFailed, "cannot convert the frame to RGB")
        }
        var output: UnsafeMutablePointer<UInt8>?
        var length = 0
        var message = [CChar](repeating: 0, count: 256)
        let status = rgb.withUnsafeBufferPointer {
            cjpeg_encode(
                $0.baseAddress, Int32(size.width), Int32(size.height), size.width * 3, 3, Int32(quality), &output,
                &length, &message, message.count)
        }
        guard status == CJPEG_OK, let output else {
            throw CaptureError(.processingFailed, "cannot encode the JPEG: \(text(message))")
        }
        defer { free(output) }
        return Array(UnsafeBufferPointer(start: output, count: length))
    }
}
