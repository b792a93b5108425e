import Foundation

/// Where the web app's map draws its tiles from: a URL template with `{z}`, `{x}` and `{y}`
/// (and `{s}` for a server's subdomains), the attribution its licence asks for, and the
/// deepest zoom it has. The browser fetches the tiles itself, so the page's content security
/// policy lets images come from the template's origin and no other. ``none`` draws no map
/// under the markers: nothing leaves the server's origin.
///
/// The default is OpenStreetMap's own tile server, whose usage policy
/// (operations.osmfoundation.org/policies/tiles) allows light use with its attribution shown
/// and a referrer sent; a large household or a public server names a tile provider or a tile
/// server of its own (docs/ANALYSIS.md, The map).
public struct MapTiles: Sendable, Hashable, Encodable {
    /// The template, nil for no tiles.
    public let url: String?
    public let attribution: String
    public let maxZoom: Int

    public static let openStreetMap = MapTiles(
        validURL: "https://tile.openstreetmap.org/{z}/{x}/{y}.png",
        attribution: "© OpenStreetMap contributors", maxZoom: 19)

    public static let none = MapTiles(validURL: nil, attribution: "", maxZoom: 19)

    private init(validURL: String?, attribution: String, maxZoom: Int) {
        url = validURL
        self.attribution = attribution
        self.maxZoom = maxZoom
    }

    /// Tiles from `url`, which must be an http or https URL with `{z}`, `{x}` and `{y}`, of at
    /// most 2,000 characters; `maxZoom` from 1 to 22.
    public init(url: String, attribution: String, maxZoom: Int = 19) throws {
        guard url.count <= 2_000, ["{z}", "{x}", "{y}"].allSatisfy(url.contains),
            let parsed = URLComponents(string: url.replacingOccurrences(of: "{s}", with: "a")),
            let scheme = parsed.scheme?.lowercased(), ["http", "https"].contains(scheme), parsed.host?.isEmpty == false,
            parsed.user == nil, parsed.password == nil
        else {
            throw MapTilesError(
                "a tile URL is an http or https URL with {z}, {x} and {y}, e.g. "
                    + "https://tile.openstreetmap.org/{z}/{x}/{y}.png, not \(url.prefix(200))")
        }
        // The origin goes into the page's content security policy: nothing but a host and a port.
        let authority = url.components(separatedBy: "://").dropFirst().first?.prefix { $0 != "/" && $0 != "?" } ?? ""
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-:[]")
        guard !authority.isEmpty, authority.replacingOccurrences(of: "{s}", with: "").allSatisfy(allowed.contains)
        else {
            throw MapTilesError("a tile URL's host is a name or an address and a port, not \(authority.prefix(200))")
        }
        guard (1...22).contains(maxZoom) else {
            throw MapTilesError("a tile server's deepest zoom is 1 to 22, not \(maxZoom)")
        }
        guard attribution.count <= 500, !attribution.contains(where: \.isNewline) else {
            throw MapTilesError("a map's attribution is one line of at most 500 characters")
        }
        self.url = url
        self.attribution = attribution
        self.maxZoom = maxZoom
    }

    /// The origin the page's images may come from for these tiles (`{s}.` as any subdomain),
    /// nil for none.
    var imageSource: String? {
        guard let url, let schemeEnd = url.range(of: "://") else { return nil }
        let rest = url[schemeEnd.upperBound...]
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let host = authority.replacingOccurrences(of: "{s}.", with: "*.").replacingOccurrences(of: "{s}", with: "*")
        return url[..<schemeEnd.upperBound].lowercased() + host
    }
}

/// A tile URL or attribution that cannot be used, said as what is wrong.
public struct MapTilesError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
