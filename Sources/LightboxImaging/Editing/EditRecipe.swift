import Foundation

/// Lightbox's own edit recipe: an ordered list of filters, applied top to bottom to the
/// upright image. It is what an edit's adjustment data holds (format identifier
/// ``formatIdentifier``, version ``formatVersion``), so any Lightbox can redo or continue it.
///
/// ```swift
/// let recipe = try EditRecipe(parsing: ["exposure=0.5", "straighten=3", "crop=0.1,0.1,0.8,0.8"])
/// try ImageFile.renderEdit(ofFileAt: photo, recipe: recipe, toJPEGAt: output)
/// ```
///
/// Its JSON form: `{"version":"1.1","filters":[{"name":"exposure","value":0.5},
/// {"name":"crop","value":[0.1,0.1,0.8,0.8]},{"name":"flip","value":"horizontal"}]}`.
/// A recipe written by a newer minor version (1.x) loads: keys it does not know are ignored and
/// filters it does not know are skipped and listed in ``skippedFilters``. Another major version
/// is refused; an editor then chains its edit on the rendered image instead.
public struct EditRecipe: Sendable, Hashable {
    /// The adjustment data format identifier of Lightbox's recipes.
    public static let formatIdentifier = "org.lightbox.recipe"
    /// The version this Lightbox writes.
    /// (1.1 added `trim`: a 1.0 reader skips it, as a filter of a newer minor version.)
    public static let formatVersion = "1.1"
    /// The largest recipe, encoded, that Lightbox reads: far more than any list of filters needs.
    public static let maximumEncodedSize = 64 << 10
    /// The most filters one recipe holds.
    public static let maximumFilterCount = 256

    /// The filters, in the order they apply.
    public var filters: [EditFilter]
    /// Filters a newer version wrote that this one does not know, skipped when rendering.
    public var skippedFilters: [String] = []

    public init(filters: [EditFilter] = []) {
        self.filters = filters
    }

    /// A recipe from `NAME=VALUE` arguments, in order (the CLI's `--filter`).
    public init(parsing arguments: [String]) throws(ImagingError) {
        var filters: [EditFilter] = []
        for argument in arguments { filters.append(try EditFilter(parsing: argument)) }
        self.init(filters: filters)
        try validate()
    }

    /// The part of a movie the recipe keeps, its trims composed in order: nil when it has none.
    /// A part that ends after the movie ends with it; one whose end is not after its start
    /// keeps nothing.
    public var keptTime: (start: Double, end: Double)? {
        var kept: (start: Double, end: Double)?
        for case .trim(let start, let end) in filters {
            let origin = kept?.start ?? 0
            let limit = kept?.end ?? .infinity
            kept = (origin + start, min(limit, origin + end))
        }
        return kept
    }

    /// Whether this Lightbox can continue recipes of this format and version: the same
    /// identifier and major version.
    public static func canHandle(formatIdentifier: String, formatVersion: String) -> Bool {
        formatIdentifier == Self.formatIdentifier && majorVersion(formatVersion) == majorVersion(Self.formatVersion)
    }

    static func majorVersion(_ version: String) -> Int? {
        Int(version.split(separator: ".", omittingEmptySubsequences: false).first ?? "")
    }

    /// Checks the number of filters and every value's range.
    public func validate() throws(ImagingError) {
        guard filters.count <= Self.maximumFilterCount else {
            throw ImagingError(
                .invalidRecipe, "a recipe holds at most \(Self.maximumFilterCount) filters, this one \(filters.count)")
        }
        for filter in filters { try filter.validate() }
    }

    /// The recipe's JSON bytes (the adjustment data's `data`).
    public func encoded() -> [UInt8] {
        let filters = self.filters.map { "{\"name\":\"\($0.name)\",\"value\":\($0.jsonValue)}" }
        return Array("{\"version\":\"\(Self.formatVersion)\",\"filters\":[\(filters.joined(separator: ","))]}".utf8)
    }

    /// A recipe from its JSON bytes, as written by this or another version.
    public init(decoding bytes: [UInt8]) throws(ImagingError) {
        guard bytes.count <= Self.maximumEncodedSize else {
            throw ImagingError(
                .invalidRecipe, "the recipe is \(bytes.count) bytes; at most \(Self.maximumEncodedSize) are read")
        }
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: Data(bytes))
        } catch {
            throw ImagingError(.invalidRecipe, "the recipe is not JSON (\(error.localizedDescription))")
        }
        guard let root = object as? [String: Any], let version = root["version"] as? String,
            let list = root["filters"] as? [Any]
        else {
            throw ImagingError(.invalidRecipe, "a recipe is an object with \"version\" and \"filters\"")
        }
        guard let major = Self.majorVersion(version), major == Self.majorVersion(Self.formatVersion) else {
            throw ImagingError(
                .invalidRecipe,
                "recipe version \(version) is not one this Lightbox reads (it reads \(Self.formatVersion) and later 1.x)"
            )
        }
        let isNewer = Self.isNewer(version)
        guard list.count <= Self.maximumFilterCount else {
            throw ImagingError(
                .invalidRecipe, "a recipe holds at most \(Self.maximumFilterCount) filters, this one \(list.count)")
        }
        var filters: [EditFilter] = []
        var skipped: [String] = []
        for (index, item) in list.enumerated() {
            guard let entry = item as? [String: Any], let name = entry["name"] as? String else {
                throw ImagingError(.invalidRecipe, "filter \(index + 1) of the recipe has no name")
            }
            guard EditFilter.names.contains(name) else {
                if isNewer {
                    skipped.append(name)
                    continue
                }
                throw ImagingError(.invalidRecipe, "filter \(index + 1), \"\(name)\", is not a filter Lightbox knows")
            }
            filters.append(try EditFilter(name: name, json: entry["value"]))
        }
        self.init(filters: filters)
        skippedFilters = skipped
        try validate()
    }

    /// Whether `version` is a later minor version than this Lightbox writes.
    private static func isNewer(_ version: String) -> Bool {
        let parts = version.split(separator: ".").map { Int($0) ?? 0 }
        let own = formatVersion.split(separator: ".").map { Int($0) ?? 0 }
        return own.lexicographicallyPrecedes(parts)
    }
}

/// One filter of a recipe and its parameter. Amounts run from -1 to 1 with 0 leaving the
/// image as it is, unless said otherwise; lengths are in pixels of the full-size image, so a
/// preview at a smaller size looks the same.
public enum EditFilter: Sendable, Hashable {
    /// Exposure in stops (EV), -5...5: every pixel's linear light times 2^EV.
    case exposure(Double)
    /// Added to every channel's encoded value, -1...1.
    case brightness(Double)
    /// Stretches values away from mid-grey by 1 + amount, -1...1.
    case contrast(Double)
    /// Colour away from each pixel's luma by 1 + amount (-1 is grey), -1...1.
    case saturation(Double)
    /// Saturation that spares colourful pixels and skin: muted pixels move most, -1...1.
    case vibrance(Double)
    /// Warmer (positive) or cooler, -1...1: the white point moves along the black-body curve.
    case temperature(Double)
    /// Magenta (positive) or green, -1...1.
    case tint(Double)
    /// Bright tones darker (negative, recovering highlights) or brighter, -1...1.
    case highlights(Double)
    /// Dark tones brighter (positive, opening shadows) or darker, -1...1.
    case shadows(Double)
    /// Edges darker (positive) or lighter, -1...1, falling off with the square of the distance
    /// from the centre.
    case vignette(Double)
    /// A brown, old-print tone, 0...1.
    case sepia(Double)
    /// Black and white (luma), 0...1.
    case mono(Double)
    /// Black and white with deeper blacks and brighter whites, 0...1.
    case noir(Double)
    /// Flat colours with dark outlines, 0...1 (the outlines' strength).
    case comic(Double)
    /// Unsharp mask, amount 0...5, radius (sigma) one pixel of the image rendered.
    case sharpen(Double)
    /// Gaussian blur, radius (sigma) in pixels, 0...100.
    case blur(Double)
    /// Keep a rectangle, in unit coordinates of the image as it is at this point.
    case crop(NormalizedRect)
    /// Turn by quarter turns clockwise (the value in degrees: 90, 180, 270 or -90).
    case rotate(quarterTurns: Int)
    /// Rotate clockwise by any angle, -45...45 degrees, then crop to the largest rectangle of
    /// the same proportions that has no empty corners.
    case straighten(Double)
    /// Mirror left to right (`horizontal`) or top to bottom (`vertical`).
    case flip(vertical: Bool)
    /// A movie's part kept, from `start` until before `end`, in seconds of the movie as the
    /// filters before it leave it (two trims make the second's times the first's part's). It
    /// changes no pixel: a photo's recipe has none.
    case trim(start: Double, end: Double)

    /// Every filter's name, as recipes and the CLI spell them.
    public static let names: [String] = [
        "exposure", "brightness", "contrast", "saturation", "vibrance", "temperature", "tint", "highlights",
        "shadows", "vignette", "sepia", "mono", "noir", "comic", "sharpen", "blur", "crop", "rotate", "straighten",
        "flip", "trim",
    ]

    public var name: String {
        switch self {
        case .exposure: "exposure"
        case .brightness: "brightness"
        case .contrast: "contrast"
        case .saturation: "saturation"
        case .vibrance: "vibrance"
        case .temperature: "temperature"
        case .tint: "tint"
        case .highlights: "highlights"
        case .shadows: "shadows"
        case .vignette: "vignette"
        case .sepia: "sepia"
        case .mono: "mono"
        case .noir: "noir"
        case .comic: "comic"
        case .sharpen: "sharpen"
        case .blur: "blur"
        case .crop: "crop"
        case .rotate: "rotate"
        case .straighten: "straighten"
        case .flip: "flip"
        case .trim: "trim"
        }
    }

    /// The range of a numeric filter's value.
    static func range(of name: String) -> ClosedRange<Double>? {
        switch name {
        case "exposure": -5...5
        case "sepia", "mono", "noir", "comic": 0...1
        case "sharpen": 0...5
        case "blur": 0...100
        case "straighten": -45...45
        case "crop", "rotate", "flip", "trim": nil
        default: -1...1
        }
    }

    /// The degrees a rotation may name: a turn either way.
    static let rotationRange = -360.0...360.0

    /// A filter from `NAME=VALUE`: `exposure=0.5`, `crop=0.1,0.1,0.8,0.8`, `rotate=90`,
    /// `flip=horizontal`.
    public init(parsing argument: String) throws(ImagingError) {
        guard let equals = argument.firstIndex(of: "=") else {
            throw ImagingError(
                .invalidRecipe, "\"\(argument)\" is not NAME=VALUE (filters: \(Self.names.joined(separator: ", ")))")
        }
        let name = argument[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
        let value = argument[argument.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        guard Self.names.contains(name) else {
            throw ImagingError(
                .invalidRecipe, "\"\(name)\" is not a filter (filters: \(Self.names.joined(separator: ", ")))")
        }
        switch name {
        case "crop":
            guard let rect = NormalizedRect(parsing: value) else {
                throw ImagingError(
                    .invalidRecipe,
                    "crop=\(value): give X,Y,W,H in unit coordinates inside the image, e.g. crop=0.1,0.1,0.8,0.8")
            }
            self = .crop(rect)
        case "flip":
            guard let vertical = Self.flipAxis(value) else {
                throw ImagingError(.invalidRecipe, "flip=\(value): give horizontal or vertical")
            }
            self = .flip(vertical: vertical)
        case "trim":
            let times = value.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard times.count == 2, let start = times[0], let end = times[1] else {
                throw ImagingError(
                    .invalidRecipe, "trim=\(value): give START,END in seconds of the movie, e.g. trim=1.5,4")
            }
            self = .trim(start: start, end: end)
        default:
            guard let number = Double(value), number.isFinite else {
                throw ImagingError(.invalidRecipe, "\(name)=\(value): the value must be a number")
            }
            self = try Self.numeric(name, number)
        }
        try validate()
    }

    private static func flipAxis(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "horizontal", "h", "x": false
        case "vertical", "v", "y": true
        default: nil
        }
    }

    private static func numeric(_ name: String, _ value: Double) throws(ImagingError) -> EditFilter {
        switch name {
        case "exposure": return .exposure(value)
        case "brightness": return .brightness(value)
        case "contrast": return .contrast(value)
        case "saturation": return .saturation(value)
        case "vibrance": return .vibrance(value)
        case "temperature": return .temperature(value)
        case "tint": return .tint(value)
        case "highlights": return .highlights(value)
        case "shadows": return .shadows(value)
        case "vignette": return .vignette(value)
        case "sepia": return .sepia(value)
        case "mono": return .mono(value)
        case "noir": return .noir(value)
        case "comic": return .comic(value)
        case "sharpen": return .sharpen(value)
        case "blur": return .blur(value)
        case "straighten": return .straighten(value)
        case "rotate":
            // Checked before it becomes an Int: a value past Int's range (1e300) would trap.
            guard Self.rotationRange.contains(value), value == value.rounded(), Int(value) % 90 == 0 else {
                throw ImagingError(
                    .invalidRecipe,
                    "rotate=\(value): turn by a multiple of 90 degrees from -360 to 360 (90, 180, 270, -90)")
            }
            return .rotate(quarterTurns: ((Int(value) / 90) % 4 + 4) % 4)
        default:
            throw ImagingError(.invalidRecipe, "\"\(name)\" is not a numeric filter")
        }
    }

    /// A filter from a recipe's JSON `value`.
    init(name: String, json value: Any?) throws(ImagingError) {
        switch name {
        case "crop":
            let values = (value as? [Any])?.compactMap { ($0 as? NSNumber)?.doubleValue } ?? []
            guard values.count == 4 else {
                throw ImagingError(.invalidRecipe, "a crop's value is [x, y, width, height]")
            }
            self = .crop(NormalizedRect(x: values[0], y: values[1], width: values[2], height: values[3]))
        case "flip":
            guard let text = value as? String, let vertical = Self.flipAxis(text) else {
                throw ImagingError(.invalidRecipe, "a flip's value is \"horizontal\" or \"vertical\"")
            }
            self = .flip(vertical: vertical)
        case "trim":
            let values = (value as? [Any])?.compactMap { ($0 as? NSNumber)?.doubleValue } ?? []
            guard values.count == 2 else { throw ImagingError(.invalidRecipe, "a trim's value is [start, end]") }
            self = .trim(start: values[0], end: values[1])
        default:
            // JSON's true and false are not numbers, though Foundation would bridge them.
            guard let value, type(of: value) != Bool.self, let number = (value as? NSNumber)?.doubleValue else {
                throw ImagingError(.invalidRecipe, "\(name)'s value must be a number")
            }
            self = try Self.numeric(name, number)
        }
        try validate()
    }

    /// The filter's value as a number, when it has one (a rotation in degrees).
    public var amount: Double? {
        switch self {
        case .exposure(let v), .brightness(let v), .contrast(let v), .saturation(let v), .vibrance(let v),
            .temperature(let v), .tint(let v), .highlights(let v), .shadows(let v), .vignette(let v), .sepia(let v),
            .mono(let v), .noir(let v), .comic(let v), .sharpen(let v), .blur(let v), .straighten(let v):
            v
        case .rotate(let turns): Double(turns * 90)
        case .crop, .flip, .trim: nil
        }
    }

    /// The value in the recipe's JSON.
    var jsonValue: String {
        switch self {
        case .crop(let rect): "[\(rect.x),\(rect.y),\(rect.width),\(rect.height)]"
        case .flip(let vertical): vertical ? "\"vertical\"" : "\"horizontal\""
        case .rotate(let turns): "\(turns * 90)"
        case .trim(let start, let end): "[\(start),\(end)]"
        default: "\(amount ?? 0)"
        }
    }

    /// The `NAME=VALUE` form `init(parsing:)` reads.
    public var argument: String {
        switch self {
        case .crop(let rect): "crop=\(rect.text)"
        case .flip(let vertical): "flip=\(vertical ? "vertical" : "horizontal")"
        case .rotate(let turns): "rotate=\(turns * 90)"
        case .trim(let start, let end): "trim=\(start),\(end)"
        default: "\(name)=\(amount ?? 0)"
        }
    }

    func validate() throws(ImagingError) {
        switch self {
        case .crop(let rect):
            guard rect.isValid else {
                throw ImagingError(
                    .invalidRecipe, "crop=\(rect.text) must lie inside the image (unit coordinates) and not be empty")
            }
        case .rotate, .flip:
            return
        case .trim(let start, let end):
            guard start.isFinite, end.isFinite, start >= 0, end > start, end <= Self.longestMovie else {
                throw ImagingError(
                    .invalidRecipe,
                    "trim=\(start),\(end) must start at 0 or later and end after it, within \(Int(Self.longestMovie)) s"
                )
            }
        default:
            guard let value = amount, value.isFinite, let range = Self.range(of: name), range.contains(value) else {
                let range = Self.range(of: name).map { "\($0.lowerBound)...\($0.upperBound)" } ?? ""
                throw ImagingError(.invalidRecipe, "\(name)=\(amount ?? .nan) is out of range: give \(range)")
            }
        }
    }

    /// The size `straighten` by `degrees` leaves of a `width` x `height` image: the largest
    /// rectangle of the same proportions without empty corners.
    public static func straightenedSize(width: Int, height: Int, degrees: Double) -> (width: Int, height: Int) {
        RecipePipeline.straightenCrop(width: width, height: height, degrees: degrees)
    }

    /// The longest movie a trim names a time of, in seconds: a day.
    public static let longestMovie = 86_400.0

    /// Whether the filter moves pixels (crop, turn, straighten, flip) rather than changing them.
    public var isGeometric: Bool {
        switch self {
        case .crop, .rotate, .straighten, .flip: true
        default: false
        }
    }
}
