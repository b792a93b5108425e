import Foundation

/// The EXIF block of a photo a camera takes: who made it, when (with the time zone), its size,
/// exposure and flash, the Apple maker note's content identifier and burst UUID (which pair a
/// Live Photo's still with its movie and gather a burst), and a JPEG thumbnail in IFD1.
public struct CaptureExif: Sendable, Hashable {
    public var make: String
    public var model: String
    public var software: String
    /// The shutter's moment, written in `timeZone`'s local time with its offset.
    public var date: Date
    public var timeZone: TimeZone
    public var pixelWidth: Int
    public var pixelHeight: Int
    public var contentIdentifier: String?
    public var burstUUID: String?
    /// The exposure bias in EV of a bracketed photo.
    public var exposureBias: Double?
    /// Whether the camera has a flash at all (EXIF's Flash tag says "no flash function" when not).
    public var hasFlash: Bool
    /// Whether the flash fired.
    public var flashFired: Bool
    /// IFD1's thumbnail, a small baseline JPEG.
    public var thumbnailJPEG: [UInt8]?

    public init(
        make: String, model: String, software: String, date: Date, timeZone: TimeZone, pixelWidth: Int,
        pixelHeight: Int, contentIdentifier: String? = nil, burstUUID: String? = nil, exposureBias: Double? = nil,
        hasFlash: Bool = false, flashFired: Bool = false, thumbnailJPEG: [UInt8]? = nil
    ) {
        self.make = make
        self.model = model
        self.software = software
        self.date = date
        self.timeZone = timeZone
        self.pixelWidth = pixelWidth
        self.pixelHeight = pixelHeight
        self.contentIdentifier = contentIdentifier
        self.burstUUID = burstUUID
        self.exposureBias = exposureBias
        self.hasFlash = hasFlash
        self.flashFired = flashFired
        self.thumbnailJPEG = thumbnailJPEG
    }

    /// The block as a TIFF stream (what a JPEG's APP1 holds after "Exif\0\0", and a HEIF's
    /// Exif item after its offset).
    public func tiffStream() throws(MetadataError) -> [UInt8] {
        let writer = TIFFWriter(bigEndian: true)
        func ascii(_ tag: UInt16, _ text: String) -> TIFFWriter.Entry {
            let value = Array(text.utf8.prefix(4096)) + [0]
            return TIFFWriter.Entry(tag: tag, type: 2, count: value.count, value: value)
        }
        func short(_ tag: UInt16, _ value: Int) -> TIFFWriter.Entry {
            TIFFWriter.Entry(tag: tag, type: 3, count: 1, value: writer.u16(UInt16(clamping: value)))
        }
        func long(_ tag: UInt16, _ value: Int) -> TIFFWriter.Entry {
            TIFFWriter.Entry(tag: tag, type: 4, count: 1, value: writer.u32(UInt32(clamping: value)))
        }
        let dateFormat = Date.VerbatimFormatStyle(
            format:
                "\(year: .defaultDigits):\(month: .twoDigits):\(day: .twoDigits) \(hour: .twoDigits(clock: .twentyFourHour, hourCycle: .zeroBased)):\(minute: .twoDigits):\(second: .twoDigits)",
            timeZone: timeZone, calendar: Calendar(identifier: .gregorian))
        let local = date.formatted(dateFormat)
        let offsetSeconds = timeZone.secondsFromGMT(for: date)
        let offset =
            (offsetSeconds < 0 ? "-" : "+")
            + String(format: "%02d:%02d", abs(offsetSeconds) / 3600, abs(offsetSeconds) % 3600 / 60)
        let milliseconds = Int((date.timeIntervalSince1970 * 1000).rounded(.down)) % 1000
        let subSeconds = String(format: "%03d", (milliseconds + 1000) % 1000)

        var ifd0 = TIFFWriter.IFD(entries: [
            ascii(0x010F, make), ascii(0x0110, model), short(0x0112, 1), ascii(0x0131, software), ascii(0x0132, local),
        ])
        var exif = TIFFWriter.IFD(entries: [
            TIFFWriter.Entry(tag: 0x9000, type: 7, count: 4, value: Array("0232".utf8)),
            ascii(0x9003, local), ascii(0x9004, local), ascii(0x9010, offset), ascii(0x9011, offset),
            ascii(0x9012, offset), ascii(0x9291, subSeconds), ascii(0x9292, subSeconds),
            // Flash: 0x20 "no flash function", 0x10 "off, did not fire", 0x01 "fired".
            short(0x9209, hasFlash ? (flashFired ? 0x01 : 0x10) : 0x20),
            short(0xA001, 1), long(0xA002, pixelWidth), long(0xA003, pixelHeight),
        ])
        if let bias = exposureBias, bias.isFinite, abs(bias) <= 16 {
            let numerator = Int32((bias * 100).rounded())
            exif.set(
                TIFFWriter.Entry(
                    tag: 0x9204, type: 10, count: 1,
                    value: writer.u32(UInt32(bitPattern: numerator)) + writer.u32(100)))
        }
        if contentIdentifier != nil || burstUUID != nil {
            exif.set(try AppleMetadataWriter.makerNote([], contentIdentifier: contentIdentifier, burstUUID: burstUUID))
        }
        ifd0.children[0x8769] = exif
        var ifd1: TIFFWriter.IFD?
        if let thumbnailJPEG {
            ifd1 = TIFFWriter.IFD(entries: [short(0x0103, 6)], thumbnail: thumbnailJPEG)
        }
        return try writer.stream(ifd0: ifd0, ifd1: ifd1)
    }

    /// A JPEG (one with no EXIF block, as an encoder writes it) with this block inserted after
    /// its JFIF header.
    public func jpeg(inserting bytes: [UInt8]) throws(MetadataError) -> [UInt8] {
        guard bytes.starts(with: [0xFF, 0xD8]) else { throw MetadataError(.malformed, "not a JPEG") }
        let payload = JPEGContainer.exifSignature + (try tiffStream())
        let segment: [UInt8] =
            [0xFF, 0xE1, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
        var insertAt = 2
        if bytes.count >= 6, bytes[2] == 0xFF, bytes[3] == 0xE0 {
            let end = 4 + (Int(bytes[4]) << 8 | Int(bytes[5]))
            if end <= bytes.count { insertAt = end }
        }
        return Array(bytes[..<insertAt]) + segment + Array(bytes[insertAt...])
    }
}
