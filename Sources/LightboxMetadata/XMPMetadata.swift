import Foundation

/// The XMP properties Lightbox reads: rating, panoramas (GPano), Android Motion Photos
/// (Google Camera and Container), and the date, GPS and orientation a sidecar may override.
///
/// XMP is RDF in XML. Lightbox does not need a full XML parser for a handful of simple
/// properties: ``XMPScanner`` reads tags and attributes tolerantly, resolves namespace
/// prefixes from their declarations, and keeps every simple property as a value, whichever
/// of the two RDF forms (attribute or element) the writer chose.
public struct XMPMetadata: Sendable, Hashable {
    /// xmp:Rating, -1 (rejected) to 5.
    public var rating: Int?
    /// GPano:ProjectionType ("equirectangular", "cylindrical"...).
    public var projectionType: String?
    /// GPano:UsePanoramaViewer.
    public var usePanoramaViewer: Bool?
    /// GCamera:MotionPhoto == 1 (or the older GCamera:MicroVideo == 1).
    public var isMotionPhoto = false
    /// The length in bytes of the movie appended at the end of a Motion Photo (from
    /// GCamera:MicroVideoOffset, or the Container:Directory item whose semantic is MotionPhoto).
    public var motionPhotoVideoLength: Int?
    /// GCamera:MotionPhotoPresentationTimestampUs.
    public var motionPhotoPresentationTimestampUs: Int?
    /// exif:DateTimeOriginal or photoshop:DateCreated (ISO 8601 text).
    public var dateTimeOriginal: String?
    /// exif:GPSLatitude and exif:GPSLongitude, in degrees.
    public var latitude: Double?
    public var longitude: Double?
    /// exif:GPSAltitude in metres, with exif:GPSAltitudeRef.
    public var altitude: Double?
    /// tiff:Orientation.
    public var orientation: Int?
    /// Every simple property found, "namespace-uri localName" -> value.
    public var properties: [String: String] = [:]

    /// The largest packet read, whatever carries it (a sidecar, a JPEG's extended XMP joined,
    /// a HEIF item's extents, a PNG chunk inflated): Google's depth maps, the largest XMP
    /// cameras write, are a few megabytes.
    public static let maximumPacketSize = 16 << 20
    /// Packets from this size up reserve their memory (``MemoryBudget``) before they are read:
    /// below it, what a packet holds is less than the reservation's bookkeeping is worth.
    static let reservedPacketSize = 1 << 20

    /// Reads a packet of `size` bytes with `read` and parses it, within the process's memory
    /// budget: the packet, the scanner's copies of its names and values and the properties
    /// kept hold up to four times its size. Nil when `read` gives none; ``MetadataError`` when
    /// the packet cannot fit in the budget.
    public static func reading(
        packetOf size: Int, _ read: () throws(MetadataError) -> [UInt8]?
    ) throws(MetadataError) -> XMPMetadata? {
        func parse() throws(MetadataError) -> XMPMetadata? { try read().map(XMPMetadata.init(packet:)) }
        guard size >= reservedPacketSize else { return try parse() }
        return try MemoryBudget.shared.withReservation(
            size.multipliedReportingOverflow(by: 4).partialValue,
            for: "reading an XMP packet of \(MemoryBudget.megabytes(size))",
            refused: { MetadataError(.unreadable, $0.message) }, parse)
    }

    static let xmpNamespace = "http://ns.adobe.com/xap/1.0/"
    static let gpano = "http://ns.google.com/photos/1.0/panorama/"
    static let gcamera = "http://ns.google.com/photos/1.0/camera/"
    static let container = "http://ns.google.com/photos/1.0/container/"
    static let item = "http://ns.google.com/photos/1.0/container/item/"
    public static let exifNamespace = "http://ns.adobe.com/exif/1.0/"
    static let tiff = "http://ns.adobe.com/tiff/1.0/"
    static let photoshop = "http://ns.adobe.com/photoshop/1.0/"

    /// Parses an XMP packet (UTF-8 text).
    public init(packet: [UInt8]) {
        let scan = XMPScanner(packet)
        properties = scan.properties
        func value(_ namespace: String, _ name: String) -> String? { properties[namespace + " " + name] }
        // Any text may stand there ("nan", "1e300"): only -1 to 5 becomes a rating.
        rating = value(Self.xmpNamespace, "Rating").flatMap { Double($0) }.within(-1.5...5.49).map { Int($0.rounded()) }
        projectionType = value(Self.gpano, "ProjectionType")
        usePanoramaViewer = value(Self.gpano, "UsePanoramaViewer").map { $0.lowercased() == "true" }
        isMotionPhoto = value(Self.gcamera, "MotionPhoto") == "1" || value(Self.gcamera, "MicroVideo") == "1"
        motionPhotoPresentationTimestampUs = value(Self.gcamera, "MotionPhotoPresentationTimestampUs").flatMap {
            Int($0)
        }
        if let offset = value(Self.gcamera, "MicroVideoOffset").flatMap({ Int($0) }), offset > 0 {
            motionPhotoVideoLength = offset
        }
        if let length = scan.motionPhotoItemLength { motionPhotoVideoLength = length }
        dateTimeOriginal = value(Self.exifNamespace, "DateTimeOriginal") ?? value(Self.photoshop, "DateCreated")
        latitude = value(Self.exifNamespace, "GPSLatitude").flatMap(Self.coordinate).within(GeographicRange.latitude)
        longitude = value(Self.exifNamespace, "GPSLongitude").flatMap(Self.coordinate).within(GeographicRange.longitude)
        if latitude == nil || longitude == nil { (latitude, longitude) = (nil, nil) }
        if let text = value(Self.exifNamespace, "GPSAltitude"), let metres = Self.rational(text) {
            altitude = Double?(value(Self.exifNamespace, "GPSAltitudeRef") == "1" ? -metres : metres)
                .within(GeographicRange.altitude)
        }
        orientation = value(Self.tiff, "Orientation").flatMap { Int($0) }.flatMap { (1...8).contains($0) ? $0 : nil }
    }

    /// "48,51.5N" or "48,51,30N" (XMP's GPSCoordinate) to signed degrees.
    static func coordinate(_ text: String) -> Double? {
        guard let last = text.last, "NSEW".contains(last.uppercased()) else { return Double(text) }
        let parts = text.dropLast().split(separator: ",").compactMap { Double($0) }
        guard !parts.isEmpty, parts.count <= 3 else { return nil }
        let degrees = parts.enumerated().reduce(0.0) {
            $0 + $1.element / (($1.offset == 0) ? 1 : ($1.offset == 1 ? 60 : 3600))
        }
        return "SW".contains(last.uppercased()) ? -degrees : degrees
    }

    /// "1234/10" or "123.4" to a number.
    static func rational(_ text: String) -> Double? {
        let parts = text.split(separator: "/")
        if parts.count == 2, let n = Double(parts[0]), let d = Double(parts[1]), d != 0 { return n / d }
        return Double(text)
    }
}

/// A tolerant scanner of the XML of an XMP packet: tags, attributes and text, with
/// namespace prefixes resolved. It works on the UTF-8 bytes, making strings only of names
/// and values. Malformed input ends the scan early; it never traps.
///
/// What it keeps is bounded whatever the packet holds, so that its work and memory grow with
/// the packet's bytes and no faster: a key repeats its namespace's URI, so a URI longer than
/// any real one's is not resolved; past ``maximumProperties`` properties the rest are dropped.
struct XMPScanner {
    /// The longest namespace URI resolved: real ones are a few dozen bytes.
    static let maximumNamespaceLength = 1_024
    /// The longest namespace prefix read.
    static let maximumPrefixLength = 256
    /// The most namespace declarations kept.
    static let maximumNamespaces = 1_024
    /// The most properties kept; a packet of a camera or an editor holds a few hundred.
    static let maximumProperties = 4_096
    /// The most attributes read of one tag.
    static let maximumAttributes = 4_096

    private(set) var properties: [String: String] = [:]
    /// The Length of the Container:Directory item whose Item:Semantic is "MotionPhoto".
    private(set) var motionPhotoItemLength: Int?

    private var namespaces: [String: String] = [:]

    private static let lessThan = UInt8(ascii: "<"), greaterThan = UInt8(ascii: ">"), slash = UInt8(ascii: "/")
    private static let equals = UInt8(ascii: "="), ampersand = UInt8(ascii: "&")

    init(_ bytes: [UInt8]) {
        // Declarations first, wherever they are, so a prefix used before its declaration in
        // document order (never in valid XML, but cheap to allow) still resolves.
        collectNamespaces(bytes)
        var index = 0
        var open: [(name: String, text: String)] = []
        while index < bytes.count {
            if bytes[index] == Self.lessThan {
                guard let end = Self.find(Self.greaterThan, in: bytes, from: index) else { break }
                let tag = bytes[(index + 1)..<end]
                index = end + 1
                guard let first = tag.first, first != UInt8(ascii: "?"), first != UInt8(ascii: "!") else { continue }
                if first == Self.slash {
                    let name = Self.string(tag.dropFirst()).trimmingWhitespace()
                    if let last = open.last, last.name == name {
                        open.removeLast()
                        let value = last.text.trimmingWhitespace()
                        if !value.isEmpty, let key = resolve(last.name) { keep(key, String(value)) }
                    }
                    continue
                }
                let selfClosing = tag.last == Self.slash
                let (name, attributes) = Self.parseTag(selfClosing ? tag.dropLast() : tag)
                var semantic: String?
                var length: Int?
                for (attribute, value) in attributes where !attribute.hasPrefix("xmlns") {
                    guard let key = resolve(attribute) else { continue }
                    keep(key, value)
                    if key == XMPMetadata.item + " Semantic" { semantic = value }
                    if key == XMPMetadata.item + " Length" { length = Int(value) }
                }
                if semantic == "MotionPhoto", let length, length > 0 { motionPhotoItemLength = length }
                if !selfClosing { open.append((name, "")) }
                if open.count > 64 { break }  // nesting this deep is not XMP
            } else {
                let next = Self.find(Self.lessThan, in: bytes, from: index) ?? bytes.count
                if !open.isEmpty { open[open.count - 1].text += Self.unescape(bytes[index..<next]) }
                index = next
            }
        }
    }

    /// Keeps a property, unless the packet already gave the most properties kept.
    private mutating func keep(_ key: String, _ value: String) {
        guard properties.count < Self.maximumProperties || properties[key] != nil else { return }
        properties[key] = value
    }

    private mutating func collectNamespaces(_ bytes: [UInt8]) {
        let marker = Array("xmlns:".utf8)
        var unclosed: Set<UInt8> = []
        var index = 0
        while index + marker.count < bytes.count {
            guard bytes[index] == marker[0], bytes[index..<index + marker.count].elementsEqual(marker) else {
                index += 1
                continue
            }
            index += marker.count
            // A prefix is a short name: one whose `=` is not near would make every later
            // declaration's search run to the packet's end.
            let near = min(bytes.count, index + Self.maximumPrefixLength + 1)
            guard let equals = bytes[index..<near].firstIndex(of: Self.equals) else { continue }
            let prefix = Self.string(bytes[index..<equals]).trimmingWhitespace()
            var valueStart = equals + 1
            while valueStart < bytes.count, bytes[valueStart] == UInt8(ascii: " ") { valueStart += 1 }
            guard valueStart < bytes.count,
                bytes[valueStart] == UInt8(ascii: "\"") || bytes[valueStart] == UInt8(ascii: "'"),
                !unclosed.contains(bytes[valueStart])
            else { continue }
            guard let valueEnd = Self.find(bytes[valueStart], in: bytes, from: valueStart + 1) else {
                // No later value in these quotes can close either: searching again for each
                // would take the square of the packet's length.
                unclosed.insert(bytes[valueStart])
                continue
            }
            index = valueEnd + 1
            guard valueEnd - valueStart - 1 <= Self.maximumNamespaceLength,
                namespaces.count < Self.maximumNamespaces || namespaces[String(prefix)] != nil
            else { continue }
            // Measured again as decoded: each byte that is not UTF-8 becomes U+FFFD, three bytes.
            let uri = Self.string(bytes[(valueStart + 1)..<valueEnd])
            guard uri.utf8.count <= Self.maximumNamespaceLength else { continue }
            namespaces[String(prefix)] = uri
        }
    }

    /// "prefix:Name" -> "namespace-uri Name".
    private func resolve(_ qualified: String) -> String? {
        let parts = qualified.split(separator: ":", maxSplits: 1)
        guard parts.count == 2, let uri = namespaces[String(parts[0])] else { return nil }
        return uri + " " + parts[1]
    }

    private static func find(_ byte: UInt8, in bytes: [UInt8], from start: Int) -> Int? {
        var index = start
        while index < bytes.count {
            if bytes[index] == byte { return index }
            index += 1
        }
        return nil
    }

    private static func string(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: bytes, as: UTF8.self)
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    /// `name attr="value" attr2='value'` -> the name and the attributes.
    private static func parseTag(_ tag: ArraySlice<UInt8>) -> (String, [(String, String)]) {
        var index = tag.startIndex
        func skipSpace() { while index < tag.endIndex && isSpace(tag[index]) { index += 1 } }
        func readName() -> String {
            let start = index
            while index < tag.endIndex, !isSpace(tag[index]), tag[index] != equals, tag[index] != slash { index += 1 }
            return string(tag[start..<index])
        }
        skipSpace()
        let name = readName()
        var attributes: [(String, String)] = []
        while index < tag.endIndex, attributes.count < maximumAttributes {
            skipSpace()
            let attribute = readName()
            guard !attribute.isEmpty else { break }
            skipSpace()
            guard index < tag.endIndex, tag[index] == equals else { break }
            index += 1
            skipSpace()
            guard index < tag.endIndex, tag[index] == UInt8(ascii: "\"") || tag[index] == UInt8(ascii: "'") else {
                break
            }
            let quote = tag[index]
            index += 1
            let start = index
            while index < tag.endIndex && tag[index] != quote { index += 1 }
            attributes.append((attribute, unescape(tag[start..<index])))
            index += 1
        }
        return (name, attributes)
    }

    private static func unescape(_ bytes: ArraySlice<UInt8>) -> String {
        let text = string(bytes)
        guard bytes.contains(ampersand) else { return text }
        return text.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&apos;", with: "'")
            .replacingOccurrences(of: "&amp;", with: "&")
    }
}
