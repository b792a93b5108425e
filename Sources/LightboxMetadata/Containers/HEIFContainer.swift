/// HEIF, HEIC and AVIF: the `meta` box names the items (`iinf`), where their bytes are
/// (`iloc`), and their properties (`iprp`): size (`ispe`), rotation (`irot`), colour (`colr`).
/// EXIF and XMP are items of their own.
enum HEIFContainer {
    static func read(_ source: ByteSource, into metadata: inout MediaMetadata) throws(MetadataError) {
        let top = try ISOBox.children(of: source, in: 0..<source.count)
        guard let meta = top.first("meta") else { throw MetadataError(.malformed, "the HEIF file has no meta box") }
        let boxes = try meta.children(of: source, skip: 4)
        let primary = try primaryItem(boxes, source)
        var items: [Int: ItemInfo] = [:]
        if let iinf = boxes.first("iinf") { items = try itemInfos(iinf, source) }
        var locations: [Int: [Extent]] = [:]
        if let iloc = boxes.first("iloc") { locations = try itemLocations(iloc, source) }
        var properties: [ISOBox] = []
        var associations: [Int: [Association]] = [:]
        if let iprp = boxes.first("iprp") {
            let children = try iprp.children(of: source)
            properties = try children.first("ipco")?.children(of: source) ?? []
            if let ipma = children.first("ipma") { associations = try itemAssociations(ipma, source) }
        }
        if let primary {
            for association in associations[primary] ?? []
            where association.index >= 1 && association.index <= properties.count {
                let property = properties[association.index - 1]
                switch property.type {
                case "ispe":
                    let payload = try property.payload(of: source)
                    var cursor = PayloadCursor(payload, at: 4)
                    metadata.pixelWidth = try cursor.read(4)
                    metadata.pixelHeight = try cursor.read(4)
                case "irot":
                    let payload = try property.payload(of: source)
                    if let angle = payload.first { metadata.heifRotation = Int(angle & 3) }
                case "colr":
                    let payload = try property.payload(of: source, limit: 4 << 20)
                    if let kind = payload.fourCC(at: 0), kind == "prof" || kind == "rICC" {
                        metadata.hasICCProfile = true
                        metadata.iccProfileDescription = ICCProfile.description(of: Array(payload.dropFirst(4)))
                    }
                default: break
                }
            }
        }
        // libheif lists a primary image's thumbnails in item order, and libvips takes the first.
        // A malformed reference only loses the thumbnail's size.
        if let primary, let iref = boxes.first("iref"),
            let thumbnail = (try? thumbnails(of: primary, iref, source))?.min(),
            let size = try? size(of: thumbnail, properties, associations, source)
        {
            metadata.heifThumbnailWidth = size.width
            metadata.heifThumbnailHeight = size.height
        }
        for (id, item) in items.sorted(by: { $0.key < $1.key }) {
            guard let extents = locations[id] else { continue }
            if item.type == "Exif", metadata.exif == nil, let first = extents.first {
                // The item starts with the offset of the TIFF header from the end of these 4 bytes.
                let head = try source.bytes(at: first.offset, count: 4)
                let tiffStart = first.offset + 4 + Int(head.u32(at: 0)!)
                guard tiffStart < first.offset + first.length else { continue }
                if let reader = try? TIFFReader(source: source, base: tiffStart) {
                    metadata.exif = try? ExifMetadata(reader: reader)
                }
            } else if item.type == "mime", item.contentType == "application/rdf+xml", metadata.xmp == nil {
                // Extents may name the same bytes again and again: their sum is checked, not each.
                var size = 0
                for extent in extents where extent.length > 0 {
                    size += Swift.min(extent.length, XMPMetadata.maximumPacketSize + 1)
                    if size > XMPMetadata.maximumPacketSize { break }
                }
                guard size <= XMPMetadata.maximumPacketSize else { continue }
                metadata.xmp = try XMPMetadata.reading(packetOf: size) { () throws(MetadataError) in
                    var packet: [UInt8] = []
                    packet.reserveCapacity(size)
                    for extent in extents { packet += try source.bytes(at: extent.offset, count: extent.length) }
                    return packet
                }
            }
        }
    }

    /// `pitm`: the primary item, when the file names one.
    static func primaryItem(_ boxes: [ISOBox], _ source: ByteSource) throws(MetadataError) -> Int? {
        guard let pitm = boxes.first("pitm") else { return nil }
        let payload = try pitm.payload(of: source)
        var cursor = PayloadCursor(payload, at: 4)
        return try cursor.read(payload.first == 0 ? 2 : 4)
    }

    /// One reference of `iref`: item `from` refers to the items `to`, in order, as `kind`
    /// (`thmb` a thumbnail of, `dimg` derived from, `cdsc` describing).
    struct Reference {
        var kind: String
        var from: Int
        var to: [Int]
    }

    /// `iref`: every reference, in the file's order.
    static func references(_ iref: ISOBox, _ source: ByteSource) throws(MetadataError) -> [Reference] {
        let head = try source.bytes(at: iref.payloadOffset, count: 4)
        let idSize = head[0] == 0 ? 2 : 4
        var found: [Reference] = []
        for reference in try iref.children(of: source, skip: 4) {
            let payload = try reference.payload(of: source)
            var cursor = PayloadCursor(payload)
            let from = try cursor.read(idSize)
            let count = try cursor.read(2)
            var to: [Int] = []
            for _ in 0..<count { to.append(try cursor.read(idSize)) }
            found.append(Reference(kind: reference.type, from: from, to: to))
        }
        return found
    }

    /// `iref`: the items that are thumbnails (`thmb`) of `item`.
    static func thumbnails(of item: Int, _ iref: ISOBox, _ source: ByteSource) throws(MetadataError) -> [Int] {
        try references(iref, source).filter { $0.kind == "thmb" && $0.to.contains(item) }.map(\.from)
    }

    /// An item's size as displayed: its `ispe`, turned by its `irot`.
    static func size(
        of item: Int, _ properties: [ISOBox], _ associations: [Int: [Association]], _ source: ByteSource
    ) throws(MetadataError) -> (width: Int, height: Int)? {
        var size: (width: Int, height: Int)?
        var turns = 0
        for association in associations[item] ?? []
        where association.index >= 1 && association.index <= properties.count {
            let property = properties[association.index - 1]
            if property.type == "ispe" {
                let payload = try property.payload(of: source)
                var cursor = PayloadCursor(payload, at: 4)
                size = (try cursor.read(4), try cursor.read(4))
            } else if property.type == "irot", let angle = try property.payload(of: source).first {
                turns = Int(angle & 3)
            }
        }
        guard let size else { return nil }
        return turns % 2 == 1 ? (size.height, size.width) : size
    }

    struct ItemInfo {
        var type: String
        var contentType: String?
    }

    /// `iinf`: item id -> type (and content type for `mime` items).
    static func itemInfos(_ box: ISOBox, _ source: ByteSource) throws(MetadataError) -> [Int: ItemInfo] {
        let head = try source.bytes(at: box.payloadOffset, count: 4)
        let entries = try box.children(of: source, skip: head[0] == 0 ? 6 : 8)
        var infos: [Int: ItemInfo] = [:]
        for entry in entries where entry.type == "infe" {
            let payload = try entry.payload(of: source)
            guard let version = payload.first, version >= 2 else { continue }
            var cursor = PayloadCursor(payload, at: 4)
            let id = try cursor.read(version == 2 ? 2 : 4)
            _ = try cursor.read(2)  // protection index
            let type = try cursor.fourCC()
            _ = cursor.cString()  // name
            infos[id] = ItemInfo(type: type, contentType: type == "mime" ? cursor.cString() : nil)
        }
        return infos
    }

    struct Extent {
        var offset: Int
        var length: Int
    }

    /// The item types that hold coded pixels a decoder is handed.
    static let codedImageTypes: Set<String> = ["av01", "hvc1", "avc1", "jpeg", "j2k1", "vvc1", "unci"]

    /// Refuses what libheif would misread, before it reads the file: item locations that are
    /// not well formed, and a coded image item whose data is empty. libheif handed such an item
    /// to its AV1 decoder as an empty buffer, which dav1d refused and leaked.
    static func checkStructure(_ source: ByteSource) throws(MetadataError) {
        let top = try ISOBox.children(of: source, in: 0..<source.count)
        guard let meta = top.first("meta") else { return }
        let boxes = try meta.children(of: source, skip: 4)
        guard let iloc = boxes.first("iloc") else { return }
        let locations = try itemLocations(iloc, source, itemData: boxes.first("idat"))
        guard let iinf = boxes.first("iinf") else { return }
        for (id, info) in try itemInfos(iinf, source).sorted(by: { $0.key < $1.key })
        where codedImageTypes.contains(info.type) {
            let extents = locations[id] ?? []
            if extents.isEmpty || extents.contains(where: { $0.length == 0 }) {
                throw MetadataError(
                    .malformed, "the HEIF image item \(id) (\(info.type)) has no data in its locations (iloc)")
            }
        }
    }

    /// `iloc`: item id -> its extents as offsets in the file. Items whose bytes are in `idat`
    /// count when `itemData` is that box; items in another file or item are left out.
    static func itemLocations(_ box: ISOBox, _ source: ByteSource, itemData: ISOBox? = nil) throws(MetadataError)
        -> [Int: [Extent]]
    {
        let payload = try box.payload(of: source, limit: 16 << 20)
        var cursor = PayloadCursor(payload)
        let version = try cursor.read(1)
        _ = try cursor.read(3)
        let sizes = try cursor.read(1)
        let more = try cursor.read(1)
        let offsetSize = sizes >> 4
        let lengthSize = sizes & 15
        let baseOffsetSize = more >> 4
        let indexSize = (version == 1 || version == 2) ? more & 15 : 0
        // ISO/IEC 14496-12 allows 0, 4 or 8 bytes; libheif read other widths as an empty item
        // and handed it to its AV1 decoder, which leaked.
        for width in [offsetSize, lengthSize, baseOffsetSize, indexSize] where ![0, 4, 8].contains(width) {
            throw MetadataError(
                .malformed, "the HEIF item locations (iloc) have a \(width)-byte field; the format allows 0, 4 or 8")
        }
        let itemCount = try cursor.read(version < 2 ? 2 : 4)
        var locations: [Int: [Extent]] = [:]
        // Fields may be zero bytes wide, so counts alone could loop for billions of turns on
        // hostile bytes: real files hold a few hundred extents.
        var extentBudget = 100_000
        for _ in 0..<itemCount {
            let id = try cursor.read(version < 2 ? 2 : 4)
            var method = 0
            if version == 1 || version == 2 { method = try cursor.read(2) & 15 }
            let reference = try cursor.read(2)  // 0: this file
            let base = try cursor.read(baseOffsetSize)
            let extentCount = try cursor.read(2)
            extentBudget -= extentCount + 1
            guard extentBudget >= 0 else {
                throw MetadataError(.malformed, "the HEIF item locations list more extents than any image holds")
            }
            var extents: [Extent] = []
            for _ in 0..<extentCount {
                _ = try cursor.read(indexSize)
                let offset = try cursor.read(offsetSize)
                let length = try cursor.read(lengthSize)
                let (start, overflow) = base.addingReportingOverflow(offset)
                if !overflow { extents.append(Extent(offset: start, length: length)) }
            }
            if reference == 0, method == 0 {
                locations[id] = extents
            } else if reference == 0, method == 1, let itemData {
                locations[id] = extents.map { Extent(offset: itemData.payloadOffset &+ $0.offset, length: $0.length) }
            }
        }
        return locations
    }

    /// One property of an item: its 1-based index in `ipco`, and whether a reader that does not
    /// know it must not show the item.
    struct Association {
        var index: Int
        var essential: Bool
    }

    /// `ipma`: item id -> its properties, in order.
    static func itemAssociations(_ box: ISOBox, _ source: ByteSource) throws(MetadataError) -> [Int: [Association]] {
        let payload = try box.payload(of: source, limit: 16 << 20)
        var cursor = PayloadCursor(payload)
        let version = try cursor.read(1)
        let flags = try cursor.read(3)
        let count = try cursor.read(4)
        var associations: [Int: [Association]] = [:]
        for _ in 0..<count {
            let id = try cursor.read(version < 1 ? 2 : 4)
            let n = try cursor.read(1)
            var found: [Association] = []
            for _ in 0..<n {
                let wide = flags & 1 != 0
                let value = try cursor.read(wide ? 2 : 1)
                found.append(
                    Association(index: value & (wide ? 0x7FFF : 0x7F), essential: value >> (wide ? 15 : 7) == 1))
            }
            associations[id] = found
        }
        return associations
    }
}

/// Canon CR3: ISO-BMFF whose `moov` holds a Canon `uuid` box with the TIFF structures of
/// IFD0 (CMT1), the EXIF IFD (CMT2), the maker note (CMT3) and GPS (CMT4).
enum CR3Container {
    static let canonUUID: [UInt8] = [
        0x85, 0xC0, 0xB6, 0x87, 0x82, 0x0F, 0x11, 0xE0, 0x81, 0x11, 0xF4, 0xCE, 0x46, 0x2B, 0x6A, 0x48,
    ]

    static func read(_ source: ByteSource, into metadata: inout MediaMetadata) throws(MetadataError) {
        let top = try ISOBox.children(of: source, in: 0..<source.count)
        guard let moov = top.first("moov") else { throw MetadataError(.malformed, "the CR3 file has no moov box") }
        guard let canon = try moov.children(of: source).first(where: { $0.type == "uuid" && $0.userType == canonUUID })
        else {
            throw MetadataError(.malformed, "the CR3 file has no Canon metadata box")
        }
        var exif = ExifMetadata()
        var found = false
        for box in try canon.children(of: source) {
            guard ["CMT1", "CMT2", "CMT4"].contains(box.type),
                let reader = try? TIFFReader(source: source, base: box.payloadOffset),
                let first = reader.firstIFDOffset
            else { continue }
            var walk = IFDWalk()
            guard let ifd = walk.visit(reader, at: first) else { continue }
            found = true
            switch box.type {
            case "CMT1": exif.readIFD0(ifd, reader)
            case "CMT2": exif.readExifIFD(ifd, reader)
            default: exif.gps = GPSInfo(ifd, reader)
            }
        }
        if found { metadata.exif = exif }
        metadata.pixelWidth = exif.pixelXDimension ?? exif.imageWidth
        metadata.pixelHeight = exif.pixelYDimension ?? exif.imageHeight
    }
}

/// The derivations of a HEIF's images (`dimg` references: a grid from its tiles, an overlay
/// from its layers), looked at before a decoder follows them.
public enum HEIFDerivations {
    /// Whether an image derives, through any chain of `dimg` references, from itself: a grid
    /// listing itself as a tile sent libheif 1.15 into endless recursion, thread upon thread.
    /// False for a file whose references cannot be read (the decoder then reports it).
    public static func haveLoop(_ source: ByteSource) -> Bool {
        guard let top = try? ISOBox.children(of: source, in: 0..<source.count), let meta = top.first("meta"),
            let boxes = try? meta.children(of: source, skip: 4), let iref = boxes.first("iref"),
            let references = try? HEIFContainer.references(iref, source)
        else { return false }
        var edges: [Int: [Int]] = [:]
        for reference in references where reference.kind == "dimg" {
            edges[reference.from, default: []] += reference.to
        }
        // Depth-first, without recursion: 1 on the current path, 2 done.
        var state: [Int: Int] = [:]
        for start in edges.keys where state[start] == nil {
            var stack: [(item: Int, next: Int)] = [(start, 0)]
            state[start] = 1
            while let (item, next) = stack.last {
                let children = edges[item] ?? []
                guard next < children.count else {
                    state[item] = 2
                    stack.removeLast()
                    continue
                }
                stack[stack.count - 1].next += 1
                let child = children[next]
                switch state[child] {
                case 1: return true
                case 2: continue
                default:
                    state[child] = 1
                    stack.append((child, 0))
                }
            }
        }
        return false
    }
}
