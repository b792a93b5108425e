import ArgumentParser
import Foundation
import Lightbox

struct ListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ls",
        abstract: "List assets, newest first, or as a predicate and sort say.",
        discussion: """
            Predicates use the model's keys: creationDate, modificationDate, mediaType, \
            mediaSubtypes, duration, pixelWidth, pixelHeight, favorite, hidden, burstIdentifier, rating, \
            localIdentifier, person (a name), people.@count, place (any of its place's names), city, \
            region, country, countryCode. Examples:
              lightbox ls --predicate 'favorite == true AND creationDate >= 2023-01-01'
              lightbox ls --predicate 'mediaSubtypes & photoScreenshot != 0' --sort 'pixelWidth desc'
              lightbox ls --predicate 'person == "Anna" AND people.@count >= 2'
              lightbox ls --place Lisbon
            """)

    @OptionGroup var libraryOptions: LibraryOptions

    @Option(help: "Only the assets this predicate selects.")
    var predicate: String?

    @Option(help: ArgumentHelp("The order: \"KEY asc|desc, ...\" (default: creationDate desc).", valueName: "S"))
    var sort: String?

    @Option(
        name: .customLong("in"),
        help: ArgumentHelp(
            "Only the assets of this album, smart album or moment: a title or an identifier.", valueName: "COLLECTION"))
    var collection: String?

    @Option(help: ArgumentHelp("Only the photos this person is in: a name or an identifier.", valueName: "PERSON"))
    var person: String?

    @Option(
        help: ArgumentHelp(
            "Only the assets taken at this place: a town, a city, a region or a country (lightbox places).",
            valueName: "PLACE"))
    var place: String?

    @Flag(help: "Include hidden assets.")
    var includeHidden = false

    @Flag(help: "Include every frame of each burst, not only its representative.")
    var allBursts = false

    @Option(help: "Show at most N assets.")
    var limit: Int?

    @Flag(help: "Print one JSON line per asset.")
    var json = false

    func validate() throws {
        if let limit, limit < 0 { throw ValidationError("--limit must be 0 or more") }
    }

    func run() async throws {
        let library = try libraryOptions.open()
        var options = FetchOptions(includeHiddenAssets: includeHidden, includeAllBurstAssets: allBursts)
        do {
            options.predicate = try predicate.map { try FetchPredicate($0) }
            // Newest first by default; a collection keeps its own order unless told.
            options.sortDescriptors =
                try sort.map { try FetchSortDescriptor.parse($0) }
                ?? (collection == nil ? [FetchSortDescriptor(key: "creationDate", ascending: false)] : [])
        } catch let error as LibraryError {
            throw CommandError(error.message)
        }
        options.fetchLimit = limit ?? 0
        let result: FetchResult<Asset>
        do {
            let names = Names(library: library)
            if let person {
                let scope = FetchPredicate.comparison(
                    key: "personIdentifier", .equal, .string(try names.person(person)))
                options.predicate = options.predicate.map { $0 && scope } ?? scope
            }
            if let place {
                let scope = FetchPredicate.comparison(key: "place", .equal, .string(place))
                options.predicate = options.predicate.map { $0 && scope } ?? scope
            }
            result =
                try collection.map {
                    try library.fetchAssets(
                        inCollectionWithLocalIdentifier: try names.assetCollection($0), options: options)
                }
                ?? library.fetchAssets(options: options)
        } catch let error as LibraryError {
            throw CommandError(error.message)
        }
        for asset in result {
            if json {
                Output.jsonLine(asset)
            } else {
                Output.line(AssetText.summary(asset))
            }
        }
    }
}

/// Plain-text forms of an asset for the terminal.
enum AssetText {
    static func summary(_ asset: Asset) -> String {
        let name = asset.resources.first?.originalFilename ?? ""
        let date = ISO8601.string(from: asset.creationDate, offsetSeconds: asset.creationTimeZoneOffset)
        return "\(asset.localIdentifier)  \(date)  \(asset.pixelWidth)x\(asset.pixelHeight)  \(name)"
    }
}
