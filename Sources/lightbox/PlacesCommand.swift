import ArgumentParser
import Foundation
import Lightbox

struct PlacesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "places",
        abstract: "List the places of the library's photos (countries and their cities, with counts).",
        discussion: """
            A photo's place is named from its location by the places job (lightbox worker, \
            lightbox serve: docs/ANALYSIS.md), offline, from GeoNames' places. A photo far from \
            any town (the open sea) has none. lightbox show ID says a photo's place.
              lightbox places
              lightbox places --json
              lightbox places off      # no location is sent to the analysis service
            """,
        subcommands: [List.self, Off.self, On.self],
        defaultSubcommand: List.self)

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "ls", abstract: "List the countries, the most photographed first, and their cities.")
        @OptionGroup var libraryOptions: LibraryOptions
        @Flag(help: "Print one JSON line per country, with its cities.") var json = false

        func run() async throws {
            let library = try libraryOptions.open()
            let countries = try await library.placeList()
            if json {
                for country in countries { Output.jsonLine(country) }
                return
            }
            if countries.isEmpty {
                Output.line(
                    try await library.placesEnabled()
                        ? "No photo has a place yet: lightbox worker names the places of photos with a location."
                        : "Places are off: lightbox places on names them.")
                return
            }
            for country in countries {
                Output.line("\(country.name ?? "Somewhere") (\(country.count))")
                for city in country.cities {
                    let name = [city.name, city.region].compactMap { $0 }.joined(separator: ", ")
                    Output.line("  \(name.isEmpty ? "no town near" : name) (\(city.count))")
                }
            }
        }
    }

    struct Off: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "off",
            abstract: "Stop naming places, and forget every place named (the photos' locations stay).")
        @OptionGroup var libraryOptions: LibraryOptions

        func run() async throws {
            let library = try libraryOptions.open()
            try await library.setPlacesEnabled(false)
            Output.line("places are off: every place named is forgotten; lightbox places on names them again")
        }
    }

    struct On: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "on", abstract: "Name places again: the places job names every located photo's.")
        @OptionGroup var libraryOptions: LibraryOptions

        func run() async throws {
            let library = try libraryOptions.open()
            try await library.setPlacesEnabled(true)
            Output.line("places are on: a worker names them (lightbox jobs shows the job)")
        }
    }
}
