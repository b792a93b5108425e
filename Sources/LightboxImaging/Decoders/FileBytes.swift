import Glibc
import LightboxMetadata

/// A file's bytes read for a decoder: only regular files, in full or in part.
enum FileBytes {
    /// A descriptor for the regular file at `path`, which the caller closes, and its size.
    static func openRegular(_ path: String) throws(ImagingError) -> (descriptor: Int32, size: Int) {
        do {
            return try RegularFile.open(path)
        } catch {
            throw ImagingError(.unreadable, error.reason, path: path)
        }
    }

    /// Refuses what a decoder that is not Lightbox's own (libvips' loaders, FFmpeg) would
    /// believe and allocate: ``MetadataReader/checkStructure(_:)`` of the file at `path`.
    /// Returns the samples a movie's index will hold (0 for a still).
    @discardableResult
    static func checkStructure(_ path: String) throws(ImagingError) -> Int {
        do throws(MetadataError) {
            return try MetadataReader.checkStructure(ByteSource(fileAtPath: path))
        } catch {
            throw ImagingError(error.code == .unreadable ? .unreadable : .corrupt, error.message, path: path)
        }
    }

    /// `length` bytes of a file from `offset`.
    static func read(_ path: String, offset: Int, length: Int) throws(ImagingError) -> [UInt8] {
        let (descriptor, _) = try openRegular(path)
        defer { close(descriptor) }
        return try read(descriptor, offset: offset, length: length, path: path)
    }

    /// `length` bytes from `offset`, in a fresh array, or in one from ``ReadBuffers`` (`kept`)
    /// that the caller gives back.
    static func read(_ descriptor: Int32, offset: Int, length: Int, path: String, kept: Bool = false)
        throws(ImagingError) -> [UInt8]
    {
        /// Fills `buffer` from the file; how many bytes it read.
        func fill(_ buffer: UnsafeMutableBufferPointer<UInt8>) -> Int {
            guard let base = buffer.baseAddress else { return 0 }
            var done = 0
            while done < buffer.count {
                let got = pread(descriptor, base + done, buffer.count - done, off_t(offset + done))
                if got < 0 && errno == EINTR { continue }
                guard got > 0 else { break }
                done += got
            }
            return done
        }
        let bytes = kept ? ReadBuffers.shared.read(count: length, fill) : ReadBuffers.fresh(count: length, fill)
        guard bytes.count == length else {
            if kept { ReadBuffers.shared.giveBack(bytes) }
            throw ImagingError(.unreadable, "cannot read the file", path: path)
        }
        return bytes
    }
}
