import Foundation

/// What Lightbox reads from a QuickTime or MPEG-4 movie's `moov` box.
public struct QuickTimeMetadata: Sendable, Hashable {
    /// `mvhd` creation time (UTC); nil when the file says 0, or a time after the year 9999
    /// (a 64-bit field can state any: no camera's clock, and no date a catalog can order).
    public var creationDate: Date?
    /// The movie's duration in seconds (`mvhd`).
    public var duration: Double?
    /// The video track's display size (`tkhd`, before its rotation) and rotation in degrees
    /// clockwise (from its matrix: 0, 90, 180 or 270).
    public var videoWidth: Int?
    public var videoHeight: Int?
    public var videoRotation = 0
    /// The video track's frames per second (`stts` samples over `mdhd` duration).
    public var frameRate: Double?
    /// The video track's codec (`stsd`): "avc1", "hvc1"...
    public var videoCodec: String?
    /// Whether the movie has a sound track.
    public var hasAudio = false
    /// Where it was recorded: `com.apple.quicktime.location.ISO6709`, else `udta` `©xyz`.
    public var latitude: Double?
    public var longitude: Double?
    public var altitude: Double?
    /// A Live Photo movie's still moment in seconds from its start: the time of the sample of
    /// its `com.apple.quicktime.still-image-time` timed metadata track (iPhones write one).
    public var stillImageTime: Double?
    /// The `mdta` keys with their values as text (`com.apple.quicktime.content.identifier`...).
    public var keys: [String: String] = [:]

    /// The Live Photo pairing key.
    public var contentIdentifier: String? { keys["com.apple.quicktime.content.identifier"] }
    /// `com.apple.quicktime.creationdate`: local time with its offset ("2019-07-14T18:03:12+0200").
    public var appleCreationDate: String? { keys["com.apple.quicktime.creationdate"] }

    public init() {}
}

/// QuickTime and MPEG-4: `moov` with `mvhd`, one `trak` per track, and metadata in `udta`
/// and `meta` (`keys` and `ilst`). The media data (`mdat`) is skipped by its size.
enum QuickTimeContainer {
    /// Seconds from 1904-01-01 (QuickTime's epoch) to 1970-01-01.
    static let epochOffset: Double = 2_082_844_800
    /// 9999-12-31T23:59:59Z in seconds from QuickTime's epoch: the latest creation time read,
    /// as EXIF dates are read up to the year 9999.
    static let latestCreation: UInt64 = 253_402_300_799 + 2_082_844_800

    static func read(_ source: ByteSource, into metadata: inout MediaMetadata) throws(MetadataError) {
        let top = try ISOBox.children(of: source, in: 0..<source.count)
        guard let moov = top.first("moov") else { throw MetadataError(.malformed, "the movie has no moov box") }
        var movie = QuickTimeMetadata()
        for box in try moov.children(of: source) {
            switch box.type {
            case "mvhd": try readMovieHeader(box, source, &movie)
            case "trak": try readTrack(box, source, &movie)
            case "udta": try readUserData(box, source, &movie, depth: 0)
            case "meta": try readMeta(box, source, &movie)
            default: break
            }
        }
        if let location = movie.keys["com.apple.quicktime.location.ISO6709"].flatMap(ISO6709.parse) {
            (movie.latitude, movie.longitude, movie.altitude) = location
        }
        metadata.pixelWidth = movie.videoWidth
        metadata.pixelHeight = movie.videoHeight
        metadata.quickTime = movie
    }

    private static func readMovieHeader(_ box: ISOBox, _ source: ByteSource, _ movie: inout QuickTimeMetadata)
        throws(MetadataError)
    {
        let payload = try box.payload(of: source)
        var cursor = PayloadCursor(payload)
        let version = try cursor.read(1)
        _ = try cursor.read(3)
        let created = try cursor.read(version == 1 ? 8 : 4)
        _ = try cursor.read(version == 1 ? 8 : 4)
        let timescale = try cursor.read(4)
        let duration = try cursor.read(version == 1 ? 8 : 4)
        if created > 0, created <= latestCreation {
            movie.creationDate = Date(timeIntervalSince1970: Double(created) - epochOffset)
        }
        if timescale > 0 { movie.duration = Double(duration) / Double(timescale) }
    }

    private static func readTrack(_ box: ISOBox, _ source: ByteSource, _ movie: inout QuickTimeMetadata)
        throws(MetadataError)
    {
        let children = try box.children(of: source)
        guard let mdia = children.first("mdia") else { return }
        let media = try mdia.children(of: source)
        guard let hdlr = media.first("hdlr") else { return }
        let handler = try hdlr.payload(of: source).fourCC(at: 8)
        if handler == "soun" { movie.hasAudio = true }
        if handler == "meta", movie.stillImageTime == nil {
            movie.stillImageTime = try? StillImageTimeReader.time(in: media, source)
        }
        guard handler == "vide", movie.videoWidth == nil else { return }
        if let tkhd = children.first("tkhd") {
            let payload = try tkhd.payload(of: source)
            let version = payload.first ?? 0
            let matrixAt = 4 + (version == 1 ? 32 : 20) + 8 + 8
            let sizeAt = matrixAt + 36
            if let width = payload.u32(at: sizeAt), let height = payload.u32(at: sizeAt + 4) {
                movie.videoWidth = Int(width >> 16)
                movie.videoHeight = Int(height >> 16)
            }
            if let a = payload.u32(at: matrixAt).map({ Int32(bitPattern: $0) }),
                let b = payload.u32(at: matrixAt + 4).map({ Int32(bitPattern: $0) })
            {
                // The matrix's first row is (cos, sin) of the rotation, 16.16 fixed point.
                switch (a, b) {
                case (0, 0x10000): movie.videoRotation = 90
                case (-0x10000, 0): movie.videoRotation = 180
                case (0, -0x10000): movie.videoRotation = 270
                default: movie.videoRotation = 0
                }
            }
        }
        var timescale = 0
        var mediaDuration = 0
        if let mdhd = media.first("mdhd") {
            let payload = try mdhd.payload(of: source)
            var cursor = PayloadCursor(payload)
            let version = try cursor.read(1)
            _ = try cursor.read(3)
            _ = try cursor.read(version == 1 ? 16 / 2 : 4)
            _ = try cursor.read(version == 1 ? 8 : 4)
            timescale = try cursor.read(4)
            mediaDuration = try cursor.read(version == 1 ? 8 : 4)
        }
        guard let minf = media.first("minf"), let stbl = try minf.children(of: source).first("stbl") else { return }
        let table = try stbl.children(of: source)
        if let stsd = table.first("stsd") {
            movie.videoCodec = try source.bytes(at: stsd.payloadOffset, upTo: 16).fourCC(at: 12)
        }
        if let stts = table.first("stts"), timescale > 0, mediaDuration > 0 {
            let payload = try stts.payload(of: source, limit: 16 << 20)
            var cursor = PayloadCursor(payload, at: 4)
            let entries = try cursor.read(4)
            var samples = 0
            for _ in 0..<Swift.min(entries, payload.count / 8) {
                samples += try cursor.read(4)
                _ = try cursor.read(4)
            }
            if samples > 0 { movie.frameRate = Double(samples) * Double(timescale) / Double(mediaDuration) }
        }
    }

    private static func readUserData(
        _ box: ISOBox, _ source: ByteSource, _ movie: inout QuickTimeMetadata, depth: Int
    ) throws(MetadataError) {
        for child in try box.children(of: source) {
            if child.type == "\u{A9}xyz" {
                let payload = try child.payload(of: source)
                // A 16-bit length and a 16-bit language, then the ISO 6709 text.
                let text = String(decoding: payload.dropFirst(4).prefix { $0 != 0 }, as: UTF8.self)
                if movie.latitude == nil, let location = ISO6709.parse(text) {
                    (movie.latitude, movie.longitude, movie.altitude) = location
                }
            } else if child.type == "meta", depth == 0 {
                try readMeta(child, source, &movie)
            }
        }
    }

    /// `meta` with an `mdta` handler: `keys` names the entries of `ilst`, 1-based.
    private static func readMeta(_ box: ISOBox, _ source: ByteSource, _ movie: inout QuickTimeMetadata)
        throws(MetadataError)
    {
        // QuickTime's meta is a plain box, MPEG-4's a full box: look for the hdlr child.
        let head = try source.bytes(at: box.payloadOffset, upTo: 8)
        let children = try box.children(of: source, skip: head.fourCC(at: 4) == "hdlr" ? 0 : 4)
        guard let keysBox = children.first("keys"), let ilst = children.first("ilst") else { return }
        let payload = try keysBox.payload(of: source)
        var cursor = PayloadCursor(payload, at: 4)
        let count = try cursor.read(4)
        var names: [Int: String] = [:]
        for index in 1...Swift.max(1, Swift.min(count, 10_000)) where count > 0 {
            let size = try cursor.read(4)
            guard size >= 8, cursor.position + size - 4 <= payload.count else { break }
            _ = try cursor.fourCC()  // namespace, "mdta"
            names[index] = String(decoding: payload[cursor.position..<cursor.position + size - 8], as: UTF8.self)
            cursor.position += size - 8
        }
        for item in try ilst.children(of: source) {
            let header = try source.bytes(at: item.offset + 4, count: 4)
            guard let index = header.u32(at: 0).map(Int.init), let name = names[index],
                let data = try item.children(of: source).first("data")
            else { continue }
            let value = try data.payload(of: source)
            guard value.count >= 8, let type = value.u32(at: 0) else { continue }
            let body = Array(value[8...])
            switch type & 0xFFFFFF {
            case 1: movie.keys[name] = String(decoding: body, as: UTF8.self)
            case 23: if let bits = body.u32(at: 0) { movie.keys[name] = String(Float(bitPattern: bits)) }
            case 24: if let bits = body.u64(at: 0) { movie.keys[name] = String(Double(bitPattern: bits)) }
            case 21, 22:
                var number = 0
                for byte in body.prefix(8) { number = number << 8 | Int(byte) }
                movie.keys[name] = String(number)
            default: break
            }
        }
    }
}

/// ISO 6709 locations as phones write them: "+37.3349-122.0090+012.345/".
enum ISO6709 {
    static func parse(_ text: String) -> (Double, Double, Double?)? {
        var numbers: [Double] = []
        var current = ""
        for character in text {
            if character == "+" || character == "-" || character == "/" {
                if !current.isEmpty, let value = Double(current) { numbers.append(value) }
                current = character == "/" ? "" : String(character)
                if character == "/" { break }
            } else if character.isNumber || character == "." {
                current.append(character)
            } else {
                return nil
            }
        }
        if !current.isEmpty, let value = Double(current) { numbers.append(value) }
        guard numbers.count >= 2, let latitude = Double?(numbers[0]).within(GeographicRange.latitude),
            let longitude = Double?(numbers[1]).within(GeographicRange.longitude)
        else { return nil }
        return (latitude, longitude, numbers.count > 2 ? Double?(numbers[2]).within(GeographicRange.altitude) : nil)
    }
}
