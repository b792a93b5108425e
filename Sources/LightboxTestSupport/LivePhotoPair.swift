import Foundation
import LightboxMetadata

extension Corpus {
    /// The movie a Live Photo pair is built from: a phone's H.264 clip.
    public static let livePhotoMovie = "forensics/original-files/movie1/VID_20191220_170832.mp4"
    /// The still a Live Photo pair is built from.
    public static let livePhotoStill = "digikam/body-background.jpg"

    /// A Live Photo's two halves, named as an iPhone names them, in `folder`: a real still and
    /// a real movie (``livePhotoMovie``, or the file at `moviePath`: an HEVC re-encoding of
    /// it) given one content identifier by Lightbox's own writers (checked with exiftool in
    /// AppleMetadataWriterTests), as the corpus README explains.
    public static func livePhotoPair(
        in folder: TemporaryDirectory, identifier: String, name: String = "IMG_0001", moviePath: String? = nil
    ) throws -> (still: String, movie: String) {
        let still = folder.path(name + ".JPG")
        let movie = folder.path(name + ".MOV")
        let stillBytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path(livePhotoStill))))
        let movieBytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: try moviePath ?? path(livePhotoMovie))))
        try Data(try AppleMetadataWriter.jpeg(stillBytes, contentIdentifier: identifier)).write(
            to: URL(fileURLWithPath: still))
        try Data(try AppleMetadataWriter.movie(movieBytes, contentIdentifier: identifier)).write(
            to: URL(fileURLWithPath: movie))
        return (still, movie)
    }
}
