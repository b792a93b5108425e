import Foundation
import LightboxMetadata

/// What an asset takes from its file's metadata: the mapping from ``MediaMetadata`` to the
/// model.
///
/// The creation date comes from the first of these sources the file has:
/// 1. an XMP sidecar's `exif:DateTimeOriginal` (or `photoshop:DateCreated`): the user's
///    correction wins;
/// 2. EXIF DateTimeOriginal with SubSecTimeOriginal, in OffsetTimeOriginal's offset;
///    without an offset, the one GPS time gives (the difference between the local time and
///    GPS's UTC, to the quarter hour), else the importing machine's time zone at that date;
/// 3. for movies, `com.apple.quicktime.creationdate` (local time with its offset), else the
///    `mvhd` creation time (UTC);
/// 4. the embedded XMP's date;
/// 5. the file's modification time.
public struct AssetMetadata: Sendable, Hashable {
    /// Which source the creation date came from.
    public enum DateSource: String, Sendable, Hashable {
        case sidecar, exif, exifWithGPSOffset, exifLocalTime, quickTime, quickTimeUTC, xmp, fileModification
    }

    public var mediaType: AssetMediaType
    /// The displayed size: the stored size with the orientation applied.
    public var pixelWidth: Int?
    public var pixelHeight: Int?
    public var creationDate: Date
    /// Seconds east of UTC of the creation date's local time.
    public var creationTimeZoneOffset: Int
    public var dateSource: DateSource
    public var location: Location?
    public var mediaSubtypes: AssetMediaSubtypes
    /// Taken with a front camera (the self-portraits smart album).
    public var isSelfPortrait: Bool
    /// The Live Photo pairing key (Apple maker note tag 0x0011, or the movie's QuickTime key).
    public var contentIdentifier: String?
    /// The burst this frame belongs to (Apple maker note tag 0x000B).
    public var burstIdentifier: String?
    /// A movie's length in seconds; 0 for every photo (PhotoKit's), a Live Photo's too.
    public var duration: Double
    public var playbackStyle: AssetPlaybackStyle
    /// EXIF orientation (1...8) after overrides; 1 when the file has none.
    public var orientation: Int
    /// The orientation to show the photo file's decoded pixels in, by its own EXIF (or XMP)
    /// tag, 1...8 (a HEIF's 1); nil for a movie or a file that states none.
    public var fileOrientation: Int?
    /// The rating, -1 (rejected) to 5, from a sidecar or the file's XMP.
    public var rating: Int?
    /// Whether the file is an Android Motion Photo (a movie appended to the still).
    public var motionPhotoVideoLength: Int?
    /// The camera's maker, model and lens, as ``CameraDetails`` reads them (trimmed, bounded).
    public var cameraMake: String?
    public var cameraModel: String?
    public var lensModel: String?
    /// A movie's video codec, its QuickTime sample entry type (`avc1`, `hvc1`); nil for a photo.
    public var videoCodec: String?

    /// A photo file's own orientation, the EXIF orientation to show its decoded pixels in,
    /// within 1...8; nil for a movie or none stated. A HEIF's is 1: its rotation is in the
    /// container (`irot`, `imir`), which decoders apply, and its EXIF tag only describes it.
    package static func fileOrientation(_ metadata: MediaMetadata) -> Int? {
        guard metadata.format.kind != .video else { return nil }
        if [.heic, .heif, .avif].contains(metadata.format) { return 1 }
        guard let value = metadata.exif?.orientation ?? metadata.xmp?.orientation, (1...8).contains(value) else {
            return nil
        }
        return value
    }

    /// Maps `metadata`; `sidecar` is the XMP file next to it, when there is one.
    public init(_ metadata: MediaMetadata, sidecar: XMPMetadata? = nil, fileModificationDate: Date) {
        let exif = metadata.exif
        let xmp = metadata.xmp
        let movie = metadata.quickTime
        mediaType = metadata.format.kind == .video ? .video : .image
        orientation = sidecar?.orientation ?? exif?.orientation ?? xmp?.orientation ?? 1
        fileOrientation = Self.fileOrientation(metadata)

        // Displayed size: HEIF rotates by its irot property (its EXIF orientation only
        // describes that); other images by their EXIF orientation; movies by their matrix.
        var quarterTurnsSwap = false
        if let rotation = metadata.heifRotation {
            quarterTurnsSwap = rotation % 2 == 1
        } else if let movie {
            quarterTurnsSwap = movie.videoRotation % 180 == 90
        } else {
            quarterTurnsSwap = (5...8).contains(orientation)
        }
        pixelWidth = quarterTurnsSwap ? metadata.pixelHeight : metadata.pixelWidth
        pixelHeight = quarterTurnsSwap ? metadata.pixelWidth : metadata.pixelHeight

        let gpsUTC = exif?.gps.flatMap(Self.gpsDate)
        if let text = sidecar?.dateTimeOriginal, let (date, offset) = Self.xmpDate(text) {
            (creationDate, creationTimeZoneOffset, dateSource) = (date, offset, .sidecar)
        } else if let text = exif?.dateTimeOriginal,
            let taken = ExifDate(text, subSeconds: exif?.subSecTimeOriginal, offset: exif?.offsetTimeOriginal),
            let wallClock = Self.utcDate(taken)
        {
            if let offset = taken.utcOffsetSeconds {
                (creationTimeZoneOffset, dateSource) = (offset, .exif)
            } else if let gpsUTC, abs(wallClock.timeIntervalSince(gpsUTC)) <= 14 * 3600 {
                let quarterHours = (wallClock.timeIntervalSince(gpsUTC) / 900).rounded()
                (creationTimeZoneOffset, dateSource) = (Int(quarterHours) * 900, .exifWithGPSOffset)
            } else {
                let zone = TimeZone.current
                let offset = zone.secondsFromGMT(
                    for: wallClock.addingTimeInterval(-Double(zone.secondsFromGMT(for: wallClock))))
                (creationTimeZoneOffset, dateSource) = (offset, .exifLocalTime)
            }
            creationDate = wallClock.addingTimeInterval(taken.fraction - Double(creationTimeZoneOffset))
        } else if let text = movie?.appleCreationDate, let (date, offset) = Self.xmpDate(text) {
            (creationDate, creationTimeZoneOffset, dateSource) = (date, offset, .quickTime)
        } else if let date = movie?.creationDate {
            (creationDate, creationTimeZoneOffset, dateSource) = (
                date, TimeZone.current.secondsFromGMT(for: date), .quickTimeUTC
            )
        } else if let text = xmp?.dateTimeOriginal, let (date, offset) = Self.xmpDate(text) {
            (creationDate, creationTimeZoneOffset, dateSource) = (date, offset, .xmp)
        } else {
            creationDate = fileModificationDate
            creationTimeZoneOffset = TimeZone.current.secondsFromGMT(for: fileModificationDate)
            dateSource = .fileModification
        }

        if let latitude = sidecar?.latitude, let longitude = sidecar?.longitude {
            location = Location(latitude: latitude, longitude: longitude, altitude: sidecar?.altitude)
        } else if let gps = exif?.gps, let latitude = gps.latitude, let longitude = gps.longitude {
            location = Location(latitude: latitude, longitude: longitude, altitude: gps.altitude, timestamp: gpsUTC)
        } else if let latitude = movie?.latitude, let longitude = movie?.longitude {
            location = Location(latitude: latitude, longitude: longitude, altitude: movie?.altitude)
        } else if let latitude = xmp?.latitude, let longitude = xmp?.longitude {
            location = Location(latitude: latitude, longitude: longitude, altitude: xmp?.altitude)
        }

        var subtypes: AssetMediaSubtypes = []
        let apple = exif?.apple
        if xmp?.projectionType != nil || exif?.customRendered == 6 { subtypes.insert(.photoPanorama) }
        if apple?.hdrImageType == 3 || exif?.customRendered == 2 || exif?.customRendered == 3
            || exif?.customRendered == 7
        {
            subtypes.insert(.photoHDR)
        }
        let comment = exif?.userComment ?? xmp?.properties[XMPMetadata.exifNamespace + " UserComment"]
        if comment?.caseInsensitiveCompare("Screenshot") == .orderedSame { subtypes.insert(.photoScreenshot) }
        if exif?.customRendered == 7 || exif?.customRendered == 8 || apple?.imageCaptureType == 2 {
            subtypes.insert(.photoDepthEffect)
        }
        if metadata.isAnimated { subtypes.insert(.photoAnimation) }
        if let rate = movie?.frameRate, rate >= 100 { subtypes.insert(.videoHighFrameRate) }
        // Android's camera records the rate it captured at beside the rate the movie plays:
        // captured slower, a time-lapse; captured at 100 or more, slow motion.
        if let captured = movie?.keys["com.android.capture.fps"].flatMap(Double.init), captured > 0 {
            if let playing = movie?.frameRate, captured < playing * 0.9 { subtypes.insert(.videoTimelapse) }
            if captured >= 100 { subtypes.insert(.videoHighFrameRate) }
        }
        mediaSubtypes = subtypes

        isSelfPortrait = exif?.lensModel?.lowercased().contains("front") ?? false
        contentIdentifier = apple?.contentIdentifier ?? movie?.contentIdentifier
        burstIdentifier = apple?.burstUUID
        duration = mediaType == .video ? movie?.duration ?? 0 : 0
        playbackStyle = mediaType == .video ? .video : (metadata.isAnimated ? .imageAnimated : .image)
        rating = sidecar?.rating ?? xmp?.rating
        motionPhotoVideoLength = (xmp?.isMotionPhoto ?? false) ? xmp?.motionPhotoVideoLength : nil
        let camera = CameraDetails(metadata)
        (cameraMake, cameraModel, lensModel) = (camera.make, camera.model, camera.lensModel)
        videoCodec = movie?.videoCodec
    }

    /// An EXIF wall-clock time read as if it were UTC (the offset is applied by the caller).
    package static func utcDate(_ taken: ExifDate) -> Date? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0)!
        return calendar.date(
            from: DateComponents(
                year: taken.year, month: taken.month, day: taken.day, hour: taken.hour, minute: taken.minute,
                second: taken.second))
    }

    /// GPSDateStamp and GPSTimeStamp as one UTC date.
    package static func gpsDate(_ gps: GPSInfo) -> Date? {
        guard let stamp = gps.dateStamp, let time = gps.timeStamp, time.count == 3,
            let day = ExifDate(stamp + " 00:00:00"), let midnight = utcDate(day)
        else { return nil }
        let seconds = time[0] * 3600 + time[1] * 60 + time[2]
        guard seconds.isFinite, (0..<86_401).contains(seconds) else { return nil }
        return midnight.addingTimeInterval(seconds)
    }

    /// ISO 8601 text as XMP and QuickTime write it ("2019-07-14T18:03:12+02:00",
    /// "...+0200", or no offset: local time here), and its offset.
    package static func xmpDate(_ text: String) -> (Date, Int)? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        var body = Substring(trimmed)
        var offsetText: String?
        if body.hasSuffix("Z") {
            offsetText = "Z"
            body = body.dropLast()
        } else if body.count > 19, let sign = body.lastIndex(where: { $0 == "+" || $0 == "-" }),
            sign > body.index(body.startIndex, offsetBy: 10)
        {
            offsetText = String(body[sign...])
            body = body[..<sign]
        }
        let parts = body.split(separator: ".", maxSplits: 1)
        guard let head = parts.first,
            let taken = ExifDate(
                String(head), subSeconds: parts.count > 1 ? String(parts[1]) : nil, offset: offsetText),
            let wallClock = utcDate(taken)
        else { return nil }
        let offset =
            taken.utcOffsetSeconds
            ?? TimeZone.current.secondsFromGMT(
                for: wallClock.addingTimeInterval(-Double(TimeZone.current.secondsFromGMT(for: wallClock))))
        return (wallClock.addingTimeInterval(taken.fraction - Double(offset)), offset)
    }
}
