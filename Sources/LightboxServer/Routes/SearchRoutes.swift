import Foundation
import Hummingbird
import Lightbox
import LightboxAnalysis

/// The search box over HTTP (docs/ANALYSIS.md, Search): one text, understood as the model's
/// predicates where it names them and searched as words for the rest, by the full text and, with
/// a CLIP model, by what the photos show. A limited caller searches its own photos.
struct SearchRoutes: Sendable {
    let analyzer: (any PhotoAnalyzing)?

    struct SearchAnswer: Encodable {
        var understood: [SearchChip]
        var predicate: String?
        var assets: [Asset]
        var foundByContent: [String]
        var covers: [String]
        var notes: [String]
    }

    static let searchOperation = APIOperation(
        "Searches the library as one box does: \"dog in Lisbon 2019\".",
        details: """
            What the text names becomes the model's predicates, each said in `understood` with its part of the
            `predicate` (fetch language: a page that drops a chip searches `GET /api/assets?predicate=` with the
            others): years, months, seasons, days ("last summer", "june 2019", "yesterday", "last week"), kinds
            ("videos", "selfies", "screenshots"), favourites, and the library's people, places and cameras by
            name. The rest is searched as words (`words == "..."`) among the photos' things, text, places,
            people's names, albums' titles, cameras and file names, the best ranked first, then, where the
            analysis service runs a CLIP model, those that show it (`foundByContent`), the nearest first.
            `covers` says what was searched; `notes` what a person should know (no CLIP model, an index still
            being made). Dates count days by the clock where each photo was taken; "today" is the server's day
            unless `tz` names the caller's time zone.
            """,
        parameters: [
            .query("q", Schema.string(length: 1...500), required: true, "What to search for."),
            .query("limit", Schema.integer(1...1_000), "The most assets answered (200 by default)."),
            .query("tz", Schema.string(length: 1...64), "The caller's time zone (IANA, e.g. Europe/Lisbon)."),
        ],
        responses: [.json(200, "What was understood and found.", Schema.ref("SearchAnswer"))])

    @Sendable
    func search(_ request: Request, _ context: LightboxRequestContext) async throws -> Response {
        let library = try context.library().library
        let query = request.uri.formQuery
        guard let text = query.get("q"), !text.trimmingCharacters(in: .whitespaces).isEmpty,
            text.count <= SearchQuery.maximumLength
        else { throw HTTPError(.badRequest, message: "q must be 1 to 500 characters of what to search for") }
        let limit = try query.limit(default: 200, maximum: 1_000)
        var calendar = Calendar(identifier: .gregorian)
        if let zone = query.get("tz") {
            guard zone.count <= 64, let timeZone = TimeZone(identifier: zone) else {
                throw HTTPError(.badRequest, message: "tz must name a time zone, e.g. Europe/Lisbon")
            }
            calendar.timeZone = timeZone
        }
        let results = try await library.search(text, with: analyzer, limit: limit, calendar: calendar)
        let found = try await library.read {
            Array(
                try $0.fetchAssets(
                    options: FetchOptions(
                        predicate: .isIn(key: "localIdentifier", results.identifiers.map(FetchValue.string)))))
        }
        var byIdentifier: [String: Asset] = [:]
        for asset in found { byIdentifier[asset.localIdentifier] = asset }
        return try LightboxServer.jsonResponse(
            SearchAnswer(
                understood: results.query.chips, predicate: results.query.predicateText,
                assets: results.identifiers.compactMap { byIdentifier[$0] },
                foundByContent: results.identifiers.filter { results.foundByContent.contains($0) },
                covers: results.covers, notes: results.notes))
    }
}
