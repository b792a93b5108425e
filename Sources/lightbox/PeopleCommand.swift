import ArgumentParser
import Foundation
import Lightbox

struct PeopleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "people",
        abstract: "List, name, merge and hide the people found in photos; move faces between them.",
        discussion: """
            People are found by the faces job (lightbox worker --analysis URL, docs/ANALYSIS.md). \
            A person is named by their name, their identifier or its first characters; a face by \
            its identifier (lightbox people faces PERSON, lightbox show ID). What you choose here \
            is kept: a later grouping never moves a face you placed, nor puts back one you took out.
              lightbox people                      # the people, most faces first
              lightbox people name 4F2A Anna
              lightbox people merge "Anna S" --into Anna
              lightbox people move FACE --nobody   # "this is not Anna"
              lightbox ls --person Anna
            """,
        subcommands: [
            List.self, Name.self, Merge.self, Hide.self, Faces.self, Move.self, NotAFace.self, Key.self, Off.self,
            On.self,
        ],
        defaultSubcommand: List.self)

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "ls", abstract: "List the people, most faces first.")
        @OptionGroup var libraryOptions: LibraryOptions
        @Flag(help: "Include the people hidden from the list.") var hidden = false
        @Flag(help: "Only the people with a name.") var named = false
        @Flag(help: "Print one JSON line per person.") var json = false

        func run() async throws {
            let library = try libraryOptions.open()
            var options = FetchOptions(includeHiddenAssets: hidden)
            options.sortDescriptors = [
                FetchSortDescriptor(key: "faceCount", ascending: false)
            ]
            if named { options.predicate = .comparison(key: "name", .notEqual, .null) }
            for person in try library.fetchPeople(options: options) { PersonText.print(person, json: json) }
        }
    }

    struct Name: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "name", abstract: "Name a person, or (with an empty name) take their name away.")
        @OptionGroup var libraryOptions: LibraryOptions
        @Argument(help: "The person: a name, an identifier or its first characters.") var person: String
        @Argument(help: "The name.") var name: String

        func run() async throws {
            let library = try libraryOptions.open()
            let id = try Names(library: library).person(person)
            try await Changes.perform(library) { $0.changeRequest(forPersonWithLocalIdentifier: id).name = name }
            PersonText.print(try library.fetchAssetCollections(withLocalIdentifiers: [id])[0], json: false)
        }
    }

    struct Merge: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "merge", abstract: "Merge people into one: their faces become that person's.")
        @OptionGroup var libraryOptions: LibraryOptions
        @Argument(help: "The people to merge: names or identifiers.") var people: [String]
        @Option(help: "The person they become.") var into: String

        func run() async throws {
            let library = try libraryOptions.open()
            let names = Names(library: library)
            let target = try names.person(into)
            let merged = try people.map { try names.person($0) }
            let found = try library.fetchAssetCollections(withLocalIdentifiers: merged + [target])
            let byID = Dictionary(found.map { ($0.localIdentifier, $0) }, uniquingKeysWith: { a, _ in a })
            guard let into = byID[target] else { throw CommandError("the person \(target) is gone") }
            try await Changes.perform(library) { $0.mergePeople(merged.compactMap { byID[$0] }, into: into) }
            PersonText.print(try library.fetchAssetCollections(withLocalIdentifiers: [target])[0], json: false)
        }
    }

    struct Hide: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "hide", abstract: "Hide people from the list (or show them, with --off); photos stay.")
        @OptionGroup var libraryOptions: LibraryOptions
        @Argument(help: "The people: names or identifiers.") var people: [String]
        @Flag(help: "Show them again.") var off = false

        func run() async throws {
            let library = try libraryOptions.open()
            let names = Names(library: library)
            let ids = try people.map { try names.person($0) }
            try await Changes.perform(library) { changes in
                for id in ids { changes.changeRequest(forPersonWithLocalIdentifier: id).isHidden = !off }
            }
        }
    }

    struct Faces: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "faces", abstract: "List a person's faces, the surest first, with their photos.")
        @OptionGroup var libraryOptions: LibraryOptions
        @Argument(help: "The person: a name or an identifier.") var person: String
        @Option(help: "Show at most N faces (at most 1000).") var limit = 100
        @Flag(help: "Print one JSON line per face.") var json = false

        func run() async throws {
            let library = try libraryOptions.open()
            let id = try Names(library: library).person(person)
            let person = try library.fetchAssetCollections(withLocalIdentifiers: [id])[0]
            for face in try await library.faces(of: person, limit: limit) {
                if json {
                    Output.jsonLine(face)
                } else {
                    Output.line(FaceText.summary(face))
                }
            }
        }
    }

    struct Move: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "move",
            abstract: "Put faces in a person (--to), or in nobody known (--nobody: \"not them\").")
        @OptionGroup var libraryOptions: LibraryOptions
        @Argument(help: "The faces' identifiers.") var faces: [String]
        @Option(help: "The person they are: a name or an identifier.") var to: String?
        @Option(help: "A new person they are, with this name.") var newPerson: String?
        @Flag(help: "They are nobody known; they never join the person they leave again.") var nobody = false

        func validate() throws {
            guard [to != nil, newPerson != nil, nobody].filter({ $0 }).count == 1 else {
                throw ValidationError("give one of --to PERSON, --new-person NAME and --nobody")
            }
        }

        func run() async throws {
            let library = try libraryOptions.open()
            let person = try to.map { try Names(library: library).person($0) }
            try await Changes.perform(library) { changes in
                if let newPerson {
                    let created = changes.creationRequestForPerson(named: newPerson)
                    changes.assignFaces(
                        withLocalIdentifiers: faces, toPersonWithLocalIdentifier: created.localIdentifier)
                } else {
                    changes.assignFaces(withLocalIdentifiers: faces, toPersonWithLocalIdentifier: person)
                }
            }
        }
    }

    struct NotAFace: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "not-a-face", abstract: "Mark what was found as no face at all: never shown or grouped.")
        @OptionGroup var libraryOptions: LibraryOptions
        @Argument(help: "The faces' identifiers.") var faces: [String]

        func run() async throws {
            let library = try libraryOptions.open()
            try await Changes.perform(library) { $0.rejectFaces(withLocalIdentifiers: faces) }
        }
    }

    struct Key: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "key", abstract: "Choose the face on a person's cover.")
        @OptionGroup var libraryOptions: LibraryOptions
        @Argument(help: "The person: a name or an identifier.") var person: String
        @Argument(help: "One of their faces' identifiers.") var face: String

        func run() async throws {
            let library = try libraryOptions.open()
            let id = try Names(library: library).person(person)
            let person = try library.fetchAssetCollections(withLocalIdentifiers: [id])[0]
            guard
                let chosen = try await library.faces(of: person, limit: 1000).first(where: {
                    $0.localIdentifier.caseInsensitiveCompare(face) == .orderedSame
                })
            else {
                throw CommandError(
                    "\(face) is not one of \(person.localizedTitle ?? id)'s faces (lightbox people faces lists them)")
            }
            try await Changes.perform(library) { $0.changeRequest(forPerson: person).setKeyFace(chosen) }
        }
    }
}

extension PeopleCommand {
    struct Off: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "off",
            abstract: "Stop finding faces, and delete every face, embedding and person the library has.")
        @OptionGroup var libraryOptions: LibraryOptions
        @Flag(help: "Delete them: without it, off says what it would delete.") var yes = false

        func run() async throws {
            let library = try libraryOptions.open()
            let people = try library.fetchPeople(options: FetchOptions(includeHiddenAssets: true))
            let named = people.filter { $0.localizedTitle != nil }.count
            guard yes else {
                throw CommandError(
                    "off deletes the faces of every photo and \(people.count) people (\(named) named), and what was "
                        + "chosen of them; run lightbox people off --yes to do it")
            }
            try await library.setFacesEnabled(false)
            Output.line(
                "faces are off: \(people.count) people and every face deleted; lightbox people on finds them again")
        }
    }

    struct On: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "on", abstract: "Find faces again: the faces job analyses every photo.")
        @OptionGroup var libraryOptions: LibraryOptions

        func run() async throws {
            let library = try libraryOptions.open()
            try await library.setFacesEnabled(true)
            Output.line("faces are on: a worker with --analysis finds them (lightbox jobs shows the job)")
        }
    }
}

/// Plain-text forms of people and faces for the terminal.
enum PersonText {
    static func print(_ person: AssetCollection, json: Bool) {
        if json {
            Output.jsonLine(person)
            return
        }
        let photos = person.estimatedAssetCount
        let faces = person.person?.faceCount ?? 0
        let hidden = person.person?.isHidden == true ? "  (hidden)" : ""
        Output.line(
            "\(person.localIdentifier)  \(photos) photo\(photos == 1 ? "" : "s")  \(faces) face\(faces == 1 ? "" : "s")  "
                + (person.localizedTitle ?? "(no name)") + hidden)
    }
}

enum FaceText {
    static func summary(_ face: Face) -> String {
        String(
            format: "%@  photo %@  at %.3f, %.3f, %.3f x %.3f  quality %.2f%@", face.localIdentifier,
            face.assetLocalIdentifier, face.x, face.y, face.width, face.height, face.quality,
            face.isKeyFace ? "  (key face)" : "")
    }
}
