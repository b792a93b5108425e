import ArgumentParser
import Foundation
import Lightbox

struct ShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show", abstract: "Show one asset and its resources.")

    @OptionGroup var libraryOptions: LibraryOptions

    @Argument(help: "The asset: its identifier, or its first characters.")
    var id: String

    @Flag(help: "Print the asset as one JSON line.")
    var json = false

    func run() async throws {
        let library = try libraryOptions.open()
        let id = try Names(library: library).asset(id)
        guard let asset = try await library.asset(withLocalIdentifier: id) else {
            throw CommandError("no asset has the identifier \(id) in \(library.url.path)")
        }
        if json {
            Output.jsonLine(asset)
            return
        }
        let date = ISO8601.string(from: asset.creationDate, offsetSeconds: asset.creationTimeZoneOffset)
        Output.line(
            """
            localIdentifier  \(asset.localIdentifier)
            mediaType        \(asset.mediaType) (\(asset.mediaType.rawValue))
            pixelSize        \(asset.pixelWidth)x\(asset.pixelHeight)
            creationDate     \(date)
            addedDate        \(ISO8601.localString(from: asset.addedDate))
            isFavorite       \(asset.isFavorite)
            isHidden         \(asset.isHidden)
            playbackStyle    \(asset.playbackStyle) (\(asset.playbackStyle.rawValue))
            """)
        var details: [(String, String)] = []
        if !asset.mediaSubtypes.isEmpty {
            details.append(("mediaSubtypes", asset.mediaSubtypes.names.joined(separator: ", ")))
        }
        if asset.duration > 0 { details.append(("duration", String(format: "%.2f s", asset.duration))) }
        if asset.mediaType == .image {
            let names = [
                1: "up", 2: "up, mirrored", 3: "down", 4: "down, mirrored", 5: "left, mirrored", 6: "right",
                7: "right, mirrored", 8: "left",
            ]
            details.append(("orientation", "\(asset.orientation) (\(names[asset.orientation] ?? "up"))"))
        }
        if let location = asset.location {
            let altitude = location.altitude.map { String(format: ", %.1f m", $0) } ?? ""
            details.append(("location", String(format: "%.6f, %.6f", location.latitude, location.longitude) + altitude))
            if let place = try await library.place(of: asset) {
                details.append(("place", place.names.joined(separator: ", ")))
            }
        }
        let camera = [asset.cameraMake, asset.cameraModel].compactMap { $0 }.joined(separator: " ")
        if !camera.isEmpty { details.append(("camera", camera)) }
        if let lens = asset.lensModel { details.append(("lens", lens)) }
        if asset.hasAdjustments {
            details.append(("adjustments", "edited, \(asset.adjustmentFormatIdentifier ?? "unknown format")"))
        }
        if let rating = asset.rating {
            details.append(("rating", rating < 0 ? "rejected" : String(repeating: "*", count: rating)))
        }
        if let burst = asset.burstIdentifier {
            details.append(("burstIdentifier", burst + (asset.representsBurst ? " (represents the burst)" : "")))
        }
        if let deleted = asset.trashedDate {
            details.append(
                ("trashedDate", ISO8601.localString(from: deleted) + " (in Recently Deleted: lightbox restore)"))
        }
        if asset.mediaType == .image, let model = try await library.faceModel(of: asset) {
            let faces = try await library.faces(in: asset)
            details.append(("faces", faces.isEmpty ? "none (\(model))" : "\(faces.count) (\(model))"))
            let people = try library.fetchAssetCollections(
                withLocalIdentifiers: faces.compactMap(\.personLocalIdentifier))
            let names = Dictionary(people.map { ($0.localIdentifier, $0.localizedTitle ?? "a person with no name") }) {
                a, _ in a
            }
            for face in faces {
                let whose = face.personLocalIdentifier.map { " \(names[$0] ?? "?") (\($0))" } ?? ""
                details.append(
                    (
                        "face",
                        String(
                            format: "%@ at %.3f, %.3f, %.3f x %.3f, quality %.2f%@", face.localIdentifier, face.x,
                            face.y,
                            face.width, face.height, face.quality, whose)
                    ))
            }
        }
        if asset.mediaType == .image, let text = try await library.text(of: asset) {
            details.append(
                ("text", text.lines.isEmpty ? "none (\(text.model))" : "\(text.lines.count) lines (\(text.model))"))
            for line in text.lines.prefix(20) { details.append(("line", line.text)) }
            if text.lines.count > 20 { details.append(("line", "… lightbox text show \(asset.localIdentifier)")) }
        }
        if asset.mediaType == .image, let found = try await library.things(of: asset) {
            details.append(
                (
                    "things",
                    found.things.isEmpty
                        ? "none (\(found.model))"
                        : found.things.map { String(format: "%@ %.2f", $0.label, $0.confidence) }.joined(
                            separator: ", ")
                ))
        }
        for (key, value) in details { Output.line(key.padding(toLength: 17, withPad: " ", startingAt: 0) + value) }
        for resource in asset.resources {
            Output.line(
                """
                resource         \(resource.type) (\(resource.type.rawValue)): \(resource.originalFilename), \
                \(resource.uniformTypeIdentifier), \(resource.fileSize) bytes, \(resource.pixelWidth)x\(resource.pixelHeight), \
                sha256 \(resource.sha256)
                """)
        }
    }
}
