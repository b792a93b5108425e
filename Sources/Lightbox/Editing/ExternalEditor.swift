import Foundation
import LightboxImaging
import LightboxMetadata
import LightboxStore
import Synchronization

/// An editor that is another program: the Linux counterpart of a photo editing extension.
/// It speaks the small JSON protocol of docs/EDITORS.md on its standard input and output, one
/// request per run, and runs under a memory limit and a time limit; past either it is stopped,
/// and the asset is left as it was.
///
/// ```swift
/// let editor = ExternalEditor(program: "/usr/local/bin/my-editor", filters: ["grain=0.3"])
/// let edited = try await library.edit(asset, with: editor)
/// ```
public final class ExternalEditor: ContentEditingController {
    /// The protocol version Lightbox speaks.
    public static let protocolVersion = 1

    /// The program and its own arguments.
    public let program: String
    public let arguments: [String]
    /// `NAME=VALUE` settings passed to the program with the edit request.
    public let filters: [String]
    /// The installed editor it runs, when it was found by its manifest.
    public let installed: InstalledEditor?
    /// The most memory the program may use, in bytes (512 MiB by default).
    public let memoryLimit: Int
    /// The longest an edit may take, in seconds (60 by default); a `canHandle` question gets
    /// at most 10 seconds of it.
    public let timeLimit: Double

    private struct State {
        var input: ContentEditingInput?
        var placeholder: EncodedImage?
        var canHandle: [AdjustmentData: Bool] = [:]
        /// Whether the program is editing: cancelling now loses its work.
        var running = false
    }
    private let state = Mutex(State())
    private let cancellation = LimitedProcess.Cancellation()

    public init(
        program: String, arguments: [String] = [], filters: [String] = [], memoryLimit: Int = 512 << 20,
        timeLimit: Double = 60
    ) {
        self.program = program
        self.arguments = arguments
        self.filters = filters
        self.memoryLimit = memoryLimit
        self.timeLimit = timeLimit
        installed = nil
    }

    /// Runs an installed editor, with its manifest's program, arguments and limits.
    public init(installed editor: InstalledEditor, filters: [String] = []) {
        program = editor.programPath
        arguments = editor.manifest.arguments
        self.filters = filters
        memoryLimit = editor.manifest.memoryLimit
        timeLimit = editor.manifest.timeLimit
        installed = editor
    }

    /// How errors name it: an installed editor by its name, a program by its path.
    private var title: String { installed.map { "\($0.manifest.name) (\($0.identifier))" } ?? program }

    /// Asks the program; a program that fails to answer cannot handle it. An installed editor
    /// is asked only of the formats its manifest declares.
    public func canHandle(_ adjustmentData: AdjustmentData) -> Bool {
        if let installed, !installed.manifest.adjustmentFormats.contains(adjustmentData.formatIdentifier) {
            return false
        }
        if let known = state.withLock({ $0.canHandle[adjustmentData] }) { return known }
        let request: [String: Any] = [
            "protocol": Self.protocolVersion, "action": "canHandle", "adjustmentData": Self.json(adjustmentData),
        ]
        // The question gets a folder of its own to write in (temporary files), removed after.
        let folder = ProcessFolder.makeTemporaryFolder("ask")
        defer { try? FileManager.default.removeItem(at: folder) }
        let answer =
            (try? parse(run(Self.encode(request), seconds: min(10, timeLimit), writable: folder.path)))?["canHandle"]
            as? Bool ?? false
        state.withLock { $0.canHandle[adjustmentData] = answer }
        return answer
    }

    public func startContentEditing(with input: ContentEditingInput, placeholderImage: EncodedImage?) async throws {
        if let installed, !installed.manifest.mediaTypes.contains(input.mediaType) {
            throw LibraryError(
                .invalidRequest,
                "the editor \(title) does not edit \(input.mediaType == .video ? "movies" : "photos") (its manifest's mediaTypes)"
            )
        }
        state.withLock {
            $0.input = input
            $0.placeholder = placeholderImage
        }
    }

    public func finishContentEditing() async throws -> ContentEditingOutput {
        let (started, placeholder) = state.withLock { ($0.input, $0.placeholder) }
        guard let input = started else {
            throw LibraryError(.invalidRequest, "the editor has not been started")
        }
        var output = ContentEditingOutput(contentEditingInput: input)
        let folder = output.renderedContentURL.deletingLastPathComponent().path
        do {
            // The display-size image, for an editor that previews or works small first.
            let display = folder + "/display.jpg"
            let image = try input.displaySizeImage.encoded(quality: 90)
            try FileIO.writeAtomically(image.bytes, to: display)
            // The editor reads copies: a program that writes where it should read cannot reach
            // the library's files.
            var inputs: [String: Any] = [
                "displaySizeImage": display, "uniformTypeIdentifier": input.uniformTypeIdentifier,
                "mediaType": input.mediaType == .video ? "video" : "image",
                "creationDate": ISO8601.string(from: input.creationDate, offsetSeconds: 0),
                "adjustmentData": input.adjustmentData.map(Self.json) ?? NSNull(),
            ]
            if let image = input.fullSizeImageURL {
                inputs["fullSizeImage"] = try Self.readOnlyCopy(of: image.path, in: folder, as: "input")
                inputs["orientation"] = input.fullSizeImageOrientation
            }
            if let movie = input.audiovisualAssetURL {
                inputs["movie"] = try Self.readOnlyCopy(of: movie.path, in: folder, as: "input")
            }
            if let placeholder {
                // What the host shows now, for an editor with a window to show while it loads.
                let path = folder + "/placeholder." + (placeholder.format == .webp ? "webp" : "jpg")
                try FileIO.writeAtomically(placeholder.bytes, to: path)
                inputs["placeholderImage"] = path
            }
            var outputs = ["renderedContent": output.renderedContentURL.path]
            if let movie = input.livePhotoMovieURL {
                inputs["livePhotoMovie"] = try Self.readOnlyCopy(of: movie.path, in: folder, as: "input-movie")
                outputs["renderedLivePhotoMovie"] = output.renderedLivePhotoMovieURL.path
            }
            let request: [String: Any] = [
                "protocol": Self.protocolVersion, "action": "edit", "filters": filters, "input": inputs,
                "output": outputs,
            ]
            let bytes = Self.encode(request)
            state.withLock { $0.running = true }
            defer { state.withLock { $0.running = false } }
            let answered = try await EditingWork.run { [self] in try run(bytes, seconds: timeLimit, writable: folder) }
            let answer = try parse(answered)
            guard let data = answer["adjustmentData"] as? [String: Any], let adjustment = Self.adjustmentData(data)
            else {
                throw LibraryError(
                    .invalidRequest,
                    "the editor \(title) answered without adjustmentData {formatIdentifier, formatVersion, data}")
            }
            guard FileIO.fileExists(output.renderedContentURL.path) else {
                throw LibraryError(
                    .invalidRequest, "the editor \(title) wrote no render to \(output.renderedContentURL.path)")
            }
            // What the editor made is read with the care of any untrusted file: a pipe would
            // hang the read.
            try FileIO.requireRegularFile(output.renderedContentURL.path)
            if let movie = input.livePhotoMovieURL, let image = input.fullSizeImageURL,
                FileIO.fileExists(output.renderedLivePhotoMovieURL.path)
            {
                try FileIO.requireRegularFile(output.renderedLivePhotoMovieURL.path)
                let (still, edited) = (image.path, output.renderedLivePhotoMovieURL.path)
                try await EditingWork.run {
                    try LivePhotoEditingContext.pair(movieAt: edited, still: still, sourceMovie: movie.path)
                }
            }
            output.adjustmentData = adjustment
            return output
        } catch {
            output.discard()
            throw error
        }
    }

    /// Stops the program if it is running; the asset stays as it was.
    public func cancelContentEditing() {
        cancellation.cancel()
    }

    /// True while the program edits: cancelling then throws its work away.
    public var shouldShowCancelConfirmation: Bool { state.withLock { $0.running } }

    /// A copy of `path` in `folder`, named `name` with the file's extension, that only its
    /// owner can read.
    private static func readOnlyCopy(of path: String, in folder: String, as name: String) throws -> String {
        let ext = PathString.pathExtension(path)
        let copy = folder + "/" + name + (ext.isEmpty ? "" : "." + ext)
        _ = try FileIO.copyAndSync(from: path, to: copy, permissions: 0o400, syncing: false)
        return copy
    }

    // MARK: - Running the program

    private static func encode(_ request: [String: Any]) -> [UInt8] {
        [UInt8]((try? JSONSerialization.data(withJSONObject: request, options: [.sortedKeys])) ?? Data())
    }

    /// One request, one answer: what the program wrote on its standard output, or a clear
    /// error when it failed or was stopped.
    private func run(_ bytes: [UInt8], seconds: Double, writable: String) throws -> [UInt8] {
        let limits = LimitedProcess.Limits(memoryBytes: memoryLimit, seconds: seconds)
        let outcome = try LimitedProcess.run(
            [program] + arguments, input: bytes, limits: limits, writable: writable, cancellation: cancellation)
        let megabytes = memoryLimit >> 20
        let said =
            outcome.standardErrorTail.isEmpty
            ? "" : ": \(outcome.standardErrorTail.split(separator: "\n").suffix(3).joined(separator: " / "))"
        switch outcome.ending {
        case .timedOut:
            throw LibraryError(
                .invalidRequest,
                "the editor \(title) was stopped: it ran past its time limit of \(Self.format(seconds)) s")
        case .outOfMemory:
            throw LibraryError(
                .invalidRequest,
                "the editor \(title) was stopped: it used more than its memory limit of \(megabytes) MiB")
        case .cancelled:
            throw LibraryError(.cancelled, "the edit was cancelled; the editor \(title) was stopped")
        case .signalled(let signal):
            throw LibraryError(
                .invalidRequest,
                "the editor \(title) died (signal \(signal)) under its memory limit of \(megabytes) MiB\(said)")
        case .exited(let status) where status != 0:
            let memory =
                Self.mentionsMemory(outcome.standardErrorTail)
                ? " It ran out of memory: its limit is \(megabytes) MiB." : ""
            throw LibraryError(.invalidRequest, "the editor \(title) failed (exit status \(status))\(said).\(memory)")
        case .exited:
            return outcome.standardOutput
        }
    }

    /// The program's answer: a JSON object, which may carry an error.
    private func parse(_ output: [UInt8]) throws -> [String: Any] {
        guard let answer = try? JSONSerialization.jsonObject(with: Data(output)) as? [String: Any] else {
            throw LibraryError(.invalidRequest, "the editor \(title) did not answer with a JSON object")
        }
        if let message = answer["error"] as? String {
            throw LibraryError(.invalidRequest, "the editor \(title) refused: \(message)")
        }
        return answer
    }

    private static func mentionsMemory(_ text: String) -> Bool {
        let lower = text.lowercased()
        return ["memoryerror", "out of memory", "cannot allocate memory", "bad_alloc", "allocation failed"].contains {
            lower.contains($0)
        }
    }

    private static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? "\(Int(seconds))" : String(format: "%.1f", seconds)
    }

    static func json(_ data: AdjustmentData) -> [String: Any] {
        [
            "formatIdentifier": data.formatIdentifier, "formatVersion": data.formatVersion,
            "data": data.data.base64EncodedString(),
        ]
    }

    static func adjustmentData(_ object: [String: Any]) -> AdjustmentData? {
        guard let identifier = object["formatIdentifier"] as? String, let version = object["formatVersion"] as? String,
            let base64 = object["data"] as? String, let data = Data(base64Encoded: base64)
        else { return nil }
        return AdjustmentData(formatIdentifier: identifier, formatVersion: version, data: data)
    }
}
