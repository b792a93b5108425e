import Foundation

/// Reads a file's metadata from its headers, in Swift, without decoding any pixels.
///
/// Safe on hostile bytes: every read is bounded by the file and by ``ByteSource/maximumRead``,
/// IFD chains and box trees are walked with loop and depth limits, and anything malformed
/// gives a ``MetadataError`` naming what is wrong.
///
/// ```swift
/// let metadata = try MetadataReader.read(fileAtPath: path)
/// print(metadata.format, metadata.pixelWidth ?? 0, metadata.exif?.model ?? "")
/// ```
public enum MetadataReader {
    /// Reads the file at `path`: only the bytes its headers need. Its name's extension tells a
    /// TIFF-based RAW file from a TIFF, as exiftool's FileType does.
    public static func read(fileAtPath path: String) throws(MetadataError) -> MediaMetadata {
        try read(ByteSource(fileAtPath: path), filenameExtension: PathString.pathExtension(path))
    }

    /// Throws when the file's structure states sizes its bytes cannot hold, which a decoder
    /// believing them would allocate: a PNG chunk longer than the file, a movie's sample table
    /// listing more samples than it holds (``QuickTimeTables``). Checked before a file
    /// is handed to a decoder that is not Lightbox's own; reads only the structure. Returns
    /// the entries a movie's demuxer indexes, its samples (0 for a still), which size the
    /// memory it reserves.
    @discardableResult
    public static func checkStructure(_ source: ByteSource) throws(MetadataError) -> Int {
        let head = try source.bytes(at: 0, upTo: FileFormat.sniffLength)
        switch FileFormat(sniffing: head) {
        case .png: try PNGContainer.checkChunks(source)
        case .heic, .heif, .avif: try HEIFContainer.checkStructure(source)
        case .quickTime, .mp4: return try QuickTimeTables.check(source)
        default: break
        }
        return 0
    }

    /// Reads the metadata of the bytes `source` holds. Bytes that start like a TIFF are a DNG
    /// when they carry a DNG version; else a NEF, ARW or PEF only when `filenameExtension`
    /// (the file's, without the dot) says so, and a TIFF otherwise: cameras write plain TIFFs
    /// too, with their make in them.
    public static func read(_ source: ByteSource, filenameExtension: String? = nil) throws(MetadataError)
        -> MediaMetadata
    {
        let head = try source.bytes(at: 0, upTo: FileFormat.sniffLength)
        guard let format = FileFormat(sniffing: head) else {
            throw MetadataError(.unsupported, "not an image or movie format Lightbox reads (\(source.count) bytes)")
        }
        var metadata = MediaMetadata(format: format)
        switch format {
        case .jpeg: try JPEGContainer.read(source, into: &metadata)
        case .heic, .heif, .avif: try HEIFContainer.read(source, into: &metadata)
        case .cr3: try CR3Container.read(source, into: &metadata)
        case .png: try PNGContainer.read(source, into: &metadata)
        case .webp: try WebPContainer.read(source, into: &metadata)
        case .gif: try GIFContainer.read(source, into: &metadata)
        case .tiff, .dng, .cr2, .nef, .arw, .orf, .rw2, .pef:
            try TIFFContainer.read(source, into: &metadata, filenameExtension: filenameExtension)
        case .raf: try RAFContainer.read(source, into: &metadata)
        case .quickTime, .mp4: try QuickTimeContainer.read(source, into: &metadata)
        }
        return metadata
    }
}
