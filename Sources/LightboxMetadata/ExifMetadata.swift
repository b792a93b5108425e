/// The EXIF fields Lightbox reads from a photo: camera, capture, exposure and GPS, and the
/// Apple maker note.
///
/// ```swift
/// let exif = try ExifMetadata(exifBlock: bytes)   // "Exif\0\0" + TIFF, or bare TIFF
/// exif.orientation        // 1...8
/// exif.dateTimeOriginal   // "2019:07:14 18:03:12"
/// exif.gps?.latitude      // 48.8584
/// ```
public struct ExifMetadata: Sendable, Hashable {
    /// TIFF Orientation (0x0112), 1...8; nil when absent or out of range.
    public var orientation: Int?
    /// Make (0x010F).
    public var make: String?
    /// Model (0x0110).
    public var model: String?
    /// Software (0x0131).
    public var software: String?
    /// DateTime (0x0132): when the file was last changed, local time, "YYYY:MM:DD HH:MM:SS".
    public var dateTime: String?
    /// DateTimeOriginal (0x9003): when the photo was taken, local time.
    public var dateTimeOriginal: String?
    /// CreateDate (DateTimeDigitized, 0x9004).
    public var createDate: String?
    /// SubSecTimeOriginal (0x9291): fractions of a second of ``dateTimeOriginal``, as digits.
    public var subSecTimeOriginal: String?
    /// OffsetTimeOriginal (0x9011): the UTC offset of ``dateTimeOriginal``, "+02:00".
    public var offsetTimeOriginal: String?
    /// OffsetTime (0x9010): the UTC offset of ``dateTime``.
    public var offsetTime: String?
    /// LensMake (0xA433).
    public var lensMake: String?
    /// LensModel (0xA434); iPhones name the camera used ("iPhone 12 Pro front camera ...").
    public var lensModel: String?
    /// ExposureTime (0x829A), seconds.
    public var exposureTime: Double?
    /// FNumber (0x829D).
    public var fNumber: Double?
    /// ISO (PhotographicSensitivity, 0x8827).
    public var iso: Int?
    /// FocalLength (0x920A), millimetres.
    public var focalLength: Double?
    /// FocalLengthIn35mmFormat (0xA405), millimetres.
    public var focalLengthIn35mmFormat: Int?
    /// ImageWidth and ImageLength of IFD0 (0x0100, 0x0101): in a RAW file, often a preview's.
    public var imageWidth: Int?
    public var imageHeight: Int?
    /// PixelXDimension and PixelYDimension (0xA002, 0xA003): the image's size as the camera wrote it.
    public var pixelXDimension: Int?
    public var pixelYDimension: Int?
    /// UserComment (0x9286) as text: iOS writes "Screenshot" into screenshots.
    public var userComment: String?
    /// CustomRendered (0xA401); Apple: 2 or 3 HDR, 6 panorama, 7 portrait HDR, 8 portrait.
    public var customRendered: Int?
    /// SceneCaptureType (0xA406).
    public var sceneCaptureType: Int?
    /// DNGVersion (0xC612) is present: the file is a DNG.
    public var isDNG = false
    /// GPS (IFD 0x8825).
    public var gps: GPSInfo?
    /// The Apple maker note, when the photo has one.
    public var apple: AppleMakerNote?

    /// Empty metadata: every field nil.
    public init() {}

    /// Parses an EXIF block: either "Exif\0\0" followed by a TIFF stream (as JPEG APP1 and
    /// libvips' `exif-data` hold it) or a bare TIFF stream.
    public init(exifBlock: [UInt8]) throws(MetadataError) {
        let header: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0x00, 0x00]
        let tiff = exifBlock.starts(with: header) ? Array(exifBlock.dropFirst(header.count)) : exifBlock
        let source = ByteSource(bytes: tiff)
        try self.init(reader: TIFFReader(source: source))
    }

    /// Parses the TIFF stream `reader` reads: IFD0, the EXIF and GPS IFDs, the maker note.
    init(reader: TIFFReader) throws(MetadataError) {
        guard let ifd0Offset = reader.firstIFDOffset else {
            throw MetadataError(.malformed, "the TIFF header has no first IFD")
        }
        var walk = IFDWalk()
        guard let ifd0 = walk.visit(reader, at: ifd0Offset) else {
            throw MetadataError(.malformed, "IFD0 at offset \(ifd0Offset) lies outside the data")
        }
        self.init()
        readIFD0(ifd0, reader)
        if let pointer = ifd0[0x8769].flatMap(reader.integer), let exifIFD = walk.visit(reader, at: pointer) {
            readExifIFD(exifIFD, reader)
        }
        if let pointer = ifd0[0x8825].flatMap(reader.integer), let gpsIFD = walk.visit(reader, at: pointer) {
            gps = GPSInfo(gpsIFD, reader)
        }
    }

    /// Reads the fields of IFD0 or of the EXIF IFD. Both take every tag Lightbox knows, as
    /// exiftool does: some writers put DateTimeOriginal in IFD0.
    mutating func readIFD0(_ ifd: TIFFReader.IFD, _ reader: TIFFReader) {
        for entry in ifd.entries { read(entry, reader, inExifIFD: false) }
    }

    /// Reads the EXIF IFD's fields (also used for CR3's CMT2 box).
    mutating func readExifIFD(_ ifd: TIFFReader.IFD, _ reader: TIFFReader) {
        for entry in ifd.entries { read(entry, reader, inExifIFD: true) }
    }

    private mutating func read(_ entry: TIFFReader.Entry, _ reader: TIFFReader, inExifIFD: Bool) {
        func keep<T>(_ field: inout T?, _ value: T?) { if field == nil { field = value } }
        switch entry.tag {
        case 0x0100 where !inExifIFD: imageWidth = reader.integer(entry)
        case 0x0101 where !inExifIFD: imageHeight = reader.integer(entry)
        case 0x0112: keep(&orientation, reader.integer(entry).flatMap { (1...8).contains($0) ? $0 : nil })
        case 0x010F: keep(&make, reader.string(entry))
        case 0x0110: keep(&model, reader.string(entry))
        case 0x0131: keep(&software, reader.string(entry))
        case 0x0132: keep(&dateTime, reader.string(entry))
        case 0xC612: isDNG = true
        case 0x829A: keep(&exposureTime, reader.number(entry))
        case 0x829D: keep(&fNumber, reader.number(entry))
        case 0x8827: keep(&iso, reader.integer(entry))
        case 0x9003: keep(&dateTimeOriginal, reader.string(entry))
        case 0x9004: keep(&createDate, reader.string(entry))
        case 0x9010: keep(&offsetTime, reader.string(entry))
        case 0x9011: keep(&offsetTimeOriginal, reader.string(entry))
        case 0x9291: keep(&subSecTimeOriginal, reader.string(entry))
        case 0x920A: keep(&focalLength, reader.number(entry))
        case 0xA405: keep(&focalLengthIn35mmFormat, reader.integer(entry))
        case 0xA002: keep(&pixelXDimension, reader.integer(entry))
        case 0xA003: keep(&pixelYDimension, reader.integer(entry))
        case 0xA433: keep(&lensMake, reader.string(entry))
        case 0xA434: keep(&lensModel, reader.string(entry))
        case 0xA401: keep(&customRendered, reader.integer(entry))
        case 0xA406: keep(&sceneCaptureType, reader.integer(entry))
        case 0x9286: keep(&userComment, Self.userComment(entry, reader))
        case 0x927C: keep(&apple, AppleMakerNote(entry, reader))
        default: break
        }
    }

    /// Takes every field `other` has and this lacks (a RAW file's EXIF from its preview).
    mutating func fill(from other: ExifMetadata) {
        func take<T>(_ field: WritableKeyPath<ExifMetadata, T?>) {
            if self[keyPath: field] == nil { self[keyPath: field] = other[keyPath: field] }
        }
        take(\.orientation)
        take(\.make)
        take(\.model)
        take(\.software)
        take(\.dateTime)
        take(\.dateTimeOriginal)
        take(\.createDate)
        take(\.subSecTimeOriginal)
        take(\.offsetTimeOriginal)
        take(\.offsetTime)
        take(\.lensMake)
        take(\.lensModel)
        take(\.exposureTime)
        take(\.fNumber)
        take(\.iso)
        take(\.focalLength)
        take(\.focalLengthIn35mmFormat)
        take(\.pixelXDimension)
        take(\.pixelYDimension)
        take(\.userComment)
        take(\.customRendered)
        take(\.sceneCaptureType)
        take(\.gps)
        take(\.apple)
    }

    /// UserComment: an 8-byte character code ("ASCII\0\0\0", "UNICODE\0", zeros) and the text.
    private static func userComment(_ entry: TIFFReader.Entry, _ reader: TIFFReader) -> String? {
        guard let bytes = reader.data(entry, limit: 1 << 16), bytes.count > 8 else { return nil }
        let body = Array(bytes[8...])
        let text: String
        if bytes.starts(with: Array("UNICODE".utf8)) {
            var units: [UInt16] = []
            var index = 0
            while index + 1 < body.count {
                units.append(
                    reader.bigEndian
                        ? UInt16(body[index]) << 8 | UInt16(body[index + 1])
                        : UInt16(body[index + 1]) << 8 | UInt16(body[index]))
                index += 2
            }
            text = String(decoding: units.prefix { $0 != 0 }, as: UTF16.self)
        } else {
            text = String(decoding: body.prefix { $0 != 0 }, as: UTF8.self)
        }
        let trimmed = String(text.trimmingWhitespace())
        return trimmed.isEmpty ? nil : trimmed
    }
}

/// The GPS IFD's position and time.
public struct GPSInfo: Sendable, Hashable {
    /// Degrees north (negative south).
    public var latitude: Double?
    /// Degrees east (negative west).
    public var longitude: Double?
    /// Metres above sea level (negative below).
    public var altitude: Double?
    /// GPSDateStamp (0x001D), "YYYY:MM:DD", UTC.
    public var dateStamp: String?
    /// GPSTimeStamp (0x0007): hours, minutes and seconds of the day, UTC.
    public var timeStamp: [Double]?

    public init(latitude: Double? = nil, longitude: Double? = nil, altitude: Double? = nil) {
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
    }

    init?(_ ifd: TIFFReader.IFD, _ reader: TIFFReader) {
        func degrees(_ tag: UInt16) -> Double? {
            guard let entry = ifd[tag] else { return nil }
            let parts = reader.numbers(entry, limit: 3)
            guard !parts.isEmpty else { return nil }
            let value = parts.enumerated().reduce(0.0) { $0 + $1.element / pow60($1.offset) }
            return value.isFinite ? value : nil
        }
        func reference(_ tag: UInt16) -> String? { ifd[tag].flatMap(reader.string)?.uppercased() }
        if var latitude = degrees(0x0002), (0...90).contains(latitude) {
            if reference(0x0001) == "S" { latitude = -latitude }
            self.latitude = latitude
        }
        if var longitude = degrees(0x0004), (0...180).contains(longitude) {
            if reference(0x0003) == "W" { longitude = -longitude }
            self.longitude = longitude
        }
        if let entry = ifd[0x0006], let altitude = reader.number(entry) {
            let below = ifd[0x0005].flatMap(reader.integer) == 1
            self.altitude = Double?(below ? -altitude : altitude).within(GeographicRange.altitude)
        }
        dateStamp = ifd[0x001D].flatMap(reader.string)
        if let entry = ifd[0x0007] {
            let parts = reader.numbers(entry, limit: 3)
            if parts.count == 3 { timeStamp = parts }
        }
        if latitude == nil && longitude == nil && altitude == nil && dateStamp == nil { return nil }
        // A position needs both coordinates.
        if latitude == nil || longitude == nil { (latitude, longitude) = (nil, nil) }
    }
}

private func pow60(_ exponent: Int) -> Double {
    exponent == 0 ? 1 : (exponent == 1 ? 60 : 3600)
}
