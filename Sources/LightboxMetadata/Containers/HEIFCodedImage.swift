/// Where a HEIF's image is coded as HEVC pictures, for a decoder that takes the pictures itself
/// (`LightboxImaging` decodes an iPhone photo's tiles one at a time through FFmpeg): the
/// decoder configuration, each picture's bytes, the grid they form and the turn the image
/// takes. Read with the same box readers as the metadata, in Swift, so that hostile bytes meet
/// bounds-checked code.
public struct HEIFCodedImage: Sendable, Equatable {
    /// Which image of the file.
    public enum Image: Sendable {
        /// The primary item (`pitm`).
        case primary
        /// Its first thumbnail in item order (`thmb`), the one libheif and libvips take.
        case thumbnail
    }

    /// The item's id.
    public var item: Int
    /// Where the `hvcC` box's contents (the decoder configuration record) lie in the file.
    public var configuration: Range<Int>
    public var columns: Int
    public var rows: Int
    /// Each picture's bytes, row by row of the grid: ranges of the file, joined in order.
    public var pictures: [[Range<Int>]]
    /// The image before its turn: the grid's output size, or the one picture's `ispe`.
    public var width: Int
    public var height: Int
    /// The first picture's `ispe`: every picture of a grid has that size.
    public var pictureWidth: Int
    public var pictureHeight: Int
    /// Quarter turns anticlockwise (`irot`), 0 to 3.
    public var quarterTurns: Int
    /// The `nclx` colour description's matrix (ITU-T H.273) and range, from the image or else
    /// its first picture; nil when neither has one (the stream's VUI then says).
    public var colourMatrix: Int?
    public var fullRange: Bool?

    /// The image's size as displayed: turned by its `irot`.
    public var displayedSize: (width: Int, height: Int) {
        quarterTurns % 2 == 1 ? (height, width) : (width, height)
    }

    /// The ICC profile (`colr` of type `prof` or `rICC`) of the image, or else of its first
    /// picture: where its bytes lie in the file.
    public var profile: Range<Int>?

    /// The layout of `image` in the HEIF `bytes`, when it is HEVC (`hvc1`) in the simple form:
    /// one picture, or a grid of pictures sharing one configuration, turned by `irot` at most,
    /// without an alpha plane. Nil for anything else (a mirror, a crop, a layer selector, an
    /// unknown essential property, an image derived from another, bytes outside the file) and
    /// for damaged boxes.
    public static func read(_ bytes: [UInt8], image: Image) -> HEIFCodedImage? {
        let found: HEIFCodedImage?? = try? Items(ByteSource(bytes: bytes)).flatMap { items throws(MetadataError) in
            switch image {
            case .primary: return try items.layout(of: items.primary)
            case .thumbnail:
                return try items.thumbnail.map { id throws(MetadataError) in try items.layout(of: id) } ?? nil
            }
        }
        return found ?? nil
    }

    /// The primary image's layout and its thumbnail's, read at once, when both are in the
    /// simple form (the thumbnail nil when the file has none): a decoder that takes pictures
    /// itself then needs nothing else of the file. Nil when either is not.
    public static func readPrimaryAndThumbnail(_ bytes: [UInt8]) -> (
        primary: HEIFCodedImage, thumbnail: HEIFCodedImage?
    )? {
        readPrimaryAndThumbnail(ByteSource(bytes: bytes))
    }

    /// ``readPrimaryAndThumbnail(_:)`` from a source, which a file-backed one reads only where
    /// the boxes are: the `meta` box and the top-level boxes' headers.
    public static func readPrimaryAndThumbnail(_ source: ByteSource) -> (
        primary: HEIFCodedImage, thumbnail: HEIFCodedImage?
    )? {
        let found: (HEIFCodedImage, HEIFCodedImage?)?? = try? Items(source).flatMap {
            items throws(MetadataError) -> (HEIFCodedImage, HEIFCodedImage?)? in
            guard let primary = try items.layout(of: items.primary) else { return nil }
            guard let id = items.thumbnail else { return (primary, nil) }
            guard let thumbnail = try items.layout(of: id) else { return nil }
            return (primary, thumbnail)
        }
        return found ?? nil
    }

    /// The bytes this image's decode reads (its configuration, its pictures and its ICC
    /// profile) gathered from `source` into one array, and the layout with its ranges moved onto
    /// that array: an iPhone's 320x240 thumbnail is about 1% of its file.
    /// Pictures whose ranges add up to more than the file (tiles naming the same bytes again and
    /// again, 65,536 times the file at most) are refused before anything is gathered.
    public func gathered(from source: ByteSource) throws(MetadataError) -> (bytes: [UInt8], layout: HEIFCodedImage) {
        // Each range lies inside the file (`Items.layout`), so no sum of them overflows.
        let total = configuration.count + (profile?.count ?? 0) + pictures.joined().reduce(0) { $0 + $1.count }
        guard total <= source.count else {
            throw MetadataError(
                .malformed, "the HEIF image's pictures name \(total) bytes of a file of \(source.count)")
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(total)
        /// Appends `range` of the file; where it now lies.
        func gather(_ range: Range<Int>) throws(MetadataError) -> Range<Int> {
            let start = bytes.count
            bytes += try source.bytes(at: range.lowerBound, count: range.count)
            return start..<bytes.count
        }
        var moved = self
        moved.configuration = try gather(configuration)
        moved.profile = try profile.map { range throws(MetadataError) in try gather(range) }
        moved.pictures = []
        for picture in pictures {
            var ranges: [Range<Int>] = []
            for range in picture { ranges.append(try gather(range)) }
            moved.pictures.append(ranges)
        }
        return (bytes, moved)
    }

    /// A HEIF's items as its `meta` box lists them.
    private struct Items {
        let source: ByteSource
        let primary: Int
        /// The primary image's first thumbnail in item order, when it has one.
        let thumbnail: Int?
        let references: [HEIFContainer.Reference]
        let types: [Int: HEIFContainer.ItemInfo]
        let locations: [Int: [HEIFContainer.Extent]]
        let properties: [ISOBox]
        let associations: [Int: [HEIFContainer.Association]]

        /// Nil when the file has no `meta` with a primary item, item information, locations
        /// and properties.
        init?(_ source: ByteSource) throws(MetadataError) {
            let top = try ISOBox.children(of: source, in: 0..<source.count)
            guard let meta = top.first("meta") else { return nil }
            let boxes = try meta.children(of: source, skip: 4)
            guard let primary = try HEIFContainer.primaryItem(boxes, source), let iinf = boxes.first("iinf"),
                let iloc = boxes.first("iloc"), let iprp = boxes.first("iprp")
            else { return nil }
            let children = try iprp.children(of: source)
            guard let ipco = children.first("ipco"), let ipma = children.first("ipma") else { return nil }
            self.source = source
            self.primary = primary
            references =
                try boxes.first("iref").map { iref throws(MetadataError) in try HEIFContainer.references(iref, source) }
                ?? []
            thumbnail = references.filter { $0.kind == "thmb" && $0.to.contains(primary) }.map(\.from).min()
            types = try HEIFContainer.itemInfos(iinf, source)
            locations = try HEIFContainer.itemLocations(iloc, source, itemData: boxes.first("idat"))
            properties = try ipco.children(of: source)
            associations = try HEIFContainer.itemAssociations(ipma, source)
        }

        /// Whether an auxiliary image (`auxl`) of `item` is its alpha plane, or one whose kind
        /// cannot be read (taken as alpha): such an image is not the simple form. A depth map
        /// or an HDR gain map is not alpha.
        func hasAlpha(_ item: Int) throws(MetadataError) -> Bool {
            for reference in references where reference.kind == "auxl" && reference.to.contains(item) {
                var kind: String?
                for association in associations[reference.from] ?? [] where association.index >= 1 {
                    guard association.index <= properties.count else { return true }
                    let property = properties[association.index - 1]
                    guard property.type == "auxC" else { continue }
                    // Version and flags, then the kind's URN up to its terminating zero.
                    let payload = try property.payload(of: source, limit: 4096)
                    kind = String(decoding: payload.dropFirst(4).prefix { $0 != 0 }, as: UTF8.self)
                }
                guard let kind else { return true }
                if kind == "urn:mpeg:hevc:2015:auxid:1" || kind.hasSuffix(":alpha") { return true }
            }
            return false
        }

        func layout(of item: Int) throws(MetadataError) -> HEIFCodedImage? {
            let (source, types, references) = (self.source, self.types, self.references)
            // An image that is itself a tile or an overlay's layer is not the simple case.
            guard !references.contains(where: { $0.kind == "dimg" && $0.to.contains(item) }), try !hasAlpha(item)
            else { return nil }
            func described(_ id: Int, isPicture: Bool) throws(MetadataError) -> Described? {
                try Described(id, isPicture: isPicture, properties, associations, source)
            }
            guard let whole = try described(item, isPicture: false) else { return nil }

            /// The bytes an item's extents cover, each inside the file.
            func ranges(_ id: Int) -> [Range<Int>]? {
                guard let extents = locations[id], !extents.isEmpty else { return nil }
                var found: [Range<Int>] = []
                for extent in extents {
                    let (end, overflow) = extent.offset.addingReportingOverflow(extent.length)
                    guard extent.length > 0, extent.offset >= 0, !overflow, end <= source.count else { return nil }
                    found.append(extent.offset..<end)
                }
                return found
            }

            var layout = HEIFCodedImage(
                item: item, configuration: 0..<0, columns: 1, rows: 1, pictures: [], width: 0, height: 0,
                pictureWidth: 0,
                pictureHeight: 0, quarterTurns: whole.quarterTurns, colourMatrix: whole.colourMatrix,
                fullRange: whole.fullRange,
                profile: whole.profile)
            let pictureIDs: [Int]
            switch types[item]?.type {
            case "grid":
                // The grid's own data: version 0, flags, rows and columns less one, output size.
                guard let extents = ranges(item), extents.count == 1 else { return nil }
                var cursor = PayloadCursor(try source.bytes(at: extents[0].lowerBound, count: extents[0].count))
                guard try cursor.read(1) == 0 else { return nil }
                let wide = try cursor.read(1) & 1 != 0
                layout.rows = try cursor.read(1) + 1
                layout.columns = try cursor.read(1) + 1
                layout.width = try cursor.read(wide ? 4 : 2)
                layout.height = try cursor.read(wide ? 4 : 2)
                pictureIDs = references.first { $0.kind == "dimg" && $0.from == item }?.to ?? []
                guard pictureIDs.count == layout.rows * layout.columns else { return nil }
            case "hvc1":
                guard let size = whole.size else { return nil }
                (layout.width, layout.height) = size
                pictureIDs = [item]
            default:
                return nil
            }
            guard layout.width > 0, layout.height > 0, layout.width <= Int(Int32.max), layout.height <= Int(Int32.max)
            else { return nil }
            var configurationIndex: Int?
            for id in pictureIDs {
                guard types[id]?.type == "hvc1",
                    let picture = id == item ? whole : try described(id, isPicture: true),
                    let configuration = picture.configuration,
                    let bytes = ranges(id)
                else { return nil }
                if let configurationIndex {
                    // One configuration for every tile, as phones write them; other grids go elsewhere.
                    guard configuration.index == configurationIndex else { return nil }
                } else {
                    configurationIndex = configuration.index
                    layout.configuration = configuration.range
                    (layout.pictureWidth, layout.pictureHeight) = picture.size ?? (layout.width, layout.height)
                    if layout.colourMatrix == nil {
                        layout.colourMatrix = picture.colourMatrix
                        layout.fullRange = picture.fullRange
                    }
                    if layout.profile == nil { layout.profile = picture.profile }
                }
                layout.pictures.append(bytes)
            }
            return layout
        }
    }

    /// What one item's properties say, or nil when one makes it an image the simple form does
    /// not cover.
    private struct Described {
        var configuration: (index: Int, range: Range<Int>)?
        var size: (width: Int, height: Int)?
        var quarterTurns = 0
        var colourMatrix: Int?
        var fullRange: Bool?
        var profile: Range<Int>?

        init?(
            _ id: Int, isPicture: Bool, _ properties: [ISOBox], _ associations: [Int: [HEIFContainer.Association]],
            _ source: ByteSource
        ) throws(MetadataError) {
            var turned = false
            for association in associations[id] ?? [] where association.index != 0 {
                guard association.index <= properties.count else { return nil }
                let property = properties[association.index - 1]
                switch property.type {
                case "hvcC":
                    configuration = (association.index, property.payloadOffset..<property.end)
                case "ispe":
                    var cursor = PayloadCursor(try property.payload(of: source), at: 4)
                    size = (try cursor.read(4), try cursor.read(4))
                case "irot":
                    // Several turns, or a turn of one picture of a grid, are not the simple form.
                    guard !isPicture, !turned, let angle = try property.payload(of: source).first else { return nil }
                    quarterTurns = Int(angle & 3)
                    turned = true
                case "colr":
                    let payload = try property.payload(of: source, limit: 4 << 20)
                    let kind = payload.fourCC(at: 0)
                    if kind == "nclx", colourMatrix == nil {
                        var cursor = PayloadCursor(payload, at: 8)
                        colourMatrix = try cursor.read(2)
                        fullRange = try cursor.read(1) >> 7 == 1
                    } else if kind == "prof" || kind == "rICC", profile == nil, payload.count > 4 {
                        profile = (property.payloadOffset + 4)..<(property.payloadOffset + payload.count)
                    }
                case "pixi":
                    break
                case "imir", "clap", "lsel":
                    return nil
                default:
                    if association.essential { return nil }
                }
            }
        }
    }
}
