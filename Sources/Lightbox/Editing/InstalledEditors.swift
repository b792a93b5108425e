import Foundation
import LightboxMetadata
import LightboxStore

/// What an installed editor says of itself (the counterpart of a photo editing extension's
/// `Info.plist`: its identifier, the media types it edits, and what Lightbox needs to run it).
/// It is the file `editor.json` in the editor's folder, or a `NAME.json` beside other editors;
/// docs/EDITORS.md describes every field.
public struct EditorManifest: Sendable, Hashable {
    /// The manifest format this Lightbox reads.
    public static let formatVersion = 1
    /// The largest manifest read, in bytes.
    public static let maximumSize = 64 << 10

    /// A reverse-DNS identifier, unique among installed editors: `lightbox edit ID --editor` takes it.
    public var identifier: String
    /// The name a person sees.
    public var name: String
    /// The editor's own version.
    public var version: String
    /// One sentence of what it does; may be empty.
    public var summary: String
    /// The program, relative to the manifest's folder or absolute, and its own arguments.
    public var program: String
    public var arguments: [String]
    /// What it edits (PhotoKit's `PHSupportedMediaTypes`): photos (Live Photos' included), movies.
    public var mediaTypes: Set<AssetMediaType>
    /// The adjustment data format identifiers it may continue; for another format's edit it is
    /// given the current render and never asked.
    public var adjustmentFormats: [String]
    /// Its limits: the memory its processes may hold together, in bytes, and the seconds a run may take.
    public var memoryLimit: Int
    public var timeLimit: Double
    /// The settings it reads from its filters, for a page to offer as sliders.
    public var settings: [Setting]

    /// One numeric setting, passed to the editor as the filter `NAME=VALUE`.
    public struct Setting: Sendable, Hashable, Codable {
        public var name: String
        public var label: String
        public var minimum: Double
        public var maximum: Double
        public var defaultValue: Double
        public var step: Double?

        enum CodingKeys: String, CodingKey {
            case name, label, minimum, maximum, step
            case defaultValue = "default"
        }
    }
}

/// An editor found in an editors folder, ready to run.
public struct InstalledEditor: Sendable, Hashable {
    /// Where editors are installed, from the most general to the most specific: an editor of a
    /// more specific place replaces one of the same identifier from a more general one.
    public enum Scope: String, Sendable, Hashable, Codable, Comparable {
        /// For every user of the machine (`$XDG_DATA_DIRS/lightbox/editors`).
        case system
        /// For the user running Lightbox (`$XDG_DATA_HOME/lightbox/editors`).
        case user
        /// For one library (its folder's `editors/`).
        case library

        public static func < (a: Scope, b: Scope) -> Bool { a.rank < b.rank }
        private var rank: Int {
            switch self {
            case .system: 0
            case .user: 1
            case .library: 2
            }
        }
    }

    public var manifest: EditorManifest
    /// The manifest's path.
    public var manifestPath: String
    /// The program's absolute path.
    public var programPath: String
    public var scope: Scope

    public var identifier: String { manifest.identifier }

    /// Whether it edits assets of this kind: photos and Live Photos are images.
    public func canEdit(_ asset: Asset) -> Bool {
        manifest.mediaTypes.contains(asset.mediaType)
    }

    /// Whether it may continue this asset's current edit (it declares the edit's format).
    public func mayContinue(_ asset: Asset) -> Bool {
        guard asset.hasAdjustments, let format = asset.adjustmentFormatIdentifier else { return false }
        return manifest.adjustmentFormats.contains(format)
    }

    /// A controller that runs it, with `filters` as its settings.
    public func controller(filters: [String] = []) -> ExternalEditor {
        ExternalEditor(installed: self, filters: filters)
    }
}

extension InstalledEditor: Encodable {
    enum CodingKeys: String, CodingKey {
        case identifier, name, version, summary, mediaTypes, adjustmentFormats, memoryLimitMiB, timeLimitSeconds
        case settings, scope
    }

    /// What the command line's `--json` and the HTTP API show of it (never its paths).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(manifest.identifier, forKey: .identifier)
        try container.encode(manifest.name, forKey: .name)
        try container.encode(manifest.version, forKey: .version)
        try container.encode(manifest.summary, forKey: .summary)
        let media = [(AssetMediaType.image, "image"), (.video, "video")].filter { manifest.mediaTypes.contains($0.0) }
        try container.encode(media.map(\.1), forKey: .mediaTypes)
        try container.encode(manifest.adjustmentFormats, forKey: .adjustmentFormats)
        try container.encode(manifest.memoryLimit >> 20, forKey: .memoryLimitMiB)
        try container.encode(manifest.timeLimit, forKey: .timeLimitSeconds)
        try container.encode(manifest.settings, forKey: .settings)
        try container.encode(scope, forKey: .scope)
    }
}

/// A manifest that could not be read: its path and what is wrong. The editor is skipped.
public struct EditorProblem: Sendable, Hashable, CustomStringConvertible {
    public var path: String
    public var message: String

    public var description: String { "\(path): \(message)" }
}

/// The editors installed in a list of folders, and the manifests that were skipped.
public struct EditorCatalog: Sendable {
    /// The folders looked in, each with its scope, most general first.
    public let folders: [(path: String, scope: InstalledEditor.Scope)]
    /// The editors found, by identifier; each the most specific of its identifier.
    public let editors: [InstalledEditor]
    /// What was skipped, and why, in the order found.
    public let problems: [EditorProblem]

    /// The largest number of entries read from one folder.
    static let maximumEntries = 1_000

    /// Reads every manifest in `folders` (a folder that does not exist holds no editor).
    public init(folders: [(path: String, scope: InstalledEditor.Scope)]) {
        self.folders = folders
        var found: [String: InstalledEditor] = [:]
        var problems: [EditorProblem] = []
        for (folder, scope) in folders {
            var inFolder: [String: String] = [:]
            for manifestPath in Self.manifestPaths(in: folder, problems: &problems) {
                do {
                    let editor = try Self.read(manifestAt: manifestPath, scope: scope)
                    if let earlier = inFolder[editor.identifier] {
                        throw EditorProblem(
                            path: manifestPath,
                            message: "the identifier \(editor.identifier) is taken by \(earlier) in the same folder")
                    }
                    inFolder[editor.identifier] = manifestPath
                    found[editor.identifier] = editor
                } catch let problem as EditorProblem {
                    problems.append(problem)
                } catch {
                    problems.append(EditorProblem(path: manifestPath, message: "\(error)"))
                }
            }
        }
        editors = found.values.sorted {
            ($0.manifest.name.lowercased(), $0.identifier) < ($1.manifest.name.lowercased(), $1.identifier)
        }
        self.problems = problems
    }

    /// The standard folders: the system's (each of `$XDG_DATA_DIRS`, by default `/usr/local/share`
    /// and `/usr/share`, then `lightbox/editors`), the user's (`$XDG_DATA_HOME`, by default
    /// `~/.local/share`, then `lightbox/editors`) and, for a library, its folder's `editors/`.
    public static func standardFolders(
        library: URL?, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> [(path: String, scope: InstalledEditor.Scope)] {
        let dataDirectories =
            (environment["XDG_DATA_DIRS"].flatMap { $0.isEmpty ? nil : $0 }
            ?? "/usr/local/share:/usr/share").split(separator: ":").filter { $0.hasPrefix("/") }
        // XDG lists the most important first; the catalog reads the most general first.
        var folders = dataDirectories.reversed().map {
            (path: "\($0)/lightbox/editors", scope: InstalledEditor.Scope.system)
        }
        if let home = environment["XDG_DATA_HOME"].flatMap({ $0.hasPrefix("/") ? $0 : nil }) {
            folders.append((home + "/lightbox/editors", .user))
        } else if let home = environment["HOME"], home.hasPrefix("/") {
            folders.append((home + "/.local/share/lightbox/editors", .user))
        }
        if let library { folders.append((library.standardizedFileURL.path + "/editors", .library)) }
        return folders
    }

    /// The installed editor with this identifier.
    public func editor(withIdentifier identifier: String) -> InstalledEditor? {
        editors.first { $0.identifier == identifier }
    }

    /// The editors that edit this asset's kind.
    public func editors(for asset: Asset) -> [InstalledEditor] {
        editors.filter { $0.canEdit(asset) }
    }

    // MARK: - Reading manifests

    /// The manifests of a folder: each subfolder's `editor.json`, and each `.json` file.
    private static func manifestPaths(in folder: String, problems: inout [EditorProblem]) -> [String] {
        let manager = FileManager.default
        guard let names = try? manager.contentsOfDirectory(atPath: folder) else { return [] }
        if names.count > maximumEntries {
            problems.append(
                EditorProblem(
                    path: folder, message: "holds \(names.count) entries; the first \(maximumEntries) by name are read")
            )
        }
        var paths: [String] = []
        for name in names.sorted().prefix(maximumEntries) where !name.hasPrefix(".") {
            let path = folder + "/" + name
            var isFolder: ObjCBool = false
            guard manager.fileExists(atPath: path, isDirectory: &isFolder) else { continue }
            if isFolder.boolValue {
                let manifest = path + "/editor.json"
                if manager.fileExists(atPath: manifest) {
                    paths.append(manifest)
                } else {
                    problems.append(EditorProblem(path: path, message: "an editor's folder needs an editor.json"))
                }
            } else if name.hasSuffix(".json") {
                paths.append(path)
            }
        }
        return paths
    }

    static func read(manifestAt path: String, scope: InstalledEditor.Scope) throws -> InstalledEditor {
        func problem(_ message: String) -> EditorProblem { EditorProblem(path: path, message: message) }
        let bytes: [UInt8]
        do {
            try FileIO.requireRegularFile(path)
            guard let read = try FileIO.contents(ofFileAt: path, limit: EditorManifest.maximumSize) else {
                throw problem("the manifest is larger than \(EditorManifest.maximumSize >> 10) KiB")
            }
            bytes = read
        } catch let error as LibraryError {
            throw problem("cannot be read: \(error.message)")
        }
        let object: [String: Any]
        do {
            guard let parsed = try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else {
                throw problem("the manifest is not a JSON object")
            }
            object = parsed
        } catch let error as EditorProblem {
            throw error
        } catch {
            throw problem("the manifest is not valid JSON")
        }
        let manifest = try ManifestFields(object, problem: problem).manifest()
        let folder = PathString.deletingLastComponent(path)
        let program =
            manifest.program.hasPrefix("/")
            ? manifest.program : URL(fileURLWithPath: folder + "/" + manifest.program).standardizedFileURL.path
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: program, isDirectory: &isFolder), !isFolder.boolValue else {
            throw problem("its program \(program) does not exist")
        }
        guard FileManager.default.isExecutableFile(atPath: program) else {
            throw problem("its program \(program) is not executable (chmod +x)")
        }
        return InstalledEditor(manifest: manifest, manifestPath: path, programPath: program, scope: scope)
    }
}

extension EditorProblem: Error {}

/// A manifest's fields, each checked with a message naming it.
private struct ManifestFields {
    let object: [String: Any]
    let problem: (String) -> EditorProblem

    init(_ object: [String: Any], problem: @escaping (String) -> EditorProblem) {
        self.object = object
        self.problem = problem
    }

    func manifest() throws -> EditorManifest {
        guard let format = object["lightboxEditor"] as? Int else {
            throw problem("lightboxEditor (the manifest format, 1) is missing")
        }
        guard format == EditorManifest.formatVersion else {
            throw problem("lightboxEditor \(format) is a manifest format this Lightbox does not read (it reads 1)")
        }
        let identifier = try string("identifier", maximum: 256)
        guard Self.isReverseDNS(identifier) else {
            throw problem("identifier \(identifier) is not a reverse-DNS name such as org.example.grain")
        }
        let program = try string("program", maximum: 4096)
        guard !program.split(separator: "/").contains("..") else {
            throw problem("program \(program) leaves the editor's folder (..)")
        }
        let arguments = try strings("arguments", maximumCount: 64, maximumLength: 4096) ?? []
        guard let mediaNames = try strings("mediaTypes", maximumCount: 2, maximumLength: 16), !mediaNames.isEmpty else {
            throw problem("mediaTypes is missing: [\"image\"], or [\"image\", \"video\"]")
        }
        var mediaTypes: Set<AssetMediaType> = []
        for name in mediaNames {
            switch name {
            case "image": mediaTypes.insert(.image)
            case "video": mediaTypes.insert(.video)
            default: throw problem("mediaTypes holds \(name); an editor edits image and video")
            }
        }
        let formats = try strings("adjustmentFormats", maximumCount: 32, maximumLength: 256) ?? []
        let memory = try number("memoryLimitMiB", in: 16...1_048_576) ?? 512
        let seconds = try number("timeLimitSeconds", in: 1...86_400) ?? 60
        guard memory == memory.rounded() else { throw problem("memoryLimitMiB must be a whole number") }
        return EditorManifest(
            identifier: identifier, name: try string("name", maximum: 100),
            version: try string("version", maximum: 64), summary: try string("summary", maximum: 500, required: false),
            program: program, arguments: arguments, mediaTypes: mediaTypes, adjustmentFormats: formats,
            memoryLimit: Int(memory) << 20, timeLimit: seconds, settings: try settings())
    }

    private func string(_ key: String, maximum: Int, required: Bool = true) throws -> String {
        guard let value = object[key] else {
            if required { throw problem("\(key) is missing") }
            return ""
        }
        guard let text = value as? String, !text.isEmpty || !required else {
            throw problem("\(key) must be a text")
        }
        guard text.utf8.count <= maximum else { throw problem("\(key) is longer than \(maximum) bytes") }
        guard !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw problem("\(key) holds control characters")
        }
        return text
    }

    private func strings(_ key: String, maximumCount: Int, maximumLength: Int) throws -> [String]? {
        guard let value = object[key] else { return nil }
        guard let list = value as? [String] else { throw problem("\(key) must be a list of texts") }
        guard list.count <= maximumCount else { throw problem("\(key) holds more than \(maximumCount) entries") }
        guard list.allSatisfy({ $0.utf8.count <= maximumLength && !$0.isEmpty }) else {
            throw problem("\(key) holds an empty text, or one longer than \(maximumLength) bytes")
        }
        return list
    }

    private func number(_ key: String, in range: ClosedRange<Double>, from object: [String: Any]? = nil) throws
        -> Double?
    {
        guard let value = (object ?? self.object)[key] else { return nil }
        // JSON booleans are numbers to JSONSerialization (of type "c"); `true` is a mistake.
        guard let number = value as? NSNumber, String(cString: number.objCType) != "c", number.doubleValue.isFinite
        else {
            throw problem("\(key) must be a number")
        }
        guard range.contains(number.doubleValue) else {
            throw problem("\(key) must be from \(Self.format(range.lowerBound)) to \(Self.format(range.upperBound))")
        }
        return number.doubleValue
    }

    private func settings() throws -> [EditorManifest.Setting] {
        guard let value = object["settings"] else { return [] }
        guard let list = value as? [[String: Any]], list.count <= 32 else {
            throw problem("settings must be a list of at most 32 objects")
        }
        var names: Set<String> = []
        return try list.map { setting in
            guard let name = setting["name"] as? String, name.utf8.count <= 32, !name.isEmpty,
                name.utf8.allSatisfy({ (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x5F })
            else {
                throw problem("each setting needs a name of at most 32 letters a-z, digits and _")
            }
            guard names.insert(name).inserted else { throw problem("settings name \(name) twice") }
            let label =
                (setting["label"] as? String).map {
                    String(
                        String.UnicodeScalarView($0.unicodeScalars.filter { $0.properties.generalCategory != .control })
                            .prefix(100))
                } ?? name
            let limit = -1e9...1e9
            guard let minimum = try number("minimum", in: limit, from: setting),
                let maximum = try number("maximum", in: limit, from: setting), minimum < maximum
            else {
                throw problem("setting \(name) needs a minimum below its maximum")
            }
            let initial = try number("default", in: minimum...maximum, from: setting) ?? minimum
            // The range is never empty: minimum < maximum, both within ±1e9.
            let step = try number("step", in: 0...(maximum - minimum), from: setting)
            guard step != 0 else { throw problem("setting \(name)'s step must be above 0") }
            return EditorManifest.Setting(
                name: name, label: label, minimum: minimum, maximum: maximum, defaultValue: initial, step: step)
        }
    }

    private static func isReverseDNS(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count >= 2
            && parts.allSatisfy { part in
                !part.isEmpty
                    && part.utf8.allSatisfy {
                        (0x61...0x7A).contains($0) || (0x41...0x5A).contains($0) || (0x30...0x39).contains($0)
                            || $0 == 0x2D || $0 == 0x5F
                    }
            }
    }

    private static func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}

extension PhotoLibrary {
    /// The editors installed for this library: the system's, the user's and the library's own
    /// (its folder's `editors/`), read anew on each call so that an editor installed while a
    /// server runs is offered at once.
    public func installedEditors(environment: [String: String] = ProcessInfo.processInfo.environment) -> EditorCatalog {
        EditorCatalog(folders: EditorCatalog.standardFolders(library: url, environment: environment))
    }

    /// The most settings an installed editor is given, and the most bytes each holds: they are
    /// handed to another program.
    public static let installedEditorSettings = (count: 100, bytes: 1_000)

    /// The installed editor `identifier`, set to edit `asset` with `settings`: the one rule every
    /// edge (the command, the server) takes an installed editor by. It must be installed, edit
    /// assets of this kind, and be given at most ``installedEditorSettings``; else an error
    /// saying which (`.editorNotFound`, `.invalidRequest`).
    public func installedEditor(_ identifier: String, for asset: Asset, settings: [String]) throws(LibraryError)
        -> ExternalEditor
    {
        let limits = Self.installedEditorSettings
        guard settings.count <= limits.count, settings.allSatisfy({ $0.utf8.count <= limits.bytes }) else {
            throw LibraryError(
                .invalidRequest, "an editor takes at most \(limits.count) settings of \(limits.bytes) bytes each")
        }
        guard let installed = installedEditors().editor(withIdentifier: identifier) else {
            throw LibraryError(.editorNotFound, "no installed editor has the identifier \(identifier)")
        }
        guard installed.canEdit(asset) else {
            throw LibraryError(
                .invalidRequest,
                "the editor \(identifier) does not edit \(asset.mediaType == .video ? "movies" : "photos")")
        }
        return installed.controller(filters: settings)
    }
}
