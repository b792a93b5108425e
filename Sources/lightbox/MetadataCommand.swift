import ArgumentParser
import Foundation
import Lightbox
import LightboxMetadata

struct MetadataCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "metadata",
        abstract: "Read files' metadata without a library, one line per file.",
        discussion: """
            Reads only the headers Lightbox needs, in Swift. A folder is read recursively. A file \
            that cannot be read gets a line with its error and the others go on; the exit status \
            is 1 when any file failed.
            """)

    @Argument(help: "Files or folders to read.")
    var paths: [String]

    @Flag(help: "Print JSON Lines (the text form prints the same fields).")
    var json = false

    func run() async throws {
        let (files, unreadable) = Self.files(paths, json: json)
        var failed = unreadable
        for path in files {
            let line = MetadataLine(path: path)
            if line.error != nil { failed += 1 }
            if json {
                Output.jsonLine(line)
            } else {
                Output.line(line.text)
            }
        }
        if failed > 0 { throw ExitCode(1) }
    }

    /// The files named, folders expanded (`MediaFolder.files`: sorted; hidden files, XMP
    /// sidecars and iPhone adjustment files left out, and `excluding`: the output folder of a
    /// command that writes into a folder it reads). A folder that cannot be listed stays in the
    /// list, for its command to report.
    /// Names in folders that are not UTF-8, and folders inside that cannot be listed, are said
    /// to be failures on standard error (in JSON, as a line with the error), so the command's
    /// status is 1: never passed over.
    static func files(_ paths: [String], excluding: String? = nil, json: Bool) -> (files: [String], failed: Int) {
        var files: [String] = []
        var failed = 0
        for path in paths {
            // Nil for a file, or a folder that cannot be listed.
            guard let inside = MediaFolder.list(path, excluding: excluding) else {
                files.append(path)
                continue
            }
            files += inside.files
            let unread =
                inside.unreadableNames.map { ($0, MediaFolder.unreadableNameReason) }
                + inside.unreadableFolders.map { ($0, "cannot list the folder") }
            for (name, reason) in unread {
                failed += 1
                if json {
                    Output.jsonLine(["path": name, "error": reason])
                } else {
                    Output.message("\(name): error: \(reason)")
                }
            }
        }
        return (files, failed)
    }
}

/// One file's line of `lightbox metadata`.
struct MetadataLine: Encodable {
    struct Place: Encodable {
        var latitude: Double
        var longitude: Double
        var altitude: Double?
    }

    struct Exif: Encodable {
        var make: String?
        var model: String?
        var lensModel: String?
        var orientation: Int?
        var dateTimeOriginal: String?
        var offsetTimeOriginal: String?
        var exposureTime: Double?
        var fNumber: Double?
        var iso: Int?
        var focalLength: Double?
    }

    var path: String
    var format: String?
    var mediaType: String?
    var pixelWidth: Int?
    var pixelHeight: Int?
    var creationDate: String?
    var location: Place?
    var mediaSubtypes: [String]?
    var contentIdentifier: String?
    var burstIdentifier: String?
    var exif: Exif?
    var error: String?

    init(path: String) {
        self.path = path
        let metadata: MediaMetadata
        do {
            metadata = try MetadataReader.read(fileAtPath: path)
        } catch {
            self.error = error.description
            return
        }
        let modified = (try? FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date) ?? Date()
        let asset = AssetMetadata(metadata, fileModificationDate: modified)
        format = metadata.format.rawValue
        mediaType = asset.mediaType == .video ? "video" : "image"
        pixelWidth = asset.pixelWidth
        pixelHeight = asset.pixelHeight
        creationDate = ISO8601.string(from: asset.creationDate, offsetSeconds: asset.creationTimeZoneOffset)
        location = asset.location.map { Place(latitude: $0.latitude, longitude: $0.longitude, altitude: $0.altitude) }
        mediaSubtypes = asset.mediaSubtypes.names
        contentIdentifier = asset.contentIdentifier
        burstIdentifier = asset.burstIdentifier
        if let fields = metadata.exif {
            exif = Exif(
                make: fields.make, model: fields.model, lensModel: fields.lensModel, orientation: fields.orientation,
                dateTimeOriginal: fields.dateTimeOriginal.flatMap { ExifDate($0) }.map(Self.localISO8601),
                offsetTimeOriginal: fields.offsetTimeOriginal, exposureTime: fields.exposureTime,
                fNumber: fields.fNumber,
                iso: fields.iso, focalLength: fields.focalLength)
        }
    }

    /// "2019-07-14T18:03:12": the wall-clock time, without an offset.
    static func localISO8601(_ date: ExifDate) -> String {
        String(
            format: "%04d-%02d-%02dT%02d:%02d:%02d", date.year, date.month, date.day, date.hour, date.minute,
            date.second)
    }

    /// The text form: the path, then one "key value" per field present.
    var text: String {
        guard error == nil else { return "\(path): error: \(error!)" }
        var lines = [path]
        func add(_ key: String, _ value: Any?) {
            if let value { lines.append("  \(key.padding(toLength: 18, withPad: " ", startingAt: 0)) \(value)") }
        }
        add("format", format)
        add("mediaType", mediaType)
        if let pixelWidth, let pixelHeight { add("pixelSize", "\(pixelWidth)x\(pixelHeight)") }
        add("creationDate", creationDate)
        if let location {
            add(
                "location",
                "\(location.latitude), \(location.longitude)" + (location.altitude.map { ", \($0) m" } ?? ""))
        }
        if let mediaSubtypes, !mediaSubtypes.isEmpty { add("mediaSubtypes", mediaSubtypes.joined(separator: ", ")) }
        add("contentIdentifier", contentIdentifier)
        add("burstIdentifier", burstIdentifier)
        add("make", exif?.make)
        add("model", exif?.model)
        add("lensModel", exif?.lensModel)
        add("orientation", exif?.orientation)
        add("dateTimeOriginal", exif?.dateTimeOriginal)
        add("offsetTimeOriginal", exif?.offsetTimeOriginal)
        add("exposureTime", exif?.exposureTime)
        add("fNumber", exif?.fNumber)
        add("iso", exif?.iso)
        add("focalLength", exif?.focalLength)
        return lines.joined(separator: "\n")
    }
}
